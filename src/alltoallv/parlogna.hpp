// ParLogNa (HPDC'25): tunable-radix non-uniform all-to-all. Also the intra-node
// phase of ParLinNa, which calls it on a sub-exchange over the node communicator.
#ifndef MPIX_ALLTOALLV_PARLOGNA_HPP
#define MPIX_ALLTOALLV_PARLOGNA_HPP

#include "core/exchange.hpp"

namespace mpix {

// Runs on x.comm / x.size / x.rank only (never xcomm's size), so it works on
// sub-communicators. Radix from x.hints->radix (0: ceil(sqrt(P)); clamped to P).
int parlogna(const Exchange &x);

}  // namespace mpix

#endif
