// The drop-in's started exchanges behind the application's MPI_Requests: each
// is a generalized request with a poll function (MPICH's MPIX_Grequest_class_*),
// so MPI's completion calls poll it, and the poll progresses every started mpix
// exchange of the process. Used by the nonblocking calls (one generalized
// request per call), the persistent ones (one per start) and the nonblocking
// neighbourhood exchange.
#ifndef MPIX_PMPI_INFLIGHT_HPP
#define MPIX_PMPI_INFLIGHT_HPP

#include <mpi.h>

#include <atomic>
#include <cstddef>

#include "config.h"
#include "core/error.hpp"
#include "mpix.h"

#if MPIX_HAVE_GREQUEST_POLL

namespace mpix {
namespace pmpi {

// Intercepted exchanges in flight plus persistent exchanges registered,
// process-wide (MPI requests are): while zero, the drop-in's completion calls
// go straight to the MPI library after this one load.
inline std::atomic<std::size_t> &dropin_activity()
{
    static std::atomic<std::size_t> count{0};
    return count;
}
inline bool dropin_idle() { return dropin_activity().load(std::memory_order_relaxed) == 0; }

// What becomes of the mpix request once its exchange has completed.
enum class Afterwards {
    nothing,  // a nonblocking call's (MPIX_Test freed it) or a persistent one's (inactive again)
    free_it,  // a request made for one exchange only (MPI_Ineighbor_alltoallv): MPIX_Request_free
};

// Wraps the started mpix exchange `started` in a generalized request, *handle.
// On failure the exchange is completed first (every rank started it).
int wrap_started(MPIX_Request *started, Afterwards afterwards, MPI_Request *handle);

// Intercepted exchanges in flight, process-wide.
inline std::atomic<std::size_t> &in_flight_count()
{
    static std::atomic<std::size_t> count{0};
    return count;
}

// Whether an application's completion call must poll: intercepted exchanges
// are in flight and the call is not the library's own (its waits, a poll).
inline bool exchanges_in_flight()
{
    return in_flight_count().load(std::memory_order_relaxed) != 0 && !mpix::in_library();
}

// Progresses every intercepted exchange in flight; completes the generalized
// requests of those that are done. Returns the first error.
int poll_exchanges();

// How many failed exchanges MPI's completion calls on this thread have been
// handed so far (their generalized requests' query function). An exchange's
// error was raised through its own communicator's handler when the poll
// completed it (MPIX_Test); a completion call compares this count before and
// after to tell it from another request's error (pmpi/completion.cpp).
unsigned long exchange_failures_delivered();

// The outcome of the failed exchange behind generalized request `handle` that
// a completion call on this thread was handed since forget_delivered_outcomes,
// else MPI_SUCCESS.
int delivered_outcome(MPI_Request handle);
void forget_delivered_outcomes();

// MPI lets an application free a communicator while requests made on it are
// still alive (persistent ones, or nonblocking ones in flight): they complete
// normally. A route's attribute-delete callback whose MPIX_Comm still has
// such requests is released once the last is gone (`busy` tells whether it
// still has them): after a placeholder is freed or an exchange completes
// (release_idle_routes).
// release_or_defer: releases `route` now, or, while `busy`, hands it here.
int release_or_defer(void *route, bool (*busy)(void *), int (*release)(void *));
void release_idle_routes();

}  // namespace pmpi
}  // namespace mpix

#endif  // MPIX_HAVE_GREQUEST_POLL
#endif
