// Bruck family for uniform blocks (HPDC'22 "Optimizing the Bruck Algorithm for
// Non-uniform All-to-all Communication").
#ifndef MPIX_ALLTOALL_BRUCK_HPP
#define MPIX_ALLTOALL_BRUCK_HPP

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/exchange.hpp"
#include "core/p2p.hpp"

namespace mpix {

int bruck_basic(const Exchange &x);
int bruck_basic_dt(const Exchange &x);
int bruck_modified(const Exchange &x);
int bruck_modified_dt(const Exchange &x);
int bruck_zerocopy_dt(const Exchange &x);
int bruck_zero_rotation(const Exchange &x);
int bruck_radix(const Exchange &x);

// Digit `digit` (weight radix^digit) of t in base radix.
inline int radix_digit(long long t, long long weight, int radix) { return static_cast<int>((t / weight) % radix); }

}  // namespace mpix

#endif
