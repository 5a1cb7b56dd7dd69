// Optional interposition library (libmpix_pmpi): defines MPI_Alltoall and
// MPI_Alltoallv (and MPI_Alltoall_c / MPI_Alltoallv_c where the MPI library has
// them) so an unmodified application runs them through mpix (the nonblocking
// forms: pmpi/nonblocking.cpp). Link it
// before the MPI library, or LD_PRELOAD it; choose algorithms with MPIX_*
// environment variables. The MPIX_Comm for each communicator is created on its
// first exchange and cached as an attribute, freed with the communicator.
#include <mpi.h>

#include "config.h"
#include "core/error.hpp"
#include "mpix.h"
#include "pmpi/attribute.hpp"

namespace {

int delete_xcomm(MPI_Comm, int, void *attr, void *)
{
    MPIX_Comm *x = static_cast<MPIX_Comm *>(attr);
    return MPIX_Comm_free(&x);
}

// The MPIX_Comm of `comm`, created on its first exchange (collective, like the
// exchange) and cached as an attribute; *out stays NULL where the MPI library
// itself takes the call: MPI_COMM_NULL, an invalid handle (MPI reports it) and
// intercommunicators, and mpix's own calls (an algorithm's inner exchange on
// the library's communicators). The cached case costs one attribute lookup.
int route(MPI_Comm comm, MPIX_Comm **out)
{
    *out = nullptr;
    MPIX_Comm *cached = nullptr;
    const mpix::pmpi::Cached found = mpix::pmpi::cached_attribute<delete_xcomm>(comm, &cached);
    if (found == mpix::pmpi::Cached::none)
        return MPI_SUCCESS;
    if (found == mpix::pmpi::Cached::present) {
        *out = cached;
        return MPI_SUCCESS;
    }
    if (mpix::in_library())  // the library's own communicators are never routed
        return MPI_SUCCESS;
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return MPI_SUCCESS;
    MPIX_Comm *x = nullptr;
    int rc = MPIX_Comm_init(&x, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Comm_set_attr(comm, mpix::pmpi::attribute_keyval<delete_xcomm>(), x);
    if (rc != MPI_SUCCESS) {
        MPIX_Comm_free(&x);
        return rc;
    }
    *out = x;
    return MPI_SUCCESS;
}

}  // namespace

// MPICH 4.0 keeps no text for an error code of a predefined class, so the
// drop-in's MPI_Error_string gives the text of the error mpix raised last on
// this thread for that code (MPIX_Error_string's rule), else the MPI library's.
extern "C" int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    return MPIX_Error_string(errorcode, string, resultlen);
}

extern "C" int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPIX_Comm *x = nullptr;
    int rc = route(comm, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return MPIX_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, x);
}

extern "C" int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    MPIX_Comm *x = nullptr;
    int rc = route(comm, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    return MPIX_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, x);
}

#if MPIX_HAVE_LARGE_COUNT
extern "C" int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPIX_Comm *x = nullptr;
    int rc = route(comm, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return MPIX_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, x);
}

extern "C" int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPIX_Comm *x = nullptr;
    int rc = route(comm, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                comm);
    return MPIX_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, x);
}
#endif
