// node_bruck: locality-aware log-time all-to-all for small blocks on many nodes.
// Aggregates by destination node inside the node in radix-r Bruck rounds, sends
// one message per pair of nodes, and redistributes in radix-r Bruck rounds.
#ifndef MPIX_ALLTOALLV_NODE_BRUCK_HPP
#define MPIX_ALLTOALLV_NODE_BRUCK_HPP

#include <algorithm>
#include <cstdint>

#include "core/exchange.hpp"

namespace mpix {

// Registry entry (alltoall and alltoallv).
int node_bruck(const Exchange &x);

// What node_bruck's previous MPIX_Alltoallv on `xcomm` agreed inside its own
// messages, the same on every rank: [0] the largest volume of any rank, [1] the
// largest mean volume of any node (a rank's volume: the larger of the bytes it
// sends to and receives from the other ranks; where node_bruck's rounds split
// nodes into groups, node_bruck_group_size, of any group, which those rounds
// agree: at least the largest node mean). False before its first
// MPIX_Alltoallv on the current nodes.
bool node_bruck_agreed_volumes(MPIX_Comm *xcomm, std::uint64_t out[2]);
// Another row agreed the largest and the smallest rank volume of a call on
// `xcomm` (the same on every rank): node_bruck's next MPIX_Alltoallv takes the
// largest as the previous call's and their midpoint for its largest node mean,
// which only node_bruck's own messages agree (random block sizes: near it;
// skewed: below it), so it goes direct where they say so
// (node_bruck_goes_direct), and then agrees the volumes in that call. No
// effect before node_bruck's first MPIX_Alltoallv on the current nodes.
void node_bruck_learn_volumes(MPIX_Comm *xcomm, std::uint64_t largest, std::uint64_t smallest);
// This rank's volume in an MPIX_Alltoallv call, as those count it.
std::uint64_t node_bruck_rank_volume(const Exchange &x);

// Whether node_bruck's next MPIX_Alltoallv on `size` ranks runs its direct
// mode, from those volumes and the threshold it applies (direct_above; a
// twelfth of it on one node): a node mean past it, or the largest rank past
// node_bruck_direct_largest (twice it, or (size - 1) x it / 45 where more).
bool node_bruck_goes_direct(const std::uint64_t previous[2], std::uint64_t above, int size);
std::uint64_t node_bruck_direct_largest(std::uint64_t above, int size);
std::uint64_t node_bruck_direct_threshold(std::uint64_t direct_above, int nodes);
// Whether a rank that receives `received` bytes from the others (more than
// direct_above; 2 MiB, its default, where direct_above is 0) receives
// node_bruck's last phase in place, a message per remote group from each
// handler, instead of copying it out of the Bruck bundles (MPIX_Alltoallv in the
// rounds; the group's ranks learn each other's bytes in phase A's headers).
bool node_bruck_in_place(std::uint64_t received, std::uint64_t direct_above);
// Whether a member that received `previous_received` bytes in the previous
// MPIX_Alltoallv of the rounds in its group is bypassed in this one: its blocks
// for remote groups, and the group's blocks for the remote groups it handles,
// go to those groups' handlers in their own messages, not through it.
bool node_bruck_bypasses(std::uint64_t previous_received, std::uint64_t direct_above);
// Whether the direct mode's windows between nodes agree the range of rank
// volumes on every MPIX_Alltoallv call of P ranks (else every 8th call agrees).
bool node_bruck_direct_rides(int size);

// The radix of node_bruck's Bruck rounds inside a node of n ranks when no radix
// hint is given, for `volume` bytes exchanged per rank (the node's largest);
// `probed`: receives are sized by probing (MPIX_Alltoallv).
int node_bruck_radix(std::uint64_t volume, int n, bool probed);

// The ranks per aggregation group of node_bruck's rounds when no group_size
// hint is given: the largest node's ranks (no split) on one node, on nodes of at
// most 16 ranks, and for MPIX_Alltoall (`uniform`) on two nodes; else the group
// size of at least 16 that balances the rounds inside a group against the
// messages between groups.
int node_bruck_group_size(int largest_node, int nodes, bool uniform);

// How many parts node_bruck splits each node's ranks into: where a node has
// at least twice as many ranks as there are other nodes (nodes of 64 on 4
// nodes), one handler per remote node would leave most ranks idle between
// nodes and copy a whole node pair's data through one rank, so every remote
// node is handled in `parts` pieces by as many ranks, each for the
// destinations of one part. 1 (one handler per remote node) otherwise.
inline int node_bruck_parts(int nodes, int smallest_node)
{
    return nodes > 1 ? std::max(1, smallest_node / (nodes - 1)) : 1;
}

// The local index of node a's rank that exchanges node a's data for part q
// (of `parts`) of node b's ranks with node b (a != b), in a layout of `nodes`
// nodes where a has `size_a` ranks. Node b's handler of (a, q) is its partner.
inline int node_bruck_handler(int a, int b, int q, int parts, int nodes, int size_a)
{
    return ((((b - a) % nodes + nodes) % nodes - 1) * parts + q) % size_a;
}

}  // namespace mpix

#endif
