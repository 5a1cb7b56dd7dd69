// The registry: one row per algorithm. Add a row here and the tests, the
// benchmark, hint validation and the README table pick it up.
#include "select/registry.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "alltoall/bruck.hpp"
#include "alltoallv/bruck_nonuniform.hpp"
#include "alltoallv/direct.hpp"
#include "alltoallv/parlogna.hpp"
#include "sparse/sparse.hpp"
#include "alltoall/hierarchical.hpp"
#include "alltoallv/node_aware.hpp"
#include "alltoallv/node_bruck.hpp"
#include "alltoallv/parlinna.hpp"
#include "alltoallv/randomized.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

constexpr Collective A2A = Collective::alltoall;
constexpr Collective A2AV = Collective::alltoallv;

// What a persistent request of the direct rows that post everything at once keeps.
// `randomized`'s selection (defined with `auto` below).
int randomized_selection(const Exchange &x);

constexpr const char *kPostedAtStart =
    "persistent point-to-point requests: a start is one MPI_Startall, progressed between start and wait";

const Algorithm kAlgorithms[] = {
    // Direct exchanges (src/alltoallv/direct.cpp): both collectives.
    {"pmpi", A2A, "", "", "the MPI library's own MPI_Alltoall", direct_pmpi, nullptr, true},
    {"linear", A2A, "", "", "post every Irecv, then every Isend, in rank order", direct_linear, nullptr, false,
     prepare_linear, nullptr, kPostedAtStart},
    {"pairwise", A2A, "", "", "P-1 Sendrecv steps (XOR partners when P is a power of two)", direct_pairwise, nullptr},
    {"nonblocking", A2A, "", "", "spread-out: round-robin peers, all posted at once", direct_nonblocking, nullptr,
     false, prepare_nonblocking, nullptr, kPostedAtStart},
    {"scattered", A2A, "batch_size", "", "spread-out in windows of batch_size requests", direct_scattered, nullptr},
    {"pmpi", A2AV, "", "", "the MPI library's own MPI_Alltoallv", direct_pmpi, nullptr, true},
    {"linear", A2AV, "", "", "post every Irecv, then every Isend, in rank order", direct_linear, nullptr, false,
     prepare_linear, nullptr, kPostedAtStart},
    {"pairwise", A2AV, "", "", "P-1 Sendrecv steps (XOR partners when P is a power of two)", direct_pairwise, nullptr},
    {"nonblocking", A2AV, "", "", "spread-out: round-robin peers, all posted at once", direct_nonblocking, nullptr,
     false, prepare_nonblocking, nullptr, kPostedAtStart},
    {"scattered", A2AV, "batch_size", "", "spread-out in windows of batch_size requests (MPICH's default)",
     direct_scattered, nullptr},
    // Randomized direct exchanges for low-diameter networks (src/alltoallv/randomized.cpp).
    {"randomized_scatter", A2A, "random_seed", "",
     "every Irecv, then every Isend, in one shuffled rank order (the same on every rank)", randomized_scatter, nullptr},
    {"randomized_sendrecv", A2A, "random_seed,max_queue", "",
     "anti-circulant schedule of a shuffled order: one send and one receive per step, max_queue steps in flight",
     randomized_sendrecv, nullptr},
    {"randomized_segmented", A2A, "random_seed,max_queue,segment_size", "",
     "randomized_sendrecv's order, blocks cut into segment_size pieces sent segment by segment, max_queue in flight",
     randomized_segmented, nullptr},
    {"randomized", A2A, "random_seed,max_queue,segment_size", "",
     "the paper's selection: auto's pick for small blocks, randomized scatter or sendrecv for medium, segmented for large",
     randomized_selection, nullptr},
    {"randomized_scatter", A2AV, "random_seed", "",
     "every Irecv, then every Isend, in one shuffled rank order (the same on every rank)", randomized_scatter, nullptr},
    {"randomized_sendrecv", A2AV, "random_seed,max_queue", "",
     "anti-circulant schedule of a shuffled order: one send and one receive per step, max_queue steps in flight",
     randomized_sendrecv, nullptr},
    {"randomized_segmented", A2AV, "random_seed,max_queue,segment_size", "",
     "randomized_sendrecv's order, blocks cut into segment_size pieces sent segment by segment, max_queue in flight",
     randomized_segmented, nullptr},
    {"randomized", A2AV, "random_seed,max_queue,segment_size", "",
     "the paper's selection on the agreed mean block: auto's pick for small, scatter or sendrecv for medium, segmented for large",
     randomized_selection, nullptr},
    // Bruck family, uniform (src/alltoall/bruck.cpp).
    {"bruck_basic", A2A, "", "", "rotation, ceil(log2 P) packed store-and-forward steps, inverse rotation",
     bruck_basic, nullptr},
    {"bruck_basic_dt", A2A, "", "", "basic Bruck sending blocks by derived datatype instead of packing",
     bruck_basic_dt, nullptr},
    {"bruck_modified", A2A, "", "", "modified Bruck: initial rotation to index 2p-i, no final rotation",
     bruck_modified, nullptr},
    {"bruck_modified_dt", A2A, "", "", "modified Bruck with derived datatypes instead of packing",
     bruck_modified_dt, nullptr},
    {"bruck_zerocopy_dt", A2A, "", "", "zero-copy Bruck: alternating buffers described by struct types",
     bruck_zerocopy_dt, nullptr},
    {"bruck_zero_rotation", A2A, "", "", "Bruck with a cached rotation index array instead of rotations",
     bruck_zero_rotation, nullptr},
    {"bruck_radix", A2A, "radix", "", "radix-r Bruck (default r = ceil(sqrt P))", bruck_radix, nullptr},
    // Bruck family and ParLogNa, non-uniform (src/alltoallv/bruck_nonuniform.cpp, parlogna.cpp).
    {"padded_bruck", A2AV, "", "", "allreduce the largest block, pad to it, modified Bruck, scan out",
     padded_bruck, nullptr},
    {"padded_alltoall", A2AV, "", "", "allreduce the largest block, pad to it, MPI_Alltoall, scan out",
     padded_alltoall, nullptr},
    {"two_phase_bruck", A2AV, "", "", "radix-2 Bruck, each step one message: block sizes in front of the blocks; no rotations",
     two_phase_bruck, nullptr, false, two_phase_bruck_prepare, nullptr,
     "every step's bundle sizes: starts send blocks only (no size header, no probe)"},
    {"parlogna", A2AV, "radix,batch_size", "", "ParLogNa: K rounds of radix r (2..P), sizes inside each round; temporary space P-1-K blocks",
     parlogna, nullptr, false, parlogna_prepare, nullptr,
     "every round's forwarded-block sizes: starts send blocks only (no size header, no probe)"},
    // Sparse dynamic data exchange (src/sparse/): rows have run == nullptr.
    {"personalized", Collective::alltoall_crs, "crs_recv_nnz_known", "",
     "reduce-scatter of per-destination flags, then Isend and matched probes", nullptr, sparse_personalized},
    {"nonblocking", Collective::alltoall_crs, "crs_recv_nnz_known", "",
     "NBX: Issend, probe while testing, then a non-blocking dissemination barrier", nullptr, sparse_nonblocking},
    {"rma", Collective::alltoall_crs, "", "",
     "MPI_Put into per-source slots of a cached window between two fences", nullptr, sparse_rma},
    {"personalized_locality", Collective::alltoall_crs, "locality", "",
     "one aggregate per node (personalized), then redistribution inside the node", nullptr,
     sparse_personalized_locality},
    {"nonblocking_locality", Collective::alltoall_crs, "locality", "",
     "one aggregate per node (NBX), then redistribution inside the node", nullptr, sparse_nonblocking_locality},
    {"personalized", Collective::alltoallv_crs, "crs_recv_nnz_known", "",
     "reduce-scatter of per-destination flags, then Isend and matched probes", nullptr, sparse_personalized},
    {"nonblocking", Collective::alltoallv_crs, "crs_recv_nnz_known", "",
     "NBX: Issend, probe while testing, then a non-blocking dissemination barrier", nullptr, sparse_nonblocking},
    {"personalized_locality", Collective::alltoallv_crs, "locality", "",
     "one aggregate per node (personalized), then redistribution inside the node", nullptr,
     sparse_personalized_locality},
    {"nonblocking_locality", Collective::alltoallv_crs, "locality", "",
     "one aggregate per node (NBX), then redistribution inside the node", nullptr, sparse_nonblocking_locality},
    // Hierarchical / locality-aware (src/alltoallv/node_aware.cpp, src/alltoall/hierarchical.cpp).
    {"node_aware", A2A, "inner", "", "node-aware: gather per remote node inside the node, one message per node pair, redistribute",
     node_aware, nullptr},
    {"locality_aware", A2A, "inner,leaders_per_node,locality", "",
     "node_aware between groups (leaders_per_node groups per node, or sockets with locality=socket)", locality_aware,
     nullptr},
    {"hierarchical", A2A, "inner", "", "gather to one leader per node, leaders exchange, scatter", hierarchical,
     nullptr},
    {"multileader", A2A, "inner,leaders_per_node", "", "leaders_per_node leaders per node gather, all leaders exchange, scatter",
     multileader, nullptr},
    {"multileader_locality", A2A, "inner,leaders_per_node", "",
     "multileader whose leaders aggregate per remote node (one message per node pair)", multileader_locality, nullptr},
    {"node_bruck", A2A, "radix", "",
     "node-aware log-time: radix-r Bruck rounds gather by destination node inside the node, one message per node "
     "pair, radix-r Bruck rounds redistribute",
     node_bruck, nullptr},
    {"node_aware", A2AV, "inner", "", "node-aware: gather per remote node inside the node, one message per node pair, redistribute",
     node_aware, nullptr, false, node_aware_prepare, nullptr,
     "every hop's item sizes and the node map: starts send blocks only (no size header, no probe)"},
    {"locality_aware", A2AV, "inner,leaders_per_node,locality", "",
     "node_aware between groups (leaders_per_node groups per node, or sockets with locality=socket)", locality_aware,
     nullptr},
    {"node_bruck", A2AV, "radix", "",
     "node-aware log-time: radix-r Bruck rounds gather by destination node inside the node, one message per node "
     "pair, radix-r Bruck rounds redistribute; sizes travel inside the messages",
     node_bruck, nullptr},
    {"parlinna_coalesced", A2AV, "radix,batch_size,inner", "",
     "ParLinNa: ParLogNa rounds inside the node (sizes inside each round), then one message per remote rank of "
     "equal local index",
     parlinna_coalesced,
     nullptr},
    {"parlinna_staggered", A2AV, "radix,batch_size,inner", "",
     "ParLinNa: ParLogNa rounds inside the node (sizes inside each round), then one message per block to ranks of "
     "equal local index",
     parlinna_staggered, nullptr},
    // Neighbour exchanges over an MPIX_Topo (src/neighbor/): rows have plan_neighbor.
    {"standard", Collective::neighbor_alltoallv, "", "",
     "a persistent receive per source and send per destination, all posted at start", nullptr, nullptr, false,
     nullptr, neighbor_standard_plan},
    {"locality", Collective::neighbor_alltoallv, "", "",
     "MPI Advance's locality-aware exchange: gather at a relay per remote node, one message per node pair, "
     "scatter on the destination node (indexed: a value bound for several ranks of a node crosses once)",
     nullptr, nullptr, false, nullptr, neighbor_locality_plan},
};

constexpr int kCount = sizeof(kAlgorithms) / sizeof(kAlgorithms[0]);

}  // namespace

const Algorithm *algorithm_at(Collective c, int index)
{
    if (index < 0)
        return nullptr;
    for (int i = 0; i < kCount; ++i)
        if (kAlgorithms[i].collective == c && index-- == 0)
            return &kAlgorithms[i];
    return nullptr;
}

const Algorithm *find_algorithm(Collective c, const char *name)
{
    if (!name)
        return nullptr;
    for (int i = 0; i < kCount; ++i)
        if (kAlgorithms[i].collective == c && !std::strcmp(kAlgorithms[i].name, name))
            return &kAlgorithms[i];
    return nullptr;
}

// `auto` for MPIX_Neighbor_alltoallv. On one node there is nothing to
// aggregate: `standard`. With several nodes, `locality` trades each rank's
// off-node messages for one message per node pair plus two hops inside the
// nodes; those hops cost about as much as a few off-node latencies, so it pays
// only once some rank sends many blocks off its node (the busiest rank sets the
// pace, hence the agreed maximum). The threshold is the sparse exchanges'
// measured crossover (16 off-node messages, see the sparse rule below), the same
// trade; not yet measured for neighbour exchanges themselves.
constexpr long long kAutoNeighborLocalityMinOffnodeBlocks = 16;

bool neighbor_auto_needs_stats(int nnodes) { return nnodes > 1; }

const Algorithm *auto_neighbor_rule(int nnodes, long long max_offnode_blocks)
{
    static const Algorithm *const standard = find_algorithm(Collective::neighbor_alltoallv, "standard");
    static const Algorithm *const locality = find_algorithm(Collective::neighbor_alltoallv, "locality");
    if (nnodes <= 1 || max_offnode_blocks < kAutoNeighborLocalityMinOffnodeBlocks)
        return standard;
    return locality;
}

namespace {

constexpr int kAutoMinRanks = 8;
constexpr int kAutoAggregateRanksPerNode = 4;  // fewer per node on average: no node aggregation

// The rows `auto` picks, looked up by name once (the registry is read-only).
struct AutoRows {
    const Algorithm *a2a_bruck_zero_rotation = find_algorithm(A2A, "bruck_zero_rotation");
    const Algorithm *a2a_node_bruck = find_algorithm(A2A, "node_bruck");
    const Algorithm *a2a_nonblocking = find_algorithm(A2A, "nonblocking");
    const Algorithm *a2av_node_bruck = find_algorithm(A2AV, "node_bruck");
    const Algorithm *a2av_nonblocking = find_algorithm(A2AV, "nonblocking");
    const Algorithm *a2av_parlogna = find_algorithm(A2AV, "parlogna");
    const Algorithm *a2av_pmpi = find_algorithm(A2AV, "pmpi");
    const Algorithm *a2av_two_phase_bruck = find_algorithm(A2AV, "two_phase_bruck");
    // `randomized`'s picks, indexed by uniform (MPIX_Alltoall) or not.
    const Algorithm *randomized_scatter[2] = {find_algorithm(A2AV, "randomized_scatter"),
                                              find_algorithm(A2A, "randomized_scatter")};
    const Algorithm *randomized_sendrecv[2] = {find_algorithm(A2AV, "randomized_sendrecv"),
                                               find_algorithm(A2A, "randomized_sendrecv")};
    const Algorithm *randomized_segmented[2] = {find_algorithm(A2AV, "randomized_segmented"),
                                                find_algorithm(A2A, "randomized_segmented")};
};

const AutoRows &auto_rows()
{
    static const AutoRows rows;
    return rows;
}

// True when nodes hold too few ranks (1-3 on average) for node_bruck to
// aggregate: it would then send about P/n messages per rank between nodes.
bool few_ranks_per_node(int size, int nnodes)
{
    return nnodes > 1 && size < kAutoAggregateRanksPerNode * nnodes;
}

int node_count(MPIX_Comm *xcomm)
{
    const Regions *nodes = nullptr;
    return get_regions(xcomm, Locality::node, &nodes) == MPI_SUCCESS && nodes ? nodes->count : 1;
}

}  // namespace

// `auto` for MPIX_Alltoall: P, the node count and the block size, which MPI
// requires to be the same on every rank. From 8 ranks on one node or on nodes of
// 4+ ranks, node_bruck (fastest at every measured size: P=256 on 16 nodes, 16 B to
// 4 KiB, 1.03-2.0x its bound; one node of 16, 16 B to 64 KiB). On nodes of 1-3
// ranks: small blocks log-time (HPDC'22 finds the crossover near a few hundred
// bytes; the rotation-free variant copies least), bigger ones the randomized
// sendrecv: as fast as or faster than the MPI library's own (SimGrid's, MPICH's
// selection) at every measured point from 512 B to 1 MiB, on the Slim Fly, the
// dragonfly and the fat tree at 14-64 nodes of one rank (1.0-1.03x at 512 B-1 KiB,
// 3.3-4.2x from 64 KiB on 32-64 nodes; bench/results/randomized/).
const Algorithm *auto_alltoall_rule(int size, int nnodes, std::size_t block_bytes)
{
    if (size < kAutoMinRanks)
        return auto_rows().a2a_nonblocking;
    if (!few_ranks_per_node(size, nnodes))
        return auto_rows().a2a_node_bruck;
    if (block_bytes <= 256)
        return auto_rows().a2a_bruck_zero_rotation;
    return auto_rows().randomized_sendrecv[1];
}

namespace {

// The rule on this communicator's size and node count.
const Algorithm *auto_alltoall(MPIX_Comm *xcomm, std::size_t block_bytes)
{
    return auto_alltoall_rule(xcomm->size, node_count(xcomm), block_bytes);
}

// `auto` for MPIX_Alltoallv, from values every rank agrees on without a
// collective on the call's path (README, "Which algorithm when"; SimGrid on
// 16-core nodes, bench/results):
//  - fewer than 8 ranks: `nonblocking`, every receive posted at once. Against the
//    MPI library's own, interleaved call by call (bench/mpix-passthrough, MPICH
//    4.0.2, P=2): 1.14x its time at 16 B (about 60 ns of mpix), 1.02-1.05x at
//    4 KiB, 0.60x at 64 KiB; SimGrid, one node, P=4 and 7: 6.01 against 6.21 and
//    12.01 against 12.21 us. Posting a receive for every block, it reports a
//    block sent where none is expected, which MPICH's own leaves queued on the
//    communicator;
//  - one node, or nodes of 4+ ranks on average: `node_bruck`, at every block size.
//    It was fastest at every measured point (P=256 on 16 nodes: 16 B to 8 KiB,
//    1.04-2.0x its bound; one node of 16: 16 B to 64 KiB). It needs no agreed
//    statistic: its radix inside a node follows the node's own agreed volume,
//    which its first phase spreads in its headers (node_bruck.cpp);
//  - nodes of 1-3 ranks (the node-aware phases cannot aggregate): the largest
//    per-rank mean block decides, `two_phase_bruck` up to 32 B, `parlogna` up to
//    768 B, the MPI library's own above. That mean is the previous call's, agreed
//    by an MPI_Iallreduce started at the end of that call and completed at the
//    start of this one (the first call on a communicator agrees with a blocking
//    MPI_Allreduce); see agreed_mean below.
constexpr unsigned long long kAutoBruckMaxMean = 32;        // bytes: S <= 64 uniform
constexpr unsigned long long kAutoParlognaMaxMean = 768;    // bytes: S <= 1.5 KiB uniform

// The largest per-rank mean block, agreed one call late: a call completes the
// MPI_Iallreduce the previous call started (every rank started it, in the same
// order, so it can complete; usually it already has), uses its result, and
// starts the next one with its own mean. Every rank therefore uses the same
// value in the same call. Kept on the communicator; freeing it completes the
// pending reduction (MPIX_Comm_free is collective).
struct AgreedMean : CacheEntry {
    MPI_Request pending = MPI_REQUEST_NULL;
    unsigned long long contribution = 0, result = 0;
    bool have = false;
    ~AgreedMean() override
    {
        if (pending != MPI_REQUEST_NULL)
            MPI_Wait(&pending, MPI_STATUS_IGNORE);
    }
};

int agreed_mean(MPIX_Comm *xcomm, unsigned long long mine, unsigned long long *out)
{
    const std::string key = "auto:alltoallv:agreed_mean";
    AgreedMean *a = cached<AgreedMean>(xcomm, key);
    if (!a) {
        std::unique_ptr<AgreedMean> fresh(new AgreedMean());
        a = fresh.get();
        xcomm->cache[key] = std::move(fresh);
    }
    if (a->pending != MPI_REQUEST_NULL) {
        MPIX_CHECK(MPI_Wait(&a->pending, MPI_STATUS_IGNORE));
        a->have = true;
    }
    if (!a->have) {
        MPIX_CHECK(MPI_Allreduce(&mine, &a->result, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, xcomm->comm));
        a->have = true;
    }
    *out = a->result;
    a->contribution = mine;
    return MPI_Iallreduce(&a->contribution, &a->result, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, xcomm->comm,
                          &a->pending);
}

}  // namespace

bool auto_alltoallv_needs_mean(int size, int nnodes)
{
    return size >= kAutoMinRanks && few_ranks_per_node(size, nnodes);
}

const Algorithm *auto_alltoallv_rule(int size, int nnodes, unsigned long long agreed_mean)
{
    if (size < kAutoMinRanks)
        return auto_rows().a2av_nonblocking;
    if (!auto_alltoallv_needs_mean(size, nnodes))
        return auto_rows().a2av_node_bruck;
    if (agreed_mean <= kAutoBruckMaxMean)
        return auto_rows().a2av_two_phase_bruck;
    if (agreed_mean <= kAutoParlognaMaxMean)
        return auto_rows().a2av_parlogna;
    return auto_rows().a2av_pmpi;
}

namespace {

// `exact`: a persistent init agrees on this call's own mean (one allreduce,
// paid once for every start) instead of the previous call's.
const Algorithm *auto_alltoallv(MPIX_Comm *xcomm, const UserSide &send, bool exact)
{
    const int nnodes = node_count(xcomm);
    unsigned long long agreed = 0;
    if (auto_alltoallv_needs_mean(xcomm->size, nnodes)) {
        unsigned long long sum = 0;
        for (int j = 0; j < xcomm->size; ++j)
            if (j != xcomm->rank)
                sum += send.count(j) * send.info.size;
        unsigned long long mine = sum / static_cast<unsigned long long>(xcomm->size - 1);
        int rc = exact ? MPI_Allreduce(&mine, &agreed, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, xcomm->comm)
                       : agreed_mean(xcomm, mine, &agreed);
        if (rc != MPI_SUCCESS)
            return auto_rows().a2av_pmpi;
    }
    return auto_alltoallv_rule(xcomm->size, nnodes, agreed);
}

}  // namespace

namespace {

// `randomized`: the selection of "Optimized Alltoall Algorithm for Low-Diameter
// Network Topologies" on the block size every rank agrees on (MPIX_Alltoall's
// block; MPIX_Alltoallv's largest per-rank mean, agreed one call late as
// `auto` agrees it): small blocks are latency-bound and gain nothing from a
// shuffle, so they take `auto`'s pick; the paper then picks the randomized
// scatter for medium blocks on few ranks, the randomized sendrecv for medium
// blocks on many, and the segmented sendrecv for large blocks (512 B and 16 KiB
// on its Slim Fly). Measured here (bench/results/randomized/: SimGrid on the
// Slim Fly, dragonfly and fat tree, 14-64 nodes of 1 rank, 14-16 nodes of 10,
// 1 B to 1 MiB): below 512 B auto's pick is 1.4-7x faster; from 1 KiB on the
// randomized sendrecv is the fastest of the three at every point. The scatter
// never beats it (every rank walks the same order, so every rank sends to the
// same rank first: linear's incast, shuffled); nor does the segmented one (each
// piece pays a message's overhead and SimGrid shares a link fairly among
// whole messages, so cutting them frees nothing: 2.2x slower at 64 KiB on 64
// nodes). Their ranges are therefore empty here; a site whose network
// rewards them (adaptive routing, head-of-line blocking) sets them here.
constexpr unsigned long long kRandomizedMinBlock = 512;
constexpr int kRandomizedScatterMaxRanks = 0;                                       // medium blocks: none
constexpr unsigned long long kRandomizedSegmentedMinBlock = ~0ULL;                  // large blocks: none

int randomized_selection(const Exchange &x)
{
    MPIX_Comm *xcomm = x.xcomm;
    unsigned long long block = x.block_bytes;
    const int nnodes = node_count(xcomm);
    if (!x.uniform) {
        unsigned long long sum = 0;
        for (int j = 0; j < x.size; ++j)
            if (j != x.rank)
                sum += x.sendbytes[j];
        const unsigned long long mine = x.size > 1 ? sum / static_cast<unsigned long long>(x.size - 1) : 0;
        MPIX_CHECK(agreed_mean(xcomm, mine, &block));
    }
    const Algorithm *pick;
    if (block < kRandomizedMinBlock)
        pick = x.uniform ? auto_alltoall(xcomm, block) : auto_alltoallv_rule(x.size, nnodes, block);
    else if (block >= kRandomizedSegmentedMinBlock)
        pick = auto_rows().randomized_segmented[x.uniform];
    else if (x.size <= kRandomizedScatterMaxRanks)
        pick = auto_rows().randomized_scatter[x.uniform];
    else
        pick = auto_rows().randomized_sendrecv[x.uniform];
    const int rc = pick->run(x);
    if (x.trace)  // the trace names the row that ran, before that row's own params
        x.trace->set_params("picked=" + std::string(pick->name) +
                            (x.trace->params().empty() ? "" : "," + x.trace->params()));
    return rc;
}

}  // namespace

const Algorithm *select_algorithm(Collective c, MPIX_Comm *xcomm, const Hints &hints, const UserSide &send,
                                  bool persistent)
{
    if (const Algorithm *a = hints.row[static_cast<int>(c)])
        return a;
    return c == A2A ? auto_alltoall(xcomm, send.count(0) * send.info.size) : auto_alltoallv(xcomm, send, persistent);
}

// `auto` for the sparse exchanges (MPIX_Alltoall(v)_crs):
//  1. crs_recv_nnz_known: `personalized` (its reduction is skipped, leaving only
//     sends and probed receives: nothing is cheaper);
//  2. fewer than 4 nodes: `nonblocking` (NBX: no O(P) reduction, log P barrier
//     rounds; below 4 nodes aggregation's second phase costs more than it saves);
//  3. 4+ nodes: `nonblocking_locality` when the busiest rank sends more than 16
//     messages to other nodes, else `nonblocking`. Aggregation adds two steps
//     inside the node, which cost about as much as 16 messages' overheads
//     (SimGrid, P=256 on 16 nodes of 16, 1 us per message: 11-17 us at 64 B), and
//     what it saves is the busiest rank's messages. Checked on nine patterns
//     (sim/README.md): radfr1 and tumorAntiAngiogenesis_4 halos at P=256 and
//     1024, and traffic matrices from 1 to 32 off-node messages per rank; the
//     rule picks the faster backend in all nine, the mean-based rule before it
//     in five.
// The statistic is a maximum over ranks (one allreduce in the entry point), so
// every rank picks the same backend.
constexpr int kSparseMinNodes = 4;
constexpr long long kSparseAggregateAbove = 16;  // off-node messages of the busiest rank

bool sparse_auto_needs_stats(int nnodes) { return nnodes >= kSparseMinNodes; }

const Algorithm *select_sparse_algorithm(Collective c, const Hints &hints, int size, int nnodes)
{
    (void)size;
    (void)nnodes;
    const std::string &name = hints.algorithm_for(c);
    if (name != "auto")
        if (const Algorithm *a = find_algorithm(c, name.c_str()))
            if (a->run_sparse)
                return a;
    return find_algorithm(c, hints.crs_recv_nnz_known ? "personalized" : "nonblocking");
}

const Algorithm *select_sparse_algorithm(Collective c, const Hints &hints, int size, int nnodes,
                                         long long max_remote_sends)
{
    const Algorithm *a = select_sparse_algorithm(c, hints, size, nnodes);
    if (hints.algorithm_for(c) != "auto" || hints.crs_recv_nnz_known)
        return a;
    if (sparse_auto_needs_stats(nnodes) && max_remote_sends > kSparseAggregateAbove)
        return find_algorithm(c, "nonblocking_locality");
    return a;
}

}  // namespace mpix
