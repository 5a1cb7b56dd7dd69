// Running MPIX_Neighbor_alltoallv, blocking or persistent: checks, byte views,
// selection, the backend's plan, error reporting.
#ifndef MPIX_SELECT_NEIGHBOR_DISPATCH_HPP
#define MPIX_SELECT_NEIGHBOR_DISPATCH_HPP

#include <mpi.h>

#include <cstddef>

#include "mpix.h"

namespace mpix {

// The caller's arguments of one neighbour exchange.
struct NeighborArgs {
    const void *sendbuf;
    const int *sendcounts;
    const int *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts;
    const int *rdispls;
    MPI_Datatype recvtype;
    MPIX_Topo *topo;
    MPIX_Comm *xcomm;
    bool indexed = false;  // MPIX_Neighbor_alltoallv_init_indexed
    const long long *sindices = nullptr;
    const long long *rindices = nullptr;
};

// A blocking exchange (xcomm checked non-NULL by the caller). Returns
// MPI_SUCCESS or the error raised on the user's communicator.
int run_neighbor(const char *fn, const NeighborArgs &args);
// A persistent request: everything checked, selected and planned now.
int init_neighbor(const char *fn, const NeighborArgs &args, const MPIX_Info *xinfo, MPIX_Request **request);
// Bytes a neighbour request sends to other nodes per exchange on this rank (0
// for another kind of request); tests compare backends with it.
std::size_t neighbor_internode_bytes(const MPIX_Request *request);

}  // namespace mpix

#endif
