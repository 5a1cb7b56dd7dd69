// ParLogNa (HPDC'25): tunable-radix non-uniform all-to-all. Its round schedule
// is also bundle_bruck's (ParLinNa's and node_bruck's phases inside the node).
#ifndef MPIX_ALLTOALLV_PARLOGNA_HPP
#define MPIX_ALLTOALLV_PARLOGNA_HPP

#include <memory>

#include "core/exchange.hpp"

namespace mpix {

// Runs on x.comm / x.size / x.rank only (never xcomm's size), so it works on
// sub-communicators. Radix from x.hints->radix (0: ceil(sqrt(P)); clamped to P).
int parlogna(const Exchange &x);
// Persistent requests: every round's sizes exchanged once (no data), so each
// start sends blocks only, into receives of known length.
int parlogna_prepare(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);

// K, the number of rounds of ParLogNa with radix r on P ranks: the pairs (digit
// weight w = r^i, value z in 1..r-1) with z*w <= P-1. Also used by the tests.
int parlogna_round_count(int p, int radix);

// The radix parlogna uses for this P and hint value (0: ceil(sqrt(P))).
int parlogna_radix(int p, int hint);

}  // namespace mpix

#endif
