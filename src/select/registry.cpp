// The registry: one row per algorithm. Add a row here and the tests, the
// benchmark, hint validation and the README table pick it up.
#include "select/registry.hpp"

#include <cstring>

#include "alltoallv/direct.hpp"
#include "alltoall/hierarchical.hpp"
#include "alltoallv/node_aware.hpp"
#include "alltoallv/parlinna.hpp"

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
    {"node_aware", A2AV, "inner", "", "node-aware: gather per remote node inside the node, one message per node pair, redistribute",
     node_aware, nullptr},
    {"locality_aware", A2AV, "inner,leaders_per_node,locality", "",
     "node_aware between groups (leaders_per_node groups per node, or sockets with locality=socket)", locality_aware,
     nullptr},
    {"parlinna_coalesced", A2AV, "radix,batch_size", "",
     "ParLinNa: ParLogNa inside the node, then one message per remote rank of equal local index", parlinna_coalesced,
     nullptr},
    {"parlinna_staggered", A2AV, "radix,batch_size", "",
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
const Algorithm *auto_alltoall(const Exchange &)
{
    return find_algorithm(A2A, "pmpi");
}

// `auto` for MPIX_Alltoallv: counts differ per rank, so the rule may use P and
// the topology only.
const Algorithm *auto_alltoallv(const Exchange &)
{
    return find_algorithm(A2AV, "pmpi");
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

}  // namespace mpix

extern "C" const char *MPIX_Algorithm_name(const char *collective, int index)
{
    mpix::Collective c;
    if (!mpix::collective_from_name(collective, &c))
        return nullptr;
    const mpix::Algorithm *a = mpix::algorithm_at(c, index);
    return a ? a->name : nullptr;
}
