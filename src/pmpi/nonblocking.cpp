// The drop-in's nonblocking all-to-all: MPI_Ialltoall, MPI_Ialltoallv and their
// _c forms start MPIX_Ialltoall(v) and hand the application an MPI_Request that
// any MPI completion call completes (Wait, Test, their all/any/some forms,
// MPI_Request_get_status). The request is a generalized request with a poll
// function (MPICH's MPIX_Grequest_class_*): MPI's completion calls poll it, and
// the poll progresses every started mpix exchange of the process.
//
// MPI requires a nonblocking collective to progress while its process blocks in
// any MPI call, e.g. an MPI_Recv whose message a peer sends only after its own
// MPI_Wait on the all-to-all. mpix's rows of several rounds progress only inside
// completion calls on their requests, or on the progress thread. So unless the
// application names a row (MPIX_IALLTOALL_ALGORITHM, MPIX_IALLTOALLV_ALGORITHM;
// "auto" included; `pmpi` is the MPI library's own) or turns the progress thread
// on (MPIX_ASYNC_PROGRESS=1), these calls go to the MPI library's own collective
// unchanged. Without generalized
// requests with a poll function (configure: MPIX_HAVE_GREQUEST_POLL) they always do.
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "config.h"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"
#include "pmpi/attribute.hpp"
#include "pmpi/env_hint.hpp"
#include "pmpi/inflight.hpp"
#include "pmpi/persistent.hpp"

#if MPIX_HAVE_GREQUEST_POLL

namespace {

// The route of one communicator's nonblocking calls, cached as an attribute:
// the MPIX_Comm they run on (NULL: every one goes to the MPI library) and, per
// collective, whether mpix takes it.
struct NonblockingRoute {
    MPIX_Comm *xcomm = nullptr;
    bool alltoall = false;
    bool alltoallv = false;
};

int release_route(void *attr)
{
    NonblockingRoute *route = static_cast<NonblockingRoute *>(attr);
    const int rc = route->xcomm ? MPIX_Comm_free(&route->xcomm) : MPI_SUCCESS;
    delete route;
    return rc;
}

#if MPIX_HAVE_GREQUEST_POLL
// Requests made on the route (persistent ones, nonblocking ones in flight)
// outlive the communicator, as MPI lets them.
bool route_busy(void *attr)
{
    const NonblockingRoute *route = static_cast<const NonblockingRoute *>(attr);
    return route->xcomm && route->xcomm->live_objects > 0;
}
#endif

int delete_route(MPI_Comm, int, void *attr, void *)
{
#if MPIX_HAVE_GREQUEST_POLL
    return mpix::pmpi::release_or_defer(attr, route_busy, release_route);
#else
    return release_route(attr);
#endif
}

bool env_true(const char *name)
{
    const char *v = std::getenv(name);
    return v && (!std::strcmp(v, "1") || !std::strcmp(v, "true"));
}

// Builds the route of `comm` (collective: every rank reads the same
// environment). Its own MPIX_Comm, so the rows named for nonblocking calls
// never change the blocking calls' hints; a blocking call completes the started
// exchanges first (sched/engine.hpp), so the two never interleave wrongly.
int make_route(MPI_Comm comm, NonblockingRoute **out)
{
    const char *a2a = std::getenv("MPIX_IALLTOALL_ALGORITHM");
    const char *a2av = std::getenv("MPIX_IALLTOALLV_ALGORITHM");
    const bool progress_thread = env_true("MPIX_ASYNC_PROGRESS");
    NonblockingRoute *route = new (std::nothrow) NonblockingRoute;
    if (!route)
        return MPI_ERR_NO_MEM;
    // The pmpi row is the MPI library's own collective: handed over unchanged,
    // it costs one attribute lookup (a generalized request around it, 1.4 us).
    const auto takes = [&](const char *row) { return row ? std::strcmp(row, "pmpi") != 0 : progress_thread; };
    route->alltoall = takes(a2a);
    route->alltoallv = takes(a2av);
    int rc = MPI_SUCCESS;
    if (route->alltoall || route->alltoallv) {
        rc = MPIX_Comm_init(&route->xcomm, comm);
        MPIX_Info *info = nullptr;
        if (rc == MPI_SUCCESS)
            rc = MPIX_Info_init(&info);
        const char *fn = "MPI_Ialltoall(v) / MPI_Alltoall(v)_init";
        if (rc == MPI_SUCCESS && a2a)
            rc = mpix::pmpi::set_env_hint(info, comm, fn, "MPIX_IALLTOALL_ALGORITHM", "alltoall_algorithm", a2a);
        if (rc == MPI_SUCCESS && a2av)
            rc = mpix::pmpi::set_env_hint(info, comm, fn, "MPIX_IALLTOALLV_ALGORITHM", "alltoallv_algorithm", a2av);
        if (rc == MPI_SUCCESS)
            rc = MPIX_Comm_set_info(route->xcomm, info);
        if (info)
            MPIX_Info_free(&info);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_attr(comm, mpix::pmpi::attribute_keyval<delete_route>(), route);
    if (rc != MPI_SUCCESS) {
        if (route->xcomm)
            MPIX_Comm_free(&route->xcomm);
        delete route;
        return rc;
    }
    *out = route;
    return MPI_SUCCESS;
}

// The MPIX_Comm that runs this nonblocking call, or NULL for the MPI library.
int route_nonblocking(MPI_Comm comm, bool alltoallv, MPIX_Comm **out)
{
    *out = nullptr;
    NonblockingRoute *route = nullptr;
    const mpix::pmpi::Cached found = mpix::pmpi::cached_attribute<delete_route>(comm, &route);
    if (found == mpix::pmpi::Cached::none)
        return MPI_SUCCESS;
    if (found == mpix::pmpi::Cached::absent) {
        if (mpix::in_library())  // an algorithm's inner exchange (never on a routed communicator)
            return MPI_SUCCESS;
        int inter = 0;
        if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
            return MPI_SUCCESS;
        const int rc = make_route(comm, &route);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (alltoallv ? route->alltoallv : route->alltoall)
        *out = route->xcomm;
    return MPI_SUCCESS;
}

// Starts the exchange with `start` (MPIX_Ialltoall(v)(_c) on `xcomm`) and
// wraps it in a generalized request.
template <class Start>
int start_wrapped(Start start, MPI_Request *request)
{
    if (!request)  // MPIX_I* report it (MPI_ERR_ARG) through the communicator's handler
        return start(nullptr);
    MPIX_Request *started = nullptr;
    const int rc = start(&started);
    if (rc != MPI_SUCCESS)
        return rc;
    return mpix::pmpi::wrap_started(started, mpix::pmpi::Afterwards::nothing, request);
}

}  // namespace

extern "C" int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPIX_Comm *x = nullptr;
    int rc = route_nonblocking(comm, false, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    return start_wrapped(
        [&](MPIX_Request **r) {
            return MPIX_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, x, r);
        },
        request);
}

extern "C" int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPIX_Comm *x = nullptr;
    int rc = route_nonblocking(comm, true, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               request);
    return start_wrapped(
        [&](MPIX_Request **r) {
            return MPIX_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, x,
                                   r);
        },
        request);
}

#if MPIX_HAVE_LARGE_COUNT
extern "C" int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPIX_Comm *x = nullptr;
    int rc = route_nonblocking(comm, false, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    return start_wrapped(
        [&](MPIX_Request **r) {
            return MPIX_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, x, r);
        },
        request);
}

extern "C" int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    MPIX_Comm *x = nullptr;
    int rc = route_nonblocking(comm, true, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                 comm, request);
    return start_wrapped(
        [&](MPIX_Request **r) {
            return MPIX_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                     x, r);
        },
        request);
}
#endif  // MPIX_HAVE_LARGE_COUNT

#if MPI_VERSION >= 4
// The persistent forms take the nonblocking calls' route (the same progress
// rule holds for their starts); the MPI_Info's keys are the MPI library's.
extern "C" int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    MPIX_Comm *x = nullptr;
    int rc = mpix::pmpi::called_from_f08_binding(__builtin_return_address(0)) ? MPI_SUCCESS
                                                                              : route_nonblocking(comm, false, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x || !request)
        return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
    MPIX_Request *r = nullptr;
    if ((rc = MPIX_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, x, nullptr, &r)) !=
        MPI_SUCCESS)
        return rc;
    return mpix::pmpi::register_persistent(r, request);
}

extern "C" int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPIX_Comm *x = nullptr;
    int rc = mpix::pmpi::called_from_f08_binding(__builtin_return_address(0)) ? MPI_SUCCESS
                                                                              : route_nonblocking(comm, true, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x || !request)
        return PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   comm, info, request);
    MPIX_Request *r = nullptr;
    if ((rc = MPIX_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, x,
                                  nullptr, &r)) != MPI_SUCCESS)
        return rc;
    return mpix::pmpi::register_persistent(r, request);
}
#endif  // MPI_VERSION >= 4

#endif  // MPIX_HAVE_GREQUEST_POLL
