// Running one alltoall(v) call: checks, selection, tracing, error reporting.
#ifndef MPIX_SELECT_DISPATCH_HPP
#define MPIX_SELECT_DISPATCH_HPP

#include <memory>

#include "core/blocks.hpp"
#include "core/cpu_count.hpp"
#include "core/comm.hpp"
#include "core/exchange.hpp"
#include "sched/engine.hpp"
#include "select/registry.hpp"
#include "select/table.hpp"

namespace mpix {

// One MPIX_Alltoall(v)(_c) call from the caller's two sides (types not yet
// described; run_exchange fills in their `info`): validates them, selects the
// algorithm, and runs it, either as the
// MPI library's own collective on the caller's arguments (pmpi) or on byte-block
// views. Returns MPI_SUCCESS or the error raised on the user's communicator.
int run_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place);

// The checks run_exchange starts with (also those of a persistent init):
// counts, datatypes (described into `info`), byte ranges, buffers. Returns
// MPI_SUCCESS or the error raised on the user's communicator; *local tells of
// an error this rank takes part with and reports after the exchange
// (FittedSend, report_local_mismatch). A negative count or a NULL buffer with
// data: with `stand_in` (a blocking call) the sides become those kept in
// *stand_in (StandInSides), which must outlive the call's use of them;
// without, the error at once.
int check_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place,
                   LocalMismatch *local, std::unique_ptr<StandInSides> *stand_in);

// What a blocking and a nonblocking call start with: check_exchange, then the
// row for this call (selected from the comm's hints and table, recorded as the
// comm's last algorithm) and the selection rule's hints (NULL if none).
int check_and_select(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place,
                     LocalMismatch *local, std::unique_ptr<StandInSides> *stand_in, const Algorithm **algorithm,
                     const RuleHints **rule_hints);

// One rank in place: its one block is already where it belongs, on every row
// (MPICH's own copies it out and back), so a call, nonblocking call or
// persistent start moves nothing. A trace still records the row.
inline bool nothing_moves(const MPIX_Comm *xcomm, bool in_place, const Hints &hints)
{
    return in_place && xcomm->size == 1 && hints.trace.empty();
}

// MPI_IN_PLACE (where something moves): the rank's own block is its data
// already, so the row sees it empty and it is neither staged nor copied back
// (BlockSide::kept). For MPIX_Alltoall only on rows that read every block's
// size (reads_block_sizes): the call then reaches the row as a non-uniform
// exchange, since the others lay block j at j * block_bytes. Never for the MPI
// library's own collective, which is handed MPI_IN_PLACE and every block.
// -1: no block kept.
inline int kept_block(const MPIX_Comm *xcomm, Collective c, bool in_place, const Algorithm *algorithm)
{
    if (!in_place || algorithm->pass_through)  // most calls: no lookup of the row
        return -1;
    return c == Collective::alltoallv || (c == Collective::alltoall && reads_block_sizes(*algorithm)) ? xcomm->rank
                                                                                                       : -1;
}

// An algorithm's return code as the caller sees it: MPI_SUCCESS, a block-length
// mismatch (MPI_ERR_TRUNCATE / MPI_ERR_COUNT) or an internal error naming the
// algorithm, raised on the user's communicator.
// `receive_state`: what the caller may rely on of this rank's receive blocks then.
int report(MPIX_Comm *xcomm, const char *fn, const Algorithm *algorithm, int rc,
           const char *receive_state = "this rank's receive blocks are undefined, the other ranks completed");

// The error of a call with a LocalMismatch, once the rank has taken part in it
// with its FittedSend.
int report_local_mismatch(MPIX_Comm *xcomm, const char *fn, const LocalMismatch &local);

// The side a call's row is selected for: a rank with a MPI_Alltoall
// LocalMismatch takes part with blocks of its receive length (FittedSend).
const UserSide &selection_side(const LocalMismatch &local, const UserSide &send, const UserSide &recv);

// A blocking MPIX_Alltoallv(_c) with stand-in sides (LocalMismatch::stand_in)
// on a row that is the MPI library's own collective: the error at once. MPICH
// skips an empty block on both sides, so a rank taking part with a negative
// count's block empty would leave its receiver waiting, or its sender's block
// queued for the communicator's next call; returning at once is what MPICH's
// own call does (the other ranks wait for this one), and is clean where every
// rank's arguments are wrong alike. MPI_SUCCESS otherwise.
int refuse_stand_in_on_mpi_row(MPIX_Comm *xcomm, Collective c, const char *fn, const LocalMismatch &local,
                               const Algorithm *algorithm);

// report(), except that a block of the wrong length in a call with stand-in
// sides (`local`, may be NULL) is their doing: report_local_mismatch.
int report_with_own(MPIX_Comm *xcomm, const char *fn, const Algorithm *algorithm, int rc, const LocalMismatch *local);

// report() inside the guard of a C entry point (what pass_alltoall_again reports).
int report_guarded(MPIX_Comm *xcomm, const char *fn, const Algorithm *algorithm, int rc);

// Shortcuts of MPIX_Alltoall(_c) and MPIX_Alltoallv to the MPI library's own
// collective. A call whose predefined types and MPI_IN_PLACE choice (and, for
// MPIX_Alltoall, counts) are those of the comm's last call that went there
// (xcomm->pass_memo, recorded by run_exchange) gets the same row and passes the
// same checks of its types; once its counts and buffers pass theirs it goes
// there directly. Any other call, one that fails a check (run_exchange reports
// it) and a call while started exchanges run (those complete first) return
// false, doing nothing, and run_exchange takes them. mpix then adds 3-8 ns to a
// call at P=1 in a loop, 30-50 before (bench/mpix-passthrough).
// The shortcuts' common end: nothing while started exchanges run (run_exchange
// completes them first); else the MPI library's call, its error reported as
// run_exchange reports it.
template <class MpiCall>
inline bool pass_on(MPIX_Comm *xcomm, Collective c, const char *fn, const MPIX_Comm::PassMemo &m, MpiCall call,
                    int *rc)
{
    if (sched::active_tasks() != 0)
        return false;
    xcomm->last_algorithm[static_cast<int>(c)] = m.row->name;
    cpu_charge();  // the checks above, before the MPI library's call (counting SMPI build only)
    *rc = call();
    if (*rc != MPI_SUCCESS)
        *rc = report_guarded(xcomm, fn, m.row, *rc);
    cpu_charge();
    return true;
}

inline bool pass_alltoall_again(MPIX_Comm *xcomm, const char *fn, const void *sendbuf, MPI_Count sendcount,
                                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                int *rc)
{
    const MPIX_Comm::PassMemo &m = xcomm->pass_memo[static_cast<int>(Collective::alltoall)];
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!m.valid || m.in_place != in_place || m.recvcount != recvcount || m.recvtype != recvtype || !recvbuf ||
        recvbuf == MPI_IN_PLACE ||
        (!in_place && (m.sendcount != sendcount || m.sendtype != sendtype || !sendbuf || sendbuf == recvbuf)))
        return false;
    return pass_on(
        xcomm, Collective::alltoall, fn, m,
        [&] { return PMPI_Alltoall(sendbuf, m.sendcount, m.sendtype, recvbuf, m.recvcount, m.recvtype, xcomm->comm); },
        rc);
}

inline bool pass_alltoallv_again(MPIX_Comm *xcomm, const char *fn, const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, int *rc)
{
    const MPIX_Comm::PassMemo &m = xcomm->pass_memo[static_cast<int>(Collective::alltoallv)];
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!m.valid || m.in_place != in_place || m.recvtype != recvtype || !recvcounts || !rdispls ||
        recvbuf == MPI_IN_PLACE ||
        (!in_place && (m.sendtype != sendtype || !sendcounts || !sdispls || sendbuf == recvbuf)))
        return false;
    // run_exchange's checks of the counts and buffers, as filters.
    const int p = xcomm->size;
    int any_send = 0, any_recv = 0;  // ORs of the counts: negative if one is, 0 if all are
    for (int q = 0; q < p; ++q)
        any_recv |= recvcounts[q];
    if (!in_place)
        for (int q = 0; q < p; ++q)
            any_send |= sendcounts[q];
    if ((any_send | any_recv) < 0 || (any_recv && m.recvsize && !recvbuf) || (any_send && m.sendsize && !sendbuf))
        return false;
    const int me = xcomm->rank;
    if (!in_place && static_cast<std::size_t>(sendcounts[me]) * m.sendsize >
                         static_cast<std::size_t>(recvcounts[me]) * m.recvsize)
        return false;
    // An own block the full path copies apart (OwnBlockApart) takes that path.
    if (!in_place && static_cast<std::size_t>(sendcounts[me]) * m.sendsize >= kOwnBlockApartFrom)
        return false;
    return pass_on(
        xcomm, Collective::alltoallv, fn, m,
        [&] {
            return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                  xcomm->comm);
        },
        rc);
}

// The first of the kTagsPerCall tags of a call on `algorithm`. A pass-through
// row (the MPI library's own collective) takes the first kTagsPerCall, which
// allocate_tags never gives: some ranks hand that call the caller's arguments
// and others byte views of them (their datatypes may differ in layout), and
// only the byte path would otherwise take tags, leaving the ranks' counters
// apart for every later call.
inline int call_tags(MPIX_Comm *xcomm, const Algorithm *algorithm)
{
    return algorithm->pass_through ? 0 : allocate_tags(xcomm);
}

// An Exchange over two byte-block sides (tag and trace left for the caller).
Exchange byte_exchange(MPIX_Comm *xcomm, Collective c, const BlockSide &sb, const BlockSide &rb, const Hints *hints,
                       int *mismatch);

}  // namespace mpix

#endif
