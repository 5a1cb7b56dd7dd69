// Neighbour exchanges (MPIX_Neighbor_alltoallv) over an MPIX_Topo: the topology
// object, one exchange reduced to bytes, and the plan every backend builds.
#ifndef MPIX_NEIGHBOR_NEIGHBOR_HPP
#define MPIX_NEIGHBOR_NEIGHBOR_HPP

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

struct MPIX_Comm;

// In and out neighbour lists over an MPIX_Comm, in the caller's order (repeats
// and self loops kept: the k-th occurrence of d among a rank's destinations
// pairs with the k-th occurrence of that rank among d's sources).
struct MPIX_Topo {
    MPIX_Topo(MPIX_Comm *xcomm_, std::vector<int> sources_, std::vector<int> destinations_);
    ~MPIX_Topo();
    MPIX_Topo(const MPIX_Topo &) = delete;
    MPIX_Topo &operator=(const MPIX_Topo &) = delete;

    MPIX_Comm *xcomm;  // its lifetime keeps xcomm->live_objects raised
    std::vector<int> sources;
    std::vector<int> destinations;
};

namespace mpix {

// One neighbour exchange as bytes: send block i is sendbytes[i] bytes at
// sendbuf + sdispls[i], bound for topo->destinations[i]; receive block j is
// recvbytes[j] bytes at recvbuf + rdispls[j], from topo->sources[j]. The views
// stay valid (and in place) for the plan's lifetime; their contents change
// between starts.
struct NeighborExchange {
    MPIX_Comm *xcomm;
    MPI_Comm comm;  // the library's private duplicate
    int rank;
    int tag;  // first of kTagsPerCall tags reserved for this plan
    const MPIX_Topo *topo;
    const char *sendbuf;
    const std::size_t *sendbytes;
    const MPI_Aint *sdispls;
    char *recvbuf;
    const std::size_t *recvbytes;
    const MPI_Aint *rdispls;
    // Indexed exchanges: one global index per send element, block after block
    // (block i's sendbytes[i] / send_elem_bytes entries in order); equal indices
    // in blocks bound for one node carry equal values, so a backend may move them
    // once. nullptr: no indices.
    const long long *sindices = nullptr;
    std::size_t send_elem_bytes = 0;  // packed bytes per send element (indexed only)
    bool traced = false;  // hint `trace`: the plan lists its messages in trace_rows
};

// One message of an exchange as the trace records it (core/trace.hpp): the
// blocks are the graph's edges it carries, global ids source * P + destination
// (a value sent once for several ranks of a node lists every edge it serves);
// a message to oneself is a local copy, never listed.
struct NeighborTraceRow {
    int round, send_peer, recv_peer;  // -1: the side that is not this rank's
    std::vector<long long> blocks;
    std::size_t bytes_sent, bytes_recv;
};

// What a backend computes once (routes, sizes, persistent point-to-point
// requests) and then runs on every start. Blocking calls build one per call.
class NeighborPlan {
public:
    virtual ~NeighborPlan() = default;
    // Posts one exchange of the byte views' current contents.
    virtual int start() = 0;
    // Progresses the started exchange; *done once every message of it completed.
    virtual int test(bool *done) = 0;
    // Completes the started exchange.
    virtual int wait() = 0;
    // After completion: MPI_SUCCESS, or MPI_ERR_TRUNCATE / MPI_ERR_COUNT for the
    // first block longer / shorter than its receive block (copied up to the
    // receive block's length; every message still moved).
    int mismatch = MPI_SUCCESS;
    // Bytes this rank sends to ranks of other nodes per exchange (tests compare
    // backends with it).
    std::size_t internode_bytes = 0;
    // With x.traced: this rank's messages of every exchange (the same each start).
    std::vector<NeighborTraceRow> trace_rows;
};

// Collective: builds a backend's plan for `x` (MPI error code on failure).
using NeighborPlanFn = int (*)(const NeighborExchange &x, std::unique_ptr<NeighborPlan> *plan);

// Direct point-to-point: a receive per source, a send per destination.
int neighbor_standard_plan(const NeighborExchange &x, std::unique_ptr<NeighborPlan> *plan);
// Locality-aware: one message per node pair through relays (gather, node pair, scatter).
int neighbor_locality_plan(const NeighborExchange &x, std::unique_ptr<NeighborPlan> *plan);

// Starts persistent requests one by one in order: MPI_Startall may start them in
// any order, and repeated neighbours rely on the order of sends to one peer.
int start_in_order(std::vector<MPI_Request> &requests);

}  // namespace mpix

#endif
