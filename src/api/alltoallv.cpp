// MPIX_Alltoallv(_c), MPIX_Ialltoallv(_c), MPIX_Alltoallv_init: the caller's arguments, then the shared
// checks and byte path (select/dispatch).
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"
#include "select/dispatch.hpp"
#include "select/exchange_request.hpp"

using namespace mpix;

namespace {

// The caller's two sides, handed to `then` (a call, or a persistent init); by
// default the call.
template <class Count, class Displ, class Then>
int alltoallv_entry(const char *fn, const void *sendbuf, const Count sendcounts[], const Displ sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const Count recvcounts[], const Displ rdispls[],
                    MPI_Datatype recvtype, MPIX_Comm *xcomm, Then then)
{
    if (!xcomm)
        return guard_entry(MPI_COMM_NULL, fn, [fn] { return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL"); });
    // Describing the arguments calls nothing: only `then` runs inside the guard
    // (whose closure stays small on every call's path).
    const bool in_place = sendbuf == MPI_IN_PLACE;
    UserSide recv = UserSide::per_peer(recvbuf, recvcounts, rdispls, recvtype);
    // MPI_IN_PLACE: the send side is the receive buffer's current content.
    UserSide send = in_place ? recv : UserSide::per_peer(sendbuf, sendcounts, sdispls, sendtype);
    return guard_entry(xcomm->user, fn, [&] { return then(send, recv, in_place); });
}

template <class Count, class Displ>
int alltoallv_entry(const char *fn, const void *sendbuf, const Count sendcounts[], const Displ sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const Count recvcounts[], const Displ rdispls[],
                    MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    return alltoallv_entry(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, xcomm,
                           [&](UserSide &s, UserSide &r, bool in_place) {
                               return run_exchange(xcomm, Collective::alltoallv, fn, s, r, in_place);
                           });
}

template <class Count, class Displ>
int start_alltoallv(const char *fn, const void *sendbuf, const Count sendcounts[], const Displ sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const Count recvcounts[], const Displ rdispls[],
                    MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Request **request)
{
    return alltoallv_entry(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, xcomm,
                           [&](UserSide &s, UserSide &r, bool in_place) {
                               return start_nonblocking_exchange(xcomm, Collective::alltoallv, fn, s, r, in_place,
                                                                 request);
                           });
}

}  // namespace

extern "C" int MPIX_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    int rc;
    if (xcomm && pass_alltoallv_again(xcomm, "MPIX_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                      recvcounts, rdispls, recvtype, &rc))
        return rc;
    return alltoallv_entry("MPIX_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, xcomm);
}

extern "C" int MPIX_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm)
{
    return alltoallv_entry("MPIX_Alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, xcomm);
}

extern "C" int MPIX_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Info *xinfo, MPIX_Request **request)
{
    static const char *fn = "MPIX_Alltoallv_init";
    return alltoallv_entry(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, xcomm,
                           [&](UserSide &s, UserSide &r, bool in_place) {
                               return init_persistent_exchange(xcomm, Collective::alltoallv, fn, s, r, in_place, xinfo,
                                                               request);
                           });
}

extern "C" int MPIX_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                               MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Request **request)
{
    return start_alltoallv("MPIX_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, xcomm, request);
}

extern "C" int MPIX_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                                 MPIX_Request **request)
{
    return start_alltoallv("MPIX_Ialltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, xcomm, request);
}
