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

// Calls visit(t), in ascending order, for every t in [1, n) whose digit of
// weight w in base radix is z (1 <= z < radix): the runs [q*w*radix + z*w,
// q*w*radix + (z+1)*w). A round's positions without testing every t: that
// was two 64-bit divisions per rank, round and digit value, P * (r-1) *
// log_r(P) of them a call (184,000 at P = 4096, radix 16).
template <class Visit>
void for_each_position_with_digit(long long n, long long w, int radix, int z, Visit &&visit)
{
    const long long period = w * radix;
    for (long long first = static_cast<long long>(z) * w; first < n; first += period) {
        const long long end = first + w < n ? first + w : n;
        for (long long t = first; t < end; ++t)
            visit(static_cast<int>(t));
    }
}

}  // namespace mpix

#endif
