#include "core/cpu_count.hpp"

#include "config.h"

#if MPIX_SMPI
#include <smpi/smpi.h>
#endif

// Nothing here is counted (MPIX_NOT_COUNTED): the hook would call itself, and
// what reads or charges the count is not the library's work per call.

namespace mpix {

namespace {

// The count and its charge. A mutable global, which the library has nowhere
// else, because the compiler's hook takes no argument: under SMPI every
// simulated rank has its own copy (SimGrid privatizes the globals of code linked
// into the program, which is why make sim links the library statically). Built
// natively with --enable-cpu-count it counts every thread's blocks together
// (a measuring build for one thread a rank, not for production).
struct CpuCount {
    std::uint64_t blocks = 0;
    std::uint64_t charged = 0;  // blocks charged (or run before the charge was armed)
    double seconds_per_block = 0;
    double flops_per_second = 0;
};
CpuCount mpix_cpu_count;

}  // namespace

MPIX_NOT_COUNTED std::uint64_t cpu_blocks()
{
    asm volatile("" ::: "memory");  // read after every block before the call (the hook is opaque to the caller)
    return mpix_cpu_count.blocks;
}

MPIX_NOT_COUNTED void cpu_set_charge(double seconds_per_block, double flops_per_second)
{
    CpuCount &c = mpix_cpu_count;
    if (c.seconds_per_block <= 0)
        c.charged = c.blocks;  // what ran before the charge was armed is not charged
    c.seconds_per_block = seconds_per_block;
    c.flops_per_second = flops_per_second;
}

MPIX_NOT_COUNTED void cpu_charge_now()
{
#if MPIX_SMPI && MPIX_CPU_COUNTED
    CpuCount &c = mpix_cpu_count;
    if (c.seconds_per_block <= 0 || c.blocks == c.charged)
        return;
    const double blocks = static_cast<double>(c.blocks - c.charged);
    c.charged = c.blocks;
    smpi_execute_flops(blocks * c.seconds_per_block * c.flops_per_second);
#endif
}

}  // namespace mpix

#if MPIX_CPU_COUNTED
// GCC's -fsanitize-coverage=trace-pc calls this at every basic block of the
// instrumented code; its name is the compiler's, not ours.
extern "C" MPIX_NOT_COUNTED void __sanitizer_cov_trace_pc(void) { ++mpix::mpix_cpu_count.blocks; }
#endif
