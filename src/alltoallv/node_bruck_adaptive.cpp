// node_bruck_adaptive: picks a row per MPIX_Alltoallv call by block size on a
// few large nodes, with no agreement of its own. node_bruck's messages carry
// every rank's volume, and its last phase leaves the largest rank volume and the
// largest node mean on every rank (node_bruck_agreed_volumes). The rows picked
// between (two_phase_bruck and parlinna_coalesced) agree the call's largest and
// smallest rank volume in their messages (16 bytes a message). Every node mean
// lies between those two, so where every node mean there gives the same pick
// (node_bruck_adaptive_pick_bracketed), the next call takes it with no node_bruck
// call at all. Where the pick depends on the node means, node_bruck runs on every
// kNodeBruckRefreshEvery-th call to learn them again, and after a call whose
// largest rank volume moved kAdaptiveVolumeChange times away from the learnt one.
//
// Why not `auto`'s own agreement: an allreduce per call. When this row was
// written the SMPI build used SimGrid's MPI_Iallreduce, which posts P - 1
// messages per rank at once: 510 us at P=256, twenty times the exchange it
// selects (docs/algorithms.md, "node_bruck on few large nodes"). Its recursive
// doubling (the SMPI build's agreement since) costs about 20 us there: still
// more than the nothing this row's own messages cost.
#include "alltoallv/node_bruck_adaptive.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "alltoallv/bruck_nonuniform.hpp"
#include "alltoallv/node_bruck.hpp"
#include "alltoallv/parlinna.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

// Calls since node_bruck last ran on this communicator. Every rank makes the
// same calls in the same order (an MPIX_Comm's exchanges run in start order,
// sched/engine.hpp), so every rank counts the same and picks the same row.
struct AdaptiveState : CacheEntry {
    int calls_since_refresh = 0;
    // The largest and smallest rank volume the last call agreed, where it ran a
    // row that agrees them (and completed its messages).
    bool bracketed = false;
    std::uint64_t bracket[2] = {0, 0};
    bool depends_on_topology() const override { return true; }  // node_bruck's volumes go with the nodes
};

// After a picked row agreed the call's largest and smallest rank volume: they
// are the next call's range (node_bruck_adaptive_pick_bracketed), and where the
// largest moved far from the learnt one, the next call refreshes. Every rank
// completed every message, and read every header, when the row returns success
// or a wrong block length (reported, yet the exchange goes on), so every rank
// holds the same values and decides alike. node_bruck learns them too (the
// largest, and their midpoint for the node means): where they send node_bruck
// direct, the refresh is a direct call that agrees the volumes, not Bruck rounds
// sized for the old ones (dragonfly-256x64, P=256, 16 B -> 16 KiB: the refresh
// call took 7084 us in rounds; see docs/algorithms.md).
void take_agreed_volumes(const Exchange &x, AdaptiveState *state, int rc, std::uint64_t learnt,
                         const std::uint64_t agreed_volumes[2])
{
    const bool agreed = rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE || rc == MPI_ERR_COUNT;
    const std::uint64_t largest = agreed_volumes[0], smallest = ~agreed_volumes[1];
    state->bracketed = agreed;
    state->bracket[0] = largest;
    state->bracket[1] = smallest;
    if (agreed && (largest > kAdaptiveVolumeChange * learnt || learnt > kAdaptiveVolumeChange * largest)) {
        state->calls_since_refresh = kNodeBruckRefreshEvery - 1;
        node_bruck_learn_volumes(x.xcomm, largest, smallest);
    }
}

// This rank's values for the rows that agree maxima: its volume, and its
// complement (the largest complement is the smallest volume's).
void own_volumes(const Exchange &x, std::uint64_t out[2])
{
    out[0] = node_bruck_rank_volume(x);
    out[1] = ~out[0];
}

}  // namespace

NodeBruckAdaptivePick node_bruck_adaptive_pick(bool volumes_known, const std::uint64_t volumes[2],
                                               std::uint64_t direct_threshold, int size, int nodes,
                                               int calls_since_refresh)
{
    if (!volumes_known || calls_since_refresh + 1 >= kNodeBruckRefreshEvery ||
        (direct_threshold > 0 && node_bruck_goes_direct(volumes, direct_threshold, size)))
        return NodeBruckAdaptivePick::node_bruck;
    if (nodes > kAdaptiveFewNodes)
        return NodeBruckAdaptivePick::node_bruck;
    const std::uint64_t mean_block = size > 1 ? volumes[1] / static_cast<std::uint64_t>(size - 1) : 0;
    if (mean_block <= kAdaptiveTwoPhaseMaxBlock) {
        const bool skewed = volumes[0] > kAdaptiveSkewRatio * volumes[1];
        return skewed ? NodeBruckAdaptivePick::node_bruck : NodeBruckAdaptivePick::two_phase_bruck;
    }
    if (volumes[1] <= kAdaptiveParlinnaMaxVolume)
        return NodeBruckAdaptivePick::parlinna_coalesced;
    return NodeBruckAdaptivePick::node_bruck;
}

bool node_bruck_adaptive_pick_bracketed(const std::uint64_t bracket[2], std::uint64_t direct_threshold, int size,
                                        int nodes, NodeBruckAdaptivePick *pick)
{
    const std::uint64_t largest = bracket[0], smallest = bracket[1];
    if (smallest > largest)
        return false;
    // The pick is constant between the node means where one of its tests flips,
    // so it is constant over [smallest, largest] when it is the same at both ends
    // and on both sides of every such point inside.
    const std::uint64_t gaps = size > 1 ? static_cast<std::uint64_t>(size - 1) : 1;
    const std::uint64_t flips[] = {
        kAdaptiveTwoPhaseMaxBlock * gaps + (gaps - 1),  // mean block <= kAdaptiveTwoPhaseMaxBlock
        kAdaptiveParlinnaMaxVolume,
        direct_threshold,                                       // node_bruck_goes_direct
        largest > 0 ? (largest - 1) / kAdaptiveSkewRatio : 0,  // largest > ratio x node mean
    };
    std::vector<std::uint64_t> means = {smallest, largest};
    for (std::uint64_t f : flips)
        for (std::uint64_t m : {f, f + 1})
            if (m > smallest && m < largest)
                means.push_back(m);
    bool first = true;
    for (std::uint64_t m : means) {
        const std::uint64_t volumes[2] = {largest, m};
        const NodeBruckAdaptivePick here = node_bruck_adaptive_pick(true, volumes, direct_threshold, size, nodes, 0);
        if (!first && here != *pick)
            return false;
        *pick = here;
        first = false;
    }
    return true;
}

const char *node_bruck_adaptive_pick_name(NodeBruckAdaptivePick pick)
{
    switch (pick) {
    case NodeBruckAdaptivePick::two_phase_bruck:
        return "two_phase_bruck";
    case NodeBruckAdaptivePick::parlinna_coalesced:
        return "parlinna_coalesced";
    case NodeBruckAdaptivePick::node_bruck:
        break;
    }
    return "node_bruck";
}

int node_bruck_adaptive(const Exchange &x)
{
    const std::string_view key = "node_bruck_adaptive";
    AdaptiveState *state = cached_or_make<AdaptiveState>(x.xcomm, key);
    if (!state)
        return MPI_ERR_NO_MEM;
    const Regions *nodes = nullptr;
    MPIX_CHECK(get_regions(x.xcomm, Locality::node, &nodes));
    std::uint64_t volumes[2] = {0, 0};
    const bool known = node_bruck_agreed_volumes(x.xcomm, volumes);
    const std::uint64_t threshold = node_bruck_direct_threshold(x.hints->direct_above, nodes->count);
    NodeBruckAdaptivePick pick = NodeBruckAdaptivePick::node_bruck;
    const bool certain = known && state->bracketed &&
                         node_bruck_adaptive_pick_bracketed(state->bracket, threshold, x.size, nodes->count, &pick);
    if (!certain)
        pick = node_bruck_adaptive_pick(known, volumes, threshold, x.size, nodes->count, state->calls_since_refresh);
    int rc = MPI_SUCCESS;
    switch (pick) {
    case NodeBruckAdaptivePick::node_bruck:
        state->calls_since_refresh = 0;
        state->bracketed = false;  // node_bruck learns the node means themselves
        rc = node_bruck(x);
        break;
    case NodeBruckAdaptivePick::two_phase_bruck: {
        ++state->calls_since_refresh;
        std::uint64_t agreed[2];
        own_volumes(x, agreed);
        rc = two_phase_bruck_agreeing(x, agreed, 2);
        take_agreed_volumes(x, state, rc, volumes[0], agreed);
        break;
    }
    case NodeBruckAdaptivePick::parlinna_coalesced: {
        ++state->calls_since_refresh;
        // The settings it was measured at (radix 4 inside the node, 8 messages
        // in flight between nodes), whatever the caller's radix and batch_size.
        Hints measured = *x.hints;
        measured.radix = 4;
        measured.batch_size = 8;
        Exchange picked = x;
        picked.hints = &measured;
        std::uint64_t agreed[2];
        own_volumes(x, agreed);
        rc = parlinna_coalesced_agreeing(picked, agreed, 2);
        take_agreed_volumes(x, state, rc, volumes[0], agreed);
        break;
    }
    }
    if (x.trace)
        x.trace->set_params(std::string("pick=") + node_bruck_adaptive_pick_name(pick) +
                            (x.trace->params().empty() ? "" : ";" + x.trace->params()));
    return rc;
}

}  // namespace mpix
