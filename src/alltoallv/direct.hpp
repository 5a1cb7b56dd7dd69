// Direct-exchange family (every block travels straight to its destination):
// the baselines other algorithms are measured against, also used as inner steps.
#ifndef MPIX_ALLTOALLV_DIRECT_HPP
#define MPIX_ALLTOALLV_DIRECT_HPP

#include "core/exchange.hpp"

namespace mpix {

int copy_self_block(const Exchange &x);

int direct_pmpi(const Exchange &x);
int direct_linear(const Exchange &x);
int direct_pairwise(const Exchange &x);
int direct_nonblocking(const Exchange &x);
int direct_scattered(const Exchange &x);

}  // namespace mpix

#endif
