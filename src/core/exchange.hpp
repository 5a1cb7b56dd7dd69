// One alltoall / alltoallv call reduced to bytes: what every algorithm receives.
#ifndef MPIX_CORE_EXCHANGE_HPP
#define MPIX_CORE_EXCHANGE_HPP

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "core/hints.hpp"
#include "core/local_work.hpp"

struct MPIX_Comm;

namespace mpix {

class Trace;
struct Exchange;

// What a persistent request's algorithm keeps from init to every start: the
// sizes it would otherwise exchange on every call, persistent point-to-point
// requests, schedules. Made by the row's `prepare` (select/registry.hpp) at
// init, collectively, from the request's byte views (their sizes are final,
// their contents not yet).
class ExchangePlan {
public:
    virtual ~ExchangePlan() = default;
    // A plan whose messages are all known at init may post them at start and
    // complete them later (true nonblocking); the others leave these alone and
    // their row's `run` runs whole on every start with x.plan set.
    virtual bool posts_at_start() const { return false; }
    virtual int post(const Exchange &x)
    {
        (void)x;
        return MPI_ERR_INTERN;
    }
    virtual int complete(const Exchange &x)
    {
        (void)x;
        return MPI_ERR_INTERN;
    }
};

// Block j of the send side is sendbytes[j] bytes at sendbuf + sdispls[j]; block j of
// the receive side is recvbytes[j] bytes at recvbuf + rdispls[j]. Displacements are
// byte offsets (signed, may be gapped or unordered); the two sides never overlap
// (MPI_IN_PLACE is resolved before an algorithm runs; an in-place MPIX_Alltoallv
// call's own block is empty on both sides, as it is in place already:
// BlockSide::kept). For MPIX_Alltoall `uniform`
// is true and every block is `block_bytes` long, block j at j * block_bytes,
// except in place on a row that reads every block's size (reads_block_sizes):
// there the own block is kept as above and `uniform` is false.
struct Exchange {
    MPIX_Comm *xcomm;
    MPI_Comm comm;  // the library's private duplicate
    int size;
    int rank;
    int tag;  // first of kTagsPerCall tags reserved for this call
    const char *sendbuf;
    const std::size_t *sendbytes;
    const MPI_Aint *sdispls;
    char *recvbuf;
    const std::size_t *recvbytes;
    const MPI_Aint *rdispls;
    bool uniform;
    std::size_t block_bytes;
    // The pass-through row of a call made with MPI_IN_PLACE: the MPI library's
    // collective must get MPI_IN_PLACE on every rank or on none, as MPI asks
    // (MPICH's in-place MPI_Alltoallv sends empty blocks its other algorithms do
    // not: the call hung), and ranks whose types are contiguous hand it the
    // caller's own arguments. sendbuf is a copy of the receive blocks.
    bool mpi_in_place = false;
    const Hints *hints;
    Trace *trace;  // nullptr when tracing is off
    // Where a receive of the wrong length is noted (MPI_ERR_TRUNCATE: longer than
    // posted, MPI_ERR_COUNT: shorter; the first one stays) by the completion
    // helpers, instead of stopping the schedule: the peers still expect every
    // later step, so the algorithm runs to its end and dispatch reports it.
    int *mismatch;
    // Persistent requests only: what the row's `prepare` made at init (nullptr
    // for a one-off call, or for a row without `prepare`). The row's `run`
    // then uses it instead of exchanging sizes.
    ExchangePlan *plan = nullptr;
    // Where the call's local copies go (counted, and charged under SMPI): the
    // communicator's. Algorithms copy bytes only through it.
    LocalWork *work = nullptr;
    // `auto`'s block statistics of this call ({mean block, largest block}) in
    // [0] and [1], to spread by maximum inside the row's own messages or in
    // rounds beside its blocks (the direct rows): on return each holds the
    // largest over every rank, what `auto` picks the next call's row on. [2]
    // and [3]: the agreed values this call's row was picked on, the same on
    // every rank (read only: a row may choose how it carries [0] and [1] by
    // them). Set only for a row that carries them (select/registry.hpp,
    // carries_block_stats), in a blocking call; nullptr otherwise.
    std::uint64_t *carried_stats = nullptr;

    const char *send_block(int peer) const { return sendbuf + sdispls[peer]; }
    char *recv_block(int peer) const { return recvbuf + rdispls[peer]; }
};

// A copy of x that moves other buffers (an inner step on a staged layout); the
// caller adjusts what else differs (comm, uniform, hints, ...).
inline Exchange with_buffers(const Exchange &x, const char *sendbuf, const std::size_t *sendbytes,
                             const MPI_Aint *sdispls, char *recvbuf, const std::size_t *recvbytes,
                             const MPI_Aint *rdispls)
{
    Exchange sub = x;
    sub.sendbuf = sendbuf;
    sub.sendbytes = sendbytes;
    sub.sdispls = sdispls;
    sub.recvbuf = recvbuf;
    sub.recvbytes = recvbytes;
    sub.rdispls = rdispls;
    sub.carried_stats = nullptr;  // auto's statistics are the outer row's to agree
    return sub;
}

// The receive blocks of `ranks` (`count` of them, in that order) as one range
// of the receive buffer, each non-empty block starting where the one before it
// ends: a message that carries them in that order can land in place. Returns
// the range's start (the first rank's block when all are empty), or nullptr
// when they are not one range; *total gets their bytes either way.
inline char *receive_range(const Exchange &x, const int *ranks, int count, std::size_t *total)
{
    // Selects, not jumps, a block: this runs for every block node_bruck delivers.
    char *start = nullptr, *end = nullptr;
    bool one_range = true;
    std::size_t sum = 0;
    for (int m = 0; m < count; ++m) {
        const std::size_t b = x.recvbytes[ranks[m]];
        char *block = x.recv_block(ranks[m]);
        const bool nonzero = b > 0;
        one_range &= !(nonzero & (start != nullptr) & (block != end));
        start = nonzero & (start == nullptr) ? block : start;
        end = nonzero ? block + b : end;
        sum += b;
    }
    *total = sum;
    if (!start)
        return count > 0 ? x.recv_block(ranks[0]) : nullptr;
    return one_range ? start : nullptr;
}

// Tags reserved per call (an algorithm may use tag .. tag + kTagsPerCall - 1).
// Log-time algorithms give each round of a digit its own tag (bundle_bruck), so
// a probe for any source on that tag can only find this round's messages.
constexpr int kTagsPerCall = 64;
// The last of them is kept for agree_max inside a row (a value every rank
// needs, agreed by tagged messages; never a collective, sched/engine.hpp).
constexpr int kAgreementTag = kTagsPerCall - 1;

}  // namespace mpix

#endif
