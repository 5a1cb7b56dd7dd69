// The registry: one row per algorithm. Add a row here and the tests, the
// benchmark, hint validation and the README table pick it up.
#include "select/registry.hpp"

#include <cstring>

#include "alltoall/bruck.hpp"
#include "alltoallv/bruck_nonuniform.hpp"
#include "alltoallv/direct.hpp"
#include "alltoallv/parlogna.hpp"
#include "sparse/sparse.hpp"
#include "alltoall/hierarchical.hpp"
#include "alltoallv/node_aware.hpp"
#include "alltoallv/node_bruck.hpp"
#include "alltoallv/parlinna.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

constexpr Collective A2A = Collective::alltoall;
constexpr Collective A2AV = Collective::alltoallv;

const Algorithm kAlgorithms[] = {
    // Direct exchanges (src/alltoallv/direct.cpp): both collectives.
    {"pmpi", A2A, "", "", "the MPI library's own MPI_Alltoall", direct_pmpi, nullptr},
    {"linear", A2A, "", "", "post every Irecv, then every Isend, in rank order", direct_linear, nullptr},
    {"pairwise", A2A, "", "", "P-1 Sendrecv steps (XOR partners when P is a power of two)", direct_pairwise, nullptr},
    {"nonblocking", A2A, "", "", "spread-out: round-robin peers, all posted at once", direct_nonblocking, nullptr},
    {"scattered", A2A, "batch_size", "", "spread-out in windows of batch_size requests", direct_scattered, nullptr},
    {"pmpi", A2AV, "", "", "the MPI library's own MPI_Alltoallv", direct_pmpi, nullptr},
    {"linear", A2AV, "", "", "post every Irecv, then every Isend, in rank order", direct_linear, nullptr},
    {"pairwise", A2AV, "", "", "P-1 Sendrecv steps (XOR partners when P is a power of two)", direct_pairwise, nullptr},
    {"nonblocking", A2AV, "", "", "spread-out: round-robin peers, all posted at once", direct_nonblocking, nullptr},
    {"scattered", A2AV, "batch_size", "", "spread-out in windows of batch_size requests (MPICH's default)",
     direct_scattered, nullptr},
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
    {"two_phase_bruck", A2AV, "", "", "Bruck sending block sizes, then blocks, in every step; no rotations",
     two_phase_bruck, nullptr},
    {"parlogna", A2AV, "radix,batch_size", "", "ParLogNa: K rounds of radix r (2..P); temporary space P-1-K blocks",
     parlogna, nullptr},
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
     node_aware, nullptr},
    {"locality_aware", A2AV, "inner,leaders_per_node,locality", "",
     "node_aware between groups (leaders_per_node groups per node, or sockets with locality=socket)", locality_aware,
     nullptr},
    {"node_bruck", A2AV, "radix", "",
     "node-aware log-time: radix-r Bruck rounds gather by destination node inside the node, one message per node "
     "pair, radix-r Bruck rounds redistribute; sizes travel inside the messages",
     node_bruck, nullptr},
    {"parlinna_coalesced", A2AV, "radix,batch_size,inner", "",
     "ParLinNa: ParLogNa inside the node, then one message per remote rank of equal local index", parlinna_coalesced,
     nullptr},
    {"parlinna_staggered", A2AV, "radix,batch_size,inner", "",
     "ParLinNa: ParLogNa inside the node, then one message per block to ranks of equal local index",
     parlinna_staggered, nullptr},
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

namespace {

// `auto` for MPIX_Alltoall: depends only on P and the block size, which MPI
// requires to be the same on every rank.
const Algorithm *auto_alltoall(const Exchange &x)
{
    // Small blocks on 8+ ranks: latency dominates, so ceil(log2 P) Bruck steps beat
    // P-1 messages (HPDC'22 finds the crossover near a few hundred bytes). The
    // rotation-free variant copies least. Bigger blocks: the library's own.
    if (x.size >= 8 && x.block_bytes <= 256)
        return find_algorithm(A2A, "bruck_zero_rotation");
    return find_algorithm(A2A, "pmpi");
}

// `auto` for MPIX_Alltoallv. Counts differ per rank, so from 8 ranks on the rule
// first agrees on one number, the largest per-rank mean block (one MPI_Allreduce,
// log P small messages). Thresholds from SimGrid on 16-core nodes (README, "Which
// algorithm when"). On several nodes of 4+ ranks the node-aware family wins up to
// 16 KiB blocks (S <= 16 KiB uniform, mean <= 8 KiB), except for the smallest:
//  - means up to 32 B: `two_phase_bruck` (log P messages) up to 32 nodes (P=512:
//    104.7 us against 133.5 for `parlinna_coalesced` and 180.2 for `node_aware`),
//    `node_aware` from 64 nodes (P=1024: 195.0 against 246.3 for Bruck);
//  - larger means: `parlinna_coalesced` (ParLogNa inside the node, one message per
//    remote rank) below 32 nodes (P=256, best from 512 B on), `node_aware` (one
//    message per node pair) from 32 nodes (P=512: 552 against 560 us at 512 B,
//    6262 against 7738 at 8 KiB; P=1024: 1.9x at 512 B, 2.3x at 8 KiB).
// On one node: small blocks go log-time (two_phase_bruck), medium ones to ParLogNa
// at radix ceil(sqrt P), the rest direct.
constexpr int kAutoMinRanks = 8;
constexpr unsigned long long kAutoBruckMaxMean = 32;        // bytes: S <= 64 uniform
constexpr unsigned long long kAutoParlognaMaxMean = 768;    // bytes: S <= 1.5 KiB uniform
constexpr unsigned long long kAutoNodeAwareMaxMean = 8192;  // bytes: S <= 16 KiB uniform
constexpr int kAutoManyNodes = 32;        // from here node_aware beats ParLinNa
constexpr int kAutoManyNodesSmall = 64;   // ... and, for Bruck-sized blocks, Bruck

}  // namespace

const Algorithm *auto_alltoallv_rule(int size, int nnodes, unsigned long long agreed_mean)
{
    if (size < kAutoMinRanks)
        return find_algorithm(A2AV, "pmpi");
    bool several_nodes = nnodes > 1 && size >= 4 * nnodes;
    if (several_nodes && agreed_mean <= kAutoNodeAwareMaxMean) {
        bool small = agreed_mean <= kAutoBruckMaxMean;
        if (nnodes >= (small ? kAutoManyNodesSmall : kAutoManyNodes))
            return find_algorithm(A2AV, "node_aware");
        if (!small)
            return find_algorithm(A2AV, "parlinna_coalesced");
    }
    if (agreed_mean <= kAutoBruckMaxMean)
        return find_algorithm(A2AV, "two_phase_bruck");
    if (agreed_mean <= kAutoParlognaMaxMean)
        return find_algorithm(A2AV, "parlogna");
    return find_algorithm(A2AV, "pmpi");
}

namespace {

const Algorithm *auto_alltoallv(const Exchange &x)
{
    if (x.size < kAutoMinRanks || !x.sendbytes)
        return find_algorithm(A2AV, "pmpi");
    unsigned long long sum = 0, mean, agreed = 0;
    for (int j = 0; j < x.size; ++j)
        if (j != x.rank)
            sum += x.sendbytes[j];
    mean = sum / static_cast<unsigned long long>(x.size - 1);
    if (MPI_Allreduce(&mean, &agreed, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, x.comm) != MPI_SUCCESS)
        return find_algorithm(A2AV, "pmpi");
    const Regions *nodes = nullptr;
    int nnodes = get_regions(x.xcomm, Locality::node, &nodes) == MPI_SUCCESS && nodes ? nodes->count : 1;
    return auto_alltoallv_rule(x.size, nnodes, agreed);
}

}  // namespace

const Algorithm *select_algorithm(Collective c, const Exchange &x)
{
    const std::string &name = x.hints->algorithm_for(c);
    if (name != "auto")
        if (const Algorithm *a = find_algorithm(c, name.c_str()))
            return a;
    return c == A2A ? auto_alltoall(x) : auto_alltoallv(x);
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

extern "C" const char *MPIX_Algorithm_name(const char *collective, int index)
{
    mpix::Collective c;
    if (!mpix::collective_from_name(collective, &c))
        return nullptr;
    const mpix::Algorithm *a = mpix::algorithm_at(c, index);
    return a ? a->name : nullptr;
}
