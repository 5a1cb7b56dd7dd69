// Leader-based family on the relay engine of alltoallv/node_aware.cpp. Leaders
// are the first member of each group; groups are runs of local indices, so nodes
// of any size and any rank placement work.
#include "alltoall/hierarchical.hpp"

#include <string>

#include "alltoallv/node_aware.hpp"
#include "core/error.hpp"

namespace mpix {

int hierarchical(const Exchange &x)
{
    const RelayPlan *plan = nullptr;
    MPIX_CHECK(cached_plan(x.xcomm, "relay:hierarchical", [&](RelayPlan *p) -> int {
        MPIX_CHECK(get_regions(x.xcomm, Locality::node, &p->units));
        build_relay_groups(p, 1);  // the whole node is one group
        return MPI_SUCCESS;
    }, &plan));
    return relay_exchange(x, *plan);
}

int multileader(const Exchange &x)
{
    // Units are the groups themselves: each leader exchanges with every other leader.
    int groups = x.hints->leaders_per_node;
    const RelayPlan *plan = nullptr;
    MPIX_CHECK(cached_plan(x.xcomm, CacheKey("relay:multileader:").add(groups), [&](RelayPlan *p) -> int {
        const Regions *nodes = nullptr;
        MPIX_CHECK(get_regions(x.xcomm, Locality::node, &nodes));
        split_regions(*nodes, groups, x.rank, &p->owned);
        p->units = &p->owned;
        build_relay_groups(p, 1);
        return MPI_SUCCESS;
    }, &plan));
    return relay_exchange(x, *plan);
}

int multileader_locality(const Exchange &x)
{
    // Units are nodes with several groups each: leaders split the remote nodes
    // between them, so each pair of nodes exchanges one message.
    int groups = x.hints->leaders_per_node;
    const RelayPlan *plan = nullptr;
    MPIX_CHECK(cached_plan(x.xcomm, CacheKey("relay:multileader_locality:").add(groups), [&](RelayPlan *p) -> int {
        MPIX_CHECK(get_regions(x.xcomm, Locality::node, &p->units));
        build_relay_groups(p, groups);
        return MPI_SUCCESS;
    }, &plan));
    return relay_exchange(x, *plan);
}

}  // namespace mpix
