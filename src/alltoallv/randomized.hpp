// Randomized direct exchanges for low-diameter networks (after "Optimized
// Alltoall Algorithm for Low-Diameter Network Topologies", ETH Zurich): every
// block still travels straight to its destination, but the order in which
// ranks talk to each other comes from a shuffle of the ranks, so consecutive
// steps do not load the same routers the way rank-ordered schedules do.
#ifndef MPIX_ALLTOALLV_RANDOMIZED_HPP
#define MPIX_ALLTOALLV_RANDOMIZED_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/exchange.hpp"

namespace mpix {

// The ranks 0..size-1 shuffled by `seed` (Fisher-Yates driven by SplitMix64,
// unbiased bounded draws): the same on every rank, compiler and C library.
std::vector<int> random_rank_order(int size, std::uint64_t seed);

// The anti-circulant schedule whose first row is `order`: in step k (0..P-1)
// rank i sends to order[(i + k) mod P] and receives from the rank whose row
// holds i in column k. Every step is a permutation; each rank meets itself in
// exactly one step. `position` is the inverse of `order`.
inline int randomized_send_peer(const std::vector<int> &order, int rank, int step)
{
    const int p = static_cast<int>(order.size());
    return order[(rank + step) % p];
}
inline int randomized_recv_peer(const std::vector<int> &position, int rank, int step)
{
    const int p = static_cast<int>(position.size());
    return ((position[rank] - step) % p + p) % p;
}

// Segment length of randomized_segmented when the segment_size hint is 0.
constexpr std::size_t kDefaultSegmentBytes = 16384;

// Post every receive in the shuffled order, then every send in it, then wait.
int randomized_scatter(const Exchange &x);
// The anti-circulant schedule, at most max_queue steps in flight (0: all).
int randomized_sendrecv(const Exchange &x);
// The same order with blocks cut into segment_size pieces, segment by segment,
// at most max_queue pieces in flight.
int randomized_segmented(const Exchange &x);
// The collective set-up of the segmented rows (their communicator for pieces),
// made before an exchange starts as a task (Algorithm::warm).
int randomized_warm(MPIX_Comm *xcomm);
bool randomized_warm_ready(MPIX_Comm *xcomm);

}  // namespace mpix

#endif
