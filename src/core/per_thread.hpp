// State of the calling thread: per thread natively; per simulated rank under
// SimGrid SMPI, whose ranks are actors of one thread and get privatized copies
// of plain variables (sim/README.md), where thread_local would be shared by
// all of them.
#ifndef MPIX_CORE_PER_THREAD_HPP
#define MPIX_CORE_PER_THREAD_HPP

#include "config.h"

namespace mpix {

// The calling thread's value of the variable named by `Tag`, value-initialized.
template <class Tag, class T>
T &per_thread()
{
#if MPIX_SMPI
    static T value{};
#else
    static thread_local T value{};
#endif
    return value;
}

}  // namespace mpix

#endif
