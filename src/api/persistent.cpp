// Persistent requests: MPIX_Start, MPIX_Wait, MPIX_Test and MPIX_Request_free for
// every family (the families' *_init calls live in api/alltoall.cpp,
// api/alltoallv.cpp and api/neighbor.cpp).
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/request.hpp"
#include "mpix.h"

using namespace mpix;

namespace {

// An empty status, as MPI gives for a completed collective request.
void set_empty_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
}

MPI_Comm user_of(const MPIX_Request *request) { return request ? request->xcomm->user : MPI_COMM_NULL; }

}  // namespace

extern "C" int MPIX_Start(MPIX_Request *request)
{
    static const char *fn = "MPIX_Start";
    return guard_entry(user_of(request), fn, [&] {
        if (!request)
            return raise(MPI_COMM_NULL, MPI_ERR_REQUEST, fn, "request is NULL");
        if (request->active)
            return raise(request->xcomm->user, MPI_ERR_REQUEST, fn,
                         "the request is active (started and not completed by MPIX_Wait or MPIX_Test)");
        int rc = request->start(fn);
        // A start that failed moved nothing the caller can wait for.
        request->active = rc == MPI_SUCCESS;
        return rc;
    });
}

extern "C" int MPIX_Wait(MPIX_Request *request, MPI_Status *status)
{
    static const char *fn = "MPIX_Wait";
    return guard_entry(user_of(request), fn, [&] {
        if (!request)
            return raise(MPI_COMM_NULL, MPI_ERR_REQUEST, fn, "request is NULL");
        int rc = MPI_SUCCESS;
        if (request->active) {
            rc = request->wait(fn);
            request->active = false;
        }
        set_empty_status(status);
        if (status != MPI_STATUS_IGNORE)
            status->MPI_ERROR = rc;
        return rc;
    });
}

extern "C" int MPIX_Test(MPIX_Request *request, int *flag, MPI_Status *status)
{
    static const char *fn = "MPIX_Test";
    return guard_entry(user_of(request), fn, [&] {
        if (!request)
            return raise(MPI_COMM_NULL, MPI_ERR_REQUEST, fn, "request is NULL");
        if (!flag)
            return raise(request->xcomm->user, MPI_ERR_ARG, fn, "flag is NULL");
        int rc = MPI_SUCCESS;
        bool done = true;
        if (request->active) {
            rc = request->test(fn, &done);
            if (done || rc != MPI_SUCCESS)
                request->active = false;
        }
        *flag = done || rc != MPI_SUCCESS;
        if (*flag) {
            set_empty_status(status);
            if (status != MPI_STATUS_IGNORE)
                status->MPI_ERROR = rc;
        }
        return rc;
    });
}

extern "C" int MPIX_Request_free(MPIX_Request **request)
{
    static const char *fn = "MPIX_Request_free";
    if (!request || !*request)
        return raise(MPI_COMM_NULL, MPI_ERR_REQUEST, fn, "request is NULL");
    MPIX_Request *r = *request;
    if (r->active)
        return raise(r->xcomm->user, MPI_ERR_REQUEST, fn,
                     "the request is active: complete it with MPIX_Wait or MPIX_Test before freeing it");
    delete r;
    *request = nullptr;
    return MPI_SUCCESS;
}
