// The registry: one row per algorithm. Add a row here and the tests, the
// benchmark, hint validation and the guide's tables (docs/) pick it up.
#include "select/registry.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>

#include "alltoall/bruck.hpp"
#include "alltoallv/bruck_nonuniform.hpp"
#include "alltoallv/direct.hpp"
#include "alltoallv/parlogna.hpp"
#include "sparse/sparse.hpp"
#include "alltoall/hierarchical.hpp"
#include "alltoallv/node_aware.hpp"
#include "alltoallv/node_bruck.hpp"
#include "alltoallv/node_bruck_adaptive.hpp"
#include "alltoallv/parlinna.hpp"
#include "alltoallv/randomized.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/trace.hpp"
#include "topo/topology.hpp"
#include "sched/engine.hpp"

namespace mpix {

namespace {

constexpr Collective A2A = Collective::alltoall;
constexpr Collective A2AV = Collective::alltoallv;

// What a persistent request of the direct rows that post everything at once keeps.
// `randomized`'s selection (defined with `auto` below).
int randomized_selection(const Exchange &x);

constexpr const char *kPostedAtStart =
    "persistent point-to-point requests: a start is one MPI_Startall, progressed between start and wait";

const Algorithm kAlgorithms[] = {
    // Direct exchanges (src/alltoallv/direct.cpp): both collectives.
    {"pmpi", A2A, "", "", "the MPI library's own MPI_Alltoall", direct_pmpi, nullptr, true},
    {"linear", A2A, "", "", "post every Irecv, then every Isend, in rank order", direct_linear, nullptr, false,
     prepare_linear, nullptr, kPostedAtStart},
    {"pairwise", A2A, "", "", "P-1 Sendrecv steps (XOR partners when P is a power of two)", direct_pairwise, nullptr},
    {"nonblocking", A2A, "", "", "spread-out: round-robin peers, all posted at once", direct_nonblocking, nullptr,
     false, prepare_nonblocking, nullptr, kPostedAtStart},
    {"scattered", A2A, "batch_size", "", "spread-out in windows of batch_size requests", direct_scattered, nullptr},
    {"pmpi", A2AV, "", "", "the MPI library's own MPI_Alltoallv", direct_pmpi, nullptr, true},
    {"linear", A2AV, "", "", "post every Irecv, then every Isend, in rank order", direct_linear, nullptr, false,
     prepare_linear, nullptr, kPostedAtStart},
    {"pairwise", A2AV, "", "", "P-1 Sendrecv steps (XOR partners when P is a power of two)", direct_pairwise, nullptr},
    {"nonblocking", A2AV, "", "", "spread-out: round-robin peers, all posted at once", direct_nonblocking, nullptr,
     false, prepare_nonblocking, nullptr, kPostedAtStart},
    {"scattered", A2AV, "batch_size", "", "spread-out in windows of batch_size requests (MPICH's default)",
     direct_scattered, nullptr},
    {"nonempty", A2AV, "batch_size", "",
     "spread-out, only the non-empty blocks: sends posted at once, batch_size receives in flight (all where they "
     "average 256 KiB or more); the ranks agree a summed hash of which blocks are empty while they move",
     direct_nonempty, nullptr, false, prepare_nonempty, nullptr,
     "persistent point-to-point requests of the non-empty blocks, the pattern agreed once at init: a start is one "
     "MPI_Startall"},
    // Randomized direct exchanges for low-diameter networks (src/alltoallv/randomized.cpp).
    {"randomized_scatter", A2A, "random_seed", "",
     "every Irecv, then every Isend, in one shuffled rank order (the same on every rank)", randomized_scatter, nullptr},
    {"randomized_sendrecv", A2A, "random_seed,max_queue", "",
     "anti-circulant schedule of a shuffled order: one send and one receive per step, max_queue steps in flight",
     randomized_sendrecv, nullptr},
    {"randomized_segmented", A2A, "random_seed,max_queue,segment_size", "",
     "randomized_sendrecv's order, blocks cut into segment_size pieces sent segment by segment, max_queue in flight",
     randomized_segmented, nullptr, false, nullptr, nullptr, nullptr, randomized_warm,
     randomized_warm_ready},
    {"randomized", A2A, "random_seed,max_queue,segment_size", "",
     "the paper's selection: auto's pick for small blocks (nonblocking where that is pmpi), randomized scatter or sendrecv for medium, segmented for large",
     randomized_selection, nullptr, false, nullptr, nullptr, nullptr, randomized_warm,
     randomized_warm_ready},
    {"randomized_scatter", A2AV, "random_seed", "",
     "every Irecv, then every Isend, in one shuffled rank order (the same on every rank)", randomized_scatter, nullptr},
    {"randomized_sendrecv", A2AV, "random_seed,max_queue", "",
     "anti-circulant schedule of a shuffled order: one send and one receive per step, max_queue steps in flight",
     randomized_sendrecv, nullptr},
    {"randomized_segmented", A2AV, "random_seed,max_queue,segment_size", "",
     "randomized_sendrecv's order, blocks cut into segment_size pieces sent segment by segment, max_queue in flight",
     randomized_segmented, nullptr, false, nullptr, nullptr, nullptr, randomized_warm,
     randomized_warm_ready},
    {"randomized", A2AV, "random_seed,max_queue,segment_size", "",
     "the paper's selection on the agreed mean block: auto's pick for small (nonblocking for pmpi), scatter or sendrecv for medium, segmented for large",
     randomized_selection, nullptr, false, nullptr, nullptr, nullptr, randomized_warm,
     randomized_warm_ready},
    // Bruck family, uniform (src/alltoall/bruck.cpp).
    {"bruck_basic", A2A, "", "", "rotation, ceil(log2 P) packed store-and-forward steps, inverse rotation",
     bruck_basic, nullptr},
    {"bruck_basic_dt", A2A, "", "", "basic Bruck sending blocks by derived datatype instead of packing",
     bruck_basic_dt, nullptr},
    {"bruck_modified", A2A, "", "", "modified Bruck: initial rotation to index 2p-i, no final rotation",
     bruck_modified, nullptr},
    {"bruck_modified_dt", A2A, "", "", "modified Bruck with derived datatypes instead of packing",
     bruck_modified_dt, nullptr},
    {"bruck_zerocopy_dt", A2A, "", "", "zero-copy Bruck: alternating buffers described by struct types",
     bruck_zerocopy_dt, nullptr},
    {"bruck_zero_rotation", A2A, "", "", "Bruck with a cached rotation index array instead of rotations",
     bruck_zero_rotation, nullptr},
    {"bruck_radix", A2A, "radix", "", "radix-r Bruck (default r = ceil(sqrt P))", bruck_radix, nullptr},
    // Bruck family and ParLogNa, non-uniform (src/alltoallv/bruck_nonuniform.cpp, parlogna.cpp).
    {"padded_bruck", A2AV, "", "", "allreduce the largest block, pad to it, modified Bruck, scan out",
     padded_bruck, nullptr},
    {"padded_alltoall", A2AV, "", "", "allreduce the largest block, pad to it, MPI_Alltoall, scan out",
     padded_alltoall, nullptr},
    {"two_phase_bruck", A2AV, "", "", "radix-2 Bruck, each step one message: block sizes in front of the blocks; no rotations",
     two_phase_bruck, nullptr, false, two_phase_bruck_prepare, nullptr,
     "every step's bundle sizes: starts send blocks only (no size header, no probe)"},
    {"parlogna", A2AV, "radix,batch_size", "", "ParLogNa: K rounds of radix r (2..P), sizes inside each round; temporary space P-1-K blocks",
     parlogna, nullptr, false, parlogna_prepare, nullptr,
     "every round's forwarded-block sizes: starts send blocks only (no size header, no probe)"},
    // Sparse dynamic data exchange (src/sparse/): rows have run == nullptr.
    {"personalized", Collective::alltoall_crs, "crs_recv_nnz_known", "",
     "reduce-scatter of per-destination flags, then Isend and matched probes", nullptr, sparse_personalized},
    {"nonblocking", Collective::alltoall_crs, "crs_recv_nnz_known", "",
     "NBX: Issend, probe while testing, then a non-blocking dissemination barrier", nullptr, sparse_nonblocking},
    {"rma", Collective::alltoall_crs, "", "",
     "MPI_Put into per-source slots of a cached window between two fences", nullptr, sparse_rma},
    {"personalized_locality", Collective::alltoall_crs, "locality", "",
     "one aggregate per node (personalized), then redistribution inside the node", nullptr,
     sparse_personalized_locality},
    {"nonblocking_locality", Collective::alltoall_crs, "locality", "",
     "one aggregate per node (NBX), then redistribution inside the node", nullptr, sparse_nonblocking_locality},
    {"personalized", Collective::alltoallv_crs, "crs_recv_nnz_known", "",
     "reduce-scatter of per-destination flags, then Isend and matched probes", nullptr, sparse_personalized},
    {"nonblocking", Collective::alltoallv_crs, "crs_recv_nnz_known", "",
     "NBX: Issend, probe while testing, then a non-blocking dissemination barrier", nullptr, sparse_nonblocking},
    {"personalized_locality", Collective::alltoallv_crs, "locality", "",
     "one aggregate per node (personalized), then redistribution inside the node", nullptr,
     sparse_personalized_locality},
    {"nonblocking_locality", Collective::alltoallv_crs, "locality", "",
     "one aggregate per node (NBX), then redistribution inside the node", nullptr, sparse_nonblocking_locality},
    // Hierarchical / locality-aware (src/alltoallv/node_aware.cpp, src/alltoall/hierarchical.cpp).
    {"node_aware", A2A, "inner,relay_steps", "",
     "node-aware: to the same-index rank of the destination's node, then inside it (relay_steps=2); or gather per "
     "remote node inside the node, one message per node pair, redistribute (3); auto: fewer messages per rank",
     node_aware, nullptr},
    {"locality_aware", A2A, "inner,leaders_per_node,locality,relay_steps", "",
     "node_aware between groups (leaders_per_node groups per node, or sockets with locality=socket)", locality_aware,
     nullptr},
    {"hierarchical", A2A, "inner", "", "gather to one leader per node, leaders exchange, scatter", hierarchical,
     nullptr},
    {"multileader", A2A, "inner,leaders_per_node", "", "leaders_per_node leaders per node gather, all leaders exchange, scatter",
     multileader, nullptr},
    {"multileader_locality", A2A, "inner,leaders_per_node", "",
     "multileader whose leaders aggregate per remote node (one message per node pair)", multileader_locality, nullptr},
    {"node_bruck", A2A, "radix,direct_above,group_size", "",
     "node-aware log-time: radix-r Bruck rounds gather by destination group inside a group (a node, or group_size "
     "ranks of a larger node), one message per group pair, radix-r Bruck rounds redistribute; from direct_above bytes per rank, scattered",
     node_bruck, nullptr},
    {"node_aware", A2AV, "inner,relay_steps", "",
     "node-aware: to the same-index rank of the destination's node, then inside it (relay_steps=2); or gather per "
     "remote node inside the node, one message per node pair, redistribute (3); auto: fewer messages per rank",
     node_aware, nullptr, false, node_aware_prepare, nullptr,
     "every hop's item sizes and the node map: starts send blocks only (no size header, no probe)"},
    {"locality_aware", A2AV, "inner,leaders_per_node,locality,relay_steps", "",
     "node_aware between groups (leaders_per_node groups per node, or sockets with locality=socket)", locality_aware,
     nullptr},
    {"node_bruck", A2AV, "radix,direct_above,group_size", "",
     "node-aware log-time: radix-r Bruck rounds gather by destination group inside a group (a node, or group_size "
     "ranks of a larger node), one message per group pair, radix-r Bruck rounds redistribute; sizes travel inside the messages; from direct_above bytes per rank "
     "(the previous call's, agreed), scattered; a rank receiving more than that gets the last rounds' data "
     "in place",
     node_bruck, nullptr},
    {"node_bruck_adaptive", A2AV, "direct_above", "",
     "few large nodes, by the largest and smallest rank volume its picks agree where those decide, else by the "
     "node means node_bruck's messages agree (node_bruck every 8th call); on 2-4 nodes two_phase_bruck "
     "(node_bruck for skewed small blocks) or parlinna_coalesced (radix 4, batch 8) by the mean block, "
     "node_bruck for large ones; on more nodes node_bruck",
     node_bruck_adaptive, nullptr},
    {"parlinna_coalesced", A2AV, "radix,batch_size,inner", "",
     "ParLinNa: ParLogNa rounds inside the node (sizes inside each round; radix from the bytes the node "
     "exchanged in the previous call, agreed in them), then one message per remote rank of equal local index",
     parlinna_coalesced,
     nullptr},
    {"parlinna_staggered", A2AV, "radix,batch_size,inner", "",
     "ParLinNa: ParLogNa rounds inside the node (sizes inside each round; radix from the bytes the node "
     "exchanged in the previous call, agreed in them), then one message per block to ranks of equal local index",
     parlinna_staggered, nullptr},
    // Neighbour exchanges over an MPIX_Topo (src/neighbor/): rows have plan_neighbor.
    {"standard", Collective::neighbor_alltoallv, "", "",
     "a persistent receive per source and send per destination, all posted at start", nullptr, nullptr, false,
     nullptr, neighbor_standard_plan},
    {"locality", Collective::neighbor_alltoallv, "", "",
     "MPI Advance's locality-aware exchange: gather at a relay per remote node, one message per node pair, "
     "scatter on the destination node (indexed: a value bound for several ranks of a node crosses once)",
     nullptr, nullptr, false, nullptr, neighbor_locality_plan},
};

constexpr int kCount = sizeof(kAlgorithms) / sizeof(kAlgorithms[0]);

}  // namespace

bool block_stats_in_own_messages(const Algorithm &a)
{
    return a.run == two_phase_bruck || a.run == parlogna;
}

bool carries_block_stats(const Algorithm &a)
{
    const ExchangeFn rounds_beside_blocks[] = {direct_nonblocking, direct_scattered, direct_nonempty,
                                               randomized_sendrecv};
    return block_stats_in_own_messages(a) || std::find(std::begin(rounds_beside_blocks),
                                                       std::end(rounds_beside_blocks),
                                                       a.run) != std::end(rounds_beside_blocks);
}

bool reads_block_sizes(const Algorithm &a)
{
    // Not `randomized`: its selection reads block_bytes of a uniform exchange
    // and agrees the mean block of any other, by messages.
    const ExchangeFn sized[] = {direct_linear,      direct_pairwise,     direct_nonblocking,  direct_scattered,
                                randomized_scatter, randomized_sendrecv, randomized_segmented};
    return std::find(std::begin(sized), std::end(sized), a.run) != std::end(sized);
}

const char *local_copies(const Algorithm &a)
{
    // Measured with mpix-bench's copied_bytes (busiest rank, 1 KiB blocks) at
    // P=16 on 4 nodes of 4 and P=64 on 4 nodes of 16 (ChangeLog, issue 29).
    static const struct {
        const char *name;
        const char *copies;
    } kCopies[] = {
        {"pmpi", "none by mpix (the MPI library copies the rank's own block)"},
        {"linear", "the rank's own block: D/P"},
        {"pairwise", "the rank's own block: D/P"},
        {"nonblocking", "the rank's own block: D/P"},
        {"scattered", "the rank's own block: D/P"},
        {"nonempty", "the rank's own block: D/P"},
        {"randomized_scatter", "the rank's own block: D/P"},
        {"randomized_sendrecv", "the rank's own block: D/P"},
        {"randomized_segmented", "the rank's own block: D/P"},
        {"randomized", "its pick's: the rank's own block for the direct picks"},
        {"bruck_basic", "(2 + log2 P) D: rotation, half the blocks packed and unpacked per round, inverse rotation"},
        {"bruck_basic_dt", "(2 + 1.5 log2 P) D: rotations, the MPI library packing and unpacking each round's datatype, a copy back"},
        {"bruck_modified", "(1 + log2 P) D: one rotation, half the blocks packed and unpacked per round"},
        {"bruck_modified_dt", "(1 + 1.5 log2 P) D: one rotation, datatype packing and unpacking, a copy back"},
        {"bruck_zerocopy_dt", "log2 P D + D/P: the MPI library packs and unpacks every round's datatype"},
        {"bruck_zero_rotation", "log2 P D + D/P: half the blocks packed and unpacked per round"},
        {"bruck_radix", "2 (r-1)/r log_r P D + D/P: a packing and an unpacking per hop"},
        {"padded_bruck", "about (3 + log2 P) P m, m the largest block anywhere: padding, modified Bruck on the padded blocks, scan out"},
        {"padded_alltoall", "about 2 P m, m the largest block anywhere: padding in and scanning out (the MPI library's own copies on top)"},
        {"two_phase_bruck", "about (1 + log2(P)/2) D: each block packed once per hop, then copied into place (3.6 D at P=16, 4.4 D at P=64)"},
        {"parlogna", "about 4 D: packed once per hop, forwarded blocks staged, copied into place (3.7 D at P=16, 4.0 D at P=64)"},
        {"node_aware", "two steps: about 2 D, packed per destination inside the node and copied into place (2.0 D at P=256 on 4 nodes of 64); three steps: about 3 D where nodes outnumber a node's ranks; a rank handling one of N nodes of n packs their n^2 blocks once, about n/N D (17.5 D at P=256 on 4 nodes of 64), and forwards them unpacked; on one node, or in nodes of one rank, the own block alone (each message is one block for its receiver, received in place)"},
        {"locality_aware", "as node_aware per group: two steps 1.9 D, three steps 2.9 D at P=256 on 4 nodes of 64 in 4 groups; groups of one rank (nodes of up to 4 ranks by default): the own block alone"},
        {"hierarchical", "the leader packs and unpacks all its node's data: about 1.75 n D for nodes of n (112 D at P=256 on nodes of 64)"},
        {"multileader", "each leader packs and unpacks its group's data: about 2 g D for groups of g (31 D at P=256, groups of 16)"},
        {"multileader_locality", "as multileader, plus the leaders' exchange inside the node: about 2.7 g D for groups of g (43 D at P=256, groups of 16)"},
        {"node_bruck", "about (1 + 2 log_r n + 2) D where nodes outnumber a node's ranks (bundles packed per Bruck hop in both phases, one message per node pair packed, delivery); a handling rank copies n/((N-1)k) times more, k = max(1, smallest node / (N-1)) parts per node: 4.0-4.5 D at P=16 (k=1, before parts); about 2 D less where a receiver's chunks average 32 KiB or more (MPIX_Alltoallv: they skip the last phase's bundles; P=256 on 16 nodes, 0..8 KiB: 2.3 MB a rank instead of 4.2); in the direct mode, the own block"},
        {"node_bruck_adaptive", "its pick's: two_phase_bruck's, parlinna_coalesced's or node_bruck's"},
        {"parlinna_coalesced", "about 2-3 D: ParLogNa inside the node (more hops at radix 2), each remote rank's blocks packed "
                               "into one message, received in place where the source node's blocks lie one after the other "
                               "(P=64 in nodes of 16: 2.9 D at 0..1 KiB, radix 2; 2.4 D at 0..8 KiB, radix 16; P=16 in "
                               "nodes of 4: 1.9 D)"},
        {"parlinna_staggered", "about 1-2 D: ParLogNa inside the node, blocks sent as they lie (P=64 in nodes of 16: 2.2 D at "
                               "0..1 KiB, 1.7 D at 0..8 KiB; P=16 in nodes of 4: 1.0-1.2 D)"},
    };
    if (a.collective != Collective::alltoall && a.collective != Collective::alltoallv)
        return "";
    if (a.collective == Collective::alltoallv && !std::strcmp(a.name, "pmpi"))
        return "the rank's own block from 4 KiB (D/P), which MPICH would send to itself (OwnBlockApart); none below "
               "(the MPI library copies it)";
    for (const auto &c : kCopies)
        if (!std::strcmp(c.name, a.name))
            return c.copies;
    return "(not yet measured)";
}

const Algorithm *algorithm_at(Collective c, int index)
{
    if (index < 0)
        return nullptr;
    for (int i = 0; i < kCount; ++i)
        if (kAlgorithms[i].collective == c && index-- == 0)
            return &kAlgorithms[i];
    return nullptr;
}

const Algorithm *find_algorithm(Collective c, const char *name)
{
    if (!name)
        return nullptr;
    for (int i = 0; i < kCount; ++i)
        if (kAlgorithms[i].collective == c && !std::strcmp(kAlgorithms[i].name, name))
            return &kAlgorithms[i];
    return nullptr;
}

// `auto` is data: the rules live in selection tables (select/table.hpp). The
// built-in one (select/default_table.json) holds today's thresholds and the
// measurements behind them; a site's table (mpix-tune) is tried first. What
// follows only gathers the facts a rule tests, agreeing on the costly ones only
// when a rule that could win tests them, so every rank picks the same row.

namespace {

// Each collective's row when no rule matches at all (only if the built-in
// table failed to parse, a build defect its test catches).
const Algorithm *safe_row(Collective c)
{
    switch (c) {
    case Collective::alltoall:
    case Collective::alltoallv:
        return find_algorithm(c, "pmpi");
    case Collective::alltoall_crs:
    case Collective::alltoallv_crs:
        return find_algorithm(c, "nonblocking");
    case Collective::neighbor_alltoallv:
        return find_algorithm(c, "standard");
    }
    return nullptr;
}

const Algorithm *row_of(const TableRule *rule, Collective c, const RuleHints **rule_hints)
{
    if (rule_hints)
        *rule_hints = rule && !rule->hints.empty() ? &rule->hints : nullptr;
    return rule ? rule->algorithm : safe_row(c);
}

// The built-in table alone, on a shape (P, node count): what `auto` picks
// before any site table, for tests and mpix-bench --auto-map.
const Algorithm *builtin_pick(Collective c, const SelectionFacts &f)
{
    TableChain none;
    return row_of(pick_rule(none, c, f), c, nullptr);
}

TableChain chain_of(const MPIX_Comm *xcomm)
{
    TableChain chain;
    chain.site[0] = xcomm->info_table.get();
    chain.site[1] = xcomm->env_table.get();
    return chain;
}

// The static facts of this communicator's regions (node or socket); on every
// call, so nothing is allocated (Regions keeps the largest region).
// Before a collective call of a call's set-up, outside a task: the started
// exchanges complete first, which also ends the call's Hold, so that no thread
// waits in the collective while it holds the engine (sched/engine.hpp).
void before_setup_collective(const MPIX_Comm *xcomm)
{
    if (!wait_context())
        sched::drain(xcomm);
}

int comm_facts(MPIX_Comm *xcomm, Locality locality, SelectionFacts *facts, const Regions **out = nullptr)
{
    if (!xcomm->regions[static_cast<int>(locality)])  // built by collectives
        before_setup_collective(xcomm);
    const Regions *r = nullptr;
    MPIX_CHECK(get_regions(xcomm, locality, &r));
    if (r && r->count > 0) {
        int smallest = r->max_size;
        for (int i = 0; i < r->count; ++i)
            smallest = std::min(smallest, r->size_of(i));
        node_facts(xcomm->size, r->count, r->max_size, smallest, facts);
    } else {
        node_facts(xcomm->size, 1, xcomm->size, xcomm->size, facts);
    }
    if (out)
        *out = r;
    return MPI_SUCCESS;
}

// The agreed block statistics of MPIX_Alltoallv, {largest per-rank mean block,
// largest block}, agreed one call late: a call takes the values the previous
// call agreed, picks its row on them, and leaves its own values to be agreed
// while it runs, in one of two ways (hand_over_agreement, decided by the row
// and the kind of call, so the same on every rank):
//  - carried: a blocking call whose row agrees them by maximum itself
//    (carries_block_stats): inside its own messages (two_phase_bruck and
//    parlogna, 16 bytes a message: no message and no round of their own), or,
//    in the direct rows, in agree_max's rounds while the blocks move. The call
//    returns with them agreed, and the next call takes them.
//  - reduced: an MPI_Iallreduce, completed by the next call (every rank started
//    it, in the same order, so it can complete; usually it already has).
// Kept on the communicator; freeing it completes a pending reduction
// (MPIX_Comm_free is collective). A call that leaves its values with neither
// (a path that never hands them over) has them reduced, blocking, by the next.
//
// Under SimGrid SMPI the reduced form is that blocking MPI_Allreduce of the
// previous call's contribution, at the start of the next call: SimGrid's
// MPI_Iallreduce posts P - 1 messages per rank at once (2(P - 1) us of message
// CPU a call: 126 us at P = 64, 2046 at P = 1024), where an MPI library's runs
// ceil(log2 P) rounds of one message (MPICH's recursive doubling, progressed in
// the exchange's own waits). The blocking allreduce is SimGrid's recursive
// doubling (sim/run sets smpi/allreduce:rdb): those rounds, charged in full, none
// hidden behind the exchange, so an upper bound of what the agreement costs on a
// real MPI. The picks are the same: one call late, identical on every rank.
//
// Not every call agrees (agreement_schedule): where an agreement picks the
// same rule as the one before, the next one comes twice as many calls later,
// up to every `agreement_period`-th call (the comm's hint, 16 by default); a
// different rule brings back an agreement every call. The calls between agree
// nothing and pick on the last values agreed. A steady exchange (a solver's
// iterations) then pays the agreement about once in 16 calls; a change of its
// block sizes is picked on at most agreement_period + 1 calls late. The
// schedule follows from agreed values, the count of calls and the comm's
// hints alone, so it is the same on every rank.
static_assert(sizeof(std::uint64_t) == sizeof(unsigned long long), "reduced as MPI_UNSIGNED_LONG_LONG");
struct AgreedBlocks : CacheEntry {
    MPI_Request pending = MPI_REQUEST_NULL;
    // This rank's values of the last call, not yet handed over (awaiting), or
    // being spread by its row (carried: the maxima in place once it returns);
    // carried, [2] and [3] hold the values the call's row was picked on, the
    // same on every rank (Exchange::carried_stats).
    std::uint64_t contribution[4] = {0, 0, 0, 0};
    unsigned long long result[2] = {0, 0};
    bool awaiting = false, carried = false;
    bool agreed_once = false;                // result holds agreed values
    unsigned period = 1, countdown = 0;      // agreement_schedule's
    const void *last_rule = nullptr;         // the rule the last agreed values picked
    unsigned epoch = 0;                      // MPIX_Comm::selection_epoch of last_rule
    ~AgreedBlocks() override
    {
        if (pending != MPI_REQUEST_NULL)
            MPI_Wait(&pending, MPI_STATUS_IGNORE);
    }
};

const char *const kAgreedBlocksKey = "auto:alltoallv:agreed_blocks";

// The last agreed values into out[]: the previous call's where it handed its
// own over (*fresh set), else those of an earlier call (agreement_schedule
// decides, after the pick, whether this call hands its own over). *entry: the
// comm's AgreedBlocks, for agreement_schedule.
int agreed_blocks(MPIX_Comm *xcomm, const unsigned long long mine[2], unsigned long long out[2], bool *fresh,
                  AgreedBlocks **entry)
{
    AgreedBlocks *a = cached_or_make<AgreedBlocks>(xcomm, kAgreedBlocksKey);
    *entry = a;
    if (!a)
        return MPI_ERR_NO_MEM;
    *fresh = true;
    if (a->pending != MPI_REQUEST_NULL) {
        MPIX_CHECK(MPI_Wait(&a->pending, MPI_STATUS_IGNORE));
    } else if (a->carried) {
        a->result[0] = a->contribution[0];
        a->result[1] = a->contribution[1];
    } else if (a->awaiting || !a->agreed_once) {  // values never handed over, or the first call
        unsigned long long values[2] = {a->awaiting ? a->contribution[0] : mine[0],
                                        a->awaiting ? a->contribution[1] : mine[1]};
        before_setup_collective(xcomm);
        MPIX_CHECK(MPI_Allreduce(values, a->result, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, xcomm->comm));
    } else {
        *fresh = false;  // the last call agreed nothing: its predecessor's values stand
    }
    a->carried = false;
    a->awaiting = false;
    a->agreed_once = true;
    out[0] = a->result[0];
    out[1] = a->result[1];
    return MPI_SUCCESS;
}

// After the pick on agreed_blocks' values (`rule`): whether this call hands
// its own values (mine) over to be agreed (`a`, agreed_blocks' entry).
void agreement_schedule(MPIX_Comm *xcomm, AgreedBlocks *a, const void *rule, bool fresh,
                        const unsigned long long mine[2])
{
    const unsigned longest = std::max(1u, xcomm->hints.agreement_period);
    if (a->epoch != xcomm->selection_epoch) {  // another table or hints: compare no rule with the old ones
        a->epoch = xcomm->selection_epoch;
        a->last_rule = nullptr;
        a->period = 1;
        a->countdown = 0;
    }
    if (fresh) {
        a->period = rule == a->last_rule
                        ? static_cast<unsigned>(std::min<unsigned long long>(2ull * a->period, longest))
                        : 1;
        a->last_rule = rule;
        a->countdown = a->period - 1;
    }
    a->countdown = std::min(a->countdown, longest - 1);  // (the hint lowered since)
    if (a->countdown > 0) {
        --a->countdown;
        return;  // this call agrees nothing
    }
    a->contribution[0] = mine[0];
    a->contribution[1] = mine[1];
    a->awaiting = true;
    xcomm->agreement_awaiting = true;
}

// This rank's {mean block to the other ranks, largest block}, in bytes.
void local_blocks(int size, int rank, const UserSide &send, unsigned long long out[2])
{
    unsigned long long sum = 0, largest = 0;
    for (int j = 0; j < size; ++j) {
        const unsigned long long b = send.count(j) * send.info.size;
        largest = std::max(largest, b);
        if (j != rank)
            sum += b;
    }
    out[0] = size > 1 ? sum / static_cast<unsigned long long>(size - 1) : 0;
    out[1] = largest;
}

// `exact`: a persistent init agrees on this call's own values (one allreduce,
// paid once for every start) instead of the previous call's. The memo was
// tried first (select_algorithm, registry.hpp).
const Algorithm *auto_pick(Collective c, MPIX_Comm *xcomm, const UserSide &send, bool in_place, bool exact,
                           const RuleHints **rule_hints)
{
    MPIX_Comm::AutoMemo &memo = xcomm->auto_memo[static_cast<int>(c)];
    const std::size_t block = auto_memo_block(c, send);
    SelectionFacts facts;
    const bool have_nodes = comm_facts(xcomm, Locality::node, &facts) == MPI_SUCCESS;
    if (!have_nodes)
        shape_facts(xcomm->size, 1, &facts);
    facts.set(Fact::in_place, in_place ? 1 : 0);
    facts.set(Fact::persistent, exact ? 1 : 0);
    const TableChain chain = chain_of(xcomm);
    // What the agreed path keeps (MPIX_Comm::AutoMemo): only where the facts are
    // the nodes' own and the pick is not a persistent request's.
    const bool keep = have_nodes && !exact;
    unsigned char &needs_kept = memo.needs_agreed[in_place ? 1 : 0];
    if (c != Collective::alltoall && keep && needs_kept == 0)
        needs_kept = chain_needs_agreed(chain, c, facts) ? 2 : 1;
    if (c == Collective::alltoall) {
        facts.set(Fact::block_bytes, block);
    } else if (keep ? needs_kept == 2 : chain_needs_agreed(chain, c, facts)) {
        unsigned long long mine[2], agreed[2] = {0, 0};
        local_blocks(xcomm->size, xcomm->rank, send, mine);
        if (exact)
            before_setup_collective(xcomm);
        bool fresh = true;
        AgreedBlocks *entry = nullptr;
        const int rc = exact ? MPI_Allreduce(mine, agreed, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, xcomm->comm)
                             : agreed_blocks(xcomm, mine, agreed, &fresh, &entry);
        if (rc != MPI_SUCCESS)  // the MPI library's own needs no agreement
            return row_of(nullptr, Collective::alltoallv, rule_hints);
        facts.set(Fact::mean_block_bytes, agreed[0]);
        facts.set(Fact::max_block_bytes, agreed[1]);
        const TableRule *rule;
        if (keep && memo.agreed_rule_kept && memo.agreed_in_place == in_place &&
            memo.agreed_values[0] == agreed[0] && memo.agreed_values[1] == agreed[1]) {
            rule = memo.agreed_rule;  // the same values as the last pick: the same rule
        } else {
            rule = pick_rule(chain, c, facts);
            if (keep) {
                memo.agreed_rule_kept = true;
                memo.agreed_in_place = in_place;
                memo.agreed_values[0] = agreed[0];
                memo.agreed_values[1] = agreed[1];
                memo.agreed_rule = rule;
            }
        }
        if (!exact)
            agreement_schedule(xcomm, entry, rule, fresh, mine);
        return row_of(rule, c, rule_hints);
    }
    // Nothing agreed per call: the pick holds until the hints, tables or nodes change.
    const RuleHints *picked_hints = nullptr;
    const Algorithm *row = row_of(pick_rule(chain, c, facts), c, &picked_hints);
    if (rule_hints)
        *rule_hints = picked_hints;
    if (have_nodes && !exact) {  // a persistent pick is its request's alone
        memo.valid = true;
        memo.block_bytes = block;
        memo.in_place = in_place;
        memo.row = row;
        memo.rule_hints = picked_hints;
    }
    return row;
}

}  // namespace

std::uint64_t *hand_over_agreement(MPIX_Comm *xcomm, const Algorithm *row, bool blocking)
{
    xcomm->agreement_awaiting = false;
    AgreedBlocks *a = cached<AgreedBlocks>(xcomm, kAgreedBlocksKey);
    if (!a || !a->awaiting)
        return nullptr;
    if (blocking && row && carries_block_stats(*row)) {
        a->awaiting = false;
        a->carried = true;  // the row's messages agree them before the call returns
        a->contribution[2] = a->result[0];
        a->contribution[3] = a->result[1];
        return a->contribution;
    }
#if MPIX_SMPI
    return nullptr;  // reduced, blocking, by the next call (agreed_blocks)
#else
    if (MPI_Iallreduce(a->contribution, a->result, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, xcomm->comm, &a->pending) ==
        MPI_SUCCESS)
        a->awaiting = false;
    return nullptr;
#endif
}

const Algorithm *auto_alltoall_rule(int size, int nnodes, std::size_t block_bytes, bool in_place, bool persistent)
{
    SelectionFacts f;
    shape_facts(size, nnodes, &f);
    f.set(Fact::block_bytes, block_bytes);
    f.set(Fact::in_place, in_place ? 1 : 0);
    f.set(Fact::persistent, persistent ? 1 : 0);
    return builtin_pick(A2A, f);
}

bool auto_alltoallv_needs_mean(int size, int nnodes)
{
    SelectionFacts f;
    shape_facts(size, nnodes, &f);
    return chain_needs_agreed(TableChain(), A2AV, f);
}

const Algorithm *auto_alltoallv_rule(int size, int nnodes, unsigned long long agreed_mean, bool in_place,
                                     bool persistent)
{
    SelectionFacts f;
    shape_facts(size, nnodes, &f);
    f.set(Fact::in_place, in_place ? 1 : 0);
    f.set(Fact::persistent, persistent ? 1 : 0);
    f.set(Fact::mean_block_bytes, agreed_mean);
    f.set(Fact::max_block_bytes, agreed_mean);
    return builtin_pick(A2AV, f);
}

bool neighbor_auto_needs_stats(int nnodes)
{
    SelectionFacts f;
    shape_facts(std::max(nnodes, 1), nnodes, &f);
    return chain_needs_agreed(TableChain(), Collective::neighbor_alltoallv, f);
}

const Algorithm *auto_neighbor_rule(int nnodes, long long max_offnode_blocks)
{
    SelectionFacts f;
    shape_facts(std::max(nnodes, 1), nnodes, &f);
    f.set(Fact::max_offnode_blocks, static_cast<unsigned long long>(std::max(0LL, max_offnode_blocks)));
    return builtin_pick(Collective::neighbor_alltoallv, f);
}

int select_neighbor_rule(MPIX_Comm *xcomm, long long (*count_offnode)(const Regions &, const void *),
                         const void *arg, const Algorithm **out)
{
    const Collective c = Collective::neighbor_alltoallv;
    SelectionFacts facts;
    const Regions *nodes = nullptr;
    MPIX_CHECK(comm_facts(xcomm, Locality::node, &facts, &nodes));
    const TableChain chain = chain_of(xcomm);
    if (chain_needs_agreed(chain, c, facts)) {
        long long mine = count_offnode(*nodes, arg), agreed = 0;
        MPIX_CHECK(MPI_Allreduce(&mine, &agreed, 1, MPI_LONG_LONG, MPI_MAX, xcomm->comm));
        facts.set(Fact::max_offnode_blocks, static_cast<unsigned long long>(agreed));
    }
    *out = row_of(pick_rule(chain, c, facts), c, nullptr);
    return MPI_SUCCESS;
}

namespace {

// `randomized`: the selection of "Optimized Alltoall Algorithm for Low-Diameter
// Network Topologies" on the block size every rank agrees on (MPIX_Alltoall's
// block; MPIX_Alltoallv's largest per-rank mean, agreed one call late as
// `auto` agrees it): small blocks are latency-bound and gain nothing from a
// shuffle, so they take `auto`'s pick; the paper then picks the randomized
// scatter for medium blocks on few ranks, the randomized sendrecv for medium
// blocks on many, and the segmented sendrecv for large blocks (512 B and 16 KiB
// on its Slim Fly). Measured here (bench/results/randomized/: SimGrid on the
// Slim Fly, dragonfly and fat tree, 14-64 nodes of 1 rank, 14-16 nodes of 10,
// 1 B to 1 MiB): below 512 B auto's pick is 1.4-7x faster; from 1 KiB on the
// randomized sendrecv is the fastest of the three at every point. The scatter
// never beats it (every rank walks the same order, so every rank sends to the
// same rank first: linear's incast, shuffled); nor does the segmented one (each
// piece pays a message's overhead and SimGrid shares a link fairly among
// whole messages, so cutting them frees nothing: 2.2x slower at 64 KiB on 64
// nodes). Their ranges are therefore empty here; a site whose network
// rewards them (adaptive routing, head-of-line blocking) sets them here.
// `randomized`'s picks, looked up by name once (the registry is read-only),
// indexed by uniform (MPIX_Alltoall) or not.
struct RandomizedRows {
    const Algorithm *randomized_scatter[2] = {find_algorithm(A2AV, "randomized_scatter"),
                                              find_algorithm(A2A, "randomized_scatter")};
    const Algorithm *randomized_sendrecv[2] = {find_algorithm(A2AV, "randomized_sendrecv"),
                                               find_algorithm(A2A, "randomized_sendrecv")};
    const Algorithm *randomized_segmented[2] = {find_algorithm(A2AV, "randomized_segmented"),
                                                find_algorithm(A2A, "randomized_segmented")};
    const Algorithm *nonblocking[2] = {find_algorithm(A2AV, "nonblocking"), find_algorithm(A2A, "nonblocking")};
};

const RandomizedRows &auto_rows()
{
    static const RandomizedRows rows;
    return rows;
}

constexpr unsigned long long kRandomizedMinBlock = 512;
constexpr int kRandomizedScatterMaxRanks = 0;                                       // medium blocks: none
constexpr unsigned long long kRandomizedSegmentedMinBlock = ~0ULL;                  // large blocks: none

int randomized_selection(const Exchange &x)
{
    MPIX_Comm *xcomm = x.xcomm;
    unsigned long long block = x.block_bytes, largest = x.block_bytes;
    if (!x.uniform) {
        unsigned long long sum = 0;
        largest = 0;
        for (int j = 0; j < x.size; ++j) {
            largest = std::max<unsigned long long>(largest, x.sendbytes[j]);
            if (j != x.rank)
                sum += x.sendbytes[j];
        }
        // This call's values, agreed by tagged messages inside the exchange
        // (a collective could not run here: sched/engine.hpp, ordering rules).
        std::uint64_t agreed[2] = {x.size > 1 ? sum / static_cast<std::uint64_t>(x.size - 1) : 0, largest};
        MPIX_CHECK(agree_max(agreed, x.tag + kAgreementTag, x.comm, 2));
        block = agreed[0];
        largest = agreed[1];
    }
    const RuleHints *rule_hints = nullptr;
    const Algorithm *pick;
    if (block < kRandomizedMinBlock) {
        // `auto`'s pick on the agreed values (the tables' rules, hints included).
        SelectionFacts facts;
        if (comm_facts(xcomm, Locality::node, &facts) != MPI_SUCCESS)
            shape_facts(x.size, 1, &facts);
        facts.set(Fact::block_bytes, block);
        facts.set(Fact::mean_block_bytes, block);
        facts.set(Fact::max_block_bytes, largest);
        const Collective c = x.uniform ? A2A : A2AV;
        pick = row_of(pick_rule(chain_of(xcomm), c, facts), c, &rule_hints);
        if (pick->run == randomized_selection)  // a site table naming `randomized` here: the built-in pick
            pick = row_of(pick_rule(TableChain(), c, facts), c, &rule_hints);
        // The MPI library's collective reports no short block (docs/errors.md);
        // the randomized family reports every one, so it runs mpix's spread-out
        // exchange where auto would hand the call to MPI (below 8 ranks).
        if (pick->pass_through) {
            pick = auto_rows().nonblocking[x.uniform];
            rule_hints = nullptr;
        }
    } else if (block >= kRandomizedSegmentedMinBlock) {
        pick = auto_rows().randomized_segmented[x.uniform];
    } else if (x.size <= kRandomizedScatterMaxRanks) {
        pick = auto_rows().randomized_scatter[x.uniform];
    } else {
        pick = auto_rows().randomized_sendrecv[x.uniform];
    }
    int rc;
    if (rule_hints) {
        Hints hints = *x.hints;
        const std::map<std::string, std::string> *given[2] = {&xcomm->env_values, &xcomm->info_values};
        apply_rule_hints(*rule_hints, xcomm->lookup, given, 2, &hints);
        Exchange y = x;
        y.hints = &hints;
        rc = pick->run(y);
    } else {
        rc = pick->run(x);
    }
    if (x.trace)  // the trace names the row that ran, before that row's own params
        x.trace->set_params("picked=" + std::string(pick->name) +
                            (x.trace->params().empty() ? "" : "," + x.trace->params()));
    return rc;
}

}  // namespace

const Algorithm *select_auto_algorithm(Collective c, MPIX_Comm *xcomm, const UserSide &send, bool in_place,
                                       bool persistent, const RuleHints **rule_hints)
{
    return auto_pick(c, xcomm, send, in_place, persistent, rule_hints);
}

const Hints &comm_hints_with_rule(MPIX_Comm *xcomm, const RuleHints *rule_hints)
{
    if (!rule_hints)
        return xcomm->hints;
    auto it = xcomm->rule_hints.find(rule_hints);
    if (it != xcomm->rule_hints.end())
        return it->second;
    Hints h = xcomm->hints;
    const std::map<std::string, std::string> *given[2] = {&xcomm->env_values, &xcomm->info_values};
    apply_rule_hints(*rule_hints, xcomm->lookup, given, 2, &h);
    return xcomm->rule_hints.emplace(rule_hints, std::move(h)).first->second;
}

bool sparse_auto_needs_stats(int nnodes)
{
    SelectionFacts f;
    shape_facts(std::max(nnodes, 1), nnodes, &f);
    return chain_needs_agreed(TableChain(), Collective::alltoall_crs, f);
}

const Algorithm *select_sparse_algorithm(Collective c, const Hints &hints, int size, int nnodes)
{
    return select_sparse_algorithm(c, hints, size, nnodes, 0);
}

const Algorithm *select_sparse_algorithm(Collective c, const Hints &hints, int size, int nnodes,
                                         long long max_remote_sends)
{
    const std::string &name = hints.algorithm_for(c);
    if (name != "auto")
        if (const Algorithm *a = find_algorithm(c, name.c_str()))
            if (a->run_sparse)
                return a;
    SelectionFacts f;
    shape_facts(size, std::max(nnodes, 1), &f);
    f.set(Fact::recv_nnz_known, hints.crs_recv_nnz_known ? 1 : 0);
    f.set(Fact::max_remote_sends, static_cast<unsigned long long>(std::max(0LL, max_remote_sends)));
    return builtin_pick(c, f);
}

int select_sparse_rule(MPIX_Comm *xcomm, Collective c, const Hints &hints,
                       int (*max_remote_sends)(const Regions &, const void *, long long *), const void *arg,
                       const Algorithm **out, const RuleHints **rule_hints)
{
    *rule_hints = nullptr;
    const std::string &name = hints.algorithm_for(c);
    if (name != "auto")
        if ((*out = find_algorithm(c, name.c_str())) && (*out)->run_sparse)
            return MPI_SUCCESS;
    SelectionFacts facts;
    const Regions *reg = nullptr;
    MPIX_CHECK(comm_facts(xcomm, hints.locality, &facts, &reg));
    facts.set(Fact::recv_nnz_known, hints.crs_recv_nnz_known ? 1 : 0);
    const TableChain chain = chain_of(xcomm);
    if (chain_needs_agreed(chain, c, facts)) {
        long long agreed = 0;
        MPIX_CHECK(max_remote_sends(*reg, arg, &agreed));
        facts.set(Fact::max_remote_sends, static_cast<unsigned long long>(std::max(0LL, agreed)));
    }
    *out = row_of(pick_rule(chain, c, facts), c, rule_hints);
    return MPI_SUCCESS;
}

int warm_collective_state(MPIX_Comm *xcomm, const Algorithm *a, const Hints &hints)
{
    const bool sockets = hints.locality == Locality::socket && std::strstr(a->hint_keys, "locality");
    const bool ready = xcomm->regions[static_cast<int>(Locality::node)] &&
                       (!sockets || xcomm->regions[static_cast<int>(Locality::socket)]) &&
                       (!a->warm || (a->warm_ready && a->warm_ready(xcomm)));
    if (!ready)
        sched::drain(xcomm);
    const Regions *r = nullptr;
    MPIX_CHECK(get_regions(xcomm, Locality::node, &r));
    if (sockets)
        MPIX_CHECK(get_regions(xcomm, Locality::socket, &r));
    return a->warm ? a->warm(xcomm) : MPI_SUCCESS;
}

}  // namespace mpix
