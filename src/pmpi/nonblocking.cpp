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

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "config.h"
#include "core/error.hpp"
#include "mpix.h"
#include "pmpi/attribute.hpp"

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

int delete_route(MPI_Comm, int, void *attr, void *)
{
    NonblockingRoute *route = static_cast<NonblockingRoute *>(attr);
    const int rc = route->xcomm ? MPIX_Comm_free(&route->xcomm) : MPI_SUCCESS;
    delete route;
    return rc;
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
        if (rc == MPI_SUCCESS && a2a)
            rc = MPIX_Info_set(info, "alltoall_algorithm", a2a);
        if (rc == MPI_SUCCESS && a2av)
            rc = MPIX_Info_set(info, "alltoallv_algorithm", a2av);
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

// One started exchange behind an application's MPI_Request.
struct InFlight {
    MPIX_Request *request = nullptr;  // NULL once complete (MPIX_Test frees it)
    MPI_Request handle = MPI_REQUEST_NULL;
    int outcome = MPI_SUCCESS;
    bool done = false;
};

// The process's exchanges started by intercepted calls and not yet complete:
// MPI_Request_get_status, which MPICH does not let poll a generalized request,
// polls them itself. Process-wide like the engine's own list (MPI requests
// are); the lock also serialises polls of one request from several threads.
class InFlightList {
public:
    static InFlightList &get()
    {
        static InFlightList list;
        return list;
    }
    bool empty() const { return count_.load(std::memory_order_relaxed) == 0; }
    void add(InFlight *f)
    {
        std::lock_guard<std::mutex> hold(lock_);
        items_.push_back(f);
        count_.store(items_.size(), std::memory_order_relaxed);
    }
    // Polls `f` (every started exchange progresses); once it is done, removes
    // it and completes its generalized request.
    int poll(InFlight *f)
    {
        std::lock_guard<std::mutex> hold(lock_);
        return poll_locked(f);
    }
    int poll_all()
    {
        std::lock_guard<std::mutex> hold(lock_);
        int rc = MPI_SUCCESS;
        // poll_locked removes finished entries: walk a copy.
        const std::vector<InFlight *> now = items_;
        for (InFlight *f : now) {
            const int r = poll_locked(f);
            if (rc == MPI_SUCCESS)
                rc = r;
        }
        return rc;
    }

private:
    int poll_locked(InFlight *f)
    {
        if (f->done)
            return MPI_SUCCESS;
        int flag = 0;
        const int rc = MPIX_Test(&f->request, &flag, MPI_STATUS_IGNORE);
        if (!flag && rc == MPI_SUCCESS)
            return MPI_SUCCESS;
        f->done = true;
        f->outcome = rc;
        items_.erase(std::find(items_.begin(), items_.end(), f));
        count_.store(items_.size(), std::memory_order_relaxed);
        return MPI_Grequest_complete(f->handle);
    }

    std::mutex lock_;
    std::vector<InFlight *> items_;
    std::atomic<std::size_t> count_{0};
};

// MPI's completion calls ask for the status once the request is complete: an
// empty one (a collective has no source, tag or count), with the exchange's
// outcome as the error the completion call returns.
int query_exchange(void *state, MPI_Status *status)
{
    const InFlight *f = static_cast<const InFlight *>(state);
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = MPI_ANY_SOURCE;
        status->MPI_TAG = MPI_ANY_TAG;
        status->MPI_ERROR = f->outcome;
        MPI_Status_set_elements(status, MPI_BYTE, 0);
        MPI_Status_set_cancelled(status, 0);
    }
    return f->outcome;
}

int free_exchange(void *state)
{
    InFlight *f = static_cast<InFlight *>(state);
    // MPI frees a generalized request once it is complete, so the mpix request
    // is gone; one freed by MPI_Request_free while active (erroneous for
    // collectives) stays listed and progresses on the engine until it is done.
    if (f->done)
        delete f;
    return MPI_SUCCESS;
}

int cancel_exchange(void *, int)
{
    return mpix::error_code(MPI_ERR_REQUEST, "MPI_Cancel",
                            "a nonblocking all-to-all cannot be cancelled (MPI forbids it for collectives); "
                            "complete it with MPI_Wait or MPI_Test");
}

// Called by MPI's test calls (outside MPICH's lock): progresses every started
// exchange; completes the generalized request once this one is done.
int poll_exchange(void *state, MPI_Status *)
{
    return InFlightList::get().poll(static_cast<InFlight *>(state));
}

// Called by MPI's wait calls on requests of this class: polls until each is
// complete (MPICH's own wait on a request with a poll function also spins).
int wait_exchanges(int count, void **states, double, MPI_Status *)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count; ++i) {
        InFlight *f = static_cast<InFlight *>(states[i]);
        while (!f->done && rc == MPI_SUCCESS)
            rc = poll_exchange(f, MPI_STATUS_IGNORE);
    }
    return rc;
}

int exchange_class(MPIX_Grequest_class *out)
{
    static int rc = MPI_SUCCESS;
    static const MPIX_Grequest_class cls = [] {
        MPIX_Grequest_class c{};
        rc = MPIX_Grequest_class_create(query_exchange, free_exchange, cancel_exchange, poll_exchange,
                                        wait_exchanges, &c);
        return c;
    }();
    *out = cls;
    return rc;
}

// Starts the exchange with `start` (MPIX_Ialltoall(v)(_c) on `xcomm`) and
// wraps it in a generalized request.
template <class Start>
int start_wrapped(Start start, MPI_Request *request)
{
    if (!request)
        return MPI_ERR_REQUEST;
    MPIX_Grequest_class cls;
    int rc = exchange_class(&cls);
    if (rc != MPI_SUCCESS)
        return rc;
    InFlight *f = new (std::nothrow) InFlight;
    if (!f)
        return MPI_ERR_NO_MEM;
    if ((rc = start(&f->request)) != MPI_SUCCESS) {
        delete f;
        return rc;
    }
    if ((rc = MPIX_Grequest_class_allocate(cls, f, &f->handle)) != MPI_SUCCESS) {
        MPIX_Wait(&f->request, MPI_STATUS_IGNORE);  // every rank started it
        delete f;
        return rc;
    }
    InFlightList::get().add(f);
    *request = f->handle;
    return MPI_SUCCESS;
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

// MPI's progress rule: while intercepted exchanges are in flight, every MPI
// completion call of the application progresses them, whatever requests it
// completes (a rank waiting for a point-to-point message that its peer sends
// only after completing its own all-to-all must not stop the all-to-all). The
// wait forms then test and poll in turn instead of blocking inside MPI. With
// none in flight each costs one relaxed load more. MPICH's
// MPI_Request_get_status does not call a generalized request's poll function
// at all, so it polls here too.
namespace {

// Whether an application's completion call must poll: not when the library
// itself makes it (its own waits, inside a poll too).
bool exchanges_in_flight() { return !InFlightList::get().empty() && !mpix::in_library(); }

// Polls the exchanges in flight, then runs `test` (a PMPI test call) until it
// reports completion; returns its error code.
template <class Test>
int test_and_poll(Test test)
{
    for (;;) {
        bool done = false;
        const int rc = test(&done);
        if (rc != MPI_SUCCESS || done)
            return rc;
        const int polled = InFlightList::get().poll_all();
        if (polled != MPI_SUCCESS)
            return polled;
    }
}

}  // namespace

extern "C" int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!exchanges_in_flight())
        return PMPI_Wait(request, status);
    return test_and_poll([&](bool *done) {
        int flag = 0;
        const int rc = PMPI_Test(request, &flag, status);
        *done = flag != 0;
        return rc;
    });
}

extern "C" int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!exchanges_in_flight())
        return PMPI_Waitall(count, requests, statuses);
    return test_and_poll([&](bool *done) {
        int flag = 0;
        const int rc = PMPI_Testall(count, requests, &flag, statuses);
        *done = flag != 0;
        return rc;
    });
}

extern "C" int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!exchanges_in_flight())
        return PMPI_Waitany(count, requests, index, status);
    return test_and_poll([&](bool *done) {
        int flag = 0;
        const int rc = PMPI_Testany(count, requests, index, &flag, status);
        *done = flag != 0;  // also when every request is inactive (*index MPI_UNDEFINED)
        return rc;
    });
}

extern "C" int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    if (!exchanges_in_flight())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return test_and_poll([&](bool *done) {
        const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
        *done = *outcount != 0;  // MPI_UNDEFINED: every request inactive
        return rc;
    });
}

extern "C" int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (exchanges_in_flight()) {
        const int rc = InFlightList::get().poll_all();
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return PMPI_Test(request, flag, status);
}

extern "C" int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (exchanges_in_flight()) {
        const int rc = InFlightList::get().poll_all();
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return PMPI_Testall(count, requests, flag, statuses);
}

extern "C" int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (exchanges_in_flight()) {
        const int rc = InFlightList::get().poll_all();
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return PMPI_Testany(count, requests, index, flag, status);
}

extern "C" int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    if (exchanges_in_flight()) {
        const int rc = InFlightList::get().poll_all();
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}
extern "C" int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    int rc = PMPI_Request_get_status(request, flag, status);
    if (rc != MPI_SUCCESS || *flag || !exchanges_in_flight())
        return rc;
    if ((rc = InFlightList::get().poll_all()) != MPI_SUCCESS)
        return rc;
    return PMPI_Request_get_status(request, flag, status);
}

#endif  // MPIX_HAVE_GREQUEST_POLL
