// Aggregating (node-aware) family: blocks between regions travel through relays
// so that each pair of regions exchanges few, large messages. One engine serves
// node_aware, locality_aware (alltoall and alltoallv) and the leader-based
// hierarchical, multileader and multileader_locality (alltoall).
#ifndef MPIX_ALLTOALLV_NODE_AWARE_HPP
#define MPIX_ALLTOALLV_NODE_AWARE_HPP

#include <memory>
#include <vector>

#include "core/comm.hpp"
#include "core/exchange.hpp"
#include "core/scratch.hpp"
#include "topo/topology.hpp"

namespace mpix {

// Who relays what. `units` partitions the ranks (nodes, sockets or groups inside
// nodes); each unit is split into groups, each with one leader (its first member).
// A block s -> d between different units travels
//   s -> lead(s) -> H(U(s), U(d)) -> H(U(d), U(s)) -> lead(d) -> d
// where H(u, v) = leaders of u [v mod (leaders of u)]: the leader of u that
// handles unit v. Blocks inside a unit go straight to their destination (with
// hop 2's messages when every rank leads its own group). Sizes travel inside the
// messages; no hop sends a separate size message.
// Nothing assumes consecutive ranks, equal unit sizes or a unit count dividing P.
struct RelayLists;  // a call's working lists (node_aware.cpp)

struct RelayPlan : CacheEntry {
    RelayPlan();
    ~RelayPlan() override;
    Regions owned;                       // units when they are not the comm's regions
    const Regions *units = nullptr;
    std::vector<int> lead_of;            // rank -> leader of its group
    std::vector<int> group_pos;          // rank -> position in its group
    std::vector<int> group_size;         // rank -> size of its group
    std::vector<std::vector<int>> group; // leader rank -> members of its group (ascending)
    std::vector<std::vector<int>> leaders;  // unit -> its leaders (ascending)
    std::vector<int> leader_pos;         // rank -> position among its unit's leaders, -1 if none
    bool every_rank_leads = false;       // every group is one rank (node_aware, locality_aware)
    int largest_group = 1;               // ranks in the largest group (trace rounds of the binomial steps)
    // Every rank leading: a block s -> d between different units takes two steps,
    //   s -> the member of U(d) at s's index (mod its size) -> d,
    // instead of the three through H (choose_relay_steps).
    bool two_step = false;
    // Each call's working lists, kept from one call to the next (their capacity
    // reused); a call leases its own, so the plan stays shared and constant.
    mutable SpareLists<RelayLists> spare_lists;

    bool depends_on_topology() const override { return true; }
    int handler(int u, int v) const
    {
        const std::vector<int> &l = leaders[u];
        return l[v % static_cast<int>(l.size())];
    }
};

// Groups of each unit: member index i of a unit of n ranks belongs to group
// i * g / n with g = min(groups_per_unit, n).
void build_relay_groups(RelayPlan *plan, int groups_per_unit);

// Sets plan->two_step (plans where every rank leads, with more than one unit):
// `steps`, or for automatic the shape whose busiest rank sends fewer messages,
// (units - 1) + (n - 1) against 2 (n - 1) + ceil((units - 1) / n) for units of
// up to n ranks; two steps on a tie, as they also move each byte once inside a
// unit, not twice. Every rank decides alike: the units are the same everywhere.
void choose_relay_steps(RelayPlan *plan, RelaySteps steps);

// Splits each node into min(groups, node size) groups of consecutive local
// indices (balanced), as regions.
void split_regions(const Regions &nodes, int groups, int rank, Regions *out);

// Runs an exchange through the relays of `plan` (inner exchanges per x.hints->inner).
int relay_exchange(const Exchange &x, const RelayPlan &plan);

// The cached plan under `key`, built by `build` on first use.
template <class Build>
int cached_plan(MPIX_Comm *xcomm, std::string_view key, Build build, const RelayPlan **out)
{
    RelayPlan *plan = cached<RelayPlan>(xcomm, key);
    if (!plan) {
        std::unique_ptr<RelayPlan> fresh(new RelayPlan());
        int rc = build(fresh.get());
        if (rc != MPI_SUCCESS)
            return rc;
        plan = cache_keep(xcomm, key, std::move(fresh));
    }
    *out = plan;
    return MPI_SUCCESS;
}

// Registry entries (alltoall and alltoallv).
int node_aware(const Exchange &x);
// Persistent MPIX_Alltoallv: every hop's sizes exchanged once (no data), so each
// start sends blocks only, into receives of known length.
int node_aware_prepare(const Exchange &x, std::unique_ptr<ExchangePlan> *plan);
int locality_aware(const Exchange &x);

}  // namespace mpix

#endif
