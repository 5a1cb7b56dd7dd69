// The one registry of algorithms: tests, the benchmark, the guide's tables and
// `auto` all read it; nothing else lists algorithms.
#ifndef MPIX_SELECT_REGISTRY_HPP
#define MPIX_SELECT_REGISTRY_HPP

#include <cstddef>
#include <memory>

#include "core/blocks.hpp"
#include "core/comm.hpp"
#include "core/exchange.hpp"
#include "core/hints.hpp"
#include "neighbor/neighbor.hpp"
#include "select/table.hpp"

namespace mpix {

struct SparseExchange;  // defined in sparse/sparse.hpp
struct Regions;         // topo/topology.hpp

using ExchangeFn = int (*)(const Exchange &);
using SparseFn = int (*)(const SparseExchange &);
// Collective, at a persistent request's init: what every start reuses (sizes,
// schedules, persistent requests); see ExchangePlan in core/exchange.hpp.
using PrepareFn = int (*)(const Exchange &, std::unique_ptr<ExchangePlan> *plan);

struct Algorithm {
    const char *name;
    Collective collective;
    const char *hint_keys;  // comma-separated hint keys the algorithm reads
    const char *needs;      // conditions (documentation); every algorithm runs for every P
    const char *summary;
    ExchangeFn run;         // alltoall / alltoallv
    SparseFn run_sparse;    // alltoall_crs / alltoallv_crs
    // The MPI library's own collective: dispatch hands it the caller's own
    // arguments, skipping the byte path (no staging, no per-call allocation);
    // `run` is its byte-path form (tracing, counts MPI cannot take).
    bool pass_through = false;
    // Persistent requests (MPIX_Alltoall(v)_init): nullptr when nothing can be
    // computed ahead (the request then replays `run` with checks, selection,
    // byte views and staging done once).
    PrepareFn prepare = nullptr;
    // Neighbour exchanges (neighbor_alltoallv): builds the backend's plan,
    // collectively, for one call or once per persistent request.
    NeighborPlanFn plan_neighbor = nullptr;
    // What `prepare` computes at a persistent init, in words (the persistent table
    // of docs/persistent-neighbour.md).
    const char *prepared = nullptr;
    // Collective set-up the row would otherwise make lazily on its first call
    // (a communicator of its own): made when a nonblocking or persistent
    // exchange starts, in the order every rank shares, because the engine may
    // run the row's task later (sched/engine.hpp, ordering rules).
    int (*warm)(MPIX_Comm *xcomm) = nullptr;
    // Whether `warm` has nothing left to make (no collective call); without
    // it, a row with `warm` counts as never ready.
    bool (*warm_ready)(MPIX_Comm *xcomm) = nullptr;
};

// What a nonblocking or persistent exchange of row `a` builds before it runs
// as a task: the node regions (and socket regions where its hints ask for
// them) and the row's `warm`. Collective the first time only; then it first
// completes every started exchange of the process (sched::drain), as a
// blocking call does: a peer may be waiting in a completion call for one of
// them while this rank would wait in the set-up's collective for the peer, and
// the set-up's collectives on the comm must not interleave with those of
// tasks in flight.
int warm_collective_state(MPIX_Comm *xcomm, const Algorithm *a, const Hints &hints);

// The bytes this alltoall(v) row copies locally per call, in words (the
// algorithm table of docs/algorithms.md; counted and charged in core/local_work.hpp). D is the
// rank's data (its P blocks), P the ranks, n ranks per node, N nodes.
const char *local_copies(const Algorithm &a);

// Whether the row's `run` takes every block's size from sendbytes / recvbytes,
// as for MPIX_Alltoallv, even when the exchange is uniform (the direct and
// randomized direct exchanges): such a row may run an in-place MPIX_Alltoall
// with the rank's own block kept out of it (kept_block in select/dispatch.hpp).
bool reads_block_sizes(const Algorithm &a);

// Whether the row agrees Exchange::carried_stats itself, so that `auto`'s
// agreement of MPIX_Alltoallv's block statistics needs no reduction of its own
// in a blocking call that runs it: inside its own messages (two_phase_bruck,
// parlogna: block_stats_in_own_messages), or in agree_max's rounds while its
// blocks move (nonblocking, scattered, randomized_sendrecv; nonempty beside
// its pattern's agreement).
bool carries_block_stats(const Algorithm &a);
// Whether they ride inside the row's own messages (16 bytes a message): no
// message and no round of their own, what mpix-tune counts as free. The direct
// rows' rounds are not counted so: where an exchange is bound by its message
// overheads they cost what the reduction does (SimGrid SMPI, fattree-64x16,
// nodes of one rank, `nonblocking` at 16 KiB normal: 11.85 us against 11.82
// at P = 16, 18.01 against 17.88 at P = 64), and only where its blocks take
// longer than the rounds do they hide (64 KiB normal: 0.01 us against 11.31 at
// P = 16; `nonempty` at P = 64: 0.10 against 16.88).
bool block_stats_in_own_messages(const Algorithm &a);

// Hands over this call's block statistics, which `auto` kept when it picked
// the row on the previous call's (xcomm->agreement_awaiting): to the row, whose
// messages then agree them (returned: the buffer for Exchange::carried_stats),
// where `blocking` and the row carries them; otherwise to an MPI_Iallreduce the
// next call completes (nullptr returned). Every rank hands over the same way
// (the row and the kind of call are the same everywhere). Values never handed
// over are reduced, blocking, by the next call that needs them.
std::uint64_t *hand_over_agreement(MPIX_Comm *xcomm, const Algorithm *row, bool blocking);

// What a persistent request of this alltoall(v) row computes once at init and
// how its starts run, in words (the persistent table of docs/persistent-neighbour.md).
const char *persistent_form(const Algorithm &a);

// Enumerates algorithms of one collective in registry order; nullptr past the end.
const Algorithm *algorithm_at(Collective c, int index);
const Algorithm *find_algorithm(Collective c, const char *name);

// The algorithm a call runs: the resolved hint, or the first matching rule of
// the selection tables (the comm info's tuning_file, MPIX_TUNING_FILE's, the
// built-in one; select/table.hpp). Rules test only values that are equal on every
// rank, so every rank picks the same row. `send` is the call's send side (the
// receive side for MPI_IN_PLACE), with its type described; `in_place`: the call
// passed MPI_IN_PLACE (every rank does or none). Called once per call
// on every rank (a rule on agreed block statistics may start a reduction).
// `persistent` (MPIX_Alltoall(v)_init): what `auto` agrees on is this call's own
// statistic, agreed now, rather than the previous call's, and the tables' rules
// may test it (condition `persistent`); its pick is not remembered for calls. `rule_hints`, when
// given, receives the picked rule's hint values (nullptr: none), which apply to
// every key the caller did not set.
//
// Inline: on every call's path. A row the hints name, or `auto`'s pick
// remembered on the comm (MPIX_Comm::auto_memo) for this block size and
// MPI_IN_PLACE choice, costs a few loads; otherwise select_auto_algorithm
// consults the tables.
const Algorithm *select_auto_algorithm(Collective c, MPIX_Comm *xcomm, const UserSide &send, bool in_place,
                                       bool persistent, const RuleHints **rule_hints);
// The block size `auto`'s memo is keyed on: MPIX_Alltoall's block in bytes, 0 otherwise.
inline std::size_t auto_memo_block(Collective c, const UserSide &send)
{
    return c == Collective::alltoall ? send.count(0) * send.info.size : 0;
}
// True when `auto`'s memo holds the pick for a call with these values.
inline bool auto_memo_holds(const MPIX_Comm::AutoMemo &memo, Collective c, const UserSide &send, bool in_place)
{
    return memo.valid && memo.block_bytes == auto_memo_block(c, send) && memo.in_place == in_place;
}
inline const Algorithm *select_algorithm(Collective c, MPIX_Comm *xcomm, const Hints &hints, const UserSide &send,
                                         bool in_place, bool persistent = false,
                                         const RuleHints **rule_hints = nullptr)
{
    if (rule_hints)
        *rule_hints = nullptr;
    if (const Algorithm *a = hints.row[static_cast<int>(c)])
        return a;
    const MPIX_Comm::AutoMemo &memo = xcomm->auto_memo[static_cast<int>(c)];
    if (!persistent && auto_memo_holds(memo, c, send, in_place)) {
        if (rule_hints)
            *rule_hints = memo.rule_hints;
        return memo.row;
    }
    return select_auto_algorithm(c, xcomm, send, in_place, persistent, rule_hints);
}
// The comm's hints with a rule's hint values (kept on the comm; `rule_hints`
// nullptr: the comm's hints).
const Hints &comm_hints_with_rule(MPIX_Comm *xcomm, const RuleHints *rule_hints);
// The tables' pick for a neighbour exchange; `count_offnode` gives this rank's
// blocks to other nodes when a rule tests the agreed maximum (collective).
int select_neighbor_rule(MPIX_Comm *xcomm, long long (*count_offnode)(const Regions &, const void *),
                         const void *arg, const Algorithm **out);
// The hint's backend or the tables' pick for a sparse exchange;
// `max_remote_sends` agrees on the statistic when a rule tests it (collective).
int select_sparse_rule(MPIX_Comm *xcomm, Collective c, const Hints &hints,
                       int (*max_remote_sends)(const Regions &, const void *, long long *), const void *arg,
                       const Algorithm **out, const RuleHints **rule_hints);

// The built-in table's picks on a shape (P and a node count; nodes as equal as P
// allows), for tests and mpix-bench --auto-map:
// `auto`'s rule for MPIX_Alltoall, from values every rank agrees on: P, the number
// of nodes (1 when unknown), the block size in bytes and MPI_IN_PLACE.
const Algorithm *auto_alltoall_rule(int size, int nnodes, std::size_t block_bytes, bool in_place = false,
                                    bool persistent = false);
// `auto`'s rule for MPIX_Alltoallv, from values every rank agrees on: P, the number
// of nodes (1 when unknown) and, only where auto_alltoallv_needs_mean says so, the
// largest per-rank mean block in bytes (agreed one call late, or while the pick
// holds some calls earlier: registry.cpp, AgreedBlocks; off the call's path).
const Algorithm *auto_alltoallv_rule(int size, int nnodes, unsigned long long agreed_mean, bool in_place = false,
                                     bool persistent = false);
bool auto_alltoallv_needs_mean(int size, int nnodes);
const Algorithm *select_sparse_algorithm(Collective c, const Hints &hints, int size, int nnodes);
// The same with the statistic agreed over all ranks: the most messages any rank
// sends to other nodes (may pick node aggregation). Needed only when
// sparse_auto_needs_stats(nnodes); callers skip the allreduce otherwise.
bool sparse_auto_needs_stats(int nnodes);
const Algorithm *select_sparse_algorithm(Collective c, const Hints &hints, int size, int nnodes,
                                         long long max_remote_sends);

// `auto`'s rule for MPIX_Neighbor_alltoallv, from values every rank agrees on:
// the node count and, only where neighbor_auto_needs_stats says so, the most
// blocks any rank sends to ranks of other nodes (agreed by the caller).
bool neighbor_auto_needs_stats(int nnodes);
const Algorithm *auto_neighbor_rule(int nnodes, long long max_offnode_blocks);

}  // namespace mpix

#endif
