// The drop-in's neighbourhood exchange: MPI_Neighbor_alltoallv on a
// distributed-graph communicator (MPI_Dist_graph_create_adjacent or
// MPI_Dist_graph_create) runs MPIX_Neighbor_alltoallv. The topology comes from
// MPI_Dist_graph_neighbors, in the order MPI's own call uses (repeated
// neighbours and self loops kept; weights ignored, as MPI allows); the
// MPIX_Comm and MPIX_Topo are made on the communicator's first call
// (collective, as the call is) and cached as an attribute, freed with it.
// Cartesian and graph communicators go to the MPI library unchanged.
//
// MPI_Ineighbor_alltoallv and MPI_Neighbor_alltoallv_init run through mpix
// only where MPIX_INEIGHBOR_ALLTOALLV_ALGORITHM names a backend (`auto`
// included; `pmpi`: the MPI library) and the MPI library has generalized
// requests with a poll function: as for MPI_Ialltoall(v) (pmpi/nonblocking.cpp),
// mpix progresses them only in MPI's completion calls. A nonblocking call is a
// persistent mpix request made, started once and freed when it completes; its
// plan is made at every call, and the `locality` backend's plan exchanges
// counts (an MPI_Alltoall), so the persistent form is the one to use with it.
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "config.h"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"
#include "pmpi/env_hint.hpp"
#include "pmpi/attribute.hpp"
#include "pmpi/inflight.hpp"
#include "pmpi/persistent.hpp"

namespace {

struct NeighborRoute {
    MPIX_Comm *xcomm = nullptr;
    MPIX_Topo *topo = nullptr;  // NULL: not a distributed graph; MPI takes the call
    int indegree = 0, outdegree = 0;
    // The nonblocking and persistent forms' hints; NULL: the MPI library takes them.
    MPIX_Info *nonblocking_hints = nullptr;
};

int release_route(void *attr)
{
    NeighborRoute *route = static_cast<NeighborRoute *>(attr);
    if (route->nonblocking_hints)
        MPIX_Info_free(&route->nonblocking_hints);
    int rc = route->topo ? MPIX_Topo_free(&route->topo) : MPI_SUCCESS;
    if (route->xcomm) {
        const int freed = MPIX_Comm_free(&route->xcomm);
        if (rc == MPI_SUCCESS)
            rc = freed;
    }
    delete route;
    return rc;
}

#if MPIX_HAVE_GREQUEST_POLL
// Requests made on the route (persistent ones, nonblocking ones in flight)
// outlive the communicator, as MPI lets them; the topology counts as one.
bool route_busy(void *attr)
{
    const NeighborRoute *route = static_cast<const NeighborRoute *>(attr);
    return route->xcomm && route->xcomm->live_objects > (route->topo ? 1 : 0);
}
#endif

int delete_route(MPI_Comm, int, void *attr, void *)
{
#if MPIX_HAVE_GREQUEST_POLL
    return mpix::pmpi::release_or_defer(attr, route_busy, release_route);
#else
    return release_route(attr);
#endif
}

// The distributed graph of `comm` as an MPIX_Topo on an MPIX_Comm of its own.
int make_topology(MPI_Comm comm, NeighborRoute *route)
{
    int indegree = 0, outdegree = 0, weighted = 0;
    int rc = MPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
    if (rc != MPI_SUCCESS)
        return rc;
    // One more element each: a degree of zero still gets valid pointers.
    std::vector<int> sources(indegree + 1), destinations(outdegree + 1);
    std::vector<int> source_weights(weighted ? indegree + 1 : 0), destination_weights(weighted ? outdegree + 1 : 0);
    rc = MPI_Dist_graph_neighbors(comm, indegree, sources.data(), weighted ? source_weights.data() : MPI_UNWEIGHTED,
                                  outdegree, destinations.data(),
                                  weighted ? destination_weights.data() : MPI_UNWEIGHTED);
    if (rc != MPI_SUCCESS)
        return rc;
    route->indegree = indegree;
    route->outdegree = outdegree;
    if ((rc = MPIX_Comm_init(&route->xcomm, comm)) != MPI_SUCCESS)
        return rc;
#if MPIX_HAVE_GREQUEST_POLL
    const char *backend = std::getenv("MPIX_INEIGHBOR_ALLTOALLV_ALGORITHM");
    if (backend && std::strcmp(backend, "pmpi") != 0) {
        if ((rc = MPIX_Info_init(&route->nonblocking_hints)) != MPI_SUCCESS)
            return rc;
        if (std::strcmp(backend, "auto") != 0 &&
            (rc = mpix::pmpi::set_env_hint(route->nonblocking_hints, comm, "MPI_Ineighbor_alltoallv / MPI_Neighbor_alltoallv_init",
                                           "MPIX_INEIGHBOR_ALLTOALLV_ALGORITHM", "neighbor_alltoallv_algorithm",
                                           backend)) != MPI_SUCCESS)
            return rc;
    }
#endif
    return MPIX_Topo_init(indegree, sources.data(), MPI_UNWEIGHTED, outdegree, destinations.data(), MPI_UNWEIGHTED,
                          route->xcomm, &route->topo);
}

// The route of `comm`'s neighbourhood exchanges; *out NULL where MPI takes them.
int route_neighbor(MPI_Comm comm, NeighborRoute **out)
{
    *out = nullptr;
    NeighborRoute *cached = nullptr;
    const mpix::pmpi::Cached found = mpix::pmpi::cached_attribute<delete_route>(comm, &cached);
    if (found == mpix::pmpi::Cached::none)
        return MPI_SUCCESS;
    if (found == mpix::pmpi::Cached::present) {
        *out = cached->topo ? cached : nullptr;
        return MPI_SUCCESS;
    }
    if (mpix::in_library())  // the library's own communicators are never routed
        return MPI_SUCCESS;
    int kind = MPI_UNDEFINED;
    if (MPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return MPI_SUCCESS;
    NeighborRoute *route = new (std::nothrow) NeighborRoute;
    if (!route)
        return MPI_ERR_NO_MEM;
    int rc = kind == MPI_DIST_GRAPH ? make_topology(comm, route) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_attr(comm, mpix::pmpi::attribute_keyval<delete_route>(), route);
    if (rc != MPI_SUCCESS) {
        if (route->topo)
            MPIX_Topo_free(&route->topo);
        if (route->nonblocking_hints)
            MPIX_Info_free(&route->nonblocking_hints);
        if (route->xcomm)
            MPIX_Comm_free(&route->xcomm);
        delete route;
        return rc;
    }
    *out = route->topo ? route : nullptr;
    return MPI_SUCCESS;
}

// MPI lets a rank without sources (destinations) pass NULL arrays for them.
const int *or_none(const int *array, int degree)
{
    static const int none[1] = {0};
    return !array && degree == 0 ? none : array;
}

}  // namespace

extern "C" int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    NeighborRoute *route = nullptr;
    const int rc = route_neighbor(comm, &route);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!route)
        return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                       recvtype, comm);
    return MPIX_Neighbor_alltoallv(sendbuf, or_none(sendcounts, route->outdegree), or_none(sdispls, route->outdegree),
                                   sendtype, recvbuf, or_none(recvcounts, route->indegree),
                                   or_none(rdispls, route->indegree), recvtype, route->topo, route->xcomm);
}

#if MPIX_HAVE_GREQUEST_POLL
namespace {

// A persistent mpix request for the call's arguments, or *request NULL where the
// MPI library takes the call.
int init_neighbor(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                  MPIX_Request **request)
{
    *request = nullptr;
    NeighborRoute *route = nullptr;
    const int rc = route_neighbor(comm, &route);
    if (rc != MPI_SUCCESS || !route || !route->nonblocking_hints)
        return rc;
    return MPIX_Neighbor_alltoallv_init(sendbuf, or_none(sendcounts, route->outdegree),
                                        or_none(sdispls, route->outdegree), sendtype, recvbuf,
                                        or_none(recvcounts, route->indegree), or_none(rdispls, route->indegree),
                                        recvtype, route->topo, route->xcomm, route->nonblocking_hints, request);
}

}  // namespace

extern "C" int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request *request)
{
    MPIX_Request *x = nullptr;
    int rc = request ? init_neighbor(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                     comm, &x)
                     : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, comm, request);
    if ((rc = MPIX_Start(x)) != MPI_SUCCESS) {
        MPIX_Request_free(&x);
        return rc;
    }
    // Freed once complete: the request served this one exchange.
    return mpix::pmpi::wrap_started(x, mpix::pmpi::Afterwards::free_it, request);
}

#if MPI_VERSION >= 4
extern "C" int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Info info, MPI_Request *request)
{
    MPIX_Request *x = nullptr;
    const bool f08 = mpix::pmpi::called_from_f08_binding(__builtin_return_address(0));
    const int rc = request && !f08 ? init_neighbor(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                   rdispls, recvtype, comm, &x)
                                   : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    if (!x)
        return PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm, info, request);
    return mpix::pmpi::register_persistent(x, request);
}
#endif  // MPI_VERSION >= 4
#endif  // MPIX_HAVE_GREQUEST_POLL
