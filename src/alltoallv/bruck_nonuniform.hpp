// Bruck for non-uniform blocks (HPDC'22): padded variants and two-phase Bruck.
#ifndef MPIX_ALLTOALLV_BRUCK_NONUNIFORM_HPP
#define MPIX_ALLTOALLV_BRUCK_NONUNIFORM_HPP

#include <cstdint>
#include <memory>

#include "core/exchange.hpp"

namespace mpix {

int padded_bruck(const Exchange &x);     // allreduce max block, pad, modified Bruck, scan out
int padded_alltoall(const Exchange &x);  // allreduce max block, pad, MPI_Alltoall, scan out
int two_phase_bruck(const Exchange &x);  // per step: block sizes, then blocks
// two_phase_bruck that also agrees `count` maxima inside its messages (8 bytes
// each a message): maxima[k] is this rank's value on entry and the largest of
// every rank's on return (node_bruck_adaptive: the call's largest and smallest
// rank volume).
int two_phase_bruck_agreeing(const Exchange &x, std::uint64_t *maxima, int count);
// Persistent requests: every step's sizes exchanged once (no data), so each
// start sends blocks only, into receives of known length.
int two_phase_bruck_prepare(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);

}  // namespace mpix

#endif
