// node_bruck. Node u of n ranks splits the other nodes among its ranks: local
// index j handles node v when (v - u) mod N - 1 = j (mod n). Three phases:
//  A. Inside u, a radix-r Bruck over bundles: rank s sends rank j one bundle with
//     its block for j and its blocks for every rank of the nodes j handles,
//     behind their sizes. j then holds the whole node's data for its nodes.
//  B. Between nodes, one message per pair: u's handler of v sends v's handler of u
//     the blocks of all of u for all of v, ordered by destination, behind one
//     total per destination.
//  C. Inside u, a radix-r Bruck again: handler h sends rank d the data of all
//     the nodes h handles for d. d knows these sizes (its recvcounts), so only
//     forwarded bundles carry a header. A rank that receives more than
//     direct_above (node_bruck_in_place) gets its data instead straight from
//     each handler, a message per remote node received into its blocks.
// From the next call such a rank is bypassed (node_bruck_bypasses): in A its
// blocks for remote nodes, and its node's blocks for the nodes it handles, go
// straight to those nodes' handlers in messages of their own, which B's
// message names in a trailer; in B its partners send its own blocks apart,
// into its receive blocks, as its trailer asked in the previous call.
// Every message carries its own sizes (probed receives), so there is no size
// message anywhere. Per rank: 2 * ceil(log_r n) * (r-1) intra-node messages
// at most and about (N-1)/n inter-node ones. Any placement: uneven nodes,
// non-consecutive ranks, one node, one rank per node.
#include "alltoallv/node_bruck.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alltoall/bruck.hpp"
#include "alltoallv/bundle_bruck.hpp"
#include "alltoallv/direct.hpp"
#include "core/wait.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/scratch.hpp"
#include "core/trace.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

// A remote node's part that a rank handles.
struct Handled {
    int node, part;
};

// Local indices m of a node of `size` ranks in part q of `parts`.
int part_size(int size, int q, int parts) { return size > q ? (size - 1 - q) / parts + 1 : 0; }
bool in_part(int m, int q, int parts) { return m % parts == q; }

// The fewest bytes a message of the last phase or of the bypass must carry
// on average to replace copying them at memory speed (2 GB/s on the platforms):
// a message's two overheads (1 us each) cost about a 4 KiB copy.
constexpr std::uint64_t kUnpackedChunk = 4096;

// What this rank's node looks like to node_bruck, cached per communicator.
// The groups node_bruck's rounds aggregate in: the nodes themselves, or where
// nodes are larger than group_size, each node split into groups of at most that
// many consecutive local ranks (split). Phases A-C below read "node" as
// "group"; the direct mode and its volumes keep the real nodes.
struct Grouping {
    std::unique_ptr<Regions> split;
    const Regions *groups = nullptr;
    std::vector<int> local;                  // my group's ranks, by local index
    // Each group's ranks split into `parts` parts (local index m in part m mod
    // parts); a handler exchanges one remote group's data for one part.
    int parts = 1;
    std::vector<std::vector<Handled>> handled;  // local index -> (group, part)s it handles, by distance
    std::vector<std::vector<int>> remote;       // local index -> ranks of those parts, in that order
    // The group's agreed volume (largest bytes any of its ranks exchanged) of the
    // previous MPIX_Alltoallv in this grouping: the radix of the next call's first
    // phase (every rank of the group saw the same maximum).
    std::uint64_t previous_volume = 0;
    bool have_previous = false;
    // The bytes each member received from the others in the previous
    // MPIX_Alltoallv in this grouping (phase A's headers, the same on every
    // member): which members' blocks to remote groups skip the handlers in the
    // next call (node_bruck_bypasses).
    std::vector<std::uint64_t> previous_received;
    // Of the same call: the bytes of my blocks for each member's remote groups,
    // and of each member's blocks for my remote groups (from its header): whether
    // a bypass message would carry enough to pay for itself (kUnpackedChunk).
    std::vector<std::uint64_t> previous_sent_via, previous_via_me;
    // Per handled part: whether its partner asked, in its previous phase B
    // message, for its own blocks in a message of their own (it receives in place).
    std::vector<char> partner_own_apart;
};

// A call's lists that grow with its group: the bundles, their size headers,
// what each member's bundle brought, what each handled part brought. Kept from
// one call to the next (SpareLists): made fresh, each member's list was an
// allocation a call, about 30 of node_bruck's 84 a call at 16 ranks a node.
struct NodeBruckLists {
    std::vector<std::vector<Piece>> bundles, from;
    std::vector<std::vector<unsigned char>> size_heads;
    std::vector<std::vector<std::vector<Piece>>> chunk;
    std::vector<Piece> arrived;
    // A call's bookkeeping, kept for its capacity: each is assigned or cleared
    // before its use (made fresh, they were about 20 allocations a call).
    std::vector<char> bypass, skips_me, own_apart, own_apart_asked, in_place;
    std::vector<std::uint64_t> sent_via_before, via_me_before, sent_via, via_me, member_received;
    std::vector<std::size_t> sizes, in_bytes, place_expected, extra_expected, group_in;
    std::vector<MPI_Request> extra_sends, place_sends, place_recvs, send_reqs, apart_sends, recv_reqs, extra_recvs;
    std::vector<int> peers;
    std::vector<char *> in_data, extra_at;
    RangeList message;
    std::vector<long long> ids;
    std::vector<std::vector<unsigned char>> totals_heads, trailers;
    std::vector<Piece> own;
    BundleSpare bundle_spare;  // phases A and C, one after the other
    // Every received message and packed send of a call, until its end; between
    // calls only its small buffers, kept for the next call (ScratchStore::recycle).
    ScratchStore store;
};

struct NodeBruckPlan : CacheEntry {
    const Regions *nodes = nullptr;
    SpareLists<NodeBruckLists> lists;
    std::vector<int> node_local;             // my node's ranks, by local index
    // One grouping per group size in use (MPIX_Alltoall and MPIX_Alltoallv may
    // differ; a per-call hint may change it), each with its own agreed volume.
    std::map<int, std::unique_ptr<Grouping>> groupings;
    Grouping *grouping = nullptr;            // this call's
    // Of the previous MPIX_Alltoallv, the same on every rank (so every rank
    // takes the same mode in the next call; see node_bruck_goes_direct):
    // [0] the largest volume of any rank, [1] the largest mean volume of any
    // node (its ranks' volumes summed, over its ranks). Phase A brings every
    // local rank's volume, phase B carries each node's largest and mean, phase
    // C spreads the largest of each; the direct mode agrees them.
    std::uint64_t previous_global[2] = {0, 0};
    bool have_global = false;
    // MPIX_Alltoallv calls in the direct mode since it was entered or last agreed.
    int direct_calls = 0;
    // The most non-empty blocks to or from other ranks that any rank had in the
    // last direct call that agreed it (have_messages): whether the next direct
    // call sends only those (node_bruck_direct_nonempty).
    std::uint64_t previous_messages = 0;
    bool have_messages = false;
    bool depends_on_topology() const override { return true; }
};

// Splits every node of `nodes` into ceil(size / group_size) groups of
// consecutive local ranks whose sizes differ by at most one.
void split_nodes(const Regions &nodes, int group_size, int rank, Regions *out)
{
    const int P = static_cast<int>(nodes.region_of.size());
    std::vector<long long> key_of_rank(static_cast<std::size_t>(P));
    for (int v = 0; v < nodes.count; ++v) {
        const int size = nodes.size_of(v), count = (size + group_size - 1) / group_size;
        for (int m = 0; m < size; ++m)
            key_of_rank[static_cast<std::size_t>(nodes.member(v, m))] =
                static_cast<long long>(v) * P + static_cast<long long>(m) * count / size;
    }
    build_regions_from_keys(key_of_rank, rank, out);
}

// The rounds' groups for `group_size` (the nodes where it is at least the
// largest node) and who handles which remote group's part in them.
std::unique_ptr<Grouping> make_grouping(const Regions *nodes, int group_size, int rank)
{
    std::unique_ptr<Grouping> gp(new Grouping());
    gp->groups = nodes;
    if (group_size < nodes->max_size) {
        gp->split.reset(new Regions());
        split_nodes(*nodes, group_size, rank, gp->split.get());
        gp->groups = gp->split.get();
    }
    const Regions &R = *gp->groups;
    const int u = R.my_region, n = R.size_of(u), N = R.count;
    for (int j = 0; j < n; ++j)
        gp->local.push_back(R.member(u, j));
    int smallest = n;
    for (int v = 0; v < N; ++v)
        smallest = std::min(smallest, R.size_of(v));
    gp->parts = node_bruck_parts(N, smallest);
    const int k = gp->parts;
    gp->handled.assign(n, {});
    gp->remote.assign(n, {});
    for (int dist = 1; dist < N; ++dist)
        for (int q = 0; q < k; ++q) {
            int v = (u + dist) % N, j = node_bruck_handler(u, v, q, k, N, n);
            gp->handled[j].push_back(Handled{v, q});
            for (int m = q; m < R.size_of(v); m += k)
                gp->remote[j].push_back(R.member(v, m));
        }
    return gp;
}

int get_plan(const Exchange &x, NodeBruckPlan **out)
{
    const std::string_view key = "node_bruck";
    NodeBruckPlan *plan = cached<NodeBruckPlan>(x.xcomm, key);
    if (!plan) {
        std::unique_ptr<NodeBruckPlan> fresh(new NodeBruckPlan());
        MPIX_CHECK(get_regions(x.xcomm, Locality::node, &fresh->nodes));
        const Regions &R = *fresh->nodes;
        for (int j = 0; j < R.size_of(R.my_region); ++j)
            fresh->node_local.push_back(R.member(R.my_region, j));
        plan = cache_keep(x.xcomm, key, std::move(fresh));
    }
    // The hint is the same on every rank (a per-call info may change it).
    const int group_size = std::min(plan->nodes->max_size,
                                    x.hints->group_size > 0 ? x.hints->group_size
                                                            : node_bruck_group_size(plan->nodes->max_size,
                                                                                    plan->nodes->count, x.uniform));
    std::unique_ptr<Grouping> &gp = plan->groupings[group_size];
    if (!gp)
        gp = make_grouping(plan->nodes, group_size, x.rank);
    plan->grouping = gp.get();
    *out = plan;
    return MPI_SUCCESS;
}

}  // namespace

int node_bruck_radix(std::uint64_t volume, int n, bool probed)
{
    // A round costs each rank one send and one receive overhead, plus its bytes
    // over the intra-node link; radix r moves a digit's bytes in r-1 concurrent
    // messages. Radix 2 while a round's bytes cost less than its overheads,
    // radix 4, then direct rounds once the bytes dominate. Direct rounds pay more
    // where receives are probed (alltoallv: a large message waits for its
    // receiver's probe before it moves), so 4 lasts longer there. Measured with
    // SimGrid (16-rank nodes, 1 us per message, 25 GB/s per intra-node flow): one
    // node, 16 B to 64 KiB blocks; 16 nodes, 16 B to 16 KiB
    // (bench/results/smpi-one-node*-P16.csv, smpi-uniform-node-bruck-P256.csv,
    // smpi-alltoall-P256.csv).
    constexpr std::uint64_t kRadix2Max = 48 << 10;
    // Copies charged (issue 29), 16 nodes of 16: radix 16 wins at about 1 MiB a
    // rank (P=256, 0..8 KiB blocks: 1477 us against radix 4's 1529), radix 4 at
    // 130 KiB (0..1 KiB: 218 against 246); P=1024 at 0..1 KiB is 540 KiB.
    const std::uint64_t radix4_max = probed ? (768 << 10) : (512 << 10);
    if (volume <= kRadix2Max)
        return 2;
    if (volume <= radix4_max)
        return std::min(4, std::max(2, n));
    return std::max(2, n);
}

int node_bruck_group_size(int largest_node, int nodes, bool uniform)
{
    // A group of g ranks costs each rank 2 ceil(log2 g) radix-2 rounds (phases A
    // and C) and a message to and from each remote group it handles, about
    // (groups - 1) / g; a message costs about half a round. Groups of fewer
    // than 16 ranks lost at every point measured. dragonfly-256x64, copies
    // charged, uniform blocks, µs (the rule's pick in bold):
    //   P=256, 4 nodes:   16 B: groups of 8: 26.17, **16: 25.31**, 32: 30.97, 64 (the nodes): 36.31
    //   P=1024, 16 nodes: 16 B: 8: 61.81, **16: 43.09**, 32: 42.59, 64: 51.22
    //                   1 KiB: **16: 473.13**, 32: 518.71, 64: 509.59
    //   P=128, 2 nodes:  MPIX_Alltoallv 16 B: **16: 24.00**, 32: 28.99, 64: 33.88;
    //                    1 KiB: **16: 62.36**, 32: 69.69, 64: 72.79
    //                    MPIX_Alltoall 16 B: 16: 21.24, 32: 25.82, **64: 19.20**;
    //                    1 KiB: 16: 86.42, 32: 94.41, **64: 78.26**
    //   MPIX_Alltoall, P=256: 16 B **16: 25.68**, 64: 35.95; P=1024: **16: 48.78**, 64: 52.23
    // On one node the groups would only add messages between them; on two nodes
    // MPIX_Alltoall (no sizes in its messages) pairs every rank with one of the
    // other node (parts) and loses by splitting.
    constexpr int kSmallestGroup = 16;
    if (nodes <= 1 || largest_node <= kSmallestGroup || (uniform && nodes <= 2))
        return largest_node;
    int best = largest_node;
    long long best_cost = -1;  // in half rounds
    for (int split = 1; (largest_node + split - 1) / split >= kSmallestGroup; ++split) {
        const int g = (largest_node + split - 1) / split;
        const long long groups = static_cast<long long>(nodes) * ((largest_node + g - 1) / g);
        const long long cost = 4LL * bundle_bruck_rounds(g, 2) + (groups - 1 + g - 1) / g;
        if (best_cost < 0 || cost < best_cost) {  // ties: the larger groups
            best = g;
            best_cost = cost;
        }
    }
    return best;
}

// The direct mode: where a rank's send and receive data no longer fit its share
// of the cache, node_bruck's gathering and redistribution copy every byte in and
// out of memory (about 1.5 times the data per rank) and a spread-out exchange,
// which copies only the rank's own block, is faster (dragonfly-64x16, copies
// charged: P=256 at 0..16 KiB blocks, 2945 us against radix-2 rounds' 9241 us;
// at 0..8 KiB the rounds win, radix 16 1476 us). Scattered with
// MPICH's batch of 32 between nodes. For alltoallv the next call's mode needs the largest
// node mean: a sum in the node and a dissemination maximum after the exchange
// (log2 n + log2 P rounds of 8 bytes; the maximum alone took 9 us on one node of
// 16, flat-16x16, 28 % of a 64 KiB exchange). So
// the direct mode agrees it on every kDirectAgreeEvery-th call only and keeps
// the mode between (every rank counts the same calls): a job whose volume falls
// below direct_above returns to the Bruck rounds within that many calls.
// Between nodes the scattered exchange's windows carry a cheaper agreement on
// every call: the largest and smallest rank volume, a dissemination round a
// window (RidingMax). Every node mean lies between the two, so where the mode is
// the same for any node mean there, the next call's mode is known at once (a
// job whose blocks shrink returns to the rounds on the next call); only where it
// is not does the mode wait for the exact agreement.
constexpr int kDirectAgreeEvery = 8;

// Whether the windows (MPICH's batch of 32) carry that agreement: where they
// leave it at most one round to run after the exchange. More would cost the
// call more than the periodic agreement's share (log2 n + log2 P rounds every
// kDirectAgreeEvery calls). dragonfly-256x64, P=256 on 4 nodes of 64: 8
// windows carry all 8 rounds. Uniform 0..16 KiB: 1188.3 us a call against
// 1178.3 without (the periodic agreement: 32 us every 8th call); moe:16,2 at
// 1 KiB, where an expert's rank is the slowest and pays the rounds' 16 message
// overheads: 546.0 against 530.0.
bool node_bruck_direct_rides(int size)
{
    constexpr int kBatch = 32;
    int rounds = 0;
    for (int distance = 1; distance < size; distance *= 2)
        ++rounds;
    return rounds <= (size - 1 + kBatch - 1) / kBatch + 1;
}

// The alltoallv mode from the previous call's [largest rank volume, largest node
// mean] (the same everywhere). Direct where a node's ranks move more than
// `above` bytes on average (uniform blocks: the measurement above), or where
// one rank moves more than node_bruck_direct_largest. Not on the largest rank
// alone: under skew (an MoE dispatch's experts receive 100-200 times the mean)
// that sends every small rank into P messages. The rounds pass the largest
// rank's bytes through its group's handlers and, past direct_above, into its
// blocks in place (node_bruck_in_place), at a cost that grows with those bytes;
// the direct mode costs every rank 2 (P-1) message overheads. dragonfly-256x64,
// copies charged, µs, rounds (in place, bypassed: node_bruck_bypasses) against
// direct; one warm-up call:
//   P=1024 hotspot:4 1 KiB (largest 4.1 MiB, 4.1 KiB a peer):    555 / 2077
//   P=1024 hotspot:4,32 1 KiB (16.5 MiB, 16.5 KiB a peer):        780 / 2086
//   P=256 hotspot:4,64 1 KiB (8.2 MiB, 32.9 KiB a peer):          423 / 557
//   P=256 hotspot:4,80 1 KiB (10.3 MiB, 41.1 KiB a peer):         496 / 534
//   P=256 hotspot:4,96 1 KiB (12.3 MiB, 49.3 KiB a peer):         579 / 541
//   P=256 hotspot:4,128 1 KiB (16.4 MiB, 65.7 KiB a peer):        746 / 557
//   P=256 moe:16,2 1 KiB (19 MiB, node mean 0.7 MiB):            1337 / 530
//   P=1024 moe:64,2 16 B (3.4 MiB, node mean at most 0.07 MiB):  171 / 2046
// So twice direct_above, or (P-1) direct_above / 45 bytes (45.5 KiB a peer by
// default) where that is more: at P=256 11.4 MiB, at P=1024 45.5 MiB.
std::uint64_t node_bruck_direct_largest(std::uint64_t above, int size)
{
    constexpr std::uint64_t kMax = ~std::uint64_t(0);
    const std::uint64_t twice = above > kMax / 2 ? kMax : 2 * above;
    const std::uint64_t peers = size > 1 ? static_cast<std::uint64_t>(size - 1) : 1, per_peer = above / 45;
    const std::uint64_t by_peers = per_peer > kMax / peers ? kMax : per_peer * peers;
    return std::max(twice, by_peers);
}

bool node_bruck_goes_direct(const std::uint64_t previous[2], std::uint64_t above, int size)
{
    return previous[1] > above || previous[0] > node_bruck_direct_largest(above, size);
}

// Whether the direct mode sends only the non-empty blocks (direct_nonempty), by
// the most non-empty blocks to or from other ranks any rank had: up to 1.25 (P-1),
// 5/8 of what every rank of the scattered exchange pays. An MoE dispatch's
// expert ranks receive from every rank and send to E, the others receive
// nothing. dragonfly-256x64, copies charged: P=256 moe:16,2 (most 272 of 510) at
// 1 KiB 324.1 us against scattered's 530.0, at 16 KiB 3619.8 against 4270.5;
// uniform 16 KiB (every rank 510) 1307.7 against 1178.1: with every block
// non-empty the windows of both sides pace the exchange better.
bool node_bruck_direct_nonempty(std::uint64_t most_messages, int size)
{
    return most_messages <= static_cast<std::uint64_t>(size - 1) * 5 / 4;
}

// Past direct_above a rank's receive data and its own sends no longer fit its
// share of the cache (4 MiB on the platforms' EPYC parts), and copying its
// blocks out of phase C's bundles runs at memory speed. dragonfly-256x64, copies
// charged, P=1024 (groups of 16) in the rounds: hotspot:4 at 1 KiB (4 ranks
// receive 4.1-4.3 MB) 1043 us against 3013 with every block copied (856 with
// their own chunks as handlers unpacked too, below); moe:64,2 at
// 16 B (experts receive up to 3.4 MiB) 174.2 us against 221.6. The messages
// it adds (one per remote group, about P / 16 here) cost less than that copy.
bool node_bruck_in_place(std::uint64_t received, std::uint64_t direct_above)
{
    constexpr std::uint64_t kDefaultAbove = 2 << 20;  // direct_above's default
    return received > (direct_above > 0 ? direct_above : kDefaultAbove);
}

// The bypass: in a call of the rounds, a member that received more than
// direct_above in the previous one (node_bruck_in_place's rule; the previous
// call's, because the members agree it before phase A) copies at memory speed,
// as handler and as sender alike. Its blocks for remote groups, and every
// member's blocks for the remote groups it handles, go from the sender's buffer
// to the remote handler in extra messages instead of through it, where they
// average kUnpackedChunk a remote group. dragonfly-256x64, copies charged,
// P=1024, hotspot:4 at 1 KiB: 725.1 us against 855.7 (a hot rank spent 286 us
// packing its own sends into phase A's bundles and 306 packing phase B); with
// its own blocks apart too (a handler's partners send them straight into its
// receive blocks) 555.4. moe:64,2 at 16 B: the messages would carry 0.3 KB and
// stay in the bundles (174.2 us; 170.7 with the own blocks apart).
bool node_bruck_bypasses(std::uint64_t previous_received, std::uint64_t direct_above)
{
    return node_bruck_in_place(previous_received, direct_above);
}

std::uint64_t node_bruck_direct_threshold(std::uint64_t direct_above, int nodes)
{
    return nodes == 1 ? direct_above / 12 : direct_above;
}

namespace {

// The bytes this rank sends to and receives from the other ranks.
void node_bruck_rank_bytes(const Exchange &x, std::uint64_t *sent, std::uint64_t *received)
{
    // Every peer's, then less the rank's own: no branch in the loop (it runs on
    // every call for every peer).
    std::uint64_t s = 0, r = 0;
    for (int p = 0; p < x.size; ++p) {
        s += x.sendbytes[p];
        r += x.recvbytes[p];
    }
    *sent = s - x.sendbytes[x.rank];
    *received = r - x.recvbytes[x.rank];
}

}  // namespace

std::uint64_t node_bruck_rank_volume(const Exchange &x)
{
    std::uint64_t sent, received;
    node_bruck_rank_bytes(x, &sent, &received);
    return std::max(sent, received);
}

// Non-empty blocks this rank sends to or receives from other ranks.
std::uint64_t node_bruck_messages(const Exchange &x)
{
    std::uint64_t messages = 0;
    for (int p = 0; p < x.size; ++p)
        if (p != x.rank)
            messages += (x.sendbytes[p] > 0) + (x.recvbytes[p] > 0);
    return messages;
}

bool node_bruck_agreed_volumes(MPIX_Comm *xcomm, std::uint64_t out[2])
{
    const NodeBruckPlan *plan = cached<NodeBruckPlan>(xcomm, "node_bruck");
    if (!plan || !plan->have_global)
        return false;
    out[0] = plan->previous_global[0];
    out[1] = plan->previous_global[1];
    return true;
}

void node_bruck_learn_volumes(MPIX_Comm *xcomm, std::uint64_t largest, std::uint64_t smallest)
{
    NodeBruckPlan *plan = cached<NodeBruckPlan>(xcomm, "node_bruck");
    if (!plan || !plan->have_global)
        return;
    plan->previous_global[0] = largest;
    plan->previous_global[1] = smallest <= largest ? smallest + (largest - smallest) / 2 : largest;
    // A direct call agrees the node means, unless its windows' range decides.
    plan->direct_calls = kDirectAgreeEvery - 1;
}

int node_bruck_direct(const Exchange &x, NodeBruckPlan *plan, std::uint64_t own)
{
    if (x.trace)
        x.trace->set_params("direct_above=" + std::to_string(x.hints->direct_above) + ";direct");
    if (plan->nodes->count == 1) {
        // One node: every receive posted before any send, peers in rotated order
        // (no incast). flat-16x16, copies charged, 64 KiB blocks: 17.8 us against
        // scattered's 20.0, whose sends can find their receives not yet posted.
        std::vector<int> order(static_cast<std::size_t>(x.size));
        for (int k = 0; k < x.size; ++k)
            order[static_cast<std::size_t>(k)] = (x.rank + k) % x.size;
        MPIX_CHECK(post_receives_then_sends(x, &order));
    } else {
        // Scattered, with MPICH's batch of 32, between nodes; for alltoallv with
        // the rank volumes' range agreed in its windows.
        Hints batch32 = *x.hints;
        batch32.batch_size = 32;  // node_bruck_direct_rides counts these windows
        Exchange direct = x;
        direct.hints = &batch32;
        // The largest volume, the smallest's complement, the most non-empty blocks.
        std::uint64_t range[3] = {own, ~own, node_bruck_messages(x)};
        bool agreed = true;
        if (!x.uniform && plan->have_messages && node_bruck_direct_nonempty(plan->previous_messages, x.size)) {
            if (x.trace)
                x.trace->set_params(x.trace->params() + ";nonempty");
            MPIX_CHECK(direct_nonempty_agreeing(x, range, 3));
        } else if (!x.uniform && node_bruck_direct_rides(x.size)) {
            RidingMax rider(range, 3, x.tag + 3, x.comm);
            MPIX_CHECK(direct_scattered_riding(direct, &rider));
        } else {
            MPIX_CHECK(direct_scattered(direct));
            agreed = false;
        }
        if (agreed) {
            plan->previous_messages = range[2];
            plan->have_messages = true;
            const std::uint64_t largest = range[0], smallest = ~range[1];
            const std::uint64_t above = node_bruck_direct_threshold(x.hints->direct_above, plan->nodes->count);
            // The mode is the same for every node mean in [smallest, largest] when
            // it is at both ends (node_bruck_goes_direct grows with the node mean).
            const std::uint64_t at_smallest[2] = {largest, smallest}, at_largest[2] = {largest, largest};
            if (node_bruck_goes_direct(at_smallest, above, x.size) == node_bruck_goes_direct(at_largest, above, x.size)) {
                plan->previous_global[0] = largest;
                // A node mean within the range: the one known, else the midpoint.
                std::uint64_t &mean = plan->previous_global[1];
                if (mean < smallest || mean > largest)
                    mean = smallest + (largest - smallest) / 2;
                plan->direct_calls = 0;
                return MPI_SUCCESS;
            }
        }
    }
    if (!x.uniform && ++plan->direct_calls == kDirectAgreeEvery) {
        plan->direct_calls = 0;
        std::uint64_t node_sum = own;
        MPIX_CHECK(agree_sum(&node_sum, x.tag + 2, x.comm, plan->node_local, plan->nodes->my_index));
        std::uint64_t global[3] = {own, node_sum / static_cast<std::uint64_t>(plan->node_local.size()),
                                   node_bruck_messages(x)};
        MPIX_CHECK(agree_max(global, x.tag + 1, x.comm, 3));
        plan->previous_global[0] = global[0];
        plan->previous_global[1] = global[1];
        plan->have_global = true;
        plan->previous_messages = global[2];
        plan->have_messages = true;
    }
    return MPI_SUCCESS;
}

int node_bruck(const Exchange &x)
{
    NodeBruckPlan *plan = nullptr;
    MPIX_CHECK(get_plan(x, &plan));
    Grouping *const gp = plan->grouping;
    const Regions &R = *gp->groups;
    const int P = x.size, u = R.my_region, n = R.size_of(u), i = R.my_index, N = R.count;
    const bool uniform = x.uniform;
    const std::size_t B = x.block_bytes;
    int mismatch = MPI_SUCCESS;

    // Radix: the hint, else from the bytes a rank exchanges with the others: known
    // for alltoall; for alltoallv the largest of any rank of the node, which the
    // previous call agreed (phase A spreads each rank's value in its headers), so
    // every rank of the node picks the same radix; radix 2 on the first call.
    std::uint64_t sent = 0, received = 0;  // alltoallv: phase A's headers carry `received`
    if (!uniform)
        node_bruck_rank_bytes(x, &sent, &received);
    std::uint64_t volume =
        uniform ? static_cast<std::uint64_t>(B) * static_cast<std::uint64_t>(P - 1) : std::max(sent, received);
    const std::uint64_t own = volume;
    // Beyond direct_above (this call's volume, the same everywhere, for alltoall;
    // for alltoallv, the previous call's volumes: node_bruck_goes_direct): the direct mode. On one
    // node there is nothing to aggregate between nodes and a direct exchange costs
    // only its n-1 message overheads, so it wins from a twelfth of that (the
    // charged model on flat-16x16, 16 ranks: between 8 and 16 KiB blocks for
    // alltoall, 16 and 32 KiB for alltoallv, i.e. 120-280 KiB a rank).
    const std::uint64_t above = node_bruck_direct_threshold(x.hints->direct_above, plan->nodes->count);
    if (above > 0 && (uniform ? own > above : plan->have_global && node_bruck_goes_direct(plan->previous_global, above, P)))
        return node_bruck_direct(x, plan, own);
    plan->direct_calls = 0;
    copy_self_block(x);
    const int hint = x.hints->radix;
    int radix_a = hint > 0 ? hint
                  : uniform ? node_bruck_radix(volume, n, false)
                            : (gp->have_previous ? node_bruck_radix(gp->previous_volume, n, true) : 2);
    if (x.trace)
        x.trace->set_params("radix=" + std::to_string(std::max(2, std::min(radix_a, std::max(n, 2)))));

    LeasedLists<NodeBruckLists> lists(&plan->lists);
    StoreForCall store_for_call(&lists->store, &x.xcomm->scratch);
    ScratchStore &store = *store_for_call;  // every received message, until the end
    // Tags: phase A's digits, one for B, phase C's digits (kTagsPerCall = 64).
    const int tag_a = x.tag, tag_b = x.tag + kBundleBruckTags, tag_c = tag_b + 1;
    // The bypass's messages and a partner's own blocks apart go between groups
    // only, on phase A's last digit tag, which only a group of more than 2^30
    // ranks uses (inside itself); at most one a call from one rank to another.
    const int tag_extra = x.tag + kBundleBruckTags - 1;
    auto block_piece = [&](int d) { return Piece{x.send_block(d), x.sendbytes[d]}; };
    const int k = gp->parts;

    // The bypass (node_bruck_bypasses, from the previous call's received bytes,
    // the same on every member): where sender s or handler j copies at memory
    // speed, s's blocks for the remote groups j handles skip j. s sends them in
    // one extra message per remote group straight to that group's handler (from
    // its send buffer: no copy where they are one range), and j's phase B
    // message says so in a trailer.
    // (Phase A replaces the previous call's values: the decisions keep copies.)
    std::vector<char> &bypass = lists->bypass;
    bypass.assign(static_cast<std::size_t>(n), 0);
    std::vector<std::uint64_t> &sent_via_before = lists->sent_via_before, &via_me_before = lists->via_me_before;
    sent_via_before = gp->previous_sent_via;
    via_me_before = gp->previous_via_me;
    bool any_bypass = false;
    if (!uniform && N > 1 && P <= (1 << 30) && gp->previous_received.size() == static_cast<std::size_t>(n) &&
        sent_via_before.size() == static_cast<std::size_t>(n) && via_me_before.size() == static_cast<std::size_t>(n))
        for (int m = 0; m < n; ++m) {
            bypass[static_cast<std::size_t>(m)] = node_bruck_bypasses(gp->previous_received[m], x.hints->direct_above);
            any_bypass = any_bypass || bypass[static_cast<std::size_t>(m)];
        }
    // Asked only with s or j this rank. Per remote group, s's blocks for j's
    // groups in the previous call must pay for a message of their own.
    auto skips_handler = [&](int s, int j) {
        if (s == j || !(bypass[s] || bypass[j]))
            return false;
        const std::uint64_t bytes = s == i ? sent_via_before[j] : via_me_before[s];
        return bytes >= kUnpackedChunk * std::max<std::uint64_t>(1, gp->handled[j].size());
    };
    // Members whose blocks for my remote groups skip me: only their sizes come
    // in phase A, and my phase B messages carry a trailer that names them and
    // gives every block's size, so the receiver can put the blocks in source order.
    std::vector<char> &skips_me = lists->skips_me;
    skips_me.assign(static_cast<std::size_t>(n), 0);
    bool have_skipped = false;
    for (int s = 0; s < n; ++s) {
        skips_me[static_cast<std::size_t>(s)] = skips_handler(s, i);
        have_skipped = have_skipped || skips_me[static_cast<std::size_t>(s)];
    }
    // Calls f(remote part, its handler) for each bypass message this rank sends.
    auto for_each_extra = [&](auto f) {
        for (int j = 0; j < n; ++j)
            if (skips_handler(i, j))
                for (const Handled &hd : gp->handled[j])
                    f(hd, R.member(hd.node, node_bruck_handler(hd.node, u, hd.part, k, N, R.size_of(hd.node))));
    };
    std::vector<MPI_Request> &extra_sends = lists->extra_sends;
    extra_sends.clear();
    if (any_bypass) {
        RangeList message;
        int rc = MPI_SUCCESS;
        for_each_extra([&](const Handled &hd, int peer) {
            message.clear();
            for (int m = hd.part; m < R.size_of(hd.node); m += k) {
                const int d = R.member(hd.node, m);
                message.add(x.send_block(d), x.sendbytes[d]);
            }
            if (message.total() == 0 || rc != MPI_SUCCESS)
                return;  // the handler's trailer says 0 bytes: nothing is posted for it
            extra_sends.push_back(MPI_REQUEST_NULL);
            rc = isend_ranges(message, peer, tag_extra, x.comm, x.work, &store, &extra_sends.back());
        });
        MPIX_CHECK(rc);
    }

    // Phase A: bundle for local index j = [sizes] my block for j, my blocks for
    // remote[j]. from[s][k]: block of local s for remote[i][k] after the phase.
    std::vector<std::vector<Piece>> &bundles = lists->bundles;
    std::vector<std::vector<unsigned char>> &size_heads = lists->size_heads;
    // Each bundle is sized and then written whole, kept from call to call: a
    // list emptied and grown again filled every block's piece before writing it.
    bundles.resize(static_cast<std::size_t>(n));
    empty_lists(&size_heads, static_cast<std::size_t>(n));
    std::vector<std::size_t> &sizes = lists->sizes;
    std::vector<std::uint64_t> &sent_via = lists->sent_via, &via_me = lists->via_me;
    sent_via.assign(static_cast<std::size_t>(n), 0);
    via_me.assign(static_cast<std::size_t>(n), 0);
    for (int j = 0; j < n; ++j) {
        if (j == i) {
            bundles[j].clear();
            continue;
        }
        const bool with_remote = !skips_handler(i, j);
        bundles[j].resize((uniform ? 1 : 2) + (with_remote ? gp->remote[j].size() : 0));
        Piece *out = bundles[j].data();
        if (!uniform) {  // [my volume, bytes I receive, my block for j, my blocks for remote[j]]
            sizes.assign(1, static_cast<std::size_t>(own));
            sizes.push_back(static_cast<std::size_t>(received));
            sizes.push_back(x.sendbytes[gp->local[j]]);
            for (int d : gp->remote[j]) {
                sizes.push_back(x.sendbytes[d]);
                sent_via[static_cast<std::size_t>(j)] += x.sendbytes[d];
            }
            encode_sizes(sizes, &size_heads[j]);
            *out++ = Piece{reinterpret_cast<const char *>(size_heads[j].data()), size_heads[j].size()};
        }
        *out++ = block_piece(gp->local[j]);
        if (with_remote)  // written in place: a push_back a block was an out-of-line call each
            for (int d : gp->remote[j])
                *out++ = block_piece(d);
    }
    const int rounds_a = bundle_bruck_rounds(n, radix_a);
    std::vector<Piece> &arrived = lists->arrived;  // bundle_bruck assigns it
    {
        BundleGroup g = bundle_group(x.comm, x.work, gp->local, i, radix_a, tag_a,
                                     uniform ? SizesKnown::everywhere : SizesKnown::nowhere, x.trace, 0);
        g.expected_bytes = [&](int, int d) { return B * (1 + gp->remote[d].size()); };
        g.agreed_max = uniform ? nullptr : &volume;
        g.spare = &lists->bundle_spare;
        if (x.trace)  // a std::function of this lambda allocates: only when tracing
            g.block_ids = [&](int s, int d, std::vector<long long> *ids) {
                long long src = gp->local[s];
                ids->push_back(src * P + gp->local[d]);
                if (!skips_handler(s, d))
                    for (int r : gp->remote[d])
                        ids->push_back(src * P + r);
            };
        int rc = bundle_bruck(g, bundles, &arrived, &store);
        if (rc == MPI_ERR_TRUNCATE || rc == MPI_ERR_COUNT)
            note_mismatch(&mismatch, rc);
        else
            MPIX_CHECK(rc);
    }
    if (!uniform) {  // the node's agreed volume: every rank of the node has the same
        gp->previous_volume = volume;
        gp->have_previous = true;
    }
    // The node's mean volume (every local rank's came in its bundle's header);
    // phase B brings every other node's and phase C spreads the largest. Where
    // the nodes are split, the group's: the largest group mean is at least the
    // largest node mean, and equal for random blocks of one range.
    std::uint64_t node_sum = own;
    // The bytes every group member receives from the others (phase A's headers):
    // the same on every rank of the group, so handlers and receivers agree which
    // ranks receive in place.
    std::vector<std::uint64_t> &member_received = lists->member_received;
    member_received.assign(static_cast<std::size_t>(n), received);
    const std::vector<int> &mine = gp->remote[i];
    std::vector<std::vector<Piece>> &from = lists->from;
    from.resize(static_cast<std::size_t>(n));
    for (int s = 0; s < n; ++s) {
        from[s].resize(mine.size());  // written whole below, as the bundles (kept sized: no fill a call)
        if (s == i) {
            for (std::size_t z = 0; z < mine.size(); ++z)
                from[s][z] = block_piece(mine[z]);
            continue;
        }
        const Piece &b = arrived[s];
        const int src = gp->local[s];
        std::size_t at = 0;
        if (uniform) {
            sizes.assign(1 + mine.size(), B);
        } else if (!decode_sizes(b.data, b.bytes, 3 + mine.size(), &sizes, &at)) {
            return MPI_ERR_INTERN;
        } else {
            node_sum += sizes[0];
            member_received[static_cast<std::size_t>(s)] = sizes[1];
        }
        // block[0]: the block for me, block[1 + z]: for mine[z] (after the two
        // volumes of an alltoallv header).
        const std::size_t *block = sizes.data() + (uniform ? 0 : 2);
        const bool skipped = skips_me[static_cast<std::size_t>(s)];
        std::size_t total = at;
        for (std::size_t z = 0; z < (skipped ? 1 : 1 + mine.size()); ++z)
            total += block[z];
        if (total != b.bytes)
            return MPI_ERR_INTERN;
        // The block for me: at its destination already.
        if (block[0] > x.recvbytes[src])
            note_mismatch(&mismatch, MPI_ERR_TRUNCATE);
        else if (block[0] < x.recvbytes[src])
            note_mismatch(&mismatch, MPI_ERR_COUNT);
        else
            x.work->copy(x.recv_block(src), b.data + at, block[0]);
        at += block[0];
        Piece *out = from[s].data();
        for (std::size_t z = 0; z < mine.size(); ++z) {
            via_me[static_cast<std::size_t>(s)] += block[1 + z];
            out[z] = Piece{skipped ? nullptr : b.data + at, block[1 + z]};
            if (!skipped)
                at += block[1 + z];
        }
    }
    if (!uniform) {
        gp->previous_received = member_received;
        gp->previous_sent_via = sent_via;
        gp->previous_via_me = via_me;
    }
    // [largest volume anywhere, largest node mean]: the node's now.
    std::uint64_t global[2] = {volume, node_sum / static_cast<std::uint64_t>(n)};
    if (N == 1) {
        if (!uniform) {
            plan->previous_global[0] = global[0];
            plan->previous_global[1] = global[1];
            plan->have_global = true;
        }
        return mismatch;
    }

    // Phase B: one message per handled (node v, part q), to v's handler of (u, q):
    // my node's blocks for v's part q; back, v's blocks for my node's part q.
    const std::vector<Handled> &handled = gp->handled[i];
    // Trace rounds: phase B follows the most phase-A rounds of any node (a node's
    // radix and size set its own count), so a message between nodes has one
    // round at both ends; agreed only when tracing (the hint is the same everywhere).
    int round_b = rounds_a;
    if (x.trace) {
        std::uint64_t most = static_cast<std::uint64_t>(rounds_a);
        MPIX_CHECK(agree_max(&most, x.tag + kAgreementTag, x.comm));
        round_b = static_cast<int>(most);
    }
    // Messages received straight into this rank's receive blocks (phase C's in
    // place, and its own blocks apart in phase B), and those that feed them.
    std::vector<MPI_Request> &place_sends = lists->place_sends, &place_recvs = lists->place_recvs;
    std::vector<std::size_t> &place_expected = lists->place_expected;
    place_sends.clear();
    place_recvs.clear();
    place_expected.clear();
    struct Staged {
        ScratchBytes bytes;
        int node;  // whose members' blocks it holds, in member order
    };
    // Chunks whose receive blocks are not one range (a vector: it allocates
    // nothing until one is staged, and a chunk's data() stays put as it grows).
    std::vector<Staged> staged;
    // Posts the receive of all of group `node`'s blocks for me, from `source`:
    // into place where its members' non-empty blocks follow each other in the
    // receive buffer, else into a staging buffer copied out after the wait.
    auto receive_chunk = [&](int node, int source, int tag) -> int {
        std::size_t total = 0;
        char *into = receive_range(x, &R.members[R.offsets[node]], R.size_of(node), &total);
        if (!into) {
            staged.push_back(Staged{ScratchBytes(&x.xcomm->scratch), node});  // a warm buffer of the pool
            if (!staged.back().bytes.resize(total))
                return MPI_ERR_NO_MEM;
            into = staged.back().bytes.data();
        }
        place_recvs.push_back(MPI_REQUEST_NULL);
        place_expected.push_back(total);
        return irecv_bytes(into, total, source, tag, x.comm, &place_recvs.back());
    };
    // Sends pieces as one message, even an empty one (its receiver posts one).
    auto send_pieces = [&](const std::vector<Piece> &pieces, int peer, int tag, MPI_Request *req,
                           std::size_t *bytes) -> int {
        RangeList message;
        for (const Piece &pc : pieces)
            message.add(pc.data, pc.bytes);
        *bytes = message.total();
        if (*bytes == 0)  // isend_ranges posts nothing for no bytes
            return isend_bytes(nullptr, 0, peer, tag, x.comm, req);
        return isend_ranges(message, peer, tag, x.comm, x.work, &store, req);
    };

    std::vector<int> &peers = lists->peers;
    peers.clear();
    std::vector<MPI_Request> &send_reqs = lists->send_reqs;
    send_reqs.assign(handled.size(), MPI_REQUEST_NULL);
    std::vector<std::vector<unsigned char>> &totals_heads = lists->totals_heads, &trailers = lists->trailers;
    empty_lists(&totals_heads, handled.size());
    empty_lists(&trailers, handled.size());
    // Trailer flags: the bits of its first value.
    constexpr std::size_t kWantOwnApart = 1, kOwnApart = 2, kSkips = 4;
    // Whether this rank asks its partners to send its own blocks apart in the
    // next call, where it receives in place (node_bruck_bypasses' rule, its
    // bytes now) and they average kUnpackedChunk a remote group: copying them
    // out of phase B's messages would run at memory speed.
    const bool want_own_apart =
        !uniform && node_bruck_bypasses(received, x.hints->direct_above) &&
        received / static_cast<std::uint64_t>(std::max(1, N - 1)) >= kUnpackedChunk;
    const bool partner_asked = gp->partner_own_apart.size() == handled.size();
    // Receives: from v's handler of (u, q), the blocks of all of v for u's part q.
    // Posted before and between the sends (sizes known: all at once; else each
    // as its message is found), so that a peer's message moves while this rank
    // still packs its own (UnknownSizeReceives says why).
    for (const Handled &hd : handled)
        peers.push_back(R.member(hd.node, node_bruck_handler(hd.node, u, hd.part, k, N, R.size_of(hd.node))));
    std::vector<char *> &in_data = lists->in_data;
    std::vector<std::size_t> &in_bytes = lists->in_bytes;
    std::vector<MPI_Request> &recv_reqs = lists->recv_reqs;
    std::optional<UnknownSizeReceives> probed_receives;
    if (uniform) {
        in_data.assign(handled.size(), nullptr);
        in_bytes.assign(handled.size(), 0);
        recv_reqs.assign(handled.size(), MPI_REQUEST_NULL);
        for (std::size_t h = 0; h < handled.size(); ++h) {
            in_bytes[h] = B * static_cast<std::size_t>(part_size(n, handled[h].part, k)) * R.size_of(handled[h].node);
            if (in_bytes[h] == 0)
                continue;
            store.emplace_back();
            if (!store.back().resize(in_bytes[h]))
                return MPI_ERR_NO_MEM;
            in_data[h] = store.back().data();
            MPIX_CHECK(irecv_bytes(in_data[h], in_bytes[h], peers[h], tag_b, x.comm, &recv_reqs[h]));
        }
    } else {
        probed_receives.emplace(peers, tag_b, x.comm, true, &store, &in_data, &in_bytes, &recv_reqs);
    }
    std::vector<MPI_Request> &apart_sends = lists->apart_sends;
    apart_sends.clear();
    {
        RangeList &message = lists->message;
        std::vector<long long> &ids = lists->ids;
        std::size_t first = 0;  // the part's ranks start at mine[first]
        for (std::size_t h = 0; h < handled.size(); ++h) {
            const int v = handled[h].node, q = handled[h].part, nv = part_size(R.size_of(v), q, k);
            const int peer = peers[h];
            message.clear();
            ids.clear();
            message.reserve(static_cast<std::size_t>(nv) * static_cast<std::size_t>(n) + 2);  // once, not per doubling
            // The partner's own blocks apart, as it asked in the previous call,
            // where it is in the part and no member skips me.
            const int partner = node_bruck_handler(v, u, q, k, N, R.size_of(v));
            const int apart = !uniform && !have_skipped && partner_asked && gp->partner_own_apart[h] &&
                                      in_part(partner, q, k)
                                  ? (partner - q) / k
                                  : -1;
            // [the node's largest and mean volume, then one total per member of
            // the part] (alltoallv), then the blocks by destination: the totals
            // are summed as the blocks are listed, the header written after them.
            if (!uniform) {
                message.open_head();
                sizes.assign(2 + nv, 0);
                sizes[0] = static_cast<std::size_t>(global[0]);
                sizes[1] = static_cast<std::size_t>(global[1]);
            }
            for (int m = 0; m < nv; ++m) {
                if (m == apart)
                    continue;
                std::size_t member_total = 0;
                for (int s = 0; s < n; ++s) {
                    if (skips_me[s])
                        continue;
                    const Piece &pc = from[s][first + m];
                    message.add(pc.data, pc.bytes);
                    member_total += pc.bytes;
                    if (x.trace)
                        ids.push_back(static_cast<long long>(gp->local[s]) * P + mine[first + m]);
                }
                if (!uniform)
                    sizes[2 + m] = member_total;
            }
            const std::size_t payload = message.total();  // the blocks' (the header opened empty)
            if (!uniform) {
                encode_sizes(sizes, &totals_heads[h]);
                message.set_head(reinterpret_cast<const char *>(totals_heads[h].data()), totals_heads[h].size());
            }
            // The trailer: [flags], then where members skip me [1 per skipping
            // member, else 0] and each block's size, by destination.
            const std::size_t flags = (want_own_apart && in_part(i, q, k) ? kWantOwnApart : 0) |
                                      (apart >= 0 ? kOwnApart : 0) | (have_skipped ? kSkips : 0);
            if (flags != 0) {
                sizes.assign(1, flags);
                encode_sizes(sizes, &trailers[h]);
                if (have_skipped) {
                    sizes.clear();
                    for (int s = 0; s < n; ++s)
                        sizes.push_back(skips_me[s] ? 1 : 0);
                    for (int m = 0; m < nv; ++m)
                        for (int s = 0; s < n; ++s)
                            sizes.push_back(from[s][first + m].bytes);
                    std::vector<unsigned char> more;
                    encode_sizes(sizes, &more);
                    trailers[h].insert(trailers[h].end(), more.begin(), more.end());
                }
                message.add(reinterpret_cast<const char *>(trailers[h].data()), trailers[h].size());
            }
            if (uniform && payload == 0) {
                // the receiver computes the same zero and posts nothing
            } else {
                MPIX_CHECK(isend_ranges(message, peer, tag_b, x.comm, x.work, &store, &send_reqs[h],
                                        uniform ? &mismatch : nullptr));
            }
            if (x.trace)
                x.trace->round(round_b, peer, -1, ids, payload, 0);
            if (apart >= 0) {  // the partner's own blocks, from every member, in member order
                std::vector<Piece> own_blocks;
                ids.clear();
                for (int s = 0; s < n; ++s) {
                    own_blocks.push_back(from[s][first + apart]);
                    if (x.trace)
                        ids.push_back(static_cast<long long>(gp->local[s]) * P + peer);
                }
                std::size_t bytes = 0;
                apart_sends.push_back(MPI_REQUEST_NULL);
                MPIX_CHECK(send_pieces(own_blocks, peer, tag_extra, &apart_sends.back(), &bytes));
                if (x.trace)
                    x.trace->round(round_b, peer, -1, ids, bytes, 0);
            }
            first += nv;
            if (probed_receives)
                MPIX_CHECK(probed_receives->poll());
        }
        if (x.trace)
            for_each_extra([&](const Handled &hd, int peer) {
                ids.clear();
                std::size_t bytes = 0;
                for (int m = hd.part; m < R.size_of(hd.node); m += k) {
                    ids.push_back(static_cast<long long>(x.rank) * P + R.member(hd.node, m));
                    bytes += x.sendbytes[R.member(hd.node, m)];
                }
                if (bytes > 0)
                    x.trace->round(round_b, peer, -1, ids, bytes, 0);
            });
    }
    if (probed_receives)
        MPIX_CHECK(probed_receives->finish());
    // chunk[h][d]: the data of all of node handled[h] for my local index d (in
    // its part; empty for the others).
    // Several pieces, in source order, where v's handler was bypassed.
    std::vector<std::vector<std::vector<Piece>>> &chunk = lists->chunk;
    chunk.resize(handled.size());
    for (std::vector<std::vector<Piece>> &of_part : chunk)
        empty_lists(&of_part, static_cast<std::size_t>(n));
    std::vector<MPI_Request> &extra_recvs = lists->extra_recvs;
    std::vector<std::size_t> &extra_expected = lists->extra_expected;
    extra_recvs.clear();
    extra_expected.clear();
    // Per handled part: my own blocks came apart; the partner asks for its own apart.
    std::vector<char> &own_apart = lists->own_apart, &own_apart_asked = lists->own_apart_asked;
    own_apart.assign(handled.size(), 0);
    own_apart_asked.assign(handled.size(), 0);
    for (std::size_t h = 0; h < handled.size(); ++h) {
        // Unequal block sizes across ranks (MPIX_Alltoall): reported, phase C
        // still matches.
        if (uniform && in_bytes[h] > 0)
            MPIX_CHECK(wait_known_receive(&recv_reqs[h], in_data[h], in_bytes[h], &mismatch));
        else
            MPIX_CHECK(wait_request(&recv_reqs[h], MPI_STATUS_IGNORE));
        const int v = handled[h].node, q = handled[h].part, nv = R.size_of(v), nq = part_size(n, q, k);
        std::size_t at = 0;
        if (uniform) {
            sizes.assign(2 + nq, B * nv);
        } else {
            if (!decode_sizes(in_data[h], in_bytes[h], 2 + nq, &sizes, &at))
                return MPI_ERR_INTERN;
            global[0] = std::max<std::uint64_t>(global[0], sizes[0]);
            global[1] = std::max<std::uint64_t>(global[1], sizes[1]);
        }
        const std::size_t head = at;
        std::size_t payload = 0;
        for (int z = 0; z < nq; ++z) {
            if (sizes[2 + z] > in_bytes[h] - head - payload)
                return MPI_ERR_INTERN;
            payload += sizes[2 + z];
        }
        // A trailer after the payload (see flags above): the partner's wish for
        // the next call; my own blocks apart; members that skipped the partner.
        std::vector<std::size_t> trailer;
        std::size_t flags = 0;
        const std::size_t tail = head + payload;
        if (tail != in_bytes[h]) {
            std::size_t used = 0, more = 0;
            if (uniform || !decode_sizes(in_data[h] + tail, in_bytes[h] - tail, 1, &trailer, &used))
                return MPI_ERR_INTERN;
            flags = trailer[0];
            trailer.clear();
            if ((flags & kSkips) &&
                !decode_sizes(in_data[h] + tail + used, in_bytes[h] - tail - used,
                              static_cast<std::size_t>(nv) * (1 + nq), &trailer, &more))
                return MPI_ERR_INTERN;
            if (flags > (kWantOwnApart | kOwnApart | kSkips) || ((flags & kOwnApart) && (flags & kSkips)) ||
                ((flags & kOwnApart) && !in_part(i, q, k)) || used + more != in_bytes[h] - tail)
                return MPI_ERR_INTERN;
        }
        own_apart_asked[h] = (flags & kWantOwnApart) != 0;
        if (flags & kOwnApart) {  // my blocks from all of v, in a message of their own
            own_apart[h] = 1;
            if (sizes[2 + (i - q) / k] != 0)
                return MPI_ERR_INTERN;
            MPIX_CHECK(receive_chunk(v, peers[h], tag_extra));
            if (x.trace) {
                std::vector<long long> own_ids;
                for (int m = 0; m < nv; ++m)
                    own_ids.push_back(static_cast<long long>(R.member(v, m)) * P + x.rank);
                x.trace->round(round_b, -1, peers[h], own_ids, 0, place_expected.back());
            }
        }
        auto skipped = [&](int m) { return !trailer.empty() && trailer[m] != 0; };
        auto block_size = [&](int z, int m) { return trailer[nv + static_cast<std::size_t>(z) * nv + m]; };
        // Each skipping member's blocks for my part, in one extra message.
        std::vector<char *> &extra_at = lists->extra_at;
        extra_at.assign(static_cast<std::size_t>(nv), nullptr);
        std::vector<long long> ids;
        for (int m = 0; m < nv && !trailer.empty(); ++m) {
            if (trailer[m] > 1)
                return MPI_ERR_INTERN;
            if (!skipped(m))
                continue;
            std::size_t total = 0;
            ids.clear();
            for (int d = q, z = 0; d < n; d += k, ++z) {
                total += block_size(z, m);
                if (x.trace)
                    ids.push_back(static_cast<long long>(R.member(v, m)) * P + gp->local[d]);
            }
            if (total == 0)
                continue;
            store.emplace_back();
            if (!store.back().resize(total))
                return MPI_ERR_NO_MEM;
            extra_at[m] = store.back().data();
            extra_recvs.push_back(MPI_REQUEST_NULL);
            extra_expected.push_back(total);
            MPIX_CHECK(irecv_bytes(extra_at[m], total, R.member(v, m), tag_extra, x.comm, &extra_recvs.back()));
            if (x.trace)
                x.trace->round(round_b, -1, R.member(v, m), ids, 0, total);
        }
        ids.clear();
        at = head;
        for (int d = q, z = 0; d < n; d += k, ++z) {
            chunk[h][d].reserve(trailer.empty() ? 1 : static_cast<std::size_t>(nv));
            if (trailer.empty()) {
                chunk[h][d].push_back(Piece{in_data[h] + at, sizes[2 + z]});
                at += sizes[2 + z];
            } else {
                std::size_t in_main = 0;
                for (int m = 0; m < nv; ++m) {
                    const std::size_t b = block_size(z, m);
                    if (skipped(m)) {
                        chunk[h][d].push_back(Piece{extra_at[m], b});
                        extra_at[m] += b;
                    } else {
                        chunk[h][d].push_back(Piece{in_data[h] + at, b});
                        at += b;
                        in_main += b;
                    }
                }
                if (in_main != sizes[2 + z])
                    return MPI_ERR_INTERN;
            }
            if (x.trace)
                for (int m = 0; m < nv; ++m)
                    if (!skipped(m))
                        ids.push_back(static_cast<long long>(R.member(v, m)) * P + gp->local[d]);
        }
        if (at != tail)
            return MPI_ERR_INTERN;
        if (x.trace)
            x.trace->round(round_b, -1, peers[h], ids, 0, payload);
    }
    if (!extra_recvs.empty()) {
        int wrong = MPI_SUCCESS;
        MPIX_CHECK(wait_all(static_cast<int>(extra_recvs.size()), extra_recvs.data(), extra_expected.data(), &wrong));
        if (wrong != MPI_SUCCESS)
            return MPI_ERR_INTERN;  // their lengths came from their senders' own headers
    }
    if (!uniform)
        gp->partner_own_apart = own_apart_asked;

    // Phase C: bundle for local d = the chunks of my handled parts for d.
    // Bytes handler s sends local index d: the blocks of its nodes for d's part.
    // MPIX_Alltoall: B each, for any d (bundle_bruck forwards bundles whose
    // sizes every rank computes; d's part, not this rank's, decides which of s's
    // nodes they hold). MPIX_Alltoallv: d's recvcounts, so only d == i is known.
    // group_in[v]: the bytes of all of group v's blocks for me (B each for
    // MPIX_Alltoall), summed once a call, not once a handler and position.
    std::vector<std::size_t> &group_in = lists->group_in;
    group_in.assign(static_cast<std::size_t>(N), 0);
    for (int v = 0; v < N; ++v) {
        if (uniform) {
            group_in[static_cast<std::size_t>(v)] = B * static_cast<std::size_t>(R.size_of(v));
            continue;
        }
        for (int m = 0; m < R.size_of(v); ++m)
            group_in[static_cast<std::size_t>(v)] += x.recvbytes[R.member(v, m)];
    }
    auto expected_from = [&](int s, int d) {
        std::size_t b = 0;
        for (const Handled &hd : gp->handled[s])
            if (in_part(d, hd.part, gp->parts))
                b += group_in[static_cast<std::size_t>(hd.node)];
        return b;
    };
    // A rank that receives more than direct_above (node_bruck_in_place) gets its
    // handlers' chunks straight into its receive blocks, a message per handled
    // remote group, instead of in phase C's bundles: copying them out of the
    // bundles would run at memory speed. As a handler it sends its chunks the
    // same way (packing them into bundles would too) where they are large: a
    // receiver's bytes over the remote groups at least kUnpackedChunk, whose copy
    // at memory speed (2 GB/s) costs more than a message's two overheads (1 us
    // each). dragonfly-256x64, P=1024, copies charged: hotspot:4 at 1 KiB (8.7 KB
    // chunks) 855.7 us against 1043.1 packed; moe:64,2 at 16 B (0.3 KB) 231.9
    // unpacked against 174.2. The bundles between such a pair go empty and still
    // carry the statistics.
    std::vector<char> &in_place = lists->in_place;
    in_place.assign(static_cast<std::size_t>(n), 0);
    if (!uniform)
        for (int d = 0; d < n; ++d)
            in_place[static_cast<std::size_t>(d)] = node_bruck_in_place(member_received[d], x.hints->direct_above);
    // Any receiver, from the cache, where its chunks average kUnpackedCachedChunk:
    // both copies of a chunk (packed into the bundle, copied out of it) cost more
    // than the extra message. dragonfly-64x16, P=256, copies charged, 0..S
    // blocks (chunks of 16 blocks), us: S=4 KiB 752.8 against 768.5 packed, 8 KiB
    // 1437.8 against 1475.9 (overlap 88.4 % against 86.5 %); S=2 KiB (16 KiB
    // chunks) 406.2 against 401.1, 1 KiB 233.2 against 217.7 with every chunk
    // apart. MPIX_Alltoall keeps the bundles: their sizes are computed, not sent.
    constexpr std::uint64_t kUnpackedCachedChunk = 32 << 10;
    auto unpacked = [&](int s, int d) {  // handler s, receiver d: the same on both
        const std::uint64_t chunk = member_received[d] / static_cast<std::uint64_t>(std::max(1, N - 1));
        return in_place[d] || (in_place[s] && chunk >= kUnpackedChunk) || (!uniform && chunk >= kUnpackedCachedChunk);
    };
    for (int d = 0; d < n; ++d) {
        bundles[d].clear();
        if (d == i || unpacked(i, d))
            continue;
        for (std::size_t h = 0; h < handled.size(); ++h)
            if (in_part(d, handled[h].part, k))
                bundles[d].insert(bundles[d].end(), chunk[h][d].begin(), chunk[h][d].end());
    }
    const int radix_c = hint > 0 ? hint : node_bruck_radix(volume, n, !uniform);
    // The in-place messages' tag: the first that phase C's digits leave free
    // (at most 30 digits below kAgreementTag).
    const int tag_in_place = tag_c + bundle_bruck_digits(n, radix_c);
    {
        std::vector<long long> ids;
        for (int d = 0; d < n; ++d) {
            if (d == i || !unpacked(i, d))
                continue;
            for (std::size_t h = 0; h < handled.size(); ++h)
                if (in_part(d, handled[h].part, k)) {
                    std::size_t bytes = 0;
                    place_sends.push_back(MPI_REQUEST_NULL);
                    MPIX_CHECK(send_pieces(chunk[h][d], gp->local[d], tag_in_place, &place_sends.back(), &bytes));
                    if (x.trace) {
                        ids.clear();
                        const int v = handled[h].node;
                        for (int m = 0; m < R.size_of(v); ++m)
                            ids.push_back(static_cast<long long>(R.member(v, m)) * P + gp->local[d]);
                        x.trace->round(round_b + 1, gp->local[d], -1, ids, bytes, 0);
                    }
                }
        }
        for (int s = 0; s < n; ++s) {
            if (s == i || !unpacked(s, i))
                continue;
            for (const Handled &hd : gp->handled[s]) {
                if (!in_part(i, hd.part, k))
                    continue;
                MPIX_CHECK(receive_chunk(hd.node, gp->local[s], tag_in_place));
                if (x.trace) {
                    ids.clear();
                    for (int m = 0; m < R.size_of(hd.node); ++m)
                        ids.push_back(static_cast<long long>(R.member(hd.node, m)) * P + x.rank);
                    x.trace->round(round_b + 1, -1, gp->local[s], ids, 0, place_expected.back());
                }
            }
        }
    }
    // Where every member's chunks go apart (above), phase C's bundles would all
    // be empty, carrying the statistics alone: a Bruck allgather of those inside
    // the group (ceil(log2 n) rounds of one message each way) sends fewer
    // messages than a bundle to every member. dragonfly-64x16, P=256, copies
    // charged, 0..8 KiB: 1419.6 us and 90.1 % overlap, against 1437.8 and 88.4 %
    // with the bundles (and 1407.1, 90.6 % with no statistics at all).
    // unpacked(s, d) only grows with in_place[s], so each receiver is checked
    // against one handler not in place where it has one: n checks, not n^2.
    int out[2] = {-1, -1};  // the first two members not in place
    for (int s = 0; s < n && out[1] < 0; ++s)
        if (!in_place[static_cast<std::size_t>(s)])
            out[out[0] < 0 ? 0 : 1] = s;
    bool all_apart = !uniform && n > 1;
    for (int d = 0; d < n && all_apart; ++d)
        all_apart = unpacked(out[0] >= 0 && out[0] != d ? out[0] : out[1] >= 0 ? out[1] : (d + 1) % n, d);
    if (all_apart) {
        std::vector<std::uint64_t> all;
        MPIX_CHECK(agree_gather(global, 2, tag_c, x.comm, gp->local, i, &all));
        for (std::size_t r = 0; r + 1 < all.size(); r += 2) {
            global[0] = std::max<std::uint64_t>(global[0], all[r]);
            global[1] = std::max<std::uint64_t>(global[1], all[r + 1]);
        }
    } else {
        // alltoallv: every message with its header, so the largest volume
        // anywhere reaches every rank of the node (agreed_max).
        BundleGroup g = bundle_group(x.comm, x.work, gp->local, i, radix_c, tag_c,
                                     uniform ? SizesKnown::everywhere : SizesKnown::nowhere, x.trace, round_b + 1);
        g.expected_bytes = [&](int s, int d) { return expected_from(s, d); };
        g.agreed_max = uniform ? nullptr : global;
        g.agreed_count = 2;
        g.upstream_mismatch = uniform ? &mismatch : nullptr;  // phases A and B's
        g.spare = &lists->bundle_spare;
        if (x.trace)  // a std::function of this lambda allocates: only when tracing
            g.block_ids = [&](int s, int d, std::vector<long long> *ids) {
                for (const Handled &hd : gp->handled[s])
                    if (in_part(d, hd.part, gp->parts))
                        for (int m = 0; m < R.size_of(hd.node); ++m)
                            ids->push_back(static_cast<long long>(R.member(hd.node, m)) * P + gp->local[d]);
            };
        int rc = bundle_bruck(g, bundles, &arrived, &store);
        if (rc == MPI_ERR_TRUNCATE || rc == MPI_ERR_COUNT)
            note_mismatch(&mismatch, rc);
        else
            MPIX_CHECK(rc);
    }
    // Deliver: from handler s, its nodes' blocks for me in (node, source) order;
    // from myself, without the nodes whose blocks for me came apart (own_apart).
    auto deliver = [&](int s, const Piece *pieces, std::size_t count) {
        auto came_apart = [&](std::size_t h) { return s == i && own_apart[h]; };
        std::size_t got = 0, want = expected_from(s, i);
        for (std::size_t h = 0; h < gp->handled[s].size(); ++h)
            if (came_apart(h) && in_part(i, gp->handled[s][h].part, gp->parts))
                for (int m = 0; m < R.size_of(gp->handled[s][h].node); ++m)
                    want -= x.recvbytes[R.member(gp->handled[s][h].node, m)];
        for (std::size_t c = 0; c < count; ++c)
            got += pieces[c].bytes;
        if (got != want) {
            note_mismatch(&mismatch, got > want ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
            return;
        }
        std::size_t piece = 0, at = 0;  // walk the pieces as one byte string
        LocalWork::CopyRun run(x.work);  // consecutive sources, consecutive blocks: one copy
        for (std::size_t h = 0; h < gp->handled[s].size(); ++h) {
            const Handled &hd = gp->handled[s][h];
            if (!in_part(i, hd.part, gp->parts) || came_apart(h))
                continue;
            // The node's blocks for me one range of my receive buffer and of
            // the current piece (consecutive ranks, the usual layout): one copy,
            // one piece, not a turn of the loop below per block.
            std::size_t node_total = 0;
            char *node_range = receive_range(x, &R.members[R.offsets[hd.node]], R.size_of(hd.node), &node_total);
            while (node_total > 0 && pieces[piece].bytes - at == 0) {
                ++piece;
                at = 0;
            }
            if (node_range && node_total > 0 && pieces[piece].bytes - at >= node_total &&
                (!uniform || node_total == B * static_cast<std::size_t>(R.size_of(hd.node)))) {
                run.copy(node_range, pieces[piece].data + at, node_total);
                at += node_total;
                continue;
            }
            for (int m = 0; m < R.size_of(hd.node); ++m) {
                int src = R.member(hd.node, m);
                std::size_t left = uniform ? B : x.recvbytes[src];
                char *dst = x.recv_block(src);
                while (left > 0) {
                    while (pieces[piece].bytes - at == 0) {
                        ++piece;
                        at = 0;
                    }
                    std::size_t c = std::min(left, pieces[piece].bytes - at);
                    run.copy(dst, pieces[piece].data + at, c);
                    dst += c;
                    at += c;
                    left -= c;
                }
            }
        }
    };
    {
        LocalWork::Batch batch(x.work);
        for (int s = 0; s < n; ++s) {
            if (s == i) {
                std::vector<Piece> &own = lists->own;
                own.clear();
                for (std::size_t h = 0; h < handled.size(); ++h)
                    if (in_part(i, handled[h].part, k))
                        own.insert(own.end(), chunk[h][i].begin(), chunk[h][i].end());
                deliver(s, own.data(), own.size());
            } else if (!gp->handled[s].empty() && !unpacked(s, i)) {
                deliver(s, &arrived[s], 1);  // not a vector of one: an allocation per member
            }
        }
    }
    if (!place_recvs.empty()) {
        // A chunk of another length than this rank's receive blocks is noted, not
        // returned: every other message still completes.
        int wrong = MPI_SUCCESS;
        MPIX_CHECK(wait_all(static_cast<int>(place_recvs.size()), place_recvs.data(), place_expected.data(), &wrong));
        note_mismatch(&mismatch, wrong);
        LocalWork::Batch batch(x.work);
        for (Staged &st : staged) {
            if (wrong != MPI_SUCCESS)
                break;  // their lengths are not this rank's blocks
            LocalWork::CopyRun run(x.work);
            std::size_t at = 0;
            for (int m = 0; m < R.size_of(st.node); ++m) {
                const int src = R.member(st.node, m);
                run.copy(x.recv_block(src), st.bytes.data() + at, x.recvbytes[src]);
                at += x.recvbytes[src];
            }
        }
    }
    for (MPI_Request &r : place_sends)
        MPIX_CHECK(wait_request(&r, MPI_STATUS_IGNORE));
    for (MPI_Request &r : extra_sends)
        MPIX_CHECK(wait_request(&r, MPI_STATUS_IGNORE));
    for (MPI_Request &r : apart_sends)
        MPIX_CHECK(wait_request(&r, MPI_STATUS_IGNORE));
    for (MPI_Request &r : send_reqs)
        MPIX_CHECK(wait_request(&r, MPI_STATUS_IGNORE));
    if (!uniform) {
        plan->previous_global[0] = global[0];
        plan->previous_global[1] = global[1];
        plan->have_global = true;
    }
    return mismatch;
}

}  // namespace mpix
