// ParLinNa. Phase 1: ParLogNa's radix-r rounds over the node's ranks, where the
// bundle for local rank j carries this rank's blocks for every rank whose local
// index is j (mod this node's size, so uneven nodes still have a relay), behind
// their sizes: the sizes travel inside each round, as in the paper, and there is
// no separate size exchange. Phase 2: the relay of local index j sends each
// remote destination d with index(d) = j (mod node size) the blocks of the whole
// node for d. Receivers know their sizes (recvbytes).
#include "alltoallv/parlinna.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "alltoallv/bundle_bruck.hpp"
#include "alltoallv/direct.hpp"
#include "alltoallv/node_bruck.hpp"
#include "alltoallv/parlogna.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/scratch.hpp"
#include "core/trace.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

// Every scheduled message is posted, empty ones too: a receiver that skipped a
// block it expects empty would leave a sender's wrong-length block unmatched (and
// shift the later matches on the tag) instead of reporting it.
struct Pending {
    long long window;
    int peer;
    const char *send;  // what a send sends
    char *recv;        // where a receive lands
    std::size_t bytes;
    int node;    // the remote node (tracing)
    int source;  // local index of the block's source in its node, -1: all of them
    bool is_recv;
};

// Phase 1's per-call lists, kept on the plan (SpareLists): made fresh they were
// four allocations per rank of the node on every call.
struct ParlinnaLists {
    std::vector<std::vector<Piece>> bundles;
    std::vector<std::vector<unsigned char>> heads;
    std::vector<std::vector<std::uint64_t>> sizes;
    std::vector<std::vector<const char *>> where;
    std::vector<Piece> arrived;
    std::vector<std::uint64_t> agreed;  // phase 1's statistics: the caller's maxima, then the volume
    BundleSpare bundle_spare;
    // Phase 1's received messages, phase 2's packed sends and its staged
    // receives (StoreForCall: recycled from call to call).
    ScratchStore store, packs, stages;
};

// What ParLinNa derives from the node map, cached on the communicator: which
// ranks each local index relays (made per call, it walked all P ranks).
struct ParlinnaPlan : CacheEntry {
    std::vector<std::vector<int>> dests;  // local index j -> ranks relayed by j, by (node, index)
    SpareLists<ParlinnaLists> lists;
    // The node's agreed volume (the largest bytes any of its ranks exchanged
    // with the others) of the previous MPIX_Alltoallv: phase 1's radix in the
    // next one, the same on every rank of the node, as node_bruck's phase A.
    std::uint64_t previous_volume = 0;
    bool have_previous = false;
    bool depends_on_topology() const override { return true; }
};

// `maxima` (coalesced, MPIX_Alltoallv): `count` maxima agreed in the messages.
int parlinna(const Exchange &x, bool coalesced, std::uint64_t *maxima = nullptr, int count = 0)
{
    if (maxima && (!coalesced || x.uniform || count < 1))
        return MPI_ERR_INTERN;  // only phase 1's headers and the coalesced messages carry them
    // Every message between nodes starts with the sender's node maxima.
    const std::size_t head = maxima ? static_cast<std::size_t>(count) * sizeof(std::uint64_t) : 0;
    const Regions *R = nullptr;
    MPIX_CHECK(get_regions(x.xcomm, Locality::node, &R));
    const int g = R->my_region, me_i = R->my_index, n = R->size_of(g), N = R->count;
    const int me = x.rank;

    // dests[j]: ranks relayed by my local index j, by (node, index).
    ParlinnaPlan *plan = cached_or_make<ParlinnaPlan>(x.xcomm, "parlinna");
    if (!plan)
        return MPI_ERR_NO_MEM;
    if (plan->dests.empty()) {  // made whole, then kept: a failed making leaves it empty
        std::vector<std::vector<int>> made(static_cast<std::size_t>(n));
        for (int v = 0; v < N; ++v)
            for (int k = 0; k < R->size_of(v); ++k)
                made[k % n].push_back(R->member(v, k));
        plan->dests.swap(made);
    }
    const std::vector<std::vector<int>> &dests = plan->dests;
    const std::vector<int> &mine = dests[me_i];
    LeasedLists<ParlinnaLists> lists(&plan->lists);

    // Phase 1: radix-r Bruck rounds (ParLogNa's schedule) over my node's ranks.
    // The bundle for local j is my blocks for dests[j], behind their sizes
    // (alltoall: known everywhere, none sent), so relays learn what they forward
    // from the data itself. where[s][k] / sizes[s][k]: block of local s for mine[k].
    std::vector<int> local(n);
    for (int j = 0; j < n; ++j)
        local[j] = R->member(g, j);
    std::vector<std::vector<Piece>> &bundles = lists->bundles;
    std::vector<std::vector<unsigned char>> &heads = lists->heads;
    empty_lists(&bundles, static_cast<std::size_t>(n));
    empty_lists(&heads, static_cast<std::size_t>(n));
    std::vector<std::size_t> block_sizes;
    for (int j = 0; j < n; ++j) {
        if (j == me_i)
            continue;
        bundles[j].reserve(dests[j].size() + 1);  // the sizes, then the blocks: one allocation
        if (!x.uniform) {
            block_sizes.clear();
            for (int d : dests[j])
                block_sizes.push_back(x.sendbytes[d]);
            encode_sizes(block_sizes, &heads[j]);
            bundles[j].push_back(Piece{reinterpret_cast<const char *>(heads[j].data()), heads[j].size()});
        }
        for (int d : dests[j])
            bundles[j].push_back(Piece{x.send_block(d), x.sendbytes[d]});
    }
    std::vector<Piece> &arrived = lists->arrived;  // bundle_bruck assigns it
    StoreForCall store_for_call(&lists->store, &x.xcomm->scratch);
    ScratchStore &store = *store_for_call;
    // Radix: the hint, else from the bytes a rank exchanges, by node_bruck's rule
    // (the same trade of round overheads against bytes moved per round): known
    // for alltoall; for alltoallv the node's largest of the previous call, agreed
    // in this phase's headers; on the first call ParLogNa's ceil(sqrt(n)).
    // Measured (SimGrid, dragonfly-64x16, P=256, copies charged, radix 2 / 4 /
    // 16): 0..16 B 47.8 / 51.0 / 68.5 us, 0..1 KiB 226.4 / 220.4 / 234.7,
    // 0..8 KiB 1539 / 1457 / 1430.
    const int hint = x.hints->radix;
    const std::uint64_t others = static_cast<std::uint64_t>(x.size - 1);
    std::uint64_t volume = x.uniform ? static_cast<std::uint64_t>(x.block_bytes) * others : node_bruck_rank_volume(x);
    const int radix = hint > 0 ? parlogna_radix(n, hint)
                      : x.uniform ? node_bruck_radix(volume, n, false)
                      : plan->have_previous ? node_bruck_radix(plan->previous_volume, n, true)
                                            : parlogna_radix(n, 0);
    // Phase 2's trace rounds follow phase 1's on every node: after the most
    // rounds any node may take (radix 2's, unless the hint sets it; nodes of
    // other sizes or volumes take fewer), so a message's round is the same at
    // its sender and its receiver.
    long long rounds_1 = 0;
    if (x.trace) {
        for (int v = 0; v < N; ++v) {
            const int nv = R->size_of(v);
            rounds_1 = std::max<long long>(rounds_1, bundle_bruck_rounds(nv, hint > 0 ? parlogna_radix(nv, hint) : 2));
        }
        x.trace->set_params("radix=" + std::to_string(std::max(2, std::min(radix, n))));
    }
    {
        BundleGroup bg = bundle_group(x.comm, x.work, local, me_i, radix, x.tag,
                                      x.uniform ? SizesKnown::everywhere : SizesKnown::nowhere, x.trace, 0);
        bg.expected_bytes = [&](int, int d) { return x.block_bytes * dests[d].size(); };
        if (x.trace)  // a std::function of this lambda allocates: only when tracing
            bg.block_ids = [&](int s, int d, std::vector<long long> *ids) {
                for (int r : dests[d])
                    ids->push_back(static_cast<long long>(local[s]) * x.size + r);
            };
        // The node's maxima and volume, on every rank of the node (alltoallv:
        // every message carries a header; alltoall needs no agreement).
        std::uint64_t *agreed = nullptr;
        if (!x.uniform) {
            std::vector<std::uint64_t> &stats = lists->agreed;
            stats.assign(maxima, maxima + (maxima ? count : 0));
            stats.push_back(volume);
            agreed = stats.data();
            bg.agreed_count = static_cast<int>(stats.size());
        }
        bg.agreed_max = agreed;
        bg.spare = &lists->bundle_spare;
        MPIX_CHECK(bundle_bruck(bg, bundles, &arrived, &store));
        if (agreed) {
            for (int k = 0; maxima && k < count; ++k)
                maxima[k] = agreed[k];
            plan->previous_volume = agreed[bg.agreed_count - 1];
            plan->have_previous = true;
        }
    }
    std::vector<std::vector<std::uint64_t>> &sizes = lists->sizes;
    std::vector<std::vector<const char *>> &where = lists->where;
    sizes.resize(static_cast<std::size_t>(n));
    where.resize(static_cast<std::size_t>(n));
    for (int s = 0; s < n; ++s) {
        sizes[s].assign(mine.size(), x.block_bytes);
        where[s].assign(mine.size(), nullptr);
    }
    for (int s = 0; s < n; ++s) {
        if (s == me_i) {
            for (std::size_t k = 0; k < mine.size(); ++k) {
                sizes[s][k] = x.sendbytes[mine[k]];
                where[s][k] = x.send_block(mine[k]);
            }
            continue;
        }
        std::size_t at = 0;
        if (!x.uniform) {
            if (!decode_sizes(arrived[s].data, arrived[s].bytes, mine.size(), &block_sizes, &at))
                return MPI_ERR_INTERN;
            for (std::size_t k = 0; k < mine.size(); ++k)
                sizes[s][k] = block_sizes[k];
        }
        for (std::size_t k = 0; k < mine.size(); ++k) {
            if (sizes[s][k] > arrived[s].bytes - at)
                return MPI_ERR_INTERN;
            where[s][k] = arrived[s].data + at;
            at += sizes[s][k];
        }
    }

    // Blocks for myself from my node arrived in phase 1 (a length other than the
    // receive count is reported once every message has moved).
    int mismatch = MPI_SUCCESS;
    LocalWork::Batch home_batch(x.work);  // up to phase 2's first message
    for (std::size_t k = 0; k < mine.size(); ++k) {
        if (mine[k] != me)
            continue;
        for (int s = 0; s < n; ++s) {
            int src = R->member(g, s);
            if (sizes[s][k] != x.recvbytes[src]) {
                note_mismatch(&mismatch, sizes[s][k] > x.recvbytes[src] ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
            } else {
                x.work->copy(x.recv_block(src), where[s][k], sizes[s][k]);
            }
        }
    }
    if (N == 1)
        return mismatch;

    // Phase 2: windows over node distance (coalesced) or (distance, source
    // index) (staggered); both sides compute the same window for a message.
    // inner=pairwise: one window per node step (send to the node k ahead, receive
    // from the node k behind, wait): the pairwise exchange between nodes.
    const bool pairwise = x.hints->inner == Inner::pairwise;
    const long long batch = x.hints->batch_size > 0 ? x.hints->batch_size : 32;
    const long long maxn = R->max_size;
    auto window = [&](long long step, int s) {
        return pairwise ? step : coalesced ? step / batch : (step * maxn + s) / batch;
    };
    auto dist = [&](int from_node, int to_node) { return ((to_node - from_node) % N + N) % N; };
    std::vector<Pending> ops;
    StoreForCall packs_for_call(&lists->packs, &x.xcomm->scratch);
    ScratchStore &packs = *packs_for_call;
    packs.reserve(mine.size() + N);
    for (std::size_t k = 0; k < mine.size(); ++k) {
        int d = mine[k], v = R->region_of[d];
        if (v == g)
            continue;
        long long step = dist(g, v) - 1;
        if (coalesced) {
            std::size_t bytes = head;
            for (int s = 0; s < n; ++s)
                bytes += sizes[s][k];
            packs.emplace_back();
            if (bytes && !packs.back().resize(bytes))  // nothing of phase 2 is posted yet
                return MPI_ERR_NO_MEM;
            for (int m = 0; m < count; ++m)  // statistics, not data; still the node's own (others' come after phase 2)
                std::memcpy(packs.back().data() + m * sizeof(std::uint64_t), &maxima[m], sizeof(std::uint64_t));
            std::size_t at = head;
            for (int s = 0; s < n; ++s) {
                x.work->copy(packs.back().data() + at, where[s][k], sizes[s][k]);
                at += sizes[s][k];
            }
            ops.push_back(Pending{window(step, 0), d, packs.back().data(), nullptr, bytes, v, -1, false});
        } else {
            for (int s = 0; s < n; ++s)
                ops.push_back(Pending{window(step, s), d, where[s][k], nullptr, sizes[s][k], v, s, false});
        }
    }
    StoreForCall stages_for_call(&lists->stages, &x.xcomm->scratch);
    ScratchStore &stages = *stages_for_call;
    stages.extend_to(static_cast<std::size_t>(N));
    for (int v = 0; v < N; ++v) {
        if (v == g)
            continue;
        int nv = R->size_of(v);
        int relay = R->member(v, me_i % nv);
        long long step = dist(v, g) - 1;
        if (coalesced) {
            // In place where node v's blocks for me lie one after the other in
            // rank order (rdispls in rank order, the node's ranks consecutive:
            // the usual layout), else staged and scattered after phase 2. The
            // maxima's header (node_bruck_adaptive) always stages.
            std::size_t bytes = 0;
            char *into = receive_range(x, &R->members[R->offsets[v]], nv, &bytes);
            bytes += head;
            if (head || !into) {
                if (!stages[v].resize(bytes))
                    return MPI_ERR_NO_MEM;
                into = stages[v].data();
            }
            ops.push_back(Pending{window(step, 0), relay, nullptr, into, bytes, v, -1, true});
        } else {
            for (int s = 0; s < nv; ++s) {
                int src = R->member(v, s);
                ops.push_back(
                    Pending{window(step, s), relay, nullptr, x.recv_block(src), x.recvbytes[src], v, s, true});
            }
        }
    }
    // Stable: within a window, receives first, and per peer in posting order.
    std::stable_sort(ops.begin(), ops.end(), [](const Pending &a, const Pending &b) {
        return a.window != b.window ? a.window < b.window : a.is_recv > b.is_recv;
    });
    home_batch.end();
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    // With maxima, a message of another length than its receiver expects must
    // still bring its header: every rank decides its next pick from the agreed
    // values, so a header lost to a truncated receive would split the ranks'
    // picks. Those receives are probed (after the window's sends are posted) and
    // one of another length lands in a buffer of its own; its header is kept.
    struct OddSized {
        ScratchBytes bytes;
        char *stage;
    };
    std::vector<OddSized> odd;
    const int tag_2 = x.tag + kBundleBruckTags;
    for (std::size_t first = 0; first < ops.size();) {
        std::size_t last = first;
        reqs.clear();
        expected.clear();
        odd.clear();
        while (last < ops.size() && ops[last].window == ops[first].window)
            ++last;
        if (head)  // sends first: the probes below wait for the peers' sends of this window
            std::stable_partition(ops.begin() + static_cast<std::ptrdiff_t>(first),
                                  ops.begin() + static_cast<std::ptrdiff_t>(last),
                                  [](const Pending &o) { return !o.is_recv; });
        odd.reserve(last - first);
        for (std::size_t i = first; i < last; ++i) {
            const Pending &o = ops[i];
            reqs.emplace_back();
            expected.push_back(o.is_recv ? o.bytes : kNotChecked);
            if (o.is_recv && head) {
                ProbedMessage m;
                bool found = false;
                MPIX_CHECK(probe_message(o.peer, tag_2, x.comm, true, &m, &found));
                if (m.bytes == o.bytes) {
                    MPIX_CHECK(irecv_probed(&m, o.recv, tag_2, x.comm, &reqs.back()));
                } else {
                    note_mismatch(x.mismatch, m.bytes > o.bytes ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
                    odd.push_back(OddSized{ScratchBytes(), o.recv});
                    if (!odd.back().bytes.resize(m.bytes))
                        return MPI_ERR_NO_MEM;
                    MPIX_CHECK(irecv_probed(&m, odd.back().bytes.data(), tag_2, x.comm, &reqs.back()));
                    expected.back() = kNotChecked;
                }
            } else if (o.is_recv) {
                MPIX_CHECK(irecv_bytes(o.recv, o.bytes, o.peer, tag_2, x.comm, &reqs.back()));
            } else {
                MPIX_CHECK(isend_bytes(o.send, o.bytes, o.peer, tag_2, x.comm, &reqs.back()));
            }
            if (x.trace) {  // one record per message; rounds after phase 1's
                std::vector<long long> ids;
                const long long P = x.size;
                if (!o.is_recv) {  // blocks of my node (or of one source) for o.peer
                    for (int s = 0; s < n; ++s)
                        if (o.source < 0 || o.source == s)
                            ids.push_back(local[s] * P + o.peer);
                } else {  // blocks of node o.node (or of one source) for me
                    for (int s = 0; s < R->size_of(o.node); ++s)
                        if (o.source < 0 || o.source == s)
                            ids.push_back(R->member(o.node, s) * P + me);
                }
                x.trace->round(static_cast<int>(rounds_1 + o.window), !o.is_recv ? o.peer : -1, o.is_recv ? o.peer : -1,
                               ids, !o.is_recv ? o.bytes - head : 0, o.is_recv ? o.bytes - head : 0);  // block bytes
            }
        }
        MPIX_CHECK(wait_all(static_cast<int>(reqs.size()), reqs.data(), expected.data(), x.mismatch));
        for (OddSized &o : odd)  // the header alone: the blocks are reported, not delivered
            for (int k = 0; k < count && o.bytes.size() >= head; ++k)
                std::memcpy(o.stage + k * sizeof(std::uint64_t), o.bytes.data() + k * sizeof(std::uint64_t),
                            sizeof(std::uint64_t));
        first = last;
    }
    // Coalesced messages from nodes of several ranks: scatter to rdispls.
    LocalWork::Batch scatter_copies(x.work);
    for (int v = 0; v < N; ++v) {
        if (stages[v].size() == 0)
            continue;
        if (head) {
            // Its sender's node maxima (a message of the wrong length was probed
            // and its header kept, above), so every rank reads every node's.
            for (int k = 0; k < count; ++k) {
                std::uint64_t theirs;
                std::memcpy(&theirs, stages[v].data() + k * sizeof theirs, sizeof theirs);
                maxima[k] = std::max(maxima[k], theirs);
            }
        }
        std::size_t at = head;
        for (int s = 0; s < R->size_of(v); ++s) {
            int src = R->member(v, s);
            x.work->copy(x.recv_block(src), stages[v].data() + at, x.recvbytes[src]);
            at += x.recvbytes[src];
        }
    }
    return mismatch;
}

}  // namespace

int parlinna_coalesced(const Exchange &x) { return parlinna(x, true); }
int parlinna_coalesced_agreeing(const Exchange &x, std::uint64_t *maxima, int count)
{
    return parlinna(x, true, maxima, count);
}
int parlinna_staggered(const Exchange &x) { return parlinna(x, false); }

}  // namespace mpix
