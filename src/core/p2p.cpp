#include "core/p2p.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

#include "config.h"
#include "core/cpu_count.hpp"
#include "core/error.hpp"
#include "core/wait.hpp"

namespace mpix {

namespace {

constexpr std::size_t kChunk = std::size_t(1) << 30;

// A datatype of exactly `bytes` bytes, for lengths beyond INT_MAX.
int big_bytes_type(std::size_t bytes, MPI_Datatype *type)
{
    MPI_Datatype chunks;
    int nchunks = static_cast<int>(bytes / kChunk);
    int rest = static_cast<int>(bytes % kChunk);
    MPIX_CHECK(MPI_Type_vector(nchunks, static_cast<int>(kChunk), static_cast<int>(kChunk), MPI_BYTE, &chunks));
    int lens[2] = {1, rest};
    MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(nchunks) * static_cast<MPI_Aint>(kChunk)};
    MPI_Datatype types[2] = {chunks, MPI_BYTE};
    int rc = MPI_Type_create_struct(rest ? 2 : 1, lens, displs, types, type);
    MPI_Type_free(&chunks);
    MPIX_CHECK(rc);
    return MPI_Type_commit(type);
}

// Calls op(buf, count, type) with an int count of MPI_BYTE, or one big type.
template <class Op>
int with_byte_type(std::size_t bytes, Op op)
{
    cpu_charge();  // every message the library posts: its work so far first
    if (bytes <= static_cast<std::size_t>(INT_MAX))
        return op(static_cast<int>(bytes), MPI_BYTE);
    MPI_Datatype type;
    MPIX_CHECK(big_bytes_type(bytes, &type));
    int rc = op(1, type);
    MPI_Type_free(&type);  // safe: pending operations keep their own reference
    return rc;
}

}  // namespace

int byte_ranges_type(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct,
                     char **base, MPI_Datatype *type)
{
    *type = MPI_DATATYPE_NULL;
    *base = nullptr;
    if (addrs.empty())
        return MPI_SUCCESS;
    // Displacements relative to the lowest address: MPI_BOTTOM is not usable with
    // every MPI (SimGrid SMPI defines it as a bogus pointer).
    // Zero-length ranges are left out: their address may be anything, even null
    // (an empty staging buffer), and must not become the base.
    char *low = nullptr;
    for (std::size_t i = 0; i < addrs.size(); ++i)
        if (lens[i] > 0 && (!low || addrs[i] < low))
            low = addrs[i];
    if (!low)
        return MPI_SUCCESS;  // nothing to move
    constexpr std::size_t kChunk = std::size_t(1) << 30;
    std::vector<int> blens;
    std::vector<MPI_Aint> displs;
    blens.reserve(addrs.size());
    displs.reserve(addrs.size());
    for (std::size_t i = 0; i < addrs.size(); ++i) {
        if (lens[i] == 0)
            continue;
        MPI_Aint d = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(addrs[i]) -
                                           reinterpret_cast<std::uintptr_t>(low));
        for (std::size_t left = lens[i]; left > 0;) {
            std::size_t n = left < kChunk ? left : kChunk;
            blens.push_back(static_cast<int>(n));
            displs.push_back(d);
            d += static_cast<MPI_Aint>(n);
            left -= n;
        }
    }
    int count = static_cast<int>(blens.size());
    if (use_struct) {
        std::vector<MPI_Datatype> types(blens.size(), MPI_BYTE);
        MPIX_CHECK(MPI_Type_create_struct(count, blens.data(), displs.data(), types.data(), type));
    } else {
        MPIX_CHECK(MPI_Type_create_hindexed(count, blens.data(), displs.data(), MPI_BYTE, type));
    }
    *base = low;
    return MPI_Type_commit(type);
}

namespace {

// Counts the ranges that hold bytes: *only is the last of them, *total their
// bytes. Ranges that follow each other in memory count as one (*only then the
// first of them), so a message whose blocks lie back to back in the caller's
// buffer goes from there with no datatype (RangeList joins them as it is built
// for isend_ranges).
std::size_t nonzero_ranges(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens,
                           std::size_t *only, std::size_t *total)
{
    // Without a branch a range (selects, not jumps): this runs for every block a
    // message forwards (sim/README.md, "The library's CPU per peer cut").
    const char *const *a = addrs.data();
    const std::size_t *l = lens.data();
    const std::size_t n = lens.size();
    std::size_t runs = 0, first = 0, sum = 0;
    const char *end = nullptr;  // one past the previous nonzero range
    for (std::size_t i = 0; i < n; ++i) {
        const bool nonzero = l[i] > 0;
        const bool starts = nonzero & ((runs == 0) | (a[i] != end));
        runs += starts;
        first = starts ? i : first;
        end = nonzero ? a[i] + l[i] : end;
        sum += l[i];
    }
    *only = first;
    *total = sum;
    return runs;
}

// isend_ranges_datatype (send) or irecv_ranges_datatype.
int datatype_ranges_op(bool send, const std::vector<char *> &addrs, const std::vector<std::size_t> &lens,
                       bool use_struct, int peer, int tag, MPI_Comm comm, LocalWork *work, MPI_Request *req,
                       const int *relay_mismatch = nullptr)
{
    *req = MPI_REQUEST_NULL;
    std::size_t only, total;
    const std::size_t nonzero = nonzero_ranges(addrs, lens, &only, &total);
    if (nonzero == 0)
        return MPI_SUCCESS;
    if (send && relay_length(total, relay_mismatch) == 0)  // still posted: the receiver waits for it
        return isend_bytes(nullptr, 0, peer, tag, comm, req);
    if (nonzero == 1)  // one range: no datatype needed
        return send ? isend_bytes(addrs[only], total, peer, tag, comm, req)
                    : irecv_bytes(addrs[only], total, peer, tag, comm, req);
    // Charged before the send is posted (its bytes leave after the packing). A
    // receive's unpacking really follows the arrival, inside the wait; it is
    // charged when posted instead (at the cost of placing that time before the
    // transfer rather than after it).
    work->note(total, nonzero);
    char *base;
    MPI_Datatype type;
    MPIX_CHECK(byte_ranges_type(addrs, lens, use_struct, &base, &type));
    cpu_charge();
    int rc = send ? MPI_Isend(base, 1, type, peer, tag, comm, req) : MPI_Irecv(base, 1, type, peer, tag, comm, req);
    MPI_Type_free(&type);  // pending operations keep their own reference
    return rc;
}

}  // namespace

int isend_ranges(const RangeList &ranges, int peer, int tag, MPI_Comm comm, LocalWork *work, ScratchStore *store,
                 MPI_Request *req, const int *relay_mismatch)
{
    *req = MPI_REQUEST_NULL;
    const std::size_t n = ranges.size(), total = ranges.total();
    if (n == 0)
        return MPI_SUCCESS;
    if (relay_length(total, relay_mismatch) == 0)  // still posted: the receiver waits for it
        return isend_bytes(nullptr, 0, peer, tag, comm, req);
    const Piece *piece = ranges.data();
    if (n == 1)
        return isend_bytes(piece[0].data, total, peer, tag, comm, req);
    store->emplace_back();
    ScratchBytes &packed = store->back();
    if (!packed.resize(total))
        return MPI_ERR_NO_MEM;
    // A copy a range (RangeList joined those that continue each other), small
    // ones inline, and the whole packing noted once.
    char *at = packed.data();
    std::size_t small = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t bytes = piece[i].bytes;
        if (bytes <= kSmallCopyBytes) {
            copy_small(at, piece[i].data, bytes);
            ++small;
        } else {
            std::memcpy(at, piece[i].data, bytes);
        }
        at += bytes;
    }
    work->note(total, n, small, n);
    return isend_bytes(packed.data(), total, peer, tag, comm, req);
}

int isend_ranges_datatype(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct,
                          int peer, int tag, MPI_Comm comm, LocalWork *work, MPI_Request *req,
                          const int *relay_mismatch)
{
    return datatype_ranges_op(true, addrs, lens, use_struct, peer, tag, comm, work, req, relay_mismatch);
}

int irecv_ranges_datatype(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct,
                          int peer, int tag, MPI_Comm comm, LocalWork *work, MPI_Request *req)
{
    return datatype_ranges_op(false, addrs, lens, use_struct, peer, tag, comm, work, req);
}

int isend_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req)
{
    return with_byte_type(bytes, [&](int n, MPI_Datatype t) { return MPI_Isend(buf, n, t, peer, tag, comm, req); });
}

int issend_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req)
{
    return with_byte_type(bytes, [&](int n, MPI_Datatype t) { return MPI_Issend(buf, n, t, peer, tag, comm, req); });
}

int irecv_bytes(void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req)
{
    return with_byte_type(bytes, [&](int n, MPI_Datatype t) { return MPI_Irecv(buf, n, t, peer, tag, comm, req); });
}

int send_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm)
{
    if (wait_context()) {  // in a task: waits through the engine
        MPI_Request req;
        MPIX_CHECK(isend_bytes(buf, bytes, peer, tag, comm, &req));
        return wait_request(&req, MPI_STATUS_IGNORE);
    }
    return with_byte_type(bytes, [&](int n, MPI_Datatype t) { return MPI_Send(buf, n, t, peer, tag, comm); });
}

int recv_bytes(void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm)
{
    if (wait_context()) {
        MPI_Request req;
        MPIX_CHECK(irecv_bytes(buf, bytes, peer, tag, comm, &req));
        return wait_request(&req, MPI_STATUS_IGNORE);
    }
    return with_byte_type(bytes, [&](int n, MPI_Datatype t) {
        return MPI_Recv(buf, n, t, peer, tag, comm, MPI_STATUS_IGNORE);
    });
}

RidingMax::RidingMax(std::uint64_t *value, int count, int tag, MPI_Comm comm)
    : value_(value), count_(count), tag_(tag), comm_(comm), in_(static_cast<std::size_t>(count)),
      out_(static_cast<std::size_t>(count))
{
    MPI_Comm_size(comm, &size_);
    MPI_Comm_rank(comm, &rank_);
}

int RidingMax::post(std::vector<MPI_Request> *reqs, std::vector<std::size_t> *expected)
{
    if (posted_ || distance_ >= size_)
        return MPI_SUCCESS;
    std::copy(value_, value_ + count_, out_.begin());
    cpu_charge();
    reqs->emplace_back();
    expected->push_back(kNotChecked);
    MPIX_CHECK(MPI_Irecv(in_.data(), count_, MPI_UINT64_T, (rank_ - distance_ + size_) % size_, tag_, comm_,
                         &reqs->back()));
    reqs->emplace_back();
    expected->push_back(kNotChecked);
    MPIX_CHECK(MPI_Isend(out_.data(), count_, MPI_UINT64_T, (rank_ + distance_) % size_, tag_, comm_, &reqs->back()));
    posted_ = true;
    return MPI_SUCCESS;
}

void RidingMax::fold()
{
    if (!posted_)
        return;
    for (int i = 0; i < count_; ++i)
        value_[i] = std::max(value_[i], in_[static_cast<std::size_t>(i)]);
    posted_ = false;
    distance_ *= 2;
}

int RidingMax::finish()
{
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    reqs.reserve(2);  // a round's two messages: one allocation each, not two
    expected.reserve(2);
    while (distance_ < size_) {
        reqs.clear();
        expected.clear();
        MPIX_CHECK(post(&reqs, &expected));
        MPIX_CHECK(wait_requests(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
        fold();
    }
    return MPI_SUCCESS;
}

int agree_max(std::uint64_t *value, int tag, MPI_Comm comm, int count)
{
    RidingMax rounds(value, count, tag, comm);  // every round on its own
    return rounds.finish();
}

int agree_gather(const std::uint64_t *mine, int width, int tag, MPI_Comm comm, const std::vector<int> &group, int me,
                 std::vector<std::uint64_t> *all)
{
    const int n = static_cast<int>(group.size());
    const std::size_t w = static_cast<std::size_t>(width);
    // Record k of *all: the values of group index me + k (mod n).
    all->assign(mine, mine + w);
    all->reserve(static_cast<std::size_t>(n) * w);
    std::vector<std::uint64_t> in;
    in.reserve(static_cast<std::size_t>(n / 2 + 1) * w);  // the largest round's: one allocation
    for (int k = 1; k < n; k *= 2) {
        const int count = std::min(k, n - k) * width;
        in.resize(static_cast<std::size_t>(count));
        cpu_charge();
        MPI_Request reqs[2];
        MPIX_CHECK(MPI_Irecv(in.data(), count, MPI_UINT64_T, group[(me + k) % n], tag, comm, &reqs[0]));
        MPIX_CHECK(MPI_Isend(all->data(), count, MPI_UINT64_T, group[(me - k + n) % n], tag, comm, &reqs[1]));
        MPIX_CHECK(wait_requests(2, reqs, MPI_STATUSES_IGNORE));
        all->insert(all->end(), in.begin(), in.end());
    }
    return MPI_SUCCESS;
}

int agree_sum(std::uint64_t *value, int tag, MPI_Comm comm, const std::vector<int> &group, int me)
{
    std::vector<std::uint64_t> values;
    MPIX_CHECK(agree_gather(value, 1, tag, comm, group, me, &values));
    std::uint64_t sum = 0;
    for (std::uint64_t v : values)
        sum += v;
    *value = sum;
    return MPI_SUCCESS;
}

int received_bytes(MPI_Status *st, std::size_t *bytes)
{
    int n = 0;
    MPIX_CHECK(MPI_Get_count(st, MPI_BYTE, &n));
    MPI_Count big = n;
#if !MPIX_SMPI  // SimGrid SMPI lacks MPI_Get_elements_x (and messages over 2 GiB)
    if (n == MPI_UNDEFINED)
        MPIX_CHECK(MPI_Get_elements_x(st, MPI_BYTE, &big));
#endif
    if (big == MPI_UNDEFINED || big < 0)
        return MPI_ERR_COUNT;
    *bytes = static_cast<std::size_t>(big);
    return MPI_SUCCESS;
}

namespace {

// A completed receive's result `rc`: a truncation or another length than
// `expected` is noted in *mismatch and becomes MPI_SUCCESS.
int check_receive(int rc, MPI_Status *st, std::size_t expected, int *mismatch)
{
    if (rc != MPI_SUCCESS) {
        int errclass = MPI_ERR_OTHER;
        MPI_Error_class(rc, &errclass);
        if (errclass != MPI_ERR_TRUNCATE)
            return rc;
        note_mismatch(mismatch, MPI_ERR_TRUNCATE);
        return MPI_SUCCESS;
    }
    std::size_t got = 0;
    MPIX_CHECK(received_bytes(st, &got));
    if (got != expected)
        note_mismatch(mismatch, got > expected ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
    return MPI_SUCCESS;
}

}  // namespace

void free_requests(std::vector<MPI_Request> &requests)
{
    for (MPI_Request &r : requests)
        if (r != MPI_REQUEST_NULL)
            MPI_Request_free(&r);
    requests.clear();
}

namespace {

// rc is an error of class `cls` (MPI_ERR_IN_STATUS, MPI_ERR_PENDING).
bool error_of_class(int rc, int cls)
{
    if (rc == MPI_SUCCESS)
        return false;
    if (rc == cls)
        return true;
    int c = MPI_ERR_OTHER;
    MPI_Error_class(rc, &c);
    return c == cls;
}

// Completes requests[0..count) as MPI_Waitall does, in runs of kWaitRun with
// their statuses on the stack (no allocation a call), and hands each request's
// own result and status to done(i, rc, status), which returns the error to
// report; returns the first. Every request completes, even after an error (one
// MPI_Waitall left pending is waited for alone): none stays active for a
// persistent request's next start.
constexpr int kWaitRun = 64;
template <class Done>
int wait_in_runs(int count, MPI_Request *reqs, Done &&done)
{
    MPI_Status statuses[kWaitRun];
    int first_error = MPI_SUCCESS;
    for (int at = 0; at < count; at += kWaitRun) {
        const int n = std::min(kWaitRun, count - at);
        const int rc = wait_all_requests(n, reqs + at, statuses);
        const bool each = error_of_class(rc, MPI_ERR_IN_STATUS);
        for (int k = 0; k < n; ++k) {
            int rk = each ? statuses[k].MPI_ERROR : rc;
            if (each && error_of_class(rk, MPI_ERR_PENDING))
                rk = wait_request(&reqs[at + k], &statuses[k]);
            rk = done(at + k, rk, &statuses[k]);
            if (rk != MPI_SUCCESS && first_error == MPI_SUCCESS)
                first_error = rk;
        }
    }
    return first_error;
}

}  // namespace

int complete_requests(std::vector<MPI_Request> &requests, const std::size_t *expected, bool wait, bool *done,
                      int *mismatch)
{
    *done = true;
    const int n = static_cast<int>(requests.size());
    auto finish = [&](int i, int rc, MPI_Status *st) {
        return expected && expected[i] != kNotChecked ? check_receive(rc, st, expected[i], mismatch) : rc;
    };
    if (wait)  // every request completes even after an error: none is left active for the next start
        return wait_in_runs(n, requests.data(), finish);
    if (n == 0)
        return MPI_SUCCESS;
    // One MPI_Testall over them all: a run tested apart and found complete would
    // be tested again, inactive, at the next call and read as an empty receive.
    // Statuses on the stack up to a run (no allocation a test in most calls).
    MPI_Status on_stack[kWaitRun];
    std::vector<MPI_Status> on_heap;
    MPI_Status *statuses = on_stack;
    if (n > kWaitRun) {
        on_heap.resize(requests.size());
        statuses = on_heap.data();
    }
    int flag = 0;
    cpu_charge();
    const int rc = MPI_Testall(n, requests.data(), &flag, statuses);  // NOLINT: a test, not a wait
    if (rc == MPI_SUCCESS && !flag) {
        *done = false;
        return MPI_SUCCESS;
    }
    // The others are done; an MPI_ERR_PENDING one is still active: waited for here.
    const bool each = error_of_class(rc, MPI_ERR_IN_STATUS);
    if (rc != MPI_SUCCESS && !each)
        return rc;
    int first_error = MPI_SUCCESS;
    for (int i = 0; i < n; ++i) {
        int ri = each ? statuses[i].MPI_ERROR : MPI_SUCCESS;
        if (each && error_of_class(ri, MPI_ERR_PENDING))
            ri = wait_request(&requests[i], &statuses[i]);
        ri = finish(i, ri, &statuses[i]);
        if (ri != MPI_SUCCESS && first_error == MPI_SUCCESS)
            first_error = ri;
    }
    return first_error;
}

int sendrecv_bytes(const void *sendbuf, std::size_t sendbytes, int dest, void *recvbuf,
                   std::size_t recvbytes, int source, int tag, MPI_Comm comm, int *mismatch)
{
    if (sendbytes <= static_cast<std::size_t>(INT_MAX) && recvbytes <= static_cast<std::size_t>(INT_MAX) &&
        !wait_context()) {
        MPI_Status st;
        int rc = MPI_Sendrecv(sendbuf, static_cast<int>(sendbytes), MPI_BYTE, dest, tag, recvbuf,
                              static_cast<int>(recvbytes), MPI_BYTE, source, tag, comm, &st);
        return mismatch ? check_receive(rc, &st, recvbytes, mismatch) : rc;
    }
    MPI_Request reqs[2];
    MPIX_CHECK(irecv_bytes(recvbuf, recvbytes, source, tag, comm, &reqs[0]));
    MPIX_CHECK(isend_bytes(sendbuf, sendbytes, dest, tag, comm, &reqs[1]));
    if (!mismatch)
        return wait_all(2, reqs);
    const std::size_t expected[2] = {recvbytes, kNotChecked};
    return wait_all(2, reqs, expected, mismatch);
}

int probe_message(int source, int tag, MPI_Comm comm, bool wait, ProbedMessage *m, bool *found)
{
    MPI_Status st;
    int flag = 1;
    WaitContext *task = wait_context();
    cpu_charge();
    if (wait && task && !task->may_block()) {  // in a task: poll, letting other work run
        for (;;) {
            MPIX_CHECK(probe_message(source, tag, comm, false, m, found));
            if (*found)
                return MPI_SUCCESS;
            task->suspend();
            if (task->may_block())
                return probe_message(source, tag, comm, true, m, found);
        }
    }
#if MPIX_HAVE_MPROBE
    if (wait)
        MPIX_CHECK(blocking_mpi_call(task, [&] { return MPI_Mprobe(source, tag, comm, &m->handle, &st); }));
    else
        MPIX_CHECK(MPI_Improbe(source, tag, comm, &flag, &m->handle, &st));
#else
    if (wait)
        MPIX_CHECK(blocking_mpi_call(task, [&] { return MPI_Probe(source, tag, comm, &st); }));
    else
        MPIX_CHECK(MPI_Iprobe(source, tag, comm, &flag, &st));
#endif
    *found = flag != 0;
    if (!flag)
        return MPI_SUCCESS;
    MPIX_CHECK(received_bytes(&st, &m->bytes));
    m->source = st.MPI_SOURCE;
    return MPI_SUCCESS;
}

int irecv_probed(ProbedMessage *m, void *buf, int tag, MPI_Comm comm, MPI_Request *req)
{
#if MPIX_HAVE_MPROBE
    (void)tag;
    (void)comm;
    return with_byte_type(m->bytes, [&](int n, MPI_Datatype t) { return MPI_Imrecv(buf, n, t, &m->handle, req); });
#else
    return irecv_bytes(buf, m->bytes, m->source, tag, comm, req);
#endif
}

int irecv_unknown_sizes(const std::vector<int> &peers, int tag, MPI_Comm comm, bool exclusive,
                        ScratchStore *store, std::vector<char *> *data, std::vector<std::size_t> *bytes,
                        std::vector<MPI_Request> *reqs)
{
    UnknownSizeReceives receives(peers, tag, comm, exclusive, store, data, bytes, reqs);
    return receives.finish();
}

UnknownSizeReceives::UnknownSizeReceives(const std::vector<int> &peers, int tag, MPI_Comm comm, bool exclusive,
                                         ScratchStore *store, std::vector<char *> *data,
                                         std::vector<std::size_t> *bytes, std::vector<MPI_Request> *reqs)
    : peers_(peers), tag_(tag), comm_(comm), exclusive_(exclusive), store_(store), data_(data), bytes_(bytes),
      reqs_(reqs), left_(peers.size())
{
    const std::size_t n = peers.size();
    data->assign(n, nullptr);
    bytes->assign(n, 0);
    reqs->assign(n, MPI_REQUEST_NULL);
    if (n > kInline) {
        posted_heap_.assign(n, 0);
        if (exclusive)
            index_heap_.resize(n);
    }
    posted_ = n > kInline ? posted_heap_.data() : posted_inline_;
    index_ = n > kInline ? index_heap_.data() : index_inline_;
    if (exclusive) {
        for (std::size_t k = 0; k < n; ++k)
            index_[k] = std::make_pair(peers[k], k);
        std::sort(index_, index_ + n);
    }
    if (store->capacity() < store->size() + n)  // one regrowth for the n buffers, geometric across calls
        store->reserve(std::max(store->size() + n, 2 * store->capacity()));
}

int UnknownSizeReceives::receive(std::size_t k, ProbedMessage *m)
{
    char *place = places_ ? (*places_)[k] : nullptr;
    if (place && m->bytes == (*place_bytes_)[k]) {
        (*data_)[k] = place;
    } else {
        store_->emplace_back();
        if (!store_->back().resize(m->bytes))
            return MPI_ERR_NO_MEM;
        (*data_)[k] = store_->back().data();
    }
    (*bytes_)[k] = m->bytes;
    posted_[k] = 1;
    --left_;
    return irecv_probed(m, (*data_)[k], tag_, comm_, &(*reqs_)[k]);
}

int UnknownSizeReceives::take(bool block)
{
    const std::size_t n = peers_.size();
    for (std::size_t pass_start = left_ + 1; left_ > 0;) {
        if (block && !exclusive_ && left_ == pass_start && wait_context())
            yield_now();  // the last pass found nothing: in a task, let other work run
        pass_start = left_;
        if (exclusive_) {
            ProbedMessage m;
            bool found = false;
            MPIX_CHECK(probe_message(MPI_ANY_SOURCE, tag_, comm_, block, &m, &found));
            if (!found) {
                if (block)
                    return MPI_ERR_INTERN;
                return MPI_SUCCESS;
            }
            const auto *it = std::lower_bound(index_, index_ + n, std::make_pair(m.source, std::size_t(0)));
            if (it == index_ + n || it->first != m.source || posted_[it->second])
                return MPI_ERR_INTERN;  // a message this rank expects from no one
            MPIX_CHECK(receive(it->second, &m));
            continue;
        }
        for (std::size_t k = 0; k < n; ++k) {
            if (posted_[k])
                continue;
            ProbedMessage m;
            bool found = false;
            MPIX_CHECK(probe_message(peers_[k], tag_, comm_, block && left_ == 1, &m, &found));
            if (found)
                MPIX_CHECK(receive(k, &m));
        }
        if (!block)
            return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

int wait_all(int count, MPI_Request *reqs)
{
    return wait_in_runs(count, reqs, [](int, int rc, MPI_Status *) { return rc; });
}

int wait_all(int count, MPI_Request *reqs, const std::size_t *expected, int *mismatch)
{
    return wait_in_runs(count, reqs, [&](int i, int rc, MPI_Status *st) {
        return expected[i] != kNotChecked ? check_receive(rc, st, expected[i], mismatch) : rc;
    });
}

int wait_known_receive(MPI_Request *req, char *buf, std::size_t bytes, int *mismatch)
{
    int wrong = MPI_SUCCESS;
    int rc = wait_all(1, req, &bytes, &wrong);
    if (wrong != MPI_SUCCESS) {
        note_mismatch(mismatch, wrong);
        if (bytes > 0)
            std::memset(buf, 0, bytes);
    }
    return rc;
}

}  // namespace mpix
