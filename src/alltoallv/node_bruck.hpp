// node_bruck: locality-aware log-time all-to-all for small blocks on many nodes.
// Aggregates by destination node inside the node in radix-r Bruck rounds, sends
// one message per pair of nodes, and redistributes in radix-r Bruck rounds.
#ifndef MPIX_ALLTOALLV_NODE_BRUCK_HPP
#define MPIX_ALLTOALLV_NODE_BRUCK_HPP

#include <cstdint>

#include "core/exchange.hpp"

namespace mpix {

// Registry entry (alltoall and alltoallv).
int node_bruck(const Exchange &x);

// The radix of node_bruck's Bruck rounds inside a node of n ranks when no radix
// hint is given, for `volume` bytes exchanged per rank (the node's largest);
// `probed`: receives are sized by probing (MPIX_Alltoallv).
int node_bruck_radix(std::uint64_t volume, int n, bool probed);

// The local index of node a's rank that exchanges node a's data with node b
// (a != b) in a layout of `nodes` nodes where a has `size_a` ranks.
inline int node_bruck_handler(int a, int b, int nodes, int size_a)
{
    return (((b - a) % nodes + nodes) % nodes - 1) % size_a;
}

}  // namespace mpix

#endif
