// Requests of every family: MPIX_Start, MPIX_Wait, MPIX_Test, MPIX_Waitall,
// MPIX_Testall and MPIX_Request_free (the families' starting calls live in
// api/alltoall.cpp, api/alltoallv.cpp and api/neighbor.cpp). MPI's conventions:
// a completed nonblocking request is freed and set to NULL, a persistent one
// becomes inactive, a NULL request completes at once. Every wait and test
// progresses every started exchange of the process (sched/engine.hpp).
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/request.hpp"
#include "mpix.h"
#include "sched/engine.hpp"

using namespace mpix;

namespace {

// An empty status, as MPI gives for a completed collective request.
void set_empty_status(MPI_Status *status, int rc)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = rc;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
}

MPI_Comm user_of(const MPIX_Request *request) { return request ? request->xcomm->user : MPI_COMM_NULL; }

// A completed request: a nonblocking one is freed and the caller's handle set
// to NULL, a persistent one becomes inactive.
void completed(MPIX_Request **request)
{
    MPIX_Request *r = *request;
    r->active = false;
    r->completed_unreported = false;
    if (!r->persistent) {
        r->destroy();
        *request = nullptr;
    }
}

// Waits for one active request (errors raised by the family).
int wait_one(MPIX_Request *r, const char *fn)
{
    // A family that does not run on the engine (neighbour requests post MPI
    // requests): progress the engine's tasks while it is not done, then block.
    bool done = false;
    int rc = MPI_SUCCESS;
    while (sched::active_tasks() != 0) {
        rc = r->test(fn, &done);
        if (done || rc != MPI_SUCCESS)
            return rc;
    }
    return r->wait(fn);
}

}  // namespace

extern "C" int MPIX_Start(MPIX_Request *request)
{
    static const char *fn = "MPIX_Start";
    return guard_entry(user_of(request), fn, [&] {
        if (!request)
            return raise(MPI_COMM_NULL, MPI_ERR_REQUEST, fn, "request is NULL");
        if (!request->persistent)
            return raise(request->xcomm->user, MPI_ERR_REQUEST, fn,
                         "the request is a nonblocking call's (MPIX_Ialltoall(v)); only persistent requests start");
        if (request->active)
            return raise(request->xcomm->user, MPI_ERR_REQUEST, fn,
                         "the request is active (started and not completed by MPIX_Wait or MPIX_Test)");
        sched::Hold hold(request->xcomm);  // the comm's state, against its tasks on other threads
        int rc = request->start(fn);
        // A start that failed moved nothing the caller can wait for.
        request->active = rc == MPI_SUCCESS;
        return rc;
    });
}

extern "C" int MPIX_Wait(MPIX_Request **request, MPI_Status *status)
{
    static const char *fn = "MPIX_Wait";
    if (!request)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "request is NULL (pass the address of an MPIX_Request *)");
    return guard_entry(user_of(*request), fn, [&] {
        MPIX_Request *r = *request;
        int rc = MPI_SUCCESS;
        if (r && r->completed_unreported) {  // completed by an MPIX_Testall that returned flag 0
            rc = r->outcome;
            completed(request);
        } else if (r && r->active) {
            rc = r->on_engine() ? r->wait(fn) : wait_one(r, fn);
            completed(request);
        }
        set_empty_status(status, rc);
        return rc;
    });
}

extern "C" int MPIX_Test(MPIX_Request **request, int *flag, MPI_Status *status)
{
    static const char *fn = "MPIX_Test";
    if (!request)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "request is NULL (pass the address of an MPIX_Request *)");
    return guard_entry(user_of(*request), fn, [&] {
        MPIX_Request *r = *request;
        if (!flag)
            return raise(user_of(r), MPI_ERR_ARG, fn, "flag is NULL");
        int rc = MPI_SUCCESS;
        bool done = true;
        if (r && r->completed_unreported) {
            rc = r->outcome;
            completed(request);
        } else if (r && r->active) {
            if (!r->on_engine())
                sched::progress();
            rc = r->test(fn, &done);
            if (done || rc != MPI_SUCCESS) {
                done = true;
                completed(request);
            }
        } else {
            sched::progress();
        }
        *flag = done;
        if (done)
            set_empty_status(status, rc);
        return rc;
    });
}

namespace {

// MPI_Waitall's and MPI_Testall's return: success, else the first failure's
// class where statuses are ignored, else MPI_ERR_IN_STATUS (each status says).
class AllOutcome {
public:
    void note(int rc)
    {
        if (first_error_ == MPI_SUCCESS)
            first_error_ = rc;
    }
    int result(const MPI_Status *statuses) const
    {
        if (first_error_ == MPI_SUCCESS)
            return MPI_SUCCESS;
        return statuses == MPI_STATUSES_IGNORE ? first_error_ : static_cast<int>(MPI_ERR_IN_STATUS);
    }

private:
    int first_error_ = MPI_SUCCESS;
};

}  // namespace

extern "C" int MPIX_Waitall(int count, MPIX_Request *requests[], MPI_Status *statuses)
{
    static const char *fn = "MPIX_Waitall";
    if (count < 0 || (count > 0 && !requests))
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, count < 0 ? "count is negative" : "requests is NULL");
    AllOutcome outcome;
    // In order: waiting for one progresses all of them, so the order does not matter.
    for (int i = 0; i < count; ++i) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        outcome.note(MPIX_Wait(&requests[i], st));
    }
    return outcome.result(statuses);
}

extern "C" int MPIX_Testall(int count, MPIX_Request *requests[], int *flag, MPI_Status *statuses)
{
    static const char *fn = "MPIX_Testall";
    if (count < 0 || (count > 0 && !requests) || !flag)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn,
                     count < 0 ? "count is negative" : !flag ? "flag is NULL" : "requests is NULL");
    return guard_entry(MPI_COMM_NULL, fn, [&]() -> int {
        sched::progress();
        // Completes nothing for the caller unless every one has completed (a
        // request that completed meanwhile keeps its outcome for later).
        bool all = true;
        for (int i = 0; i < count; ++i) {
            MPIX_Request *r = requests[i];
            if (!r || !r->active || r->completed_unreported)
                continue;
            bool done = false;
            const int rc = r->test(fn, &done);
            if (done || rc != MPI_SUCCESS) {
                r->completed_unreported = true;
                r->outcome = rc;
            } else {
                all = false;
            }
        }
        *flag = all;
        if (!all)
            return MPI_SUCCESS;
        AllOutcome outcome;
        for (int i = 0; i < count; ++i) {
            MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
            int rc = MPI_SUCCESS;
            if (requests[i] && requests[i]->completed_unreported) {
                rc = requests[i]->outcome;
                completed(&requests[i]);
            }
            set_empty_status(st, rc);
            outcome.note(rc);
        }
        return outcome.result(statuses);
    });
}

extern "C" int MPIX_Request_free(MPIX_Request **request)
{
    static const char *fn = "MPIX_Request_free";
    if (!request)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "request is NULL (pass the address of an MPIX_Request *)");
    if (!*request)
        return raise(MPI_COMM_NULL, MPI_ERR_REQUEST, fn, "*request is NULL (no request to free)");
    MPIX_Request *r = *request;
    if (r->active || !r->can_free())
        return raise(r->xcomm->user, MPI_ERR_REQUEST, fn,
                     r->persistent ? "the request is active: complete it with MPIX_Wait or MPIX_Test before freeing it"
                                   : "the nonblocking request has not completed: complete it with MPIX_Wait or "
                                     "MPIX_Test (which free it)");
    r->destroy();
    *request = nullptr;
    return MPI_SUCCESS;
}
