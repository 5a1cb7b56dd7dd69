// mpix-bench --overlap's computation (bench/compute.hpp).
#include "compute.hpp"

#include <mpi.h>

#include <algorithm>

#include "config.h"
#if MPIX_SMPI
#include <simgrid/host.h>
#include <smpi/smpi.h>
#endif

namespace mpixbench {

namespace {

// Written after every chunk: the kernel's result is used, so the compiler keeps it.
volatile double sink = 0;

}  // namespace

Compute::Compute()
{
#if MPIX_SMPI
    host_flops_per_second_ = sg_host_get_speed(sg_host_self());
#else
    // Nanoseconds per iteration: the fastest of a few timed runs of 2^16.
    const long probe = 1L << 16;
    double best = 0;
    kernel(probe);  // first touch
    for (int i = 0; i < 5; ++i) {
        const double t0 = MPI_Wtime();
        kernel(probe);
        const double t = MPI_Wtime() - t0;
        if (t > 0 && (best == 0 || t < best))
            best = t;
    }
    const double per_iteration = best > 0 ? best / (double)probe : 1e-9;
    chunk_iterations_ = std::max(1L, (long)(50e-9 / per_iteration));
    chunk_seconds_ = per_iteration * (double)chunk_iterations_;
#endif
}

// A dependent chain of multiply-adds (one per iteration; about 4 cycles each),
// from the state of the previous chunk. Stays finite: |x| < 2 for any start.
double Compute::kernel(long iterations)
{
    double x = state_;
    for (long i = 0; i < iterations; ++i)
        x = x * 0.999999 + 1e-6;
    state_ = x;
    sink = x;
    return x;
}

void Compute::run(double seconds)
{
    if (!(seconds > 0))
        return;
#if MPIX_SMPI
    if (host_flops_per_second_ > 0)
        smpi_execute_flops(seconds * host_flops_per_second_);
#else
    const double start = MPI_Wtime();
    do
        kernel(chunk_iterations_);
    while (MPI_Wtime() - start < seconds);
#endif
}

}  // namespace mpixbench
