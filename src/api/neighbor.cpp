// MPIX_Topo_init(_crs), MPIX_Topo_free and MPIX_Neighbor_alltoallv(_init,
// _init_indexed): the caller's arguments, then select/neighbor_dispatch.
#include <algorithm>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/request.hpp"
#include "mpix.h"
#include "neighbor/neighbor.hpp"
#include "sched/engine.hpp"
#include "select/neighbor_dispatch.hpp"

using namespace mpix;

namespace {

// This rank's own arguments: an error class and its text, or MPI_SUCCESS.
int check_neighbor_list(const char *which, int degree, const int ranks[], int size, std::string *why)
{
    if (degree < 0) {
        *why = std::string(which) + " degree is negative";
        return MPI_ERR_ARG;
    }
    if (degree > 0 && !ranks) {
        *why = std::string(which) + " array is NULL with a nonzero degree";
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < degree; ++i)
        if (ranks[i] < 0 || ranks[i] >= size) {
            *why = std::string(which) + " rank " + std::to_string(ranks[i]) + " is out of range";
            return MPI_ERR_RANK;
        }
    return MPI_SUCCESS;
}

// Collective: validates both lists, checks that they agree across ranks (s lists
// d as destination as often as d lists s as source) and makes the topology.
// Every rank returns an error when any rank's arguments are wrong, so none waits
// in a later exchange: its own class if its arguments are wrong, otherwise
// MPI_ERR_TOPOLOGY.
int make_topo(const char *fn, MPIX_Comm *xcomm, int indegree, const int sources[], int outdegree,
              const int destinations[], MPIX_Topo **topo)
{
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
    if (!topo)
        return raise(xcomm->user, MPI_ERR_ARG, fn, "topo is NULL");
    *topo = nullptr;
    sched::drain(xcomm);  // started exchanges complete first (sched/engine.hpp)
    const int size = xcomm->size;
    std::string why;
    int local = check_neighbor_list("sources", indegree, sources, size, &why);
    if (local == MPI_SUCCESS)
        local = check_neighbor_list("destinations", outdegree, destinations, size, &why);
    // How often this rank lists each rank as destination / as source.
    std::vector<int> out_count(size, 0), in_count(size, 0), listed_by(size, 0);
    if (local == MPI_SUCCESS) {
        for (int i = 0; i < outdegree; ++i)
            ++out_count[destinations[i]];
        for (int j = 0; j < indegree; ++j)
            ++in_count[sources[j]];
    }
    int rc = MPI_Alltoall(out_count.data(), 1, MPI_INT, listed_by.data(), 1, MPI_INT, xcomm->comm);
    if (rc != MPI_SUCCESS)
        return raise_internal(xcomm->user, rc, fn, "topology check");
    const bool consistent = local != MPI_SUCCESS || listed_by == in_count;
    int bad_here = local != MPI_SUCCESS || !consistent, bad_anywhere = 0;
    rc = MPI_Allreduce(&bad_here, &bad_anywhere, 1, MPI_INT, MPI_MAX, xcomm->comm);
    if (rc != MPI_SUCCESS)
        return raise_internal(xcomm->user, rc, fn, "topology check");
    if (local != MPI_SUCCESS)
        return raise(xcomm->user, local, fn, why.c_str());
    if (!consistent)
        return raise(xcomm->user, MPI_ERR_TOPOLOGY, fn,
                     "the sources do not match the ranks listing this rank as a destination "
                     "(each pair must appear as often on both sides)");
    if (bad_anywhere)
        return raise(xcomm->user, MPI_ERR_TOPOLOGY, fn, "another rank's neighbour lists are invalid or inconsistent");
    *topo = new MPIX_Topo(xcomm, std::vector<int>(sources, sources + indegree),
                          std::vector<int>(destinations, destinations + outdegree));
    return MPI_SUCCESS;
}

NeighborArgs args_of(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                     MPIX_Topo *topo, MPIX_Comm *xcomm)
{
    NeighborArgs a{};
    a.sendbuf = sendbuf;
    a.sendcounts = sendcounts;
    a.sdispls = sdispls;
    a.sendtype = sendtype;
    a.recvbuf = recvbuf;
    a.recvcounts = recvcounts;
    a.rdispls = rdispls;
    a.recvtype = recvtype;
    a.topo = topo;
    a.xcomm = xcomm;
    return a;
}

}  // namespace

extern "C" int MPIX_Topo_init(int indegree, const int sources[], const int sourceweights[], int outdegree,
                              const int destinations[], const int destweights[], MPIX_Comm *xcomm,
                              MPIX_Topo **topo)
{
    static const char *fn = "MPIX_Topo_init";
    (void)sourceweights;  // accepted (may be MPI_UNWEIGHTED), not used
    (void)destweights;
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, fn,
                       [&] { return make_topo(fn, xcomm, indegree, sources, outdegree, destinations, topo); });
}

extern "C" int MPIX_Topo_init_crs(int send_nnz, const int dest[], int recv_nnz, const int src[], int reply,
                                  MPIX_Comm *xcomm, MPIX_Topo **topo)
{
    static const char *fn = "MPIX_Topo_init_crs";
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, fn, [&] {
        if (xcomm && reply != 0 && reply != 1)
            return raise(xcomm->user, MPI_ERR_ARG, fn, "reply must be 0 or 1");
        // reply: the answers travel back along the reported pattern.
        return reply ? make_topo(fn, xcomm, send_nnz, dest, recv_nnz, src, topo)
                     : make_topo(fn, xcomm, recv_nnz, src, send_nnz, dest, topo);
    });
}

extern "C" int MPIX_Topo_free(MPIX_Topo **topo)
{
    static const char *fn = "MPIX_Topo_free";
    if (!topo || !*topo)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "topo is NULL");
    delete *topo;
    *topo = nullptr;
    return MPI_SUCCESS;
}

extern "C" int MPIX_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPIX_Topo *topo,
                                       MPIX_Comm *xcomm)
{
    static const char *fn = "MPIX_Neighbor_alltoallv";
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, fn, [&] {
        if (!xcomm)
            return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
        return run_neighbor(fn, args_of(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, topo, xcomm));
    });
}

extern "C" int MPIX_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype, MPIX_Topo *topo,
                                            MPIX_Comm *xcomm, MPIX_Info *xinfo, MPIX_Request **request)
{
    static const char *fn = "MPIX_Neighbor_alltoallv_init";
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, fn, [&] {
        if (!xcomm)
            return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
        return init_neighbor(fn,
                             args_of(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                     topo, xcomm),
                             xinfo, request);
    });
}

extern "C" int MPIX_Neighbor_alltoallv_init_indexed(const void *sendbuf, const int sendcounts[],
                                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                                    const int recvcounts[], const int rdispls[],
                                                    MPI_Datatype recvtype, const long long global_sindices[],
                                                    const long long global_rindices[], MPIX_Topo *topo,
                                                    MPIX_Comm *xcomm, MPIX_Info *xinfo, MPIX_Request **request)
{
    static const char *fn = "MPIX_Neighbor_alltoallv_init_indexed";
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, fn, [&] {
        if (!xcomm)
            return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
        NeighborArgs a = args_of(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                 topo, xcomm);
        a.indexed = true;
        a.sindices = global_sindices;
        a.rindices = global_rindices;
        return init_neighbor(fn, a, xinfo, request);
    });
}
