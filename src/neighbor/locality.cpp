// `locality`: MPI Advance's locality-aware neighbour exchange. Blocks for ranks
// of this node go directly. Blocks for another node M travel as one message per
// node pair: (1) each rank gathers what it sends to M at this node's relay for M,
// (2) that relay sends one message to M's relay for this node, (3) which scatters
// the blocks to their destinations on M. Relays are spread over a node's ranks
// (the relay of node S for node M is S's member M mod |S|), so no rank carries
// every node pair. Every route and size is agreed once at build time, by
// metadata travelling along the same routes; a start then only copies and posts.
// With global element indices, a value this rank sends to several ranks of M
// crosses the network once; M's relay duplicates it while scattering.
// Traced rounds (hint `trace`): 0 the direct blocks inside the node and the
// gathers at the relays, 1 between relays, 2 the scatter; every row lists the
// edges (source * P + destination) its message carries.
#include <algorithm>
#include <climits>
#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "neighbor/neighbor.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

// Offsets from the plan's tag: data phases, then the build's metadata.
enum TagOffset { kDirect = 0, kGather = 1, kNodePair = 2, kScatter = 3, kMetaGather = 4, kMetaPair = 5, kMetaScatter = 6 };

using Meta = std::vector<long long>;

// What one source rank sends to one remote node: units (a whole block, or with
// indices one distinct element) and, per block, the units it is made of.
struct Segment {
    int src = 0;
    std::vector<long long> unit_bytes;
    struct Block {
        int dst;
        std::vector<long long> units;
    };
    std::vector<Block> blocks;

    std::size_t total_bytes() const
    {
        std::size_t t = 0;
        for (long long b : unit_bytes)
            t += static_cast<std::size_t>(b);
        return t;
    }
    void put(Meta &m, int node) const
    {
        m.push_back(node);
        m.push_back(src);
        m.push_back(static_cast<long long>(unit_bytes.size()));
        m.insert(m.end(), unit_bytes.begin(), unit_bytes.end());
        m.push_back(static_cast<long long>(blocks.size()));
        for (const Block &b : blocks) {
            m.push_back(b.dst);
            m.push_back(static_cast<long long>(b.units.size()));
            m.insert(m.end(), b.units.begin(), b.units.end());
        }
    }
    // Reads one segment written by put() at *at, advancing it; returns its node.
    int take(const Meta &m, std::size_t *at)
    {
        std::size_t i = *at;
        const int node = static_cast<int>(m[i++]);
        src = static_cast<int>(m[i++]);
        const std::size_t units = static_cast<std::size_t>(m[i++]);
        unit_bytes.assign(m.begin() + i, m.begin() + i + units);
        i += units;
        const std::size_t nblocks = static_cast<std::size_t>(m[i++]);
        blocks.resize(nblocks);
        for (Block &b : blocks) {
            b.dst = static_cast<int>(m[i++]);
            const std::size_t n = static_cast<std::size_t>(m[i++]);
            b.units.assign(m.begin() + i, m.begin() + i + n);
            i += n;
        }
        *at = i;
        return node;
    }
};

struct Copy {
    const char *from;
    char *to;
    std::size_t bytes;
};

// A block arrived at its destination: copied into its receive block, checked.
struct Delivery {
    const char *from;
    std::size_t sent;
    char *to;
    std::size_t capacity;
};

// Sends each target's metadata and receives each source's, lengths agreed by
// one MPI_Alltoall (used only while building; the data phases need none).
int exchange_meta(MPI_Comm comm, int size, int tag, const std::map<int, Meta> &out, std::map<int, Meta> *in)
{
    std::vector<int> send_counts(size, 0), recv_counts(size, 0);
    for (const auto &t : out) {
        if (t.second.size() > INT_MAX)
            return MPI_ERR_COUNT;
        send_counts[t.first] = static_cast<int>(t.second.size());
    }
    MPIX_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm));
    std::vector<MPI_Request> requests;
    for (int q = 0; q < size; ++q)
        if (recv_counts[q] > 0) {
            Meta &m = (*in)[q];
            m.resize(recv_counts[q]);
            requests.push_back(MPI_REQUEST_NULL);
            MPIX_CHECK(MPI_Irecv(m.data(), recv_counts[q], MPI_LONG_LONG, q, tag, comm, &requests.back()));
        }
    for (const auto &t : out)
        if (!t.second.empty()) {
            requests.push_back(MPI_REQUEST_NULL);
            MPIX_CHECK(MPI_Isend(t.second.data(), static_cast<int>(t.second.size()), MPI_LONG_LONG, t.first, tag,
                                 comm, &requests.back()));
        }
    return MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

class LocalityPlan : public NeighborPlan {
public:
    ~LocalityPlan() override
    {
        for (auto *group : {&direct_recv_, &gather_recv_, &pair_recv_, &scatter_recv_, &direct_send_, &gather_send_,
                            &pair_send_, &scatter_send_})
            free_requests(*group);
    }

    int build(const NeighborExchange &x);

    int start() override
    {
        mismatch = MPI_SUCCESS;
        copy_all(pack_);
        for (auto *group : {&direct_recv_, &gather_recv_, &pair_recv_, &scatter_recv_, &direct_send_, &gather_send_})
            MPIX_CHECK(start_in_order(*group));
        stage_ = Stage::gathering;
        return MPI_SUCCESS;
    }
    int test(bool *done) override { return advance(false, done); }
    int wait() override
    {
        bool done = false;
        return advance(true, &done);
    }

private:
    enum class Stage { gathering, pairing, scattering, direct, sending, done };

    // Runs the stages whose messages have arrived (all of them when blocking):
    // each relay forwards as soon as its inputs are complete.
    int advance(bool blocking, bool *done)
    {
        bool complete = true;
        if (stage_ == Stage::gathering) {
            MPIX_CHECK(complete_requests(gather_recv_, nullptr, blocking, &complete, &mismatch));
            if (!complete)
                return not_yet(done);
            MPIX_CHECK(start_in_order(pair_send_));
            stage_ = Stage::pairing;
        }
        if (stage_ == Stage::pairing) {
            MPIX_CHECK(complete_requests(pair_recv_, nullptr, blocking, &complete, &mismatch));
            if (!complete)
                return not_yet(done);
            copy_all(fill_);
            MPIX_CHECK(start_in_order(scatter_send_));
            stage_ = Stage::scattering;
        }
        if (stage_ == Stage::scattering) {
            MPIX_CHECK(complete_requests(scatter_recv_, nullptr, blocking, &complete, &mismatch));
            if (!complete)
                return not_yet(done);
            deliver();
            stage_ = Stage::direct;
        }
        if (stage_ == Stage::direct) {
            MPIX_CHECK(complete_requests(direct_recv_, direct_posted_.data(), blocking, &complete, &mismatch));
            if (!complete)
                return not_yet(done);
            stage_ = Stage::sending;
        }
        if (stage_ == Stage::sending) {
            for (auto *group : {&direct_send_, &gather_send_, &pair_send_, &scatter_send_}) {
                MPIX_CHECK(complete_requests(*group, nullptr, blocking, &complete, &mismatch));
                if (!complete)
                    return not_yet(done);
            }
            stage_ = Stage::done;
        }
        *done = true;
        return MPI_SUCCESS;
    }
    static int not_yet(bool *done)
    {
        *done = false;
        return MPI_SUCCESS;
    }
    void copy_all(const std::vector<Copy> &copies)
    {
        LocalWork::Batch batch(work_);
        for (const Copy &c : copies)
            work_->copy(c.to, c.from, c.bytes);
    }
    void deliver()
    {
        LocalWork::Batch batch(work_);
        for (const Delivery &d : deliveries_) {
            work_->copy(d.to, d.from, std::min(d.sent, d.capacity));
            if (d.sent != d.capacity && mismatch == MPI_SUCCESS)
                mismatch = d.sent > d.capacity ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT;
        }
    }
    // A staging buffer whose address stays put (a deque never moves its elements).
    char *buffer(std::size_t bytes)
    {
        buffers_.emplace_back(bytes > 0 ? bytes : 1);
        return buffers_.back().data();
    }
    int recv_init(std::vector<MPI_Request> *group, char *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm)
    {
        if (bytes > INT_MAX)
            return MPI_ERR_COUNT;
        group->push_back(MPI_REQUEST_NULL);
        return MPI_Recv_init(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, comm, &group->back());
    }
    int send_init(std::vector<MPI_Request> *group, const char *buf, std::size_t bytes, int peer, int tag,
                  MPI_Comm comm)
    {
        if (bytes > INT_MAX)
            return MPI_ERR_COUNT;
        group->push_back(MPI_REQUEST_NULL);
        return MPI_Send_init(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, comm, &group->back());
    }

    std::vector<MPI_Request> direct_recv_, gather_recv_, pair_recv_, scatter_recv_;
    std::vector<MPI_Request> direct_send_, gather_send_, pair_send_, scatter_send_;
    std::vector<std::size_t> direct_posted_;
    std::vector<Copy> pack_;   // at start: send blocks -> gather messages
    std::vector<Copy> fill_;   // at the destination node's relay: node-pair message -> scatter messages
    std::vector<Delivery> deliveries_;
    std::deque<std::vector<char>> buffers_;
    Stage stage_ = Stage::done;
    LocalWork *work_ = nullptr;  // the comm's: where the relays' copies are counted
};

int LocalityPlan::build(const NeighborExchange &x)
{
    work_ = &x.xcomm->work;
    const Regions *nodes = nullptr;
    MPIX_CHECK(get_regions(x.xcomm, Locality::node, &nodes));
    const int me = x.rank, size = x.xcomm->size, my_node = nodes->my_region;
    const MPI_Comm comm = x.comm;
    const std::vector<int> &sources = x.topo->sources, &destinations = x.topo->destinations;
    auto node_of = [&](int rank) { return nodes->region_of[rank]; };
    // The rank of node `at` that relays its traffic with node `peer`.
    auto relay = [&](int at, int peer) { return nodes->member(at, peer % nodes->size_of(at)); };
    // A traced message (none to myself: a local copy).
    auto traced = [&](int round, int to, int from, std::vector<long long> blocks, std::size_t bytes) {
        if (x.traced && (to >= 0 ? to : from) != me)
            trace_rows.push_back(NeighborTraceRow{round, to, from, std::move(blocks), to >= 0 ? bytes : 0,
                                                  to >= 0 ? 0 : bytes});
    };
    auto edges = [&](const Segment &s, std::vector<long long> *out) {
        for (const Segment::Block &b : s.blocks)
            out->push_back(static_cast<long long>(s.src) * size + b.dst);
    };

    // Blocks inside this node go directly, as in `standard`.
    for (std::size_t j = 0; j < sources.size(); ++j)
        if (node_of(sources[j]) == my_node) {
            direct_posted_.push_back(x.recvbytes[j]);
            MPIX_CHECK(recv_init(&direct_recv_, x.recvbuf + x.rdispls[j], x.recvbytes[j], sources[j],
                                 x.tag + kDirect, comm));
            traced(0, -1, sources[j], {static_cast<long long>(sources[j]) * size + me}, x.recvbytes[j]);
        }
    for (std::size_t i = 0; i < destinations.size(); ++i)
        if (node_of(destinations[i]) == my_node) {
            MPIX_CHECK(send_init(&direct_send_, x.sendbuf + x.sdispls[i], x.sendbytes[i], destinations[i],
                                 x.tag + kDirect, comm));
            traced(0, destinations[i], -1, {static_cast<long long>(me) * size + destinations[i]}, x.sendbytes[i]);
        }

    // (1) This rank's segment per remote node, and where each unit comes from.
    std::map<int, Segment> mine;
    std::map<int, std::vector<MPI_Aint>> unit_from;  // per node: offset of each unit in the send view
    std::map<int, std::unordered_map<long long, long long>> unit_of_index;
    std::size_t first_element = 0;  // of block i in x.sindices
    for (std::size_t i = 0; i < destinations.size(); ++i) {
        const std::size_t elements = x.sindices ? x.sendbytes[i] / x.send_elem_bytes : 0;
        const int node = node_of(destinations[i]);
        if (node != my_node) {
            Segment &s = mine[node];
            s.src = me;
            Segment::Block block{destinations[i], {}};
            std::vector<MPI_Aint> &from = unit_from[node];
            if (!x.sindices) {
                block.units.push_back(static_cast<long long>(s.unit_bytes.size()));
                s.unit_bytes.push_back(static_cast<long long>(x.sendbytes[i]));
                from.push_back(x.sdispls[i]);
            } else {
                auto &units = unit_of_index[node];
                for (std::size_t e = 0; e < elements; ++e) {
                    auto found = units.emplace(x.sindices[first_element + e], static_cast<long long>(s.unit_bytes.size()));
                    if (found.second) {
                        s.unit_bytes.push_back(static_cast<long long>(x.send_elem_bytes));
                        from.push_back(x.sdispls[i] + static_cast<MPI_Aint>(e * x.send_elem_bytes));
                    }
                    block.units.push_back(found.first->second);
                }
            }
            s.blocks.push_back(std::move(block));
        }
        first_element += elements;
    }
    std::map<int, Meta> meta_out, meta_in;
    for (const auto &entry : mine) {
        const int node = entry.first;
        const Segment &s = entry.second;
        char *gather = buffer(s.total_bytes());
        std::size_t at = 0;
        for (std::size_t u = 0; u < s.unit_bytes.size(); ++u) {
            pack_.push_back(Copy{x.sendbuf + unit_from[node][u], gather + at, static_cast<std::size_t>(s.unit_bytes[u])});
            at += static_cast<std::size_t>(s.unit_bytes[u]);
        }
        const int to = relay(my_node, node);
        MPIX_CHECK(send_init(&gather_send_, gather, at, to, x.tag + kGather, comm));
        if (x.traced) {
            std::vector<long long> ids;
            edges(s, &ids);
            traced(0, to, -1, std::move(ids), at);
        }
        s.put(meta_out[to], node);
    }
    MPIX_CHECK(exchange_meta(comm, size, x.tag + kMetaGather, meta_out, &meta_in));

    // (2) As this node's relay: the segments per remote node, sources ascending,
    // land back to back in the node-pair message.
    std::map<int, std::vector<Segment>> to_node;
    for (const auto &m : meta_in)
        for (std::size_t at = 0; at < m.second.size();) {
            Segment s;
            const int node = s.take(m.second, &at);
            to_node[node].push_back(std::move(s));
        }
    meta_out.clear();
    meta_in.clear();
    for (const auto &entry : to_node) {
        std::size_t total = 0;
        for (const Segment &s : entry.second)
            total += s.total_bytes();
        char *pair = buffer(total);
        std::size_t at = 0;
        Meta &meta = meta_out[relay(entry.first, my_node)];
        std::vector<long long> pair_ids;
        for (const Segment &s : entry.second) {
            MPIX_CHECK(recv_init(&gather_recv_, pair + at, s.total_bytes(), s.src, x.tag + kGather, comm));
            at += s.total_bytes();
            s.put(meta, entry.first);
            if (x.traced) {
                std::vector<long long> ids;
                edges(s, &ids);
                pair_ids.insert(pair_ids.end(), ids.begin(), ids.end());
                traced(0, -1, s.src, std::move(ids), s.total_bytes());
            }
        }
        MPIX_CHECK(send_init(&pair_send_, pair, total, relay(entry.first, my_node), x.tag + kNodePair, comm));
        traced(1, relay(entry.first, my_node), -1, std::move(pair_ids), total);
        internode_bytes += total;
    }
    MPIX_CHECK(exchange_meta(comm, size, x.tag + kMetaPair, meta_out, &meta_in));

    // (3) As the relay of this node for each source node: split the node-pair
    // message into one message per destination rank, blocks ordered by
    // (source, occurrence) as the destination lists them.
    std::map<int, std::pair<int, std::vector<Segment>>> from_node;  // node -> (its relay, segments)
    for (const auto &m : meta_in) {
        auto &slot = from_node[node_of(m.first)];
        slot.first = m.first;
        for (std::size_t at = 0; at < m.second.size();) {
            Segment s;
            s.take(m.second, &at);
            slot.second.push_back(std::move(s));
        }
    }
    std::vector<MPI_Request> meta_requests;
    std::deque<Meta> meta_sent;  // block sizes per scatter message, alive until sent
    for (const auto &entry : from_node) {
        const std::vector<Segment> &segments = entry.second.second;
        std::size_t total = 0;
        for (const Segment &s : segments)
            total += s.total_bytes();
        char *pair = buffer(total);
        MPIX_CHECK(recv_init(&pair_recv_, pair, total, entry.second.first, x.tag + kNodePair, comm));
        std::map<int, std::vector<long long>> ids_for;  // destination -> the edges scattered to it
        if (x.traced) {
            std::vector<long long> ids;
            for (const Segment &s : segments) {
                edges(s, &ids);
                for (const Segment::Block &b : s.blocks)
                    ids_for[b.dst].push_back(static_cast<long long>(s.src) * size + b.dst);
            }
            traced(1, -1, entry.second.first, std::move(ids), total);
        }
        struct Piece {
            const char *from;
            std::size_t bytes;
        };
        std::map<int, std::vector<std::vector<Piece>>> blocks_for;  // destination -> its blocks in order
        std::size_t base = 0;
        for (const Segment &s : segments) {
            std::vector<std::size_t> offset(s.unit_bytes.size());
            std::size_t at = base;
            for (std::size_t u = 0; u < s.unit_bytes.size(); ++u) {
                offset[u] = at;
                at += static_cast<std::size_t>(s.unit_bytes[u]);
            }
            for (const Segment::Block &b : s.blocks) {
                std::vector<Piece> pieces;
                for (long long u : b.units)
                    pieces.push_back(Piece{pair + offset[u], static_cast<std::size_t>(s.unit_bytes[u])});
                blocks_for[b.dst].push_back(std::move(pieces));
            }
            base = at;
        }
        for (const auto &dest : blocks_for) {
            meta_sent.emplace_back();
            Meta &sizes = meta_sent.back();
            std::size_t bytes = 0;
            for (const auto &pieces : dest.second) {
                std::size_t block_bytes = 0;
                for (const Piece &p : pieces)
                    block_bytes += p.bytes;
                sizes.push_back(static_cast<long long>(block_bytes));
                bytes += block_bytes;
            }
            char *scatter = buffer(bytes);
            std::size_t at = 0;
            for (const auto &pieces : dest.second)
                for (const Piece &p : pieces) {
                    fill_.push_back(Copy{p.from, scatter + at, p.bytes});
                    at += p.bytes;
                }
            MPIX_CHECK(send_init(&scatter_send_, scatter, bytes, dest.first, x.tag + kScatter, comm));
            traced(2, dest.first, -1, ids_for[dest.first], bytes);
            meta_requests.push_back(MPI_REQUEST_NULL);
            MPIX_CHECK(MPI_Isend(sizes.data(), static_cast<int>(sizes.size()), MPI_LONG_LONG, dest.first,
                                 x.tag + kMetaScatter, comm, &meta_requests.back()));
        }
    }

    // As a destination: from each remote source node, one message from this
    // node's relay for it, holding my blocks from that node by (source, occurrence).
    std::map<int, std::vector<std::size_t>> in_blocks;  // source node -> my receive blocks
    for (std::size_t j = 0; j < sources.size(); ++j)
        if (node_of(sources[j]) != my_node)
            in_blocks[node_of(sources[j])].push_back(j);
    std::deque<Meta> sizes_in;
    for (auto &entry : in_blocks) {
        std::stable_sort(entry.second.begin(), entry.second.end(),
                         [&](std::size_t a, std::size_t b) { return sources[a] < sources[b]; });
        sizes_in.emplace_back(entry.second.size());
        meta_requests.push_back(MPI_REQUEST_NULL);
        MPIX_CHECK(MPI_Irecv(sizes_in.back().data(), static_cast<int>(entry.second.size()), MPI_LONG_LONG,
                             relay(my_node, entry.first), x.tag + kMetaScatter, comm, &meta_requests.back()));
    }
    MPIX_CHECK(MPI_Waitall(static_cast<int>(meta_requests.size()), meta_requests.data(), MPI_STATUSES_IGNORE));
    auto sizes = sizes_in.begin();
    for (const auto &entry : in_blocks) {
        std::size_t total = 0;
        for (long long b : *sizes)
            total += static_cast<std::size_t>(b);
        char *scatter = buffer(total);
        MPIX_CHECK(recv_init(&scatter_recv_, scatter, total, relay(my_node, entry.first), x.tag + kScatter, comm));
        if (x.traced) {
            std::vector<long long> ids;
            for (std::size_t j : entry.second)
                ids.push_back(static_cast<long long>(sources[j]) * size + me);
            traced(2, -1, relay(my_node, entry.first), std::move(ids), total);
        }
        std::size_t at = 0;
        for (std::size_t k = 0; k < entry.second.size(); ++k) {
            const std::size_t j = entry.second[k];
            const std::size_t sent = static_cast<std::size_t>((*sizes)[k]);
            deliveries_.push_back(Delivery{scatter + at, sent, x.recvbuf + x.rdispls[j], x.recvbytes[j]});
            at += sent;
        }
        ++sizes;
    }
    return MPI_SUCCESS;
}

}  // namespace

int neighbor_locality_plan(const NeighborExchange &x, std::unique_ptr<NeighborPlan> *plan)
{
    std::unique_ptr<LocalityPlan> p(new LocalityPlan());
    MPIX_CHECK(p->build(x));
    *plan = std::move(p);
    return MPI_SUCCESS;
}

}  // namespace mpix
