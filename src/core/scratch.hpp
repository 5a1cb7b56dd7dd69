// Scratch bytes of an algorithm (forwarding slots, working buffers): malloc'd,
// uninitialised, grown geometrically. Not std::vector<char>, for two reasons:
//  - a failed allocation is a return value the algorithm turns into
//    MPI_ERR_NO_MEM before it starts communicating, not an exception that
//    would leave the library through a C function;
//  - under SimGrid SMPI, malloc is SimGrid's, so `smpi/auto-shared-malloc-thresh`
//    can share large scratch buffers between simulated ranks (timing-only runs
//    at P=1024 and 16 KiB blocks need that to fit in memory; see sim/README.md).
#ifndef MPIX_CORE_SCRATCH_HPP
#define MPIX_CORE_SCRATCH_HPP

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace mpix {

class ScratchPool;

class ScratchBytes {
public:
    ScratchBytes() = default;
    // Bound to a communicator's pool: a buffer of kPooledFrom bytes or more comes
    // from `pool` when there is one there, and goes back to it when this ends
    // (ScratchPool says why). The pool must outlive this.
    explicit ScratchBytes(ScratchPool *pool) : pool_(pool) {}
    ~ScratchBytes();
    ScratchBytes(const ScratchBytes &) = delete;
    ScratchBytes &operator=(const ScratchBytes &) = delete;
    // Moving keeps data() where it was (a vector of them may grow).
    ScratchBytes(ScratchBytes &&other) noexcept;
    ScratchBytes &operator=(ScratchBytes &&other) noexcept;

    // Size n; the first min(old size, n) bytes are kept, the rest is
    // uninitialised. Returns false (and changes nothing) when out of memory.
    bool resize(std::size_t n);
    // Size 0, the memory kept for the next resize (ScratchStore::recycle).
    void reset_size() { size_ = 0; }
    // Size 0 and bound to `pool`: memory under kPooledFrom is kept for the next
    // resize (no malloc a call for a buffer used on every call); larger
    // buffers go back to their pool (or are freed where they had none).
    void reset_for(ScratchPool *pool) noexcept
    {
        if (pool_ != pool || capacity_ >= kPooledFrom) {
            release();
            pool_ = pool;
        }
        size_ = 0;
    }
    char *data() { return data_; }
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }

    // Below this a freed buffer stays in malloc's heap and comes back warm;
    // from glibc's mmap threshold (128 KiB, raised to a freed block's size, and
    // the heap's top trimmed past twice that) it goes back to the kernel, and
    // the next call faults every page in again.
    static constexpr std::size_t kPooledFrom = std::size_t(64) << 10;

private:
    friend class ScratchPool;
    bool grow(std::size_t n);
    void release() noexcept;  // back to the pool, or freed
    char *data_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0;
    ScratchPool *pool_ = nullptr;
};

// Scratch buffers kept on a communicator from one call to the next, so that a
// call's large working buffers are not fresh memory every time (fresh pages
// fault in on first touch: measured at P=2, 1 MiB blocks, 900 page faults per
// call and 8x the time for a row that allocated its buffers per call). A new
// buffer is made only when none is kept, so the pool holds at most the most
// buffers one call had in use at once (up to kKept), each at the largest size
// it was grown to; freed with the communicator. A fixed small count is not
// enough: ParLinNa at 4 ranks has 6 in use, and a pool of 4 made 2 afresh on
// every call.
// Buffers under kPooledFrom are kept apart, in a few slots scanned in place:
// the Bruck rows take 2-3 of them on every call, and the ordered map's lookup,
// node moves and rebalancing cost about 900 instructions a call at 16 B
// (bruck_basic at P=2, 3,457 in all; bench/cpu-per-call).
class ScratchPool {
public:
    ScratchPool() = default;
    ~ScratchPool();
    ScratchPool(const ScratchPool &) = delete;
    ScratchPool &operator=(const ScratchPool &) = delete;
    // A buffer of n bytes (contents undefined) into *out: the smallest kept one
    // that holds n, else the largest kept one grown, else a new one; kept ones
    // of its own kind only (under kPooledFrom or not), so that a small request
    // does not hold a large buffer another call could use. False when out of
    // memory.
    bool take(std::size_t n, ScratchBytes *out);
    // Keeps b (while fewer than kKept are kept; else the smallest of them and b
    // is freed); never throws: a buffer it cannot keep is freed.
    void give(ScratchBytes b) noexcept;
    // As give, taking *b's memory in place and leaving *b empty (its pool
    // binding kept).
    void give_back(ScratchBytes *b) noexcept;
    // Moves the smallest kept buffer that holds n, else the largest, into an
    // empty *out (which keeps its own pool binding); false when none is kept.
    bool lend(std::size_t n, ScratchBytes *out);
    // Buffers kept now, and their bytes (for tests).
    std::size_t kept_count();
    std::size_t kept_bytes();

    // Small buffers (under kPooledFrom) kept at once; a further one evicts the
    // smallest, or is freed.
    static constexpr std::size_t kSmallKept = 8;

private:
    static constexpr std::size_t kKept = 1024;
    // Moves a kept small buffer (the smallest that holds n, else the largest)
    // into an empty *out; false when none is kept. Called with mutex_ held.
    bool lend_small(std::size_t n, ScratchBytes *out);
    // Nonblocking requests on one communicator may progress on another thread
    // (a progress thread, MPI_THREAD_MULTIPLE) while a call starts here.
    std::mutex mutex_;
    using Kept = std::multimap<std::size_t, ScratchBytes>;
    Kept kept_;  // by capacity, kPooledFrom bytes or more
    std::vector<Kept::node_type> spare_nodes_;  // emptied by lend, reused by give
    struct SmallKept {
        char *data = nullptr;  // nullptr: an empty slot
        std::size_t capacity = 0;
    };
    std::array<SmallKept, kSmallKept> small_{};
};

// A buffer taken from a pool for one scope and given back when the scope ends.
class PooledScratch {
public:
    explicit PooledScratch(ScratchPool *pool) : pool_(pool) {}
    ~PooledScratch()
    {
        if (bytes_.capacity() > 0)
            pool_->give_back(&bytes_);
    }
    PooledScratch(const PooledScratch &) = delete;
    PooledScratch &operator=(const PooledScratch &) = delete;
    bool take(std::size_t n) { return pool_->take(n, &bytes_); }
    char *data() { return bytes_.data(); }
    std::size_t size() const { return bytes_.size(); }

private:
    ScratchPool *pool_;
    ScratchBytes bytes_;
};

// The buffers of one call's packed sends and received messages, each kept at
// its address until the store ends or is cleared; bound to a communicator's
// pool (or none), so that large ones are the warm buffers of the calls before
// (ScratchBytes::kPooledFrom). What isend_ranges and UnknownSizeReceives append to.
class ScratchStore {
public:
    explicit ScratchStore(ScratchPool *pool = nullptr) : pool_(pool) {}
    ScratchStore(const ScratchStore &) = delete;
    ScratchStore &operator=(const ScratchStore &) = delete;
    ScratchStore(ScratchStore &&other) noexcept
        : pool_(other.pool_), bufs_(std::move(other.bufs_)), used_(other.used_)
    {
        other.bufs_.clear();
        other.used_ = 0;
    }
    ScratchStore &operator=(ScratchStore &&other) noexcept
    {
        if (this != &other) {
            pool_ = other.pool_;
            bufs_ = std::move(other.bufs_);
            used_ = other.used_;
            other.bufs_.clear();
            other.used_ = 0;
        }
        return *this;
    }
    // A new empty buffer at the end (std::bad_alloc where there is no memory):
    // one that recycle() kept where there is one, so its memory is reused.
    ScratchBytes &emplace_back()
    {
        if (used_ < bufs_.size()) {
            ScratchBytes &b = bufs_[used_++];
            b.reset_size();
            return b;
        }
        ScratchBytes &b = bufs_.emplace_back(pool_);
        ++used_;
        return b;
    }
    // At least `count` buffers, those added empty.
    void extend_to(std::size_t count)
    {
        if (bufs_.size() < count)
            bufs_.reserve(count);
        while (used_ < count)
            emplace_back();
    }
    ScratchBytes &back() { return bufs_[used_ - 1]; }
    ScratchBytes &operator[](std::size_t i) { return bufs_[i]; }
    std::size_t size() const { return used_; }
    bool empty() const { return used_ == 0; }
    std::size_t capacity() const { return bufs_.capacity(); }
    void reserve(std::size_t n) { bufs_.reserve(n); }
    // Frees every buffer (those from kPooledFrom back to the pool).
    void clear()
    {
        bufs_.clear();
        used_ = 0;
    }
    // Empties the store for its next use but keeps the memory of its buffers
    // under kPooledFrom, which emplace_back hands out again: a store kept from
    // call to call (a plan's lists) then allocates nothing for its small
    // messages (node_bruck at 16 ranks, 16 B: 12 mallocs a call and rank before).
    // Larger buffers go back to the pool, as clear() does, so that other calls
    // on the communicator can use them. Only once nothing in flight reads or
    // writes any of its buffers.
    void recycle() noexcept
    {
        for (std::size_t k = 0; k < used_; ++k)
            bufs_[k].reset_for(pool_);
        used_ = 0;
    }
    // Buffers made from now on come from `pool`; kept ones bound to another
    // pool are freed (call it with nothing in use).
    void bind(ScratchPool *pool)
    {
        if (pool != pool_)
            clear();
        pool_ = pool;
    }
    ScratchPool *pool() const { return pool_; }

private:
    ScratchPool *pool_;
    std::vector<ScratchBytes> bufs_;
    std::size_t used_ = 0;  // bufs_[used_..] are kept by recycle() for reuse
};

// A store kept from call to call (on a plan's lists), in use for one scope:
// bound to `pool` and recycled when the scope starts and again when it ends
// (every return), so between calls it keeps only its small buffers and its
// large ones are in the pool for any call on the communicator.
class StoreForCall {
public:
    StoreForCall(ScratchStore *store, ScratchPool *pool) : store_(store)
    {
        store_->bind(pool);
        store_->recycle();
    }
    ~StoreForCall() { store_->recycle(); }
    StoreForCall(const StoreForCall &) = delete;
    StoreForCall &operator=(const StoreForCall &) = delete;
    ScratchStore &operator*() const { return *store_; }

private:
    ScratchStore *store_;
};

// Per-call lists (vectors, vectors of vectors) an algorithm keeps on its cached
// plan from one call to the next, so that their capacity is reused instead of
// allocated again on every call. Calls in flight at once (nonblocking requests
// on one communicator) each lease their own T.
template <class T>
class SpareLists {
public:
    // A spare T, else a new one (std::bad_alloc where there is no memory).
    std::unique_ptr<T> take()
    {
        if (spare_.empty())
            return std::unique_ptr<T>(new T());
        std::unique_ptr<T> t = std::move(spare_.back());
        spare_.pop_back();
        return t;
    }
    void give(std::unique_ptr<T> t) noexcept
    {
        try {
            spare_.push_back(std::move(t));
        } catch (const std::bad_alloc &) {
            // not kept: a later call makes a new one
        }
    }

private:
    std::vector<std::unique_ptr<T>> spare_;
};

// A T of `lists` for one scope, given back when the scope ends.
template <class T>
class LeasedLists {
public:
    explicit LeasedLists(SpareLists<T> *lists) : lists_(lists), t_(lists->take()) {}
    ~LeasedLists() { lists_->give(std::move(t_)); }
    LeasedLists(const LeasedLists &) = delete;
    LeasedLists &operator=(const LeasedLists &) = delete;
    T *operator->() const { return t_.get(); }
    T &operator*() const { return *t_; }

private:
    SpareLists<T> *lists_;
    std::unique_ptr<T> t_;
};

// n empty lists, keeping the capacity of those already there.
template <class T>
void empty_lists(std::vector<std::vector<T>> *lists, std::size_t n)
{
    lists->resize(n);
    for (std::vector<T> &l : *lists)
        l.clear();
}

}  // namespace mpix

#endif
