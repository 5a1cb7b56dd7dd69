#include "core/wait.hpp"

#include <thread>

#include "config.h"
#include "core/per_thread.hpp"

namespace mpix {

namespace {

// The code running now on this thread: a task's context, or none.
WaitContext *&current_context() { return per_thread<struct WaitContextTag, WaitContext *>(); }

}  // namespace

WaitContext *wait_context() { return current_context(); }

WaitContext *set_wait_context(WaitContext *c)
{
    WaitContext *old = current_context();
    current_context() = c;
    return old;
}

int wait_request(MPI_Request *request, MPI_Status *status)
{
    cpu_charge();
    WaitContext *me = current_context();
    const auto block = [&] { return blocking_mpi_call(me, [&] { return MPI_Wait(request, status); }); };
    // A request never posted (a round with nothing to receive) or already
    // completed: MPI_Wait returns at once with an empty status. Not MPI_Test:
    // SimGrid SMPI 3.32's leaves the flag unset for MPI_REQUEST_NULL when the
    // status is MPI_STATUS_IGNORE, and the task would then suspend forever
    // without a call that lets simulated time advance.
    if (*request == MPI_REQUEST_NULL)
        return MPI_Wait(request, status);
    if (!me || me->may_block())
        return block();
    for (;;) {
        int flag = 0;
        const int rc = MPI_Test(request, &flag, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        me->suspend();
        if (me->may_block())
            return block();
    }
}

int wait_requests(int count, MPI_Request *requests, MPI_Status *statuses)
{
    int first_error = MPI_SUCCESS;
    for (int i = 0; i < count; ++i) {
        const int rc =
            wait_request(&requests[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
        if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS)
            first_error = rc;
    }
    return first_error;
}

namespace {

// MPI_Waitall's result from waiting for one request at a time with wait_one.
template <class WaitOne>
int wait_each(int count, MPI_Request *requests, MPI_Status *statuses, WaitOne &&wait_one)
{
    bool failed = false;
    for (int i = 0; i < count; ++i) {
        const int rc = wait_one(&requests[i], &statuses[i]);
        statuses[i].MPI_ERROR = rc;
        failed = failed || rc != MPI_SUCCESS;
    }
    return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

#if MPIX_SMPI
MPIX_NOT_COUNTED int mpi_waitall(int count, MPI_Request *requests, MPI_Status *statuses)
{
    return wait_each(count, requests, statuses, [](MPI_Request *r, MPI_Status *st) { return MPI_Wait(r, st); });
}
#else
int mpi_waitall(int count, MPI_Request *requests, MPI_Status *statuses)
{
    return MPI_Waitall(count, requests, statuses);
}
#endif

}  // namespace

int wait_all_requests(int count, MPI_Request *requests, MPI_Status *statuses)
{
    cpu_charge();
    WaitContext *me = current_context();
    const auto block = [&] { return blocking_mpi_call(me, [&] { return mpi_waitall(count, requests, statuses); }); };
    if (!me || me->may_block())
        return block();
    // In a task that may not block: a request at a time (wait_request tests it
    // and lets other work run). Not MPI_Testall: a loop of it in a task never
    // let SimGrid SMPI 3.32's simulated time advance (test/sim-persistent.sh
    // spun there).
    return wait_each(count, requests, statuses, wait_request);
}

int wait_some_requests(int count, MPI_Request *requests, int *outcount, int *indices, MPI_Status *statuses)
{
    cpu_charge();
    WaitContext *me = current_context();
    const auto block = [&] {
        return blocking_mpi_call(me, [&] { return MPI_Waitsome(count, requests, outcount, indices, statuses); });
    };
    if (!me || me->may_block())
        return block();
    for (;;) {
        const int rc = MPI_Testsome(count, requests, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount != 0)  // MPI_UNDEFINED: no active request left
            return rc;
        me->suspend();
        if (me->may_block())
            return block();
    }
}

void yield_now()
{
    if (WaitContext *me = current_context())
        me->suspend();
    else
        std::this_thread::yield();
}

namespace {

// The rule of the functions below: on the caller's own thread the blocking
// collective (`blocking`), in a task the nonblocking one (`start`) waited for
// through the engine.
template <class Blocking, class Start>
int blocking_or_in_task(Blocking blocking, Start start)
{
    cpu_charge();
    if (!current_context())
        return blocking();
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = start(&request);
    return rc != MPI_SUCCESS ? rc : wait_request(&request, MPI_STATUS_IGNORE);
}

}  // namespace

int mpi_alltoall_bytes(const void *sendbuf, int block, void *recvbuf, MPI_Comm comm)
{
    return blocking_or_in_task(
        [&] { return PMPI_Alltoall(sendbuf, block, MPI_BYTE, recvbuf, block, MPI_BYTE, comm); },
        [&](MPI_Request *r) { return PMPI_Ialltoall(sendbuf, block, MPI_BYTE, recvbuf, block, MPI_BYTE, comm, r); });
}

int mpi_alltoallv_bytes(const void *sendbuf, const int *sendcounts, const int *sdispls, void *recvbuf,
                        const int *recvcounts, const int *rdispls, MPI_Comm comm)
{
    return blocking_or_in_task(
        [&] {
            return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, MPI_BYTE, recvbuf, recvcounts, rdispls, MPI_BYTE,
                                  comm);
        },
        [&](MPI_Request *r) {
            return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, MPI_BYTE, recvbuf, recvcounts, rdispls, MPI_BYTE,
                                   comm, r);
        });
}

#if MPIX_HAVE_LARGE_COUNT
int mpi_alltoall_bytes_c(const void *sendbuf, MPI_Count block, void *recvbuf, MPI_Comm comm)
{
    return blocking_or_in_task(
        [&] { return PMPI_Alltoall_c(sendbuf, block, MPI_BYTE, recvbuf, block, MPI_BYTE, comm); },
        [&](MPI_Request *r) { return PMPI_Ialltoall_c(sendbuf, block, MPI_BYTE, recvbuf, block, MPI_BYTE, comm, r); });
}

int mpi_alltoallv_bytes_c(const void *sendbuf, const MPI_Count *sendcounts, const MPI_Aint *sdispls, void *recvbuf,
                          const MPI_Count *recvcounts, const MPI_Aint *rdispls, MPI_Comm comm)
{
    return blocking_or_in_task(
        [&] {
            return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, MPI_BYTE, recvbuf, recvcounts, rdispls, MPI_BYTE,
                                    comm);
        },
        [&](MPI_Request *r) {
            return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, MPI_BYTE, recvbuf, recvcounts, rdispls, MPI_BYTE,
                                     comm, r);
        });
}
#endif

}  // namespace mpix
