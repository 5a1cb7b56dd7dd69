// MPIX_Alltoall: argument checks, then the shared byte-block path.
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"
#include "select/dispatch.hpp"

using namespace mpix;

static int alltoall_unguarded(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    static const char *fn = "MPIX_Alltoall";
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
    bool in_place = sendbuf == MPI_IN_PLACE;
    UserSide recv{static_cast<const char *>(recvbuf), nullptr, nullptr, recvcount, recvtype, {}};
    UserSide send = in_place ? recv
                             : UserSide{static_cast<const char *>(sendbuf), nullptr, nullptr, sendcount, sendtype, {}};
    const char *why = nullptr;
    int rc = check_user_side(recv, xcomm->size, false, &why);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_user_side(send, xcomm->size, false, &why);
    if (rc != MPI_SUCCESS)
        return raise(xcomm->user, rc, fn, why);
    if (describe_type(recv.type, xcomm->comm, &recv.info, &why) != MPI_SUCCESS ||
        describe_type(send.type, xcomm->comm, &send.info, &why) != MPI_SUCCESS)
        return raise(xcomm->user, MPI_ERR_TYPE, fn, why);
    // MPI requires equal type signatures; every block then has the same size.
    if (static_cast<size_t>(send.uniform_count) * send.info.size != static_cast<size_t>(recvcount) * recv.info.size)
        return raise(xcomm->user, MPI_ERR_TRUNCATE, fn, "send and receive block sizes differ");
    return run_exchange(xcomm, Collective::alltoall, fn, send, recv, in_place);
}

extern "C" int MPIX_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, "MPIX_Alltoall", [&] {
        return alltoall_unguarded(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm);
    });
}
