// ParLinNa (HPDC'25): ParLogNa inside each node over all P blocks, then one
// linear exchange between nodes among partners of equal local index.
#ifndef MPIX_ALLTOALLV_PARLINNA_HPP
#define MPIX_ALLTOALLV_PARLINNA_HPP

#include "core/exchange.hpp"

namespace mpix {

// Between nodes: one message per destination rank carrying its blocks from the
// whole node (coalesced), or one message per block (staggered); both in windows
// of hint batch_size over node distances.
int parlinna_coalesced(const Exchange &x);
int parlinna_staggered(const Exchange &x);

}  // namespace mpix

#endif
