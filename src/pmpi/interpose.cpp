// Optional interposition library (libmpix_pmpi): defines MPI_Alltoall and
// MPI_Alltoallv so an unmodified application runs them through mpix. Link it
// before the MPI library, or LD_PRELOAD it; choose algorithms with MPIX_*
// environment variables. The MPIX_Comm for each communicator is created on its
// first exchange and cached as an attribute, freed with the communicator.
#include <mpi.h>

#include <mutex>

#include "mpix.h"

namespace {

int delete_xcomm(MPI_Comm, int, void *attr, void *)
{
    MPIX_Comm *x = static_cast<MPIX_Comm *>(attr);
    return MPIX_Comm_free(&x);
}

// The attribute key, created once per process and read-only afterwards.
int xcomm_keyval()
{
    static std::once_flag once;
    static int keyval = MPI_KEYVAL_INVALID;
    std::call_once(once, [] { MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_xcomm, &keyval, nullptr); });
    return keyval;
}

int xcomm_for(MPI_Comm comm, MPIX_Comm **out)
{
    int flag = 0;
    void *attr = nullptr;
    int rc = MPI_Comm_get_attr(comm, xcomm_keyval(), &attr, &flag);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag) {
        *out = static_cast<MPIX_Comm *>(attr);
        return MPI_SUCCESS;
    }
    rc = MPIX_Comm_init(out, comm);  // collective, like the exchange that triggered it
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Comm_set_attr(comm, xcomm_keyval(), *out);
}

}  // namespace

extern "C" int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    MPIX_Comm *x = nullptr;
    int rc = xcomm_for(comm, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPIX_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, x);
}

extern "C" int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    MPIX_Comm *x = nullptr;
    int rc = xcomm_for(comm, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPIX_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, x);
}
