// The drop-in's neighbourhood exchange: MPI_Neighbor_alltoallv on a
// distributed-graph communicator (MPI_Dist_graph_create_adjacent or
// MPI_Dist_graph_create) runs MPIX_Neighbor_alltoallv. The topology comes from
// MPI_Dist_graph_neighbors, in the order MPI's own call uses (repeated
// neighbours and self loops kept; weights ignored, as MPI allows); the
// MPIX_Comm and MPIX_Topo are made on the communicator's first call
// (collective, as the call is) and cached as an attribute, freed with it.
// Cartesian and graph communicators, and the nonblocking and persistent
// forms, go to the MPI library unchanged.
#include <mpi.h>

#include <new>
#include <vector>

#include "mpix.h"
#include "pmpi/attribute.hpp"

namespace {

struct NeighborRoute {
    MPIX_Comm *xcomm = nullptr;
    MPIX_Topo *topo = nullptr;  // NULL: not a distributed graph; MPI takes the call
    int indegree = 0, outdegree = 0;
};

int delete_route(MPI_Comm, int, void *attr, void *)
{
    NeighborRoute *route = static_cast<NeighborRoute *>(attr);
    int rc = route->topo ? MPIX_Topo_free(&route->topo) : MPI_SUCCESS;
    if (route->xcomm) {
        const int freed = MPIX_Comm_free(&route->xcomm);
        if (rc == MPI_SUCCESS)
            rc = freed;
    }
    delete route;
    return rc;
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
        if (route->xcomm)
            MPIX_Comm_free(&route->xcomm);
        delete route;
        return rc;
    }
    *out = route->topo ? route : nullptr;
    return MPI_SUCCESS;
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
    // MPI lets a rank without sources (destinations) pass NULL arrays for them.
    static const int none[1] = {0};
    auto or_none = [](const int *a, int degree) { return !a && degree == 0 ? none : a; };
    return MPIX_Neighbor_alltoallv(sendbuf, or_none(sendcounts, route->outdegree), or_none(sdispls, route->outdegree),
                                   sendtype, recvbuf, or_none(recvcounts, route->indegree),
                                   or_none(rdispls, route->indegree), recvtype, route->topo, route->xcomm);
}
