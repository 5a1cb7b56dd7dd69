// Every wait of the library goes through these (never MPI_Wait* directly): run
// by the engine (src/sched/) as a task, the code then lets other work run
// until its messages have come, instead of blocking the caller; elsewhere they
// are MPI's waits.
#ifndef MPIX_CORE_WAIT_HPP
#define MPIX_CORE_WAIT_HPP

#include <mpi.h>

#include "config.h"
#include "core/cpu_count.hpp"

namespace mpix {

// What the engine installs while it runs a task on this thread.
class WaitContext {
public:
    virtual ~WaitContext() = default;
    // The only task that needs running: it may block inside MPI.
    virtual bool may_block() const = 0;
    // Returns control to the engine until it resumes this task.
    virtual void suspend() = 0;
    // Around a blocking MPI call (only where may_block()): the engine lets
    // other threads run other tasks meanwhile, and none of them this one.
    virtual void enter_blocking() {}
    virtual void leave_blocking() {}
};

// The context of the code running now (nullptr: the caller's own thread).
WaitContext *wait_context();
// Installs `c` (the engine, around a task); returns the one it replaces.
WaitContext *set_wait_context(WaitContext *c);

// A blocking MPI call where the code may block: in a task that may_block(),
// between enter_blocking and leave_blocking, so that no thread blocks inside
// MPI while it holds the engine (two processes' threads could otherwise wait
// for each other: sched/engine.hpp, ordering rules).
template <class Call>
int blocking_mpi_call(WaitContext *me, Call call)
{
    cpu_charge();  // the work before a wait is done before it
    if (!me)
        return call();
    me->enter_blocking();
    const int rc = call();
    me->leave_blocking();
    return rc;
}

// MPI_Wait: in a task, lets other work run until the request completes.
int wait_request(MPI_Request *request, MPI_Status *status);
// MPI_Waitall, one request at a time (MPI_Waitall is quadratic in SimGrid SMPI).
int wait_requests(int count, MPI_Request *requests, MPI_Status *statuses);
// MPI_Waitall with its result: MPI_SUCCESS, or MPI_ERR_IN_STATUS with each
// status's MPI_ERROR set (MPI_ERR_PENDING: that request is still active), or
// another error. One call of the MPI library for them all: a wait a request cost
// the library's wrappers about 10 basic blocks and the MPI library a call more
// (sim/README.md, "The library's CPU per peer cut"). Under SimGrid SMPI, whose
// MPI_Waitall is quadratic, MPI_Wait a request at a time, uncounted: the
// simulated time is the same, and natively that loop is the MPI library's.
int wait_all_requests(int count, MPI_Request *requests, MPI_Status *statuses);
// MPI_Waitsome.
int wait_some_requests(int count, MPI_Request *requests, int *outcount, int *indices, MPI_Status *statuses);
// A poll that found nothing: in a task, lets other work run once.
void yield_now();

// The MPI library's own MPI_Alltoall / MPI_Alltoallv of bytes (the pmpi row's
// byte path, padded_alltoall's inner exchange). On the caller's own thread (a
// blocking mpix call, which every rank makes as such, after the engine has
// drained): the blocking collective, MPI's blocking algorithm. In a task: the
// nonblocking one, waited for through the engine (a blocking one would stall
// the other started exchanges). Never the blocking one in a task that happens
// to run alone: a nonblocking call on one rank may run alone where it does not
// on another, and MPI does not match a blocking collective with a nonblocking one.
int mpi_alltoall_bytes(const void *sendbuf, int block, void *recvbuf, MPI_Comm comm);
int mpi_alltoallv_bytes(const void *sendbuf, const int *sendcounts, const int *sdispls, void *recvbuf,
                        const int *recvcounts, const int *rdispls, MPI_Comm comm);
#if MPIX_HAVE_LARGE_COUNT
// The same with MPI-4's large-count forms, for blocks, totals or offsets past an int.
int mpi_alltoall_bytes_c(const void *sendbuf, MPI_Count block, void *recvbuf, MPI_Comm comm);
int mpi_alltoallv_bytes_c(const void *sendbuf, const MPI_Count *sendcounts, const MPI_Aint *sdispls, void *recvbuf,
                          const MPI_Count *recvcounts, const MPI_Aint *rdispls, MPI_Comm comm);
#endif

}  // namespace mpix

#endif
