// MPIX_Alltoall_crs / MPIX_Alltoallv_crs: argument checks, packing into byte
// messages (any datatype), backend selection, then the outputs: sources ascending,
// values in source order, nothing written past the caller's capacities.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/blocks.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"
#include "select/sparse_dispatch.hpp"

using namespace mpix;

namespace {

struct Problem {
    int errclass = MPI_SUCCESS;
    const char *why = nullptr;
    bool set(int c, const char *w)
    {
        errclass = c;
        why = w;
        return false;
    }
};

// Destinations in range and distinct (one message per destination and call, so
// "sources ascending" is well defined and probes match the right message).
bool check_dests(int nnz, const int *dest, int size, Problem *pb)
{
    std::vector<char> seen(static_cast<std::size_t>(size), 0);
    for (int i = 0; i < nnz; ++i) {
        if (dest[i] < 0 || dest[i] >= size)
            return pb->set(MPI_ERR_RANK, "a destination rank is out of range");
        if (seen[dest[i]])
            return pb->set(MPI_ERR_ARG, "a destination appears twice");
        seen[dest[i]] = 1;
    }
    return true;
}

}  // namespace

static int alltoall_crs_unguarded(int send_nnz, const int *dest, int sendcount, MPI_Datatype sendtype,
                                  const void *sendvals, int *recv_nnz, int *src, int recvcount,
                                  MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm)
{
    static const char *fn = "MPIX_Alltoall_crs";
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
    Problem pb;
    TypeInfo sti, rti;
    const char *type_problem = nullptr;
    bool ok = true;
    if (send_nnz < 0 || sendcount < 0 || recvcount < 0)
        ok = pb.set(MPI_ERR_COUNT, "negative nnz or count");
    else if (!recv_nnz)
        ok = pb.set(MPI_ERR_ARG, "recv_nnz is NULL");
    else if (*recv_nnz < 0)
        ok = pb.set(MPI_ERR_COUNT, "negative recv_nnz capacity");
    else if (describe_type(sendtype, xcomm->comm, &sti, &type_problem) != MPI_SUCCESS ||
             describe_type(recvtype, xcomm->comm, &rti, &type_problem) != MPI_SUCCESS)
        ok = pb.set(MPI_ERR_TYPE, type_problem);
    else if (send_nnz > 0 && !dest)
        ok = pb.set(MPI_ERR_ARG, "dest is NULL");
    else if (*recv_nnz > 0 && !src)
        ok = pb.set(MPI_ERR_ARG, "src is NULL");
    else if (!check_dests(send_nnz, dest, xcomm->size, &pb))
        ok = false;
    else if (sendvals == MPI_IN_PLACE || recvvals == MPI_IN_PLACE)
        ok = pb.set(MPI_ERR_BUFFER, "sendvals or recvvals is MPI_IN_PLACE (a sparse exchange has no in-place form)");
    else if (send_nnz > 0 && sendcount > 0 && sti.size > 0 && null_buffer_for(sendvals, sti))
        ok = pb.set(MPI_ERR_BUFFER, "sendvals is NULL");
    else if (*recv_nnz > 0 && recvcount > 0 && rti.size > 0 && null_buffer_for(recvvals, rti))
        ok = pb.set(MPI_ERR_BUFFER, "recvvals is NULL");
    if (!ok)
        return raise(xcomm->user, pb.errclass, fn, pb.why);

    SparseInbox inbox(&xcomm->scratch);
    std::vector<std::size_t> order;
    int rc = exchange_messages(xcomm, xinfo, Collective::alltoall_crs, fn, *recv_nnz, send_nnz, dest, sendvals,
                               nullptr, nullptr, sendcount, sendtype, sti, &inbox, &order);
    if (rc != MPI_SUCCESS)
        return rc;

    std::size_t cap = static_cast<std::size_t>(*recv_nnz);
    std::size_t slot = static_cast<std::size_t>(recvcount) * rti.size;
    bool truncated = inbox.count() > cap;
    char *out = static_cast<char *>(recvvals);
    for (std::size_t k = 0; k < inbox.count() && k < cap; ++k) {
        std::size_t i = order[k];
        src[k] = inbox.source[i];
        std::size_t n = inbox.bytes[i];
        if (n > slot) {
            truncated = true;
            n = slot;
        }
        if (rti.size == 0 || n == 0)
            continue;
        rc = unpack_elements(inbox.message(i), n / rti.size, recvtype, rti,
                             out + static_cast<MPI_Aint>(k) * recvcount * rti.extent, xcomm->comm, &xcomm->work);
        if (rc != MPI_SUCCESS)
            return raise_internal(xcomm->user, rc, fn, "unpacking recvvals");
    }
    *recv_nnz = static_cast<int>(inbox.count());
    if (truncated)
        return raise(xcomm->user, MPI_ERR_TRUNCATE, fn, "more messages or data arrived than recv capacity");
    return MPI_SUCCESS;
}

extern "C" int MPIX_Alltoall_crs(int send_nnz, const int *dest, int sendcount, MPI_Datatype sendtype,
                                 const void *sendvals, int *recv_nnz, int *src, int recvcount,
                                 MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm)
{
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, "MPIX_Alltoall_crs", [&] {
        return alltoall_crs_unguarded(send_nnz, dest, sendcount, sendtype, sendvals, recv_nnz, src, recvcount, recvtype,
                                      recvvals, xinfo, xcomm);
    });
}

static int alltoallv_crs_unguarded(int send_nnz, int send_size, const int *dest, const int *sendcounts,
                                   const int *sdispls, MPI_Datatype sendtype, const void *sendvals,
                                   int *recv_nnz, int *recv_size, int *src, int *recvcounts, int *rdispls,
                                   MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm)
{
    static const char *fn = "MPIX_Alltoallv_crs";
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
    Problem pb;
    TypeInfo sti, rti;
    const char *type_problem = nullptr;
    bool ok = true;
    if (send_nnz < 0 || send_size < 0)
        ok = pb.set(MPI_ERR_COUNT, "negative send_nnz or send_size");
    else if (!recv_nnz || !recv_size)
        ok = pb.set(MPI_ERR_ARG, "recv_nnz or recv_size is NULL");
    else if (*recv_nnz < 0 || *recv_size < 0)
        ok = pb.set(MPI_ERR_COUNT, "negative recv_nnz or recv_size capacity");
    else if (describe_type(sendtype, xcomm->comm, &sti, &type_problem) != MPI_SUCCESS ||
             describe_type(recvtype, xcomm->comm, &rti, &type_problem) != MPI_SUCCESS)
        ok = pb.set(MPI_ERR_TYPE, type_problem);
    else if (send_nnz > 0 && (!dest || !sendcounts || !sdispls))
        ok = pb.set(MPI_ERR_ARG, "dest, sendcounts or sdispls is NULL");
    else if (*recv_nnz > 0 && (!src || !recvcounts || !rdispls))
        ok = pb.set(MPI_ERR_ARG, "src, recvcounts or rdispls is NULL");
    else if (!check_dests(send_nnz, dest, xcomm->size, &pb))
        ok = false;
    for (int i = 0; ok && i < send_nnz; ++i) {
        if (sendcounts[i] < 0)
            ok = pb.set(MPI_ERR_COUNT, "negative sendcount");
        else if (sdispls[i] < 0 || static_cast<long long>(sdispls[i]) + sendcounts[i] > send_size)
            ok = pb.set(MPI_ERR_ARG, "a send block lies outside send_size elements");
    }
    if (ok && (sendvals == MPI_IN_PLACE || recvvals == MPI_IN_PLACE))
        ok = pb.set(MPI_ERR_BUFFER, "sendvals or recvvals is MPI_IN_PLACE (a sparse exchange has no in-place form)");
    else if (ok && send_size > 0 && sti.size > 0 && null_buffer_for(sendvals, sti))
        ok = pb.set(MPI_ERR_BUFFER, "sendvals is NULL");
    else if (ok && *recv_size > 0 && rti.size > 0 && null_buffer_for(recvvals, rti))
        ok = pb.set(MPI_ERR_BUFFER, "recvvals is NULL");
    if (!ok)
        return raise(xcomm->user, pb.errclass, fn, pb.why);

    SparseInbox inbox(&xcomm->scratch);
    std::vector<std::size_t> order;
    int rc = exchange_messages(xcomm, xinfo, Collective::alltoallv_crs, fn, *recv_nnz, send_nnz, dest, sendvals,
                               sendcounts, sdispls, 0, sendtype, sti, &inbox, &order);
    if (rc != MPI_SUCCESS)
        return rc;

    std::size_t cap_nnz = static_cast<std::size_t>(*recv_nnz);
    long long cap_size = *recv_size;
    bool truncated = inbox.count() > cap_nnz;
    long long displ = 0;
    char *out = static_cast<char *>(recvvals);
    for (std::size_t k = 0; k < inbox.count(); ++k) {
        std::size_t i = order[k];
        long long cnt = rti.size ? static_cast<long long>(inbox.bytes[i] / rti.size) : 0;
        if (k < cap_nnz) {
            src[k] = inbox.source[i];
            recvcounts[k] = static_cast<int>(cnt);
            rdispls[k] = static_cast<int>(displ);
        }
        if (displ + cnt > cap_size) {
            truncated = true;
        } else if (cnt > 0 && k < cap_nnz) {
            rc = unpack_elements(inbox.message(i), static_cast<std::size_t>(cnt), recvtype, rti,
                                 out + static_cast<MPI_Aint>(displ) * rti.extent, xcomm->comm, &xcomm->work);
            if (rc != MPI_SUCCESS)
                return raise_internal(xcomm->user, rc, fn, "unpacking recvvals");
        }
        displ += cnt;
    }
    *recv_nnz = static_cast<int>(inbox.count());
    *recv_size = static_cast<int>(displ);
    if (truncated)
        return raise(xcomm->user, MPI_ERR_TRUNCATE, fn, "more messages or data arrived than recv capacity");
    return MPI_SUCCESS;
}

extern "C" int MPIX_Alltoallv_crs(int send_nnz, int send_size, const int *dest, const int *sendcounts,
                                  const int *sdispls, MPI_Datatype sendtype, const void *sendvals,
                                  int *recv_nnz, int *recv_size, int *src, int *recvcounts, int *rdispls,
                                  MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm)
{
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, "MPIX_Alltoallv_crs", [&] {
        return alltoallv_crs_unguarded(send_nnz, send_size, dest, sendcounts, sdispls, sendtype, sendvals, recv_nnz,
                                       recv_size, src, recvcounts, rdispls, recvtype, recvvals, xinfo, xcomm);
    });
}
