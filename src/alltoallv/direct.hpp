// Direct-exchange family (every block travels straight to its destination):
// the baselines other algorithms are measured against, also used as inner steps.
#ifndef MPIX_ALLTOALLV_DIRECT_HPP
#define MPIX_ALLTOALLV_DIRECT_HPP

#include <memory>

#include "core/exchange.hpp"

namespace mpix {

int copy_self_block(const Exchange &x);

int direct_pmpi(const Exchange &x);
int direct_linear(const Exchange &x);
int direct_pairwise(const Exchange &x);
int direct_nonblocking(const Exchange &x);
int direct_scattered(const Exchange &x);

// Persistent requests of direct_linear / direct_nonblocking: persistent
// point-to-point requests in the row's order, started together at MPIX_Start.
int prepare_linear(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);
int prepare_nonblocking(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);

}  // namespace mpix

#endif
