// Direct-exchange family (every block travels straight to its destination):
// the baselines other algorithms are measured against, also used as inner steps.
#ifndef MPIX_ALLTOALLV_DIRECT_HPP
#define MPIX_ALLTOALLV_DIRECT_HPP

#include <cstdint>
#include <memory>
#include <vector>

#include "core/exchange.hpp"

namespace mpix {

class RidingMax;  // core/p2p.hpp

int copy_self_block(const Exchange &x);
// auto's statistics (Exchange::carried_stats; nothing where the call has none)
// agreed by maximum (agree_max, ceil(log2 P) rounds of 16 bytes each way) while
// the blocks the row has posted move: the direct rows' way to carry them.
int agree_carried_stats(const Exchange &x);
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
// Only the non-empty blocks, every one posted at once (spread-out order): a rank
// pays a message overhead per block it sends or receives, not 2(P-1). Before
// waiting, the ranks agree (ceil(log2 P) rounds, agree_gather) the sum of a hash
// of every non-empty block as its sender sees it minus as its receiver does: 0
// where they agree on which blocks are empty. Otherwise every rank sends every
// other its block length, and a receive that will get nothing is cancelled
// (MPI_ERR_COUNT), a block sent where none is expected received and dropped
// (MPI_ERR_TRUNCATE), so nothing hangs and no message is left behind.
// `maxima`: `count` values also agreed (their largest over the ranks) in the
// same rounds (node_bruck's direct mode; nullptr for the row).
int direct_nonempty(const Exchange &x);
int direct_nonempty_agreeing(const Exchange &x, std::uint64_t *maxima, int count);

// Persistent requests of direct_linear / direct_nonblocking: persistent
// point-to-point requests in the row's order, started together at MPIX_Start.
int prepare_linear(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);
int prepare_nonblocking(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);
// direct_nonempty's: the non-empty blocks' requests, the pattern checked at init.
int prepare_nonempty(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);

}  // namespace mpix

#endif
