// The library's own local work: every byte it copies, packs or unpacks (the byte
// path's staging, rotations, bundles, padded slots, datatype packing), counted
// on the MPIX_Comm in every build and, under SimGrid SMPI, charged to the
// simulated clock at a stated rate (DESIGN principle 7): a per-copy cost plus
// bytes over a copy bandwidth, as smpi_execute_flops, which keeps simulated time
// deterministic (no host timing enters). Every copy of an algorithm goes through
// here, so every registry row, present and future, is counted and charged
// without code of its own.
#ifndef MPIX_CORE_LOCAL_WORK_HPP
#define MPIX_CORE_LOCAL_WORK_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "config.h"
#include "core/cpu_count.hpp"

namespace mpix {

// The charge's rate. A copy costs seconds_per_copy plus its bytes at the copy
// bandwidth of where the call's data lives: cache_bytes_per_second while the
// call's working set (its send and receive bytes on this rank) fits the core's
// share of the cache, memory_bytes_per_second beyond (the core's share of the
// node's memory bandwidth when every core copies). Zero cache bandwidth:
// copies are free (counted, not charged).
struct CopyModel {
    double cache_bytes_per_second = 0;   // 0: no charge
    double memory_bytes_per_second = 0;  // 0: the cache rate at any working set
    double cache_bytes = 0;              // the core's share of the cache
    double seconds_per_copy = 0;         // fixed cost of one copy call (one memcpy, one MPI_Pack, one range)
    // Fixed cost of one copy of kSmallCopyBytes or less (copy_small: inline loads
    // and stores, no call); negative: seconds_per_copy.
    double seconds_per_small_copy = -1;
    // The MPI library's message from a rank to itself (its own block where its
    // collective sends that block as a message): from mpi_self_rendezvous_bytes
    // up it costs mpi_self_seconds plus bytes at mpi_self_bytes_per_second (a
    // rendezvous through the library's progress engine: 4.5-5 us at 8-16 KiB
    // where a memcpy takes 0.08-0.15, MPICH 4.0.2 on this project's machine);
    // below, or with mpi_self_bytes_per_second 0, one copy.
    double mpi_self_rendezvous_bytes = 0;
    double mpi_self_seconds = 0;
    double mpi_self_bytes_per_second = 0;
    // The library's own CPU work for each piece it handles: a block range it
    // copies, packs into a message, delivers, or describes to MPI in a datatype
    // (each request of LocalWork's, before CopyRun joins neighbours). It stands
    // for what grows with the pieces besides the bytes: block lists, size
    // headers, the loops over them (bench/cpu-per-call counts it; sim/README.md,
    // "The library's CPU per piece"). 0: not charged.
    double seconds_per_piece = 0;
    // The library's CPU work a basic block of its code (core/cpu_count.hpp;
    // MPIX_SIM_CPU_BLOCK, the counting build only). 0: not charged.
    double seconds_per_block = 0;

    bool charged() const { return cache_bytes_per_second > 0; }
    bool cpu_charged() const { return seconds_per_piece > 0; }
    MPIX_NOT_COUNTED double bytes_per_second(double working_set) const
    {
        return memory_bytes_per_second > 0 && working_set > cache_bytes ? memory_bytes_per_second
                                                                         : cache_bytes_per_second;
    }
    MPIX_NOT_COUNTED double small_copy_seconds() const { return seconds_per_small_copy >= 0 ? seconds_per_small_copy : seconds_per_copy; }
    // `copies` copy calls moving `bytes`, `small` of those calls small ones.
    MPIX_NOT_COUNTED double seconds(double bytes, double copies, double working_set, double small = 0) const
    {
        return charged() ? (copies - small) * seconds_per_copy + small * small_copy_seconds() +
                               bytes / bytes_per_second(working_set)
                         : 0.0;
    }
    MPIX_NOT_COUNTED bool mpi_self_is_message(double bytes) const
    {
        return mpi_self_bytes_per_second > 0 && bytes >= mpi_self_rendezvous_bytes;
    }
};

// Whether the MPI library's collective sends the rank's own block to itself as a
// message (a point-to-point message to its own rank) rather than copying it:
// MPICH 4.0's default choices (maint/tuning/coll/mpir/generic.json) run the
// scattered algorithms there, which post a receive and a send for every rank,
// their own included: MPI_Alltoallv and MPI_Ialltoallv always, MPI_Alltoall with
// blocks up to 32 KiB (from 257 B at 8 ranks or more, where Bruck's takes the
// smaller ones; MPI_Ialltoall from 2049 B). In place, and above 32 KiB, MPICH
// copies the own block (pairwise). SimGrid's collectives copy it for free, so
// the model charges it (LocalWork::charge_mpi_own_block).
inline bool mpi_library_sends_own_block(bool vector, bool nonblocking, bool in_place, std::size_t block_bytes,
                                        int comm_size)
{
    if (in_place)
        return false;
    if (vector)
        return true;
    const std::size_t bruck_up_to = comm_size < 8 ? 0 : nonblocking ? 2048 : 256;
    return block_bytes > bruck_up_to && block_bytes <= 32768;
}

// Copies of up to kSmallCopyBytes bytes: small blocks copied one at a time (a
// node's blocks of 16 B and less gathered into a message, delivered out of one).
// Inline loads and stores of the first and last words, which may overlap, in
// place of a call of memcpy with a length the compiler cannot see: gathering
// 1,024 pieces of 4-16 B from scattered addresses took 0.70-0.96 ns a piece on
// this project's machine, where one memcpy of 16-64 B took 2.3-3.7 ns
// (sim/calibrate-native's `small_copy` and `memcpy` lines, 3 runs, 2026-12-06).
// Every word is read before any is written.
constexpr std::size_t kSmallCopyBytes = 16;
// n bytes, sizeof(Word) <= n <= 2 sizeof(Word), as the first and the last Word.
template <class Word>
inline void copy_ends(char *d, const char *s, std::size_t n)
{
    Word first, last;
    std::memcpy(&first, s, sizeof(Word));
    std::memcpy(&last, s + n - sizeof(Word), sizeof(Word));
    std::memcpy(d, &first, sizeof(Word));
    std::memcpy(d + n - sizeof(Word), &last, sizeof(Word));
}
inline void copy_small(void *dst, const void *src, std::size_t n)
{
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    if (n >= 8)
        copy_ends<std::uint64_t>(d, s, n);
    else if (n >= 4)
        copy_ends<std::uint32_t>(d, s, n);
    else if (n >= 2)
        copy_ends<std::uint16_t>(d, s, n);
    else if (n == 1)
        *d = *s;
}

// The model of this run: under SMPI from MPIX_SIM_COPY_BW (GB/s in cache, 0:
// free), MPIX_SIM_COPY_MEM_BW (GB/s from memory), MPIX_SIM_COPY_CACHE (bytes),
// MPIX_SIM_COPY_OVERHEAD (ns per copy), MPIX_SIM_COPY_SMALL_OVERHEAD (ns per
// copy of kSmallCopyBytes or less; absent: MPIX_SIM_COPY_OVERHEAD's), MPIX_SIM_MPI_SELF (the MPI library's
// message to itself, RENDEZVOUS_BYTES:NS:GBPS; absent or 0: a copy) and
// MPIX_SIM_CPU_PIECE (ns of the library's CPU per piece; charged even where the
// copies are free, --copy-bw 0), which
// sim/run sets from the platform or its --copy-* and --mpi-self options;
// natively, and when they are unset, free.
// False (and `why` set) for a malformed value.
bool read_copy_model(CopyModel *model, const char **why);

class LocalWork {
public:
    void set_model(const CopyModel &m);
    const CopyModel &model() const { return model_; }
    // Local work costs simulated time (SMPI with a copy model or a CPU charge
    // per piece); natively never.
    bool charged() const { return MPIX_SMPI && (model_.charged() || model_.cpu_charged()); }
    // The working set of the call now running on this rank (its send and
    // receive bytes), which picks the copy bandwidth; set by every dispatch.
    void set_working_set(std::size_t bytes) { working_set_ = static_cast<double>(bytes); }
    double working_set() const { return working_set_; }

    // memcpy / memmove / memset of n bytes, counted and charged as one copy
    // (a small one, copy_small, up to kSmallCopyBytes); `pieces`: the ranges it
    // joins (CopyRun).
    void copy(void *dst, const void *src, std::size_t n, std::size_t pieces = 1)
    {
        if (n == 0)
            return;
        if (n <= kSmallCopyBytes) {
            copy_small(dst, src, n);
            note(n, 1, 1, pieces);
            return;
        }
        std::memcpy(dst, src, n);
        note(n, 1, 0, pieces);
    }
    void move(void *dst, const void *src, std::size_t n)
    {
        if (n == 0)
            return;
        std::memmove(dst, src, n);
        note(n, 1);
    }
    void fill(void *dst, int value, std::size_t n)
    {
        if (n == 0)
            return;
        std::memset(dst, value, n);
        note(n, 1);
    }
    // Work of `copies` copy calls moving `bytes` in all, done elsewhere: MPI_Pack /
    // MPI_Unpack of a non-contiguous datatype, or the MPI library packing a message
    // the library describes by a datatype of several byte ranges.
    // `small`: how many of the copies were of kSmallCopyBytes or less (copy_small).
    // `pieces`: the ranges handled, where a CopyRun joined several into one copy
    // (0: one per copy).
    void note(std::size_t bytes, std::size_t copies, std::size_t small = 0, std::size_t pieces = 0)
    {
        if (pieces < copies)
            pieces = copies;
        bytes_ += bytes;
        copies_ += copies;
        small_copies_ += small;
        pieces_ += pieces;
        if (charged())
            charge(model_.seconds(static_cast<double>(bytes), static_cast<double>(copies), working_set_,
                                  static_cast<double>(small)) +
                   static_cast<double>(pieces) * model_.seconds_per_piece);
    }

    // Under SMPI, charges what the MPI library's collective does with the rank's
    // own block (SimGrid's own collectives charge nothing for it), so that the
    // MPI library's collective and mpix's rows pay alike: a local copy, or where
    // it sends the block to itself (mpi_library_sends_own_block) that message at
    // the model's rate for one. Not counted: not mpix's copy.
    MPIX_NOT_COUNTED void charge_mpi_own_block(std::size_t bytes, bool sent_to_itself)
    {
        if (!charged() || bytes == 0)
            return;
        const double n = static_cast<double>(bytes);
        if (sent_to_itself && model_.mpi_self_is_message(n))
            charge(model_.mpi_self_seconds + n / model_.mpi_self_bytes_per_second);
        else
            charge(model_.seconds(n, 1.0, working_set_));
    }

    // Totals since MPIX_Comm_init, for the benchmark (copied_bytes) and traces.
    std::uint64_t bytes() const { return bytes_; }
    std::uint64_t copies() const { return copies_; }
    std::uint64_t small_copies() const { return small_copies_; }  // of them, up to kSmallCopyBytes
    std::uint64_t pieces() const { return pieces_; }  // ranges handled (CopyModel::seconds_per_piece)

    // Copies whose sources and destinations each follow the previous one's in
    // memory (blocks for consecutive ranks of a packed buffer, gathered into a
    // message or delivered out of one) made as one memcpy: with small blocks the
    // per-copy cost dominates (16 B blocks at P=1024: node_bruck copied each
    // block alone, 12.7 us a call at the model's 3.6 ns per copy). A run is
    // copied when the next copy does not continue it and when the CopyRun ends,
    // so it is only for loops that read no destination and write no source
    // before then.
    class CopyRun {
    public:
        explicit CopyRun(LocalWork *w) : w_(w) {}
        ~CopyRun() { flush(); }
        CopyRun(const CopyRun &) = delete;
        CopyRun &operator=(const CopyRun &) = delete;
        void copy(void *dst, const void *src, std::size_t n)
        {
            if (n == 0)
                return;
            char *d = static_cast<char *>(dst);
            const char *s = static_cast<const char *>(src);
            if (n_ > 0 && d == dst_ + n_ && s == src_ + n_) {
                n_ += n;
                ++pieces_;
                return;
            }
            flush();
            dst_ = d;
            src_ = s;
            n_ = n;
            pieces_ = 1;
        }
        void flush()
        {
            if (n_ > 0)
                w_->copy(dst_, src_, n_, pieces_);
            n_ = 0;
        }

    private:
        LocalWork *w_;
        char *dst_ = nullptr;
        const char *src_ = nullptr;
        std::size_t n_ = 0;
        std::size_t pieces_ = 0;  // the ranges joined into this run
    };

    // Copies inside a Batch's lifetime are charged once, when it ends: a loop of
    // small copies that sends nothing in between costs one simulator event, not
    // one per copy (the simulated time is the same: nothing else happens on this
    // rank in between).
    class Batch {
    public:
        explicit Batch(LocalWork *w) : w_(w) { ++w_->batch_depth_; }
        ~Batch() { end(); }
        Batch(const Batch &) = delete;
        Batch &operator=(const Batch &) = delete;
        // Charges now (before the next message) instead of at the end of the scope.
        void end()
        {
            if (w_ && --w_->batch_depth_ == 0)
                w_->flush();
            w_ = nullptr;
        }

    private:
        LocalWork *w_;
    };

private:
    MPIX_NOT_COUNTED void charge(double seconds);
    MPIX_NOT_COUNTED void flush();

    CopyModel model_;
    double host_flops_per_second_ = 0;  // SMPI: this rank's host speed
    double pending_seconds_ = 0;
    double working_set_ = 0;
    int batch_depth_ = 0;
    std::uint64_t bytes_ = 0, copies_ = 0, small_copies_ = 0, pieces_ = 0;
};

}  // namespace mpix

#endif
