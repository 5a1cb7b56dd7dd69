// MPIX_Alltoall(_c), MPIX_Ialltoall(_c), MPIX_Alltoall_init: the caller's arguments, then the shared
// checks and byte path (select/dispatch).
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"
#include "select/dispatch.hpp"
#include "select/exchange_request.hpp"

using namespace mpix;

namespace {

// The caller's two sides (MPI_IN_PLACE: the send side is the receive
// buffer's current content), handed to `then` (a call, or a persistent init).
template <class Then>
int alltoall_entry(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, Then then)
{
    if (!xcomm)
        return guard_entry(MPI_COMM_NULL, fn, [fn] { return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL"); });
    // Describing the arguments calls nothing: only `then` runs inside the guard
    // (whose closure stays small on every call's path).
    const bool in_place = sendbuf == MPI_IN_PLACE;
    UserSide recv = UserSide::uniform(recvbuf, recvcount, recvtype);
    UserSide send = in_place ? recv : UserSide::uniform(sendbuf, sendcount, sendtype);
    return guard_entry(xcomm->user, fn, [&] { return then(send, recv, in_place); });
}

// The blocking call, and the nonblocking start.
int run_alltoall(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    return alltoall_entry(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm,
                          [&](UserSide &s, UserSide &r, bool in_place) {
                              return run_exchange(xcomm, Collective::alltoall, fn, s, r, in_place);
                          });
}

int start_alltoall(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Request **request)
{
    return alltoall_entry(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm,
                          [&](UserSide &s, UserSide &r, bool in_place) {
                              return start_nonblocking_exchange(xcomm, Collective::alltoall, fn, s, r, in_place,
                                                                request);
                          });
}

}  // namespace

extern "C" int MPIX_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    int rc;
    if (xcomm && pass_alltoall_again(xcomm, "MPIX_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvtype, &rc))
        return rc;
    return run_alltoall("MPIX_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm);
}

extern "C" int MPIX_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    int rc;
    if (xcomm && pass_alltoall_again(xcomm, "MPIX_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvtype, &rc))
        return rc;
    return run_alltoall("MPIX_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm);
}

extern "C" int MPIX_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Info *xinfo,
                                  MPIX_Request **request)
{
    static const char *fn = "MPIX_Alltoall_init";
    return alltoall_entry(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm,
                          [&](UserSide &s, UserSide &r, bool in_place) {
                              return init_persistent_exchange(xcomm, Collective::alltoall, fn, s, r, in_place, xinfo,
                                                              request);
                          });
}

extern "C" int MPIX_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Request **request)
{
    return start_alltoall("MPIX_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm,
                          request);
}

extern "C" int MPIX_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Request **request)
{
    return start_alltoall("MPIX_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm,
                          request);
}
