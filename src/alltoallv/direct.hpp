// Direct-exchange family (every block travels straight to its destination):
// the baselines other algorithms are measured against, also used as inner steps.
#ifndef MPIX_ALLTOALLV_DIRECT_HPP
#define MPIX_ALLTOALLV_DIRECT_HPP

#include <memory>
#include <vector>

#include "core/exchange.hpp"

namespace mpix {

class RidingMax;  // core/p2p.hpp

int copy_self_block(const Exchange &x);
// One trace record of a direct step: the block rank -> to, bytes each way.
void trace_direct_step(const Exchange &x, int step, int to, int from, std::size_t sent, std::size_t received);
// Every receive, then every send, in `order` (nullptr: rank order; the own
// rank is skipped and its block copied), then waits: Open MPI's basic linear,
// and the randomized scatter with a shuffled order.
int post_receives_then_sends(const Exchange &x, const std::vector<int> *order);

int direct_pmpi(const Exchange &x);
int direct_linear(const Exchange &x);
int direct_pairwise(const Exchange &x);
int direct_nonblocking(const Exchange &x);
int direct_scattered(const Exchange &x);
// The same with an agreement riding its windows: a round of `rider` in each
// window, the rounds left after the last one (node_bruck's direct mode).
int direct_scattered_riding(const Exchange &x, RidingMax *rider);

// Persistent requests of direct_linear / direct_nonblocking: persistent
// point-to-point requests in the row's order, started together at MPIX_Start.
int prepare_linear(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);
int prepare_nonblocking(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);

}  // namespace mpix

#endif
