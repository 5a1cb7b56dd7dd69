// ParLinNa (HPDC'25): ParLogNa inside each node over all P blocks, then one
// linear exchange between nodes among partners of equal local index.
#ifndef MPIX_ALLTOALLV_PARLINNA_HPP
#define MPIX_ALLTOALLV_PARLINNA_HPP

#include <cstdint>

#include "core/exchange.hpp"

namespace mpix {

// Between nodes: one message per destination rank carrying its blocks from the
// whole node (coalesced), or one message per block (staggered); both in windows
// of hint batch_size over node distances.
int parlinna_coalesced(const Exchange &x);
int parlinna_staggered(const Exchange &x);
// parlinna_coalesced that also agrees `count` maxima (MPIX_Alltoallv only): phase
// 1's headers spread them inside each node, and every message between nodes
// starts with its node's (8 bytes each; its receives are then staged, its own
// blocks too). maxima[k] is this rank's value on entry and the largest of every
// rank's on return (node_bruck_adaptive: the call's largest and smallest rank volume).
int parlinna_coalesced_agreeing(const Exchange &x, std::uint64_t *maxima, int count);

}  // namespace mpix

#endif
