// The library's own CPU work, counted as the basic blocks of its code that run,
// and under SimGrid SMPI charged to the simulated clock per block.
//
// Where configure turns the count on (--enable-cpu-count; make sim's build by
// default, MPIX_CPU_COUNTED), GCC's -fsanitize-coverage=trace-pc puts a call of
// a hook at every basic block of the library's sources (not of the program's,
// not of the MPI library's, not of memcpy, which LocalWork charges by bytes). A
// block is 3-6 instructions of loops over blocks, plans, headers and lists,
// what bench/cpu-per-call counts with valgrind and the copy model leaves out.
// The count is of code run, so it stays deterministic (no host timing enters).
//
// Charged at MPIX_SIM_CPU_BLOCK ns a block (read with the copy model), at the
// points where the library hands MPI work or waits (p2p.cpp, wait.cpp), where it
// copies (LocalWork), where it calls the MPI library's collective (dispatch) and
// where a public call returns (guard_entry, core/error.hpp): the blocks run since
// the last charge, so the time lands between the messages where the work ran.
#ifndef MPIX_CORE_CPU_COUNT_HPP
#define MPIX_CORE_CPU_COUNT_HPP

#include <cstdint>

#include "config.h"

// The simulator's own bookkeeping (the copy model's arithmetic, the charges),
// which never runs natively, is left out of the count; so are the functions that
// read or charge it (the hook would call itself). noinline: code inlined into a
// counted function is counted.
#if MPIX_CPU_COUNTED
#define MPIX_NOT_COUNTED __attribute__((noinline, no_sanitize_coverage))
#else
#define MPIX_NOT_COUNTED
#endif

namespace mpix {

// Whether this build counts the library's blocks.
constexpr bool cpu_counted() { return MPIX_CPU_COUNTED != 0; }
// The blocks counted so far on this rank (0 where not counted).
std::uint64_t cpu_blocks();
// Arms the charge: seconds of simulated time a block, and the host's speed in
// flop/s (smpi_execute_flops takes flops). 0 seconds: counted, not charged.
void cpu_set_charge(double seconds_per_block, double flops_per_second);
// Charges the blocks run since the last charge (nothing natively, or unarmed).
void cpu_charge_now();
// cpu_charge_now where there is anything to charge: compiled out of every build
// but the SimGrid counting one.
inline void cpu_charge()
{
    if constexpr (MPIX_SMPI && MPIX_CPU_COUNTED)
        cpu_charge_now();
}

}  // namespace mpix

#endif
