// `personalized_locality`, `nonblocking_locality`: node-aware aggregation. Every
// message for one node travels in one message to the rank with my local index
// there (or, on a smaller node, an existing rank: index modulo the node's size),
// which redistributes inside its node with a second sparse exchange over the
// node communicator. Messages between nodes per rank drop from "destinations" to
// "destination nodes". Messages carry headers: count, then (rank, bytes) pairs.
// Traced rounds: 0 the aggregates between nodes, 1 the redistribution inside
// the node; each row lists the messages (source * P + destination) it carries.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "sparse/sparse.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

// A piece travelling inside an aggregate: from `src` (global rank) to `dest`.
struct Piece {
    int src, dest;
    const char *data;
    std::size_t bytes;
};

// Serialises pieces[first..last) into one buffer; `key` picks the rank each header
// names. False when out of memory.
template <class Key>
bool pack_pieces(const std::vector<Piece> &pieces, std::size_t first, std::size_t last, Key key,
                 LocalWork *work, ScratchBytes *out)
{
    std::uint64_t k = last - first;
    std::size_t total = sizeof(k) + k * 2 * sizeof(std::uint64_t);
    for (std::size_t i = first; i < last; ++i)
        total += pieces[i].bytes;
    if (!out->resize(total))
        return false;
    char *p = out->data();
    std::memcpy(p, &k, sizeof(k));
    p += sizeof(k);
    for (std::size_t i = first; i < last; ++i) {
        std::int64_t who = key(pieces[i]);
        std::uint64_t n = pieces[i].bytes;
        std::memcpy(p, &who, sizeof(who));
        std::memcpy(p + sizeof(who), &n, sizeof(n));
        p += sizeof(who) + sizeof(n);
    }
    LocalWork::Batch batch(work);
    for (std::size_t i = first; i < last; ++i) {
        work->copy(p, pieces[i].data, pieces[i].bytes);
        p += pieces[i].bytes;
    }
    return true;
}

// Reads an aggregate back; fn(rank named in the header, data, bytes) per piece.
template <class Fn>
int unpack_pieces(const char *buf, std::size_t bytes, Fn fn)
{
    std::uint64_t k = 0;
    if (bytes < sizeof(k))
        return MPI_ERR_INTERN;
    std::memcpy(&k, buf, sizeof(k));
    std::size_t head = sizeof(k) + k * 2 * sizeof(std::uint64_t);
    if (head > bytes)
        return MPI_ERR_INTERN;
    const char *h = buf + sizeof(k);
    const char *d = buf + head;
    for (std::uint64_t i = 0; i < k; ++i) {
        std::int64_t who = 0;
        std::uint64_t n = 0;
        std::memcpy(&who, h, sizeof(who));
        std::memcpy(&n, h + sizeof(who), sizeof(n));
        h += sizeof(who) + sizeof(n);
        if (d + n > buf + bytes)
            return MPI_ERR_INTERN;
        fn(static_cast<int>(who), d, static_cast<std::size_t>(n));
        d += n;
    }
    return MPI_SUCCESS;
}

}  // namespace

int locality_exchange(const SparseExchange &x, InnerExchange inner)
{
    const Regions *reg = nullptr;
    MPIX_CHECK(get_regions(x.xcomm, x.hints->locality, &reg));
    MPI_Comm local = MPI_COMM_NULL, cross = MPI_COMM_NULL;
    MPIX_CHECK(get_region_comms(x.xcomm, x.hints->locality, &local, &cross));

    // Phase 1: one aggregate per other node, to my counterpart there.
    std::vector<Piece> mine, remote;
    for (const SparseMessage &m : x.sends) {
        Piece pc{x.rank, m.dest, m.data, m.bytes};
        (reg->region_of[m.dest] == reg->my_region ? mine : remote).push_back(pc);
    }
    std::stable_sort(remote.begin(), remote.end(),
                     [&](const Piece &a, const Piece &b) { return reg->region_of[a.dest] < reg->region_of[b.dest]; });
    ScratchStore agg1(&x.xcomm->scratch);  // the aggregates: warm buffers of the calls before
    std::vector<SparseMessage> sends1;
    for (std::size_t i = 0; i < remote.size();) {
        int r = reg->region_of[remote[i].dest];
        std::size_t j = i;
        while (j < remote.size() && reg->region_of[remote[j].dest] == r)
            ++j;
        agg1.emplace_back();
        if (!pack_pieces(remote, i, j, [](const Piece &p) { return p.dest; }, &x.xcomm->work, &agg1.back()))
            return MPI_ERR_NO_MEM;
        int n = reg->size_of(r);
        int to = reg->member(r, reg->my_index < n ? reg->my_index : reg->my_index % n);
        sends1.push_back(SparseMessage{to, nullptr, 0});
        i = j;
    }
    const long long P = x.size;
    std::vector<long long> ids;
    for (std::size_t i = 0, first = 0; i < sends1.size(); ++i) {
        sends1[i].data = agg1[i].data();
        sends1[i].bytes = agg1[i].size();
        if (x.trace) {  // the pieces of aggregate i: remote[first..) while bound for its node
            ids.clear();
            const int r = reg->region_of[remote[first].dest];
            for (; first < remote.size() && reg->region_of[remote[first].dest] == r; ++first)
                ids.push_back(x.rank * P + remote[first].dest);
            x.trace->round(0, sends1[i].dest, -1, ids, sends1[i].bytes, 0);
        }
    }
    SparseInbox in1(&x.xcomm->scratch);
    MPIX_CHECK(inner(x.comm, x.tag + 2, sends1, -1, &in1));

    // Phase 2: everything for my node (mine + what arrived), one aggregate per local rank.
    std::vector<Piece> pieces = mine;
    for (std::size_t i = 0; i < in1.count(); ++i) {
        int src = in1.source[i];
        ids.clear();
        MPIX_CHECK(unpack_pieces(in1.message(i), in1.bytes[i],
                                 [&](int dest, const char *d, std::size_t n) {
                                     pieces.push_back(Piece{src, dest, d, n});
                                     if (x.trace)
                                         ids.push_back(src * P + dest);
                                 }));
        if (x.trace)
            x.trace->round(0, -1, src, ids, 0, in1.bytes[i]);
    }
    for (const Piece &pc : pieces)
        if (reg->region_of[pc.dest] != reg->my_region)
            return MPI_ERR_INTERN;
    std::stable_sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) { return a.dest < b.dest; });
    ScratchStore agg2(&x.xcomm->scratch);
    std::vector<SparseMessage> sends2;
    for (std::size_t i = 0; i < pieces.size();) {
        std::size_t j = i;
        while (j < pieces.size() && pieces[j].dest == pieces[i].dest)
            ++j;
        agg2.emplace_back();
        if (!pack_pieces(pieces, i, j, [](const Piece &p) { return p.src; }, &x.xcomm->work, &agg2.back()))
            return MPI_ERR_NO_MEM;
        sends2.push_back(SparseMessage{reg->index_of[pieces[i].dest], nullptr, 0});
        i = j;
    }
    for (std::size_t i = 0, first = 0; i < sends2.size(); ++i) {
        sends2[i].data = agg2[i].data();
        sends2[i].bytes = agg2[i].size();
        if (x.trace) {  // the pieces of aggregate i; the one for myself is a local copy
            const int dest = pieces[first].dest;
            ids.clear();
            for (; first < pieces.size() && pieces[first].dest == dest; ++first)
                ids.push_back(pieces[first].src * P + dest);
            if (dest != x.rank)
                x.trace->round(1, dest, -1, ids, sends2[i].bytes, 0);
        }
    }
    SparseInbox in2(&x.xcomm->scratch);
    MPIX_CHECK(inner(local, x.tag + 4, sends2, -1, &in2));
    for (std::size_t i = 0; i < in2.count(); ++i) {
        ids.clear();
        bool room = true;
        MPIX_CHECK(unpack_pieces(in2.message(i), in2.bytes[i],
                                 [&](int src, const char *d, std::size_t n) {
                                     char *dst = nullptr;
                                     room = room && x.inbox->add(src, n, &dst);
                                     if (!room)
                                         return;
                                     x.xcomm->work.copy(dst, d, n);
                                     if (x.trace)
                                         ids.push_back(src * P + x.rank);
                                 }));
        if (!room)
            return MPI_ERR_NO_MEM;
        const int from = reg->member(reg->my_region, in2.source[i]);  // a local index in `local`
        if (x.trace && from != x.rank)
            x.trace->round(1, -1, from, ids, 0, in2.bytes[i]);
    }
    return MPI_SUCCESS;
}

}  // namespace mpix
