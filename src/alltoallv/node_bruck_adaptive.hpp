// node_bruck_adaptive: MPIX_Alltoallv on a few large nodes. On 2-4 nodes
// two_phase_bruck (node_bruck where the volumes show skew) or parlinna_coalesced
// by the mean block, on more nodes node_bruck. The volumes: the
// largest and smallest rank volume the rows agree in their messages, and, where
// the pick depends on where the node means lie between those, the node means
// node_bruck's messages agree (node_bruck then runs on every
// kNodeBruckRefreshEvery-th call).
#ifndef MPIX_ALLTOALLV_NODE_BRUCK_ADAPTIVE_HPP
#define MPIX_ALLTOALLV_NODE_BRUCK_ADAPTIVE_HPP

#include <cstdint>

#include "core/exchange.hpp"

namespace mpix {

// Registry entry (alltoallv).
int node_bruck_adaptive(const Exchange &x);

// Where the pick depends on the node means, node_bruck runs on one call in this
// many to learn them: a job whose block size changes gets the matching row
// within that many calls.
constexpr int kNodeBruckRefreshEvery = 8;

// Sooner where the volumes moved: the messages of the rows picked between
// (two_phase_bruck, parlinna_coalesced) agree the call's largest rank volume
// (8 bytes each), and where it is more than this factor above or below the one
// node_bruck last learnt, the next call refreshes. A job whose blocks grow from
// 16 B to 16 KiB then runs two_phase_bruck once at the new size, not up to 7
// times (5.6x node_bruck there, P=256 on 4 nodes of 64).
constexpr std::uint64_t kAdaptiveVolumeChange = 2;

// The picks, from dragonfly-256x64, P=256 on 4 nodes of 64, copies charged
// (docs/algorithms.md, "node_bruck on few large nodes"): two_phase_bruck up to a
// mean block (the largest node mean volume over P-1) of the first;
// parlinna_coalesced (radix 4, batch 8) up to a node mean volume of the second:
// 698 us against node_bruck's 896 at 0..8 KiB blocks (1.0-1.1 MiB a rank). A
// rank's send and receive data then fill its 4 MiB share of the cache (the
// platforms' EPYC parts, sim/README.md) at about 2 MiB each, past which every copy
// of parlinna's rounds runs at memory speed (0..16 KiB, 2.1 MiB: 5204 us
// against node_bruck's 1178); the threshold sits between the two. node_bruck
// beyond, and wherever its direct mode applies.
constexpr std::uint64_t kAdaptiveTwoPhaseMaxBlock = 64;
constexpr std::uint64_t kAdaptiveParlinnaMaxVolume = std::uint64_t(3) << 19;  // 1.5 MiB

// On more than kAdaptiveFewNodes nodes node_bruck leads, its rounds in groups of
// 16 ranks (node_bruck_group_size): P=1024 on 16 nodes of 64, 0..16 B 43.1 us
// against two_phase_bruck's 74.4, and under moe:64,2 at 16 B 221.6 against 350.5
// (before the groups, 401.7: the row took two_phase_bruck under skew). On 2-4
// nodes, at mean blocks up to kAdaptiveTwoPhaseMaxBlock, node_bruck where the
// traffic is skewed: some rank moves more than kAdaptiveSkewRatio times the
// largest node mean (SABRE's max-to-mean test). P=256 on 4 nodes of 64, moe:16,2
// at 16 B: 45.0 us against two_phase_bruck's 51.5; uniform 25.3 against 24.8, and
// on 2 nodes 24.0 against 19.9, so two_phase_bruck without skew.
constexpr int kAdaptiveFewNodes = 4;
constexpr std::uint64_t kAdaptiveSkewRatio = 8;
enum class NodeBruckAdaptivePick { node_bruck, two_phase_bruck, parlinna_coalesced };

// The pick for one call: `volumes` as node_bruck_agreed_volumes gives them (when
// `volumes_known`), node_bruck's direct threshold on these nodes, P, the node
// count, and the calls since node_bruck last ran. The same on every rank.
NodeBruckAdaptivePick node_bruck_adaptive_pick(bool volumes_known, const std::uint64_t volumes[2],
                                               std::uint64_t direct_threshold, int size, int nodes,
                                               int calls_since_refresh);

// The pick for one call from the largest and smallest rank volume a row agreed
// (`bracket`), where it is the same for every node mean between the two (each
// node's mean volume lies there): true and *pick set; false where the pick
// depends on the node means (node_bruck_adaptive_pick then decides, by the
// node means node_bruck learnt). The same on every rank.
bool node_bruck_adaptive_pick_bracketed(const std::uint64_t bracket[2], std::uint64_t direct_threshold, int size,
                                        int nodes, NodeBruckAdaptivePick *pick);
const char *node_bruck_adaptive_pick_name(NodeBruckAdaptivePick pick);

}  // namespace mpix

#endif
