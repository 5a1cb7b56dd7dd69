// ParLinNa. Phase 1: ParLogNa over the node communicator, where the block for
// local rank j carries this rank's blocks for every rank whose local index is
// j (mod this node's size, so uneven nodes still have a relay). Phase 2: the
// relay of local index j sends each remote destination d with index(d) = j
// (mod node size) the blocks of the whole node for d. Receivers know their
// sizes (recvbytes); relays learn theirs from a metadata exchange before phase 1.
#include "alltoallv/parlinna.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "alltoallv/direct.hpp"
#include "alltoallv/parlogna.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/scratch.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

struct Pending {
    long long window;
    int peer;
    const char *send;  // send, or
    char *recv;        // receive
    std::size_t bytes;
};

int parlinna(const Exchange &x, bool coalesced)
{
    const Regions *R = nullptr;
    MPI_Comm local = MPI_COMM_NULL;
    MPIX_CHECK(get_regions(x.xcomm, Locality::node, &R));
    MPIX_CHECK(get_region_comms(x.xcomm, Locality::node, &local, nullptr));
    const int g = R->my_region, me_i = R->my_index, n = R->size_of(g), N = R->count;
    const int me = x.rank;

    // dests[j]: ranks relayed by my local index j, by (node, index).
    std::vector<std::vector<int>> dests(n);
    for (int v = 0; v < N; ++v)
        for (int k = 0; k < R->size_of(v); ++k)
            dests[k % n].push_back(R->member(v, k));
    const std::vector<int> &mine = dests[me_i];

    // Sub-exchange layout: send blocks for dests[j] packed in order.
    std::vector<std::size_t> sub_sbytes(n, 0), sub_rbytes(n, 0);
    std::vector<MPI_Aint> sub_sdispls(n, 0), sub_rdispls(n, 0);
    std::size_t total = 0;
    for (int j = 0; j < n; ++j) {
        sub_sdispls[j] = static_cast<MPI_Aint>(total);
        for (int d : dests[j])
            sub_sbytes[j] += x.sendbytes[d];
        total += sub_sbytes[j];
    }
    ScratchBytes sub_send;
    if (!sub_send.resize(total))
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < n; ++j) {
        std::size_t at = static_cast<std::size_t>(sub_sdispls[j]);
        for (int d : dests[j]) {
            if (x.sendbytes[d])
                std::memcpy(sub_send.data() + at, x.send_block(d), x.sendbytes[d]);
            at += x.sendbytes[d];
        }
    }

    // Metadata: sizes[s][k] = bytes from local s for mine[k] (alltoall: known).
    std::vector<std::vector<std::uint64_t>> sizes(n, std::vector<std::uint64_t>(mine.size(), x.block_bytes));
    if (!x.uniform) {
        std::vector<std::vector<std::uint64_t>> out(n);
        std::vector<MPI_Request> reqs;
        for (int s = 0; s < n; ++s) {
            if (s == me_i || mine.empty())
                continue;
            reqs.emplace_back();
            MPIX_CHECK(irecv_bytes(sizes[s].data(), mine.size() * sizeof(std::uint64_t), R->member(g, s), x.tag + 1,
                                   x.comm, &reqs.back()));
        }
        for (int j = 0; j < n; ++j) {
            for (int d : dests[j])
                out[j].push_back(x.sendbytes[d]);
            if (j == me_i) {
                sizes[j] = out[j];
                continue;
            }
            if (out[j].empty())
                continue;
            reqs.emplace_back();
            MPIX_CHECK(isend_bytes(out[j].data(), out[j].size() * sizeof(std::uint64_t), R->member(g, j), x.tag + 1,
                                   x.comm, &reqs.back()));
        }
        MPIX_CHECK(wait_all(static_cast<int>(reqs.size()), reqs.data()));
    }
    total = 0;
    for (int s = 0; s < n; ++s) {
        sub_rdispls[s] = static_cast<MPI_Aint>(total);
        for (std::uint64_t b : sizes[s])
            sub_rbytes[s] += static_cast<std::size_t>(b);
        total += sub_rbytes[s];
    }
    ScratchBytes sub_recv;
    if (!sub_recv.resize(total))
        return MPI_ERR_NO_MEM;

    // Phase 1: ParLogNa on the node communicator, radix clamped to 2..ppn.
    Hints sub_hints = *x.hints;
    if (sub_hints.radix != 0)
        sub_hints.radix = std::max(2, std::min(sub_hints.radix, n));
    Exchange sub = with_buffers(x, sub_send.data(), sub_sbytes.data(), sub_sdispls.data(), sub_recv.data(),
                                sub_rbytes.data(), sub_rdispls.data());
    sub.comm = local;
    sub.size = n;
    sub.rank = me_i;
    sub.uniform = false;
    sub.block_bytes = 0;
    sub.hints = &sub_hints;
    sub.trace = nullptr;
    if (n > 1) {
        MPIX_CHECK(parlogna(sub));
    } else if (sub_rbytes[0]) {
        std::memcpy(sub_recv.data(), sub_send.data(), sub_rbytes[0]);
    }

    // where[s][k]: block from local s for mine[k] inside sub_recv.
    std::vector<std::vector<const char *>> where(n, std::vector<const char *>(mine.size()));
    for (int s = 0; s < n; ++s) {
        const char *at = sub_recv.data() + sub_rdispls[s];
        for (std::size_t k = 0; k < mine.size(); ++k) {
            where[s][k] = at;
            at += sizes[s][k];
        }
    }

    // Blocks for myself from my node arrived in phase 1.
    for (std::size_t k = 0; k < mine.size(); ++k) {
        if (mine[k] != me)
            continue;
        for (int s = 0; s < n; ++s) {
            int src = R->member(g, s);
            if (sizes[s][k] > x.recvbytes[src])
                return MPI_ERR_TRUNCATE;
            if (sizes[s][k])
                std::memcpy(x.recv_block(src), where[s][k], sizes[s][k]);
        }
    }
    if (N == 1)
        return MPI_SUCCESS;

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
    std::vector<ScratchBytes> packs;
    packs.reserve(mine.size() + N);
    for (std::size_t k = 0; k < mine.size(); ++k) {
        int d = mine[k], v = R->region_of[d];
        if (v == g)
            continue;
        long long step = dist(g, v) - 1;
        if (coalesced) {
            std::size_t bytes = 0;
            for (int s = 0; s < n; ++s)
                bytes += sizes[s][k];
            if (!bytes)
                continue;
            packs.emplace_back();
            if (!packs.back().resize(bytes))  // nothing of phase 2 is posted yet
                return MPI_ERR_NO_MEM;
            std::size_t at = 0;
            for (int s = 0; s < n; ++s) {
                if (sizes[s][k])
                    std::memcpy(packs.back().data() + at, where[s][k], sizes[s][k]);
                at += sizes[s][k];
            }
            ops.push_back(Pending{window(step, 0), d, packs.back().data(), nullptr, bytes});
        } else {
            for (int s = 0; s < n; ++s)
                if (sizes[s][k])
                    ops.push_back(Pending{window(step, s), d, where[s][k], nullptr, sizes[s][k]});
        }
    }
    std::vector<ScratchBytes> stages(N);
    for (int v = 0; v < N; ++v) {
        if (v == g)
            continue;
        int nv = R->size_of(v);
        int relay = R->member(v, me_i % nv);
        long long step = dist(v, g) - 1;
        if (coalesced) {
            std::size_t bytes = 0;
            for (int s = 0; s < nv; ++s)
                bytes += x.recvbytes[R->member(v, s)];
            if (!bytes)
                continue;
            char *into;
            if (nv == 1) {
                into = x.recv_block(R->member(v, 0));
            } else {
                if (!stages[v].resize(bytes))
                    return MPI_ERR_NO_MEM;
                into = stages[v].data();
            }
            ops.push_back(Pending{window(step, 0), relay, nullptr, into, bytes});
        } else {
            for (int s = 0; s < nv; ++s) {
                int src = R->member(v, s);
                if (x.recvbytes[src])
                    ops.push_back(Pending{window(step, s), relay, nullptr, x.recv_block(src), x.recvbytes[src]});
            }
        }
    }
    // Stable: within a window, receives first, and per peer in posting order.
    std::stable_sort(ops.begin(), ops.end(), [](const Pending &a, const Pending &b) {
        return a.window != b.window ? a.window < b.window : (a.recv != nullptr) > (b.recv != nullptr);
    });
    std::vector<MPI_Request> reqs;
    for (std::size_t first = 0; first < ops.size();) {
        std::size_t last = first;
        reqs.clear();
        for (; last < ops.size() && ops[last].window == ops[first].window; ++last) {
            const Pending &o = ops[last];
            reqs.emplace_back();
            if (o.recv)
                MPIX_CHECK(irecv_bytes(o.recv, o.bytes, o.peer, x.tag + 2, x.comm, &reqs.back()));
            else
                MPIX_CHECK(isend_bytes(o.send, o.bytes, o.peer, x.tag + 2, x.comm, &reqs.back()));
        }
        MPIX_CHECK(wait_all(static_cast<int>(reqs.size()), reqs.data()));
        first = last;
    }
    // Coalesced messages from nodes of several ranks: scatter to rdispls.
    for (int v = 0; v < N; ++v) {
        if (stages[v].size() == 0)
            continue;
        std::size_t at = 0;
        for (int s = 0; s < R->size_of(v); ++s) {
            int src = R->member(v, s);
            if (x.recvbytes[src])
                std::memcpy(x.recv_block(src), stages[v].data() + at, x.recvbytes[src]);
            at += x.recvbytes[src];
        }
    }
    return MPI_SUCCESS;
}

}  // namespace

int parlinna_coalesced(const Exchange &x) { return parlinna(x, true); }
int parlinna_staggered(const Exchange &x) { return parlinna(x, false); }

}  // namespace mpix
