// MPIX_Alltoallv: argument checks, then the shared byte-block path.
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"
#include "select/dispatch.hpp"

using namespace mpix;

static int alltoallv_unguarded(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    static const char *fn = "MPIX_Alltoallv";
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
    bool in_place = sendbuf == MPI_IN_PLACE;
    UserSide recv{static_cast<const char *>(recvbuf), recvcounts, rdispls, 0, recvtype, {}};
    // MPI_IN_PLACE: the send side is the receive buffer's current content.
    UserSide send = in_place ? recv
                             : UserSide{static_cast<const char *>(sendbuf), sendcounts, sdispls, 0, sendtype, {}};
    const char *why = nullptr;
    int rc = check_user_side(recv, xcomm->size, true, &why);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_user_side(send, xcomm->size, true, &why);
    if (rc != MPI_SUCCESS)
        return raise(xcomm->user, rc, fn, why);
    if (describe_type(recv.type, xcomm->comm, &recv.info, &why) != MPI_SUCCESS ||
        describe_type(send.type, xcomm->comm, &send.info, &why) != MPI_SUCCESS)
        return raise(xcomm->user, MPI_ERR_TYPE, fn, why);
    return run_exchange(xcomm, Collective::alltoallv, fn, send, recv, in_place);
}

extern "C" int MPIX_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, "MPIX_Alltoallv", [&] {
        return alltoallv_unguarded(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   xcomm);
    });
}
