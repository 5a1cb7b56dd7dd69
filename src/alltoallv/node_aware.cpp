// Node-aware aggregation (Bienz et al.): redistribute inside the node so each rank
// holds its node's data for a subset of remote nodes, exchange one message per
// pair of nodes, redistribute again. locality_aware does the same between groups
// inside nodes (or sockets). The engine here also runs the leader-based variants.
#include "alltoallv/node_aware.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "alltoall/bruck.hpp"
#include "alltoallv/bundle_bruck.hpp"
#include "alltoallv/direct.hpp"
#include "core/wait.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/scratch.hpp"
#include "core/trace.hpp"

namespace mpix {

void build_relay_groups(RelayPlan *plan, int groups_per_unit)
{
    const Regions &u = *plan->units;
    int p = static_cast<int>(u.region_of.size());
    plan->lead_of.assign(p, 0);
    plan->group_pos.assign(p, 0);
    plan->group_size.assign(p, 0);
    plan->group.assign(p, {});
    plan->leaders.assign(u.count, {});
    plan->leader_pos.assign(p, -1);
    for (int g = 0; g < u.count; ++g) {
        int n = u.size_of(g);
        long long k = std::min<long long>(groups_per_unit < 1 ? 1 : groups_per_unit, n);
        for (int i = 0; i < n; ++i) {
            int r = u.member(g, i);
            // Group i * k / n; its lowest index is ceil(group * n / k).
            long long gid = static_cast<long long>(i) * k / n;
            int first = static_cast<int>((gid * n + k - 1) / k);
            int lead = u.member(g, first);
            plan->lead_of[r] = lead;
            plan->group_pos[r] = i - first;
            plan->group[lead].push_back(r);
            if (lead == r) {
                plan->leader_pos[r] = static_cast<int>(plan->leaders[g].size());
                plan->leaders[g].push_back(r);
            }
        }
    }
    plan->every_rank_leads = true;
    plan->largest_group = 1;
    for (int r = 0; r < p; ++r) {
        plan->group_size[r] = static_cast<int>(plan->group[plan->lead_of[r]].size());
        plan->largest_group = std::max(plan->largest_group, plan->group_size[r]);
        plan->every_rank_leads = plan->every_rank_leads && plan->group_size[r] == 1;
    }
}

void choose_relay_steps(RelayPlan *plan, RelaySteps steps)
{
    const Regions &u = *plan->units;
    plan->two_step = false;
    if (!plan->every_rank_leads || u.count < 2 || steps == RelaySteps::three)
        return;
    long long units = u.count, n = u.max_size;
    long long two = (units - 1) + (n - 1);
    long long three = 2 * (n - 1) + (units - 1 + n - 1) / n;
    plan->two_step = steps == RelaySteps::two || two <= three;
}

void split_regions(const Regions &nodes, int groups, int rank, Regions *out)
{
    int p = static_cast<int>(nodes.region_of.size());
    std::vector<long long> keys(p);
    for (int r = 0; r < p; ++r) {
        long long n = nodes.size_of(nodes.region_of[r]);
        long long k = std::min<long long>(groups < 1 ? 1 : groups, n);
        keys[r] = static_cast<long long>(nodes.region_of[r]) * 65536 + nodes.index_of[r] * k / n;
    }
    build_regions_from_keys(keys, rank, out);
}

namespace {

// A block s -> d held by this rank (bytes at data), on its way to d.
struct Item {
    int s, d;
    std::size_t bytes;
    const char *data;
};

// (s, d) order; an object, not a function, so that std::sort inlines it.
struct ItemLess {
    bool operator()(const Item &a, const Item &b) const { return a.s != b.s ? a.s < b.s : a.d < b.d; }
};
constexpr ItemLess item_less{};

// The order of a hop's messages' items, the same on both sides (default: item_less).
using ItemOrder = ItemLess;

int mod(int a, int m) { return ((a % m) + m) % m; }

// Tags of the binomial gather and scatter steps (x.tag + these + step); hops 0-5
// use x.tag + hop. kBinomialSteps each: groups of up to 2^24 ranks (larger ones
// gather linearly).
constexpr int kGatherTag = 8;
constexpr int kScatterTag = 32;
constexpr int kBinomialSteps = 24;
static_assert(kGatherTag + kBinomialSteps <= kScatterTag && kScatterTag + kBinomialSteps <= kAgreementTag,
              "relay tags overlap");
// A member's send buffer up to which the leaders gather and scatter binomially.
constexpr std::uint64_t kBinomialBytes = 16384;

// One message of a hop: its peer, the pairing step (pairwise inner) and its
// blocks in (s, d) order, the order both sides enumerate them in.
struct Message {
    int peer;
    int step;
    std::vector<Item> items;
};

// A hop's incoming messages, kept from hop to hop and call to call with their
// item lists' capacity: made fresh, every message's list was an allocation
// (node_aware: 33 a call and rank at 8 ranks in nodes of 4, 16 B).
class Inbox {
public:
    void clear() { used_ = 0; }
    // A message from `peer` at step 0 with no items (their capacity kept).
    Message &add(int peer)
    {
        if (used_ == kept_.size())
            kept_.emplace_back();
        Message &m = kept_[used_++];
        m.peer = peer;
        m.step = 0;
        m.items.clear();
        return m;
    }
    void drop_last() { --used_; }
    std::size_t size() const { return used_; }
    Message *data() { return kept_.data(); }
    Message &operator[](std::size_t i) { return kept_[i]; }
    Message *begin() { return kept_.data(); }
    Message *end() { return kept_.data() + used_; }
    const Message *begin() const { return kept_.data(); }
    const Message *end() const { return kept_.data() + used_; }

private:
    std::vector<Message> kept_;
    std::size_t used_ = 0;
};

// Traces one message of hop `hop` (the hop is the round): its blocks' global ids
// and its payload, as sent (to >= 0) or received (from >= 0).
void trace_message(const Exchange &x, int hop, int to, int from, const std::vector<Item> &items, std::size_t bytes)
{
    if (!x.trace)
        return;
    std::vector<long long> ids;
    ids.reserve(items.size());
    for (const Item &it : items)
        ids.push_back(static_cast<long long>(it.s) * x.size + it.d);
    x.trace->round(hop, to, from, ids, to >= 0 ? bytes : 0, from >= 0 ? bytes : 0);
}

// Where a message of final items can land in place: every item is for this
// rank and as long as its receive block, and their blocks, in the message's
// order (empty ones aside), are one range of the receive buffer. Returns the
// range's start, or nullptr (then the message lands in scratch and deliver
// copies it out: a second pass over every byte it brings).
char *final_range(const Exchange &x, const std::vector<Item> &items)
{
    char *start = nullptr, *end = nullptr;
    for (const Item &it : items) {
        if (it.d != x.rank || it.bytes != x.recvbytes[it.s])
            return nullptr;
        if (it.bytes == 0)
            continue;
        char *block = x.recv_block(it.s);
        if (start && block != end)
            return nullptr;
        if (!start)
            start = block;
        end = block + it.bytes;
    }
    return start;
}

}  // namespace

// The lists a hop fills and empties again, shared by a call's hops and kept on
// the cached plan from one call to the next (RelayPlan::spare_lists), so their
// capacity is reused: made fresh in every hop they were most of the about 100
// allocations a call of locality_aware made on one node of 8 ranks, 230 on 4 of 8.
struct RelayLists {
    std::vector<Item> kept;
    // A hop's messages first; those after them keep their items' capacity.
    std::vector<Message> outgoing;
    // rank -> its message in `outgoing` where that message's peer is the rank;
    // anything else (an earlier hop's, or -1) means none yet.
    std::vector<int> slot;
    std::vector<int> steps;
    std::vector<std::vector<unsigned char>> heads;
    RangeList message;
    std::vector<std::size_t> sizes, bytes, expected;
    std::vector<MPI_Request> reqs, probed_reqs;
    std::vector<Message *> probed;
    std::vector<int> peers;
    std::vector<char *> data;
    // Per probed message: where it may land in place (final_range), and its length.
    std::vector<char *> places;
    std::vector<std::size_t> place_bytes;
    struct KnownRecv {
        std::size_t req;
        char *data;
        std::size_t bytes;
    };
    std::vector<KnownRecv> known_recvs;
    Inbox inbox;             // the hop's incoming messages (one hop at a time)
    std::vector<Item> held;  // what this rank holds between hops
    // A call's received payloads and a step's packed sends (StoreForCall:
    // recycled from call to call).
    ScratchStore storage, packed;
};

RelayPlan::RelayPlan() = default;
RelayPlan::~RelayPlan() = default;

namespace {

struct HopIo {
    HopIo(const RelayPlan &p, ScratchPool *pool)
        : lists(&p.spare_lists), storage_for_call(&lists->storage, pool), storage(*storage_for_call)
    {
    }
    HopIo(const HopIo &) = delete;
    HopIo &operator=(const HopIo &) = delete;
    LeasedLists<RelayLists> lists;
    StoreForCall storage_for_call;
    ScratchStore &storage;  // received payloads (kept for the next hops)
    // A message of a length its receiver knew came with another: the items it
    // brought were zeroed, so what this rank forwards later goes empty (relay_length).
    int relayed_wrong = MPI_SUCCESS;
};

// What one incoming message of a hop brings, agreed at a persistent request's
// init: its items' lengths (as the receiver reads them) and the bytes its
// sender sends; they differ only where a block arriving home has the wrong length.
struct MessageSizes {
    std::vector<std::size_t> sizes;
    std::size_t bytes = 0;
};

// Every hop's incoming messages (by hop, then by index in the hop's `incoming`).
struct RelaySizes {
    std::vector<MessageSizes> hops[kTagsPerCall];  // by tag - x.tag
};


// One hop: sends every held item whose next hop is another rank, receives the
// items listed in `incoming` (per previous hop), and leaves in `held` what this
// rank holds afterwards, sorted. A message is its items' bytes in (s, d) order,
// behind their sizes when its receiver cannot know them (`known` nowhere); a
// receiver that knows them (at_destination: its recvcounts) or computes them
// (everywhere: uniform blocks) gets the bytes alone. Receives of unknown length
// are probed, so nothing is ever truncated: a message whose length is not what
// its receiver expects is reported in *mismatch and its items left empty. Steps
// pair sender and receiver (both compute the same key), so the pairwise inner
// mode cannot deadlock.
// `round`: the trace's round (default: the hop, tag - x.tag).
// `order`: the order of every message's items on both sides, instead of (s, d):
// one that groups the items by the receiver's next hop lets the receiver
// forward each group from its receive buffer as one range, unpacked.
// Persistent requests: with `record` (init) every message is its items' sizes
// alone, and what each brings is kept in record->hops[hop]; with `planned` (a
// start) every message is its bytes alone, received with the planned length
// (an empty one is not sent).
// Next (int(const Item &)), Key (int(int from, int to)) and Order (bool(const
// Item &, const Item &)) are the callers' lambdas, called directly: through
// std::function each item's call went through a pointer, and a closure of more
// than two captures was an allocation.
template <class Next, class Key, class Order = ItemOrder>
int hop(const Exchange &x, int tag, std::vector<Item> &held, const Next &next, Inbox &incoming,
        const Key &key, SizesKnown known, HopIo *io, int *mismatch, RelaySizes *record, const RelaySizes *planned,
        int round = -1, const Order *order = nullptr)
{
    const bool sizes_only = record != nullptr;
    const int hop_id = tag - x.tag;
    const int trace_round = round >= 0 ? round : hop_id;
    std::vector<MessageSizes> *recorded = sizes_only ? &record->hops[hop_id] : nullptr;
    const std::vector<MessageSizes> *plan = planned ? &planned->hops[hop_id] : nullptr;
    if (recorded)
        recorded->assign(incoming.size(), MessageSizes());
    if (plan && plan->size() != incoming.size())
        return MPI_ERR_INTERN;
    // Who sends sizes in front of the bytes, who posts exact receives.
    const bool with_header = sizes_only || (known == SizesKnown::nowhere && !plan);
    const bool exact = plan || known == SizesKnown::everywhere;
    // A message of one block that ends at its receiver goes without its size:
    // the receiver knows it (its recvcount). Both sides list the same items, so
    // they decide alike; the receiver probes it and reports a wrong length as it
    // does at_destination. (Not for several blocks: two wrong lengths that add
    // up to the right total would go unseen without their sizes.)
    auto headed = [&](const std::vector<Item> &items, int receiver) {
        if (!with_header || sizes_only)
            return with_header;
        return !(items.size() == 1 && items[0].d == receiver);
    };
    RelayLists &L = *io->lists;
    std::vector<Item> &kept = L.kept;
    kept.clear();
    // This hop's messages: the first n_out of L.outgoing, found by peer through
    // L.slot, whose entries need no clearing (checked against the peer).
    std::vector<Message> &outgoing_lists = L.outgoing;
    std::size_t n_out = 0;
    if (L.slot.size() != static_cast<std::size_t>(x.size))
        L.slot.assign(static_cast<std::size_t>(x.size), -1);
    for (const Item &it : held) {
        int to = next(it);
        if (to == x.rank) {
            kept.push_back(it);
            continue;
        }
        int &at = L.slot[static_cast<std::size_t>(to)];
        const std::size_t found = static_cast<std::size_t>(at);
        if (at < 0 || found >= n_out || outgoing_lists[found].peer != to) {
            at = static_cast<int>(n_out);
            if (n_out == outgoing_lists.size())
                outgoing_lists.emplace_back();
            Message &m = outgoing_lists[n_out++];
            m.peer = to;
            m.step = key(x.rank, to);
            m.items.clear();
        }
        outgoing_lists[static_cast<std::size_t>(at)].items.push_back(it);
    }
    const auto outgoing_begin = outgoing_lists.begin();
    const auto outgoing_end = outgoing_lists.begin() + static_cast<std::ptrdiff_t>(n_out);
    if (order) {
        for (auto m = outgoing_begin; m != outgoing_end; ++m)
            std::sort(m->items.begin(), m->items.end(), *order);
        for (Message &m : incoming)
            std::sort(m.items.begin(), m.items.end(), *order);
    }
    // Posted from the next rank on, not from rank 0: were every rank to start with
    // the lowest peer, each message wave would land on a few receivers at a time.
    std::sort(outgoing_begin, outgoing_end, [&](const Message &a, const Message &b) {
        return mod(a.peer - x.rank, x.size) < mod(b.peer - x.rank, x.size);
    });
    for (Message &m : incoming)
        m.step = key(m.peer, x.rank);
    bool pairwise = x.hints->inner == Inner::pairwise;
    std::vector<int> &steps = L.steps;
    steps.clear();
    for (auto m = outgoing_begin; m != outgoing_end; ++m)
        steps.push_back(pairwise ? m->step : 0);
    for (const Message &m : incoming)
        steps.push_back(pairwise ? m.step : 0);
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());

    std::vector<std::vector<unsigned char>> &heads = L.heads;
    if (heads.size() < n_out)
        heads.resize(n_out);
    RangeList &message = L.message;
    std::vector<std::size_t> &sizes = L.sizes;
    for (int step : steps) {
        auto in_step = [&](const Message &m) { return !pairwise || m.step == step; };
        std::vector<MPI_Request> &reqs = L.reqs;
        reqs.clear();
        StoreForCall packed_for_step(&L.packed, io->storage.pool());
        ScratchStore &packed = *packed_for_step;  // this step's packed sends, until they complete
        // Sends, after the exact receives are posted, so each message finds its
        // receive. Probed receives are posted between the sends as their
        // messages are found, and the rest after the last send (a blocking probe
        // waits for the peers' sends, so it must follow this rank's own).
        auto post_sends = [&](UnknownSizeReceives *receives) -> int {
            for (std::size_t i = 0; i < n_out; ++i) {
                const Message &m = outgoing_lists[i];
                if (!in_step(m))
                    continue;
                message.clear();
                const bool header = headed(m.items, m.peer);
                if (header) {
                    sizes.clear();
                    for (const Item &it : m.items)
                        sizes.push_back(it.bytes);
                    encode_sizes(sizes, &heads[i]);
                    message.add(reinterpret_cast<const char *>(heads[i].data()), heads[i].size());
                }
                // The items' bytes (the list's total less its header); none
                // where the header says it all (sizes_only).
                const std::size_t head_bytes = message.total();
                if (!sizes_only)
                    for (const Item &it : m.items)
                        message.add(it.data, it.bytes);
                const std::size_t total = message.total() - head_bytes;
                if (exact && total == 0)
                    continue;  // the receiver computes or planned the same zero and posts nothing
                reqs.emplace_back();
                if (total == 0 && !header)  // the receiver probes: send it empty
                    MPIX_CHECK(isend_bytes(nullptr, 0, m.peer, tag, x.comm, &reqs.back()));
                else
                    MPIX_CHECK(isend_ranges(message, m.peer, tag, x.comm, x.work, &packed, &reqs.back(),
                                            exact ? &io->relayed_wrong : nullptr));
                trace_message(x, trace_round, m.peer, -1, m.items, total);
                if (receives)
                    MPIX_CHECK(receives->packed(total));
            }
            return MPI_SUCCESS;
        };
        // Receives: exact ones posted before the sends; probed ones found
        // between and after them (UnknownSizeReceives says why).
        std::vector<Message *> &probed = L.probed;
        std::vector<int> &peers = L.peers;
        std::vector<char *> &data = L.data;
        std::vector<std::size_t> &bytes = L.bytes;
        std::vector<MPI_Request> &probed_reqs = L.probed_reqs;
        using KnownRecv = RelayLists::KnownRecv;
        std::vector<KnownRecv> &known_recvs = L.known_recvs;
        std::vector<char *> &places = L.places;
        std::vector<std::size_t> &place_bytes = L.place_bytes;
        places.clear();
        place_bytes.clear();
        probed.clear();
        peers.clear();
        data.clear();
        bytes.clear();
        probed_reqs.clear();
        known_recvs.clear();
        for (Message &m : incoming) {
            if (!in_step(m))
                continue;
            if (exact) {
                std::size_t total = 0;
                if (plan) {
                    const MessageSizes &ms = (*plan)[&m - incoming.data()];
                    if (ms.sizes.size() != m.items.size())
                        return MPI_ERR_INTERN;
                    for (std::size_t i = 0; i < m.items.size(); ++i)
                        m.items[i].bytes = ms.sizes[i];
                }
                for (const Item &it : m.items)
                    total += it.bytes;
                const std::size_t sent = plan ? (*plan)[&m - incoming.data()].bytes : total;
                if (sent != total) {
                    // Agreed at init: a block arriving home has the wrong length.
                    note_mismatch(mismatch, sent > total ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
                    for (Item &it : m.items)
                        it.bytes = 0;
                    total = 0;
                }
                if (sent == 0)
                    continue;
                // Final blocks that are one range of the receive buffer land there.
                char *into = sizes_only ? nullptr : final_range(x, m.items);
                if (!into) {
                    io->storage.emplace_back();
                    if (!io->storage.back().resize(sent))
                        return MPI_ERR_NO_MEM;
                    into = io->storage.back().data();
                }
                char *at = into;
                for (Item &it : m.items) {
                    it.data = at;
                    at += it.bytes;
                }
                known_recvs.push_back({reqs.size(), into, sent});
                reqs.emplace_back();
                MPIX_CHECK(irecv_bytes(into, sent, m.peer, tag, x.comm, &reqs.back()));
                trace_message(x, trace_round, -1, m.peer, m.items, total);
            } else {
                probed.push_back(&m);
                peers.push_back(m.peer);
                // Final blocks whose lengths are known here (at_destination, or a
                // message that goes without sizes): one of exactly their length
                // lands in place.
                const bool header = headed(m.items, x.rank);
                std::size_t expected_total = 0;
                for (Item &it : m.items) {
                    if (!header)
                        it.bytes = x.recvbytes[it.s];  // every item ends here
                    expected_total += it.bytes;
                }
                places.push_back(header ? nullptr : final_range(x, m.items));
                place_bytes.push_back(expected_total);
            }
        }
        // One step (non-blocking inner): every message of this hop's tag is expected.
        std::optional<UnknownSizeReceives> probed_receives;
        if (!peers.empty())
            probed_receives.emplace(peers, tag, x.comm, !pairwise, &io->storage, &data, &bytes, &probed_reqs);
        if (probed_receives)
            probed_receives->land_in_place(&places, &place_bytes);
        MPIX_CHECK(post_sends(probed_receives ? &*probed_receives : nullptr));
        if (probed_receives)
            MPIX_CHECK(probed_receives->finish());
        for (std::size_t k = 0; k < probed.size(); ++k) {
            MPIX_CHECK(wait_request(&probed_reqs[k], MPI_STATUS_IGNORE));
            Message &m = *probed[k];
            std::size_t at = 0, total = 0;
            const bool header = headed(m.items, x.rank);
            if (header) {
                if (!decode_sizes(data[k], bytes[k], m.items.size(), &sizes, &at))
                    return MPI_ERR_INTERN;
                if (known == SizesKnown::nowhere)
                    for (std::size_t i = 0; i < m.items.size(); ++i)
                        m.items[i].bytes = sizes[i];
            }
            for (const Item &it : m.items)
                total += it.bytes;
            // The bytes the sender sends (at init: whose lengths it sends instead).
            std::size_t sent = bytes[k] - at;
            if (sizes_only) {
                if (sent != 0)
                    return MPI_ERR_INTERN;
                for (std::size_t s : sizes)
                    sent += s;
                MessageSizes &rec = (*recorded)[&m - incoming.data()];
                rec.bytes = sent;
                for (const Item &it : m.items)
                    rec.sizes.push_back(it.bytes);
                at = 0;  // no bytes came: items point nowhere
            }
            if (total != sent) {
                if (header && known == SizesKnown::nowhere)
                    return MPI_ERR_INTERN;
                // A block's length is not its receive count: report, keep nothing.
                note_mismatch(mismatch, sent > total ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
                for (Item &it : m.items)
                    it.bytes = 0;
                total = 0;
            }
            for (Item &it : m.items) {
                it.data = sizes_only ? nullptr : data[k] + at;
                at += it.bytes;
            }
            trace_message(x, trace_round, -1, m.peer, m.items, total);
        }
        // Sizes known everywhere, yet a sender's differ (MPIX_Alltoall with
        // unequal block sizes across ranks): report it and carry on with the
        // expected sizes (zeroed content), so later hops match their receivers.
        std::vector<std::size_t> &expected = L.expected;
        expected.assign(reqs.size(), kNotChecked);
        for (const KnownRecv &r : known_recvs)
            expected[r.req] = r.bytes;
        int wrong = MPI_SUCCESS;
        MPIX_CHECK(wait_all(static_cast<int>(reqs.size()), reqs.data(), expected.data(), &wrong));
        if (wrong != MPI_SUCCESS) {
            note_mismatch(mismatch, wrong);
            note_mismatch(&io->relayed_wrong, wrong);
            for (const KnownRecv &r : known_recvs)
                std::memset(r.data, 0, r.bytes);
        }
    }
    held.swap(kept);  // the old list's capacity is the next hop's `kept`
    std::size_t arriving = 0;
    for (const Message &m : incoming)
        arriving += m.items.size();
    held.reserve(held.size() + arriving);
    for (const Message &m : incoming)
        for (const Item &it : m.items)
            held.push_back(it);
    std::sort(held.begin(), held.end(), item_less);
    return MPI_SUCCESS;
}

// Copies the held items addressed to this rank into the receive buffer and
// drops them from `held`; a block longer or shorter than its receive block is
// reported in *mismatch (and not copied; nor anything when `copy` is false:
// a persistent request's init, where only sizes moved).
void deliver(const Exchange &x, std::vector<Item> &held, int *mismatch, bool copy = true)
{
    std::size_t rest = 0;  // the others stay, in order, at the front
    LocalWork::Batch batch(x.work);
    for (const Item &it : held) {
        if (it.d != x.rank) {
            held[rest++] = it;
            continue;
        }
        if (it.bytes != x.recvbytes[it.s])
            note_mismatch(mismatch, it.bytes > x.recvbytes[it.s] ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
        else if (copy && it.data != x.recv_block(it.s))  // else it landed in place (final_range)
            x.work->copy(x.recv_block(it.s), it.data, it.bytes);
    }
    held.resize(rest);
}

}  // namespace

namespace {

// Two steps (RelayPlan::two_step): hop 3 sends each remote block to the member of
// its destination's unit at this rank's index (mod that unit's size), one message
// per remote unit; hop 4 passes every block inside the unit to its destination,
// together with this rank's own blocks for its unit-mates: one message per pair.
// Hop 3's receiver knows the sizes only for uniform blocks (they travel in front
// otherwise); hop 4's receiver knows them (its recvcounts, or uniform blocks).
int relay_two_steps(const Exchange &x, const RelayPlan &p, RelaySizes *record, const RelaySizes *planned,
                    int mismatch)
{
    const bool copy = record == nullptr;
    const Regions &U = *p.units;
    const int me = x.rank;
    const int u = U.region_of[me];
    const bool known = x.uniform;
    auto recv_size = [&](int s, int d) { return d == me ? x.recvbytes[s] : (known ? x.block_bytes : 0); };
    auto relay_in = [&](int s, int v) { return U.member(v, U.index_of[s] % U.size_of(v)); };
    HopIo io(p, &x.xcomm->scratch);
    std::vector<Item> &held = io.lists->held;
    held.clear();
    for (int d = 0; d < x.size; ++d)
        if (U.region_of[d] != u)
            held.push_back(Item{me, d, x.sendbytes[d], x.send_block(d)});
    {
        Inbox &in = io.lists->inbox;
        in.clear();
        for (int v = 0; v < U.count; ++v) {
            if (v == u)
                continue;
            for (int i = 0; i < U.size_of(v); ++i) {
                int s = U.member(v, i);
                if (relay_in(s, u) != me)
                    continue;
                Message &msg = in.add(s);
                for (int j = 0; j < U.size_of(u); ++j)
                    msg.items.push_back(Item{s, U.member(u, j), recv_size(s, U.member(u, j)), nullptr});
                std::sort(msg.items.begin(), msg.items.end(), item_less);
            }
        }
        auto unit_key = [&](int from, int to) { return mod(U.region_of[to] - U.region_of[from], U.count); };
        MPIX_CHECK(hop(x, x.tag + 3, held, [&](const Item &it) { return relay_in(me, U.region_of[it.d]); }, in,
                       unit_key, known ? SizesKnown::everywhere : SizesKnown::nowhere, &io, &mismatch, record,
                       planned));
        deliver(x, held, &mismatch, copy);
    }
    {
        for (int j = 0; j < U.size_of(u); ++j) {
            int d = U.member(u, j);
            if (d != me)
                held.push_back(Item{me, d, x.sendbytes[d], x.send_block(d)});
        }
        std::sort(held.begin(), held.end(), item_less);
        // From each unit-mate y: its own block, and those of the remote sources it relays.
        Inbox &in = io.lists->inbox;
        in.clear();
        std::vector<int> from_mate(U.size_of(u), -1);  // unit index -> position in `in`
        for (int j = 0; j < U.size_of(u); ++j) {
            int y = U.member(u, j);
            if (y == me)
                continue;
            from_mate[j] = static_cast<int>(in.size());
            in.add(y).items.push_back(Item{y, me, x.recvbytes[y], nullptr});
        }
        for (int s = 0; s < x.size; ++s) {
            if (U.region_of[s] == u)
                continue;
            const int relay = relay_in(s, u);
            if (relay != me)
                in[from_mate[U.index_of[relay]]].items.push_back(Item{s, me, x.recvbytes[s], nullptr});
        }
        for (Message &msg : in)
            std::sort(msg.items.begin(), msg.items.end(), item_less);
        auto member_key = [&](int from, int to) { return mod(U.index_of[to] - U.index_of[from], U.size_of(u)); };
        // Uniform blocks: exact receives, and a message that follows a wrong-length
        // one in hop 3 goes empty (relay_length), so its receiver reports it too.
        MPIX_CHECK(hop(x, x.tag + 4, held, [](const Item &it) { return it.d; }, in, member_key,
                       known ? SizesKnown::everywhere : SizesKnown::at_destination, &io, &mismatch, record, planned));
    }
    deliver(x, held, &mismatch, copy);
    return held.empty() ? mismatch : MPI_ERR_INTERN;
}

// relay_exchange, or with `record` / `planned` a persistent request's init /
// start (see hop).
int relay(const Exchange &x, const RelayPlan &p, RelaySizes *record, const RelaySizes *planned)
{
    const bool copy = record == nullptr;
    const Regions &U = *p.units;
    const int me = x.rank;
    const int u = U.region_of[me];
    const int lead = p.lead_of[me];
    const bool leader = lead == me;
    const bool known = x.uniform;  // alltoall: every block is block_bytes
    auto sent_size = [&](int s, int d) { return s == me ? x.sendbytes[d] : (known ? x.block_bytes : 0); };
    auto recv_size = [&](int s, int d) { return d == me ? x.recvbytes[s] : (known ? x.block_bytes : 0); };
    auto remote = [&](int r) { return U.region_of[r] != u; };
    // Who knows a hop's sizes: everyone for uniform blocks; for alltoallv the
    // final receiver (its recvcounts), and for forwarded blocks only the sender.
    auto sizes_for = [&](bool final) {
        return known ? SizesKnown::everywhere : final ? SizesKnown::at_destination : SizesKnown::nowhere;
    };
    int mismatch = MPI_SUCCESS;

    if (copy)
        copy_self_block(x);

    // Between units, a unit's blocks for each other travel with the rest: in hop 2
    // when every rank leads its own group (node_aware, locality_aware; one message
    // per peer), else through the leaders (gather, leader to leader, scatter), as
    // in the published algorithms, so a rank sends one message, not one per member
    // of its node. Only on a single unit do they go straight (hop 0).
    // Hop 0: inside the one unit, straight to the destination.
    if (U.count == 1) {
        HopIo io(p, &x.xcomm->scratch);
        std::vector<Item> &held = io.lists->held;
        held.clear();
        Inbox &in = io.lists->inbox;
        in.clear();
        for (int i = 0; i < U.size_of(u); ++i) {
            int r = U.member(u, i);
            if (r == me)
                continue;
            held.push_back(Item{me, r, x.sendbytes[r], x.send_block(r)});
            in.add(r).items.push_back(Item{r, me, x.recvbytes[r], nullptr});
        }
        auto key = [&](int from, int to) { return mod(U.index_of[to] - U.index_of[from], U.size_of(u)); };
        MPIX_CHECK(hop(x, x.tag, held, [](const Item &it) { return it.d; }, in, key, sizes_for(true), &io,
                       &mismatch, record, planned));
        deliver(x, held, &mismatch, copy);
        return mismatch;
    }
    if (p.two_step)
        return relay_two_steps(x, p, record, planned, mismatch);

    // The units this rank handles (as a leader), in order.
    std::vector<int> handled;
    if (leader)
        for (int v = 0; v < U.count; ++v)
            if (v != u && p.handler(u, v) == me)
                handled.push_back(v);

    // Payloads stay until the end: a block kept by a hop still points into the
    // storage of the hop that brought it.
    HopIo io(p, &x.xcomm->scratch);
    std::vector<Item> &held = io.lists->held;
    held.clear();
    held.reserve(static_cast<std::size_t>(x.size));
    for (int d = 0; d < x.size; ++d)
        if (d != me)
            held.push_back(Item{me, d, x.sendbytes[d], x.send_block(d)});
    auto group_key = [&](int from, int to) { return mod(p.group_pos[to] - p.group_pos[from], p.group_size[me]); };
    auto leader_key = [&](int from, int to) {
        return mod(p.leader_pos[to] - p.leader_pos[from], static_cast<int>(p.leaders[u].size()));
    };
    auto unit_key = [&](int from, int to) { return mod(U.region_of[to] - U.region_of[from], U.count); };
    // Hops 2 and 4 run among my unit's leaders: as a leader, one message from each
    // other leader y, carrying the items fill(y, &items) lists (none: no message).
    auto from_other_leaders = [&](auto fill) -> Inbox & {
        Inbox &in = io.lists->inbox;
        in.clear();
        if (leader)
            for (int y : p.leaders[u]) {
                if (y == me)
                    continue;
                Message &msg = in.add(y);
                fill(y, &msg.items);
                std::sort(msg.items.begin(), msg.items.end(), item_less);
                if (msg.items.empty())
                    in.drop_last();
            }
        return in;
    };

    // The group's members by position (the leader first), for the binomial
    // gather and scatter: a leader receives ceil(log2 g) messages, not g - 1,
    // each paying the per-message overhead (MPI's own small-message gather).
    const std::vector<int> &members = p.group[lead];
    const int g = p.group_size[me], pos = p.group_pos[me];
    // Binomial while a member's whole send buffer is at most kBinomialBytes: past
    // that, the forwarding ranks' repacking of their subtrees costs more than the
    // leader's saved message overheads (dragonfly-256x64, P = 256, groups of 16 and
    // 64: binomial ahead at 16 and 64 B a block, behind from 256 B). Uniform blocks
    // only: this call's size is the same everywhere (MPIX_Alltoall, as node_bruck's
    // direct mode takes it), so every rank of the group picks alike.
    const bool binomial = x.uniform && x.block_bytes * static_cast<std::uint64_t>(x.size) <= kBinomialBytes &&
                          g <= (1 << kBinomialSteps);
    // Trace rounds in the order the hops run, the same on every rank: the
    // binomial steps of the largest group widen hops 1 and 5 to G rounds each.
    int G = 1;
    if (binomial)
        while ((1 << G) < p.largest_group)
            ++G;
    auto round_of = [G](int hop) { return hop <= 1 ? hop : hop <= 4 ? hop + G - 1 : 3 + 2 * G; };
    // Hop 1: gather to the group leader (nothing to do when every rank leads):
    // each member sends it all it holds; or in binomial steps: at step k a rank
    // whose position's lowest set bit is k sends all it holds (its subtree's
    // blocks) to position - 2^k, tags kGatherTag + k.
    if (!p.every_rank_leads && !binomial) {
        Inbox &in = io.lists->inbox;
        in.clear();
        if (leader)
            for (int m : members) {
                if (m == me)
                    continue;
                Message &msg = in.add(m);
                for (int d = 0; d < x.size; ++d)
                    if (d != m)
                        msg.items.push_back(Item{m, d, sent_size(m, d), nullptr});
            }
        MPIX_CHECK(hop(x, x.tag + 1, held, [&](const Item &) { return lead; }, in, group_key, sizes_for(false), &io,
                       &mismatch, record, planned,
                       round_of(1)));
    }
    // In the tree a block stops where it meets its destination on its way up
    // (a member whose subtree holds its source), and the scatter skips it.
    // Positions: q's subtree is [q, q + lowest set bit of q); the leader's, all.
    auto ancestor = [&](int d, int s) {  // group positions: d is s's ancestor
        return d < s && (d == 0 || s < d + (d & -d));
    };
    auto position_in_group = [&](int r) { return p.lead_of[r] == lead ? p.group_pos[r] : -1; };
    if (!p.every_rank_leads && binomial) {
        for (int k = 0; (1 << k) < g; ++k) {
            const int bit = 1 << k, low = pos & ((bit << 1) - 1);
            const int parent = low == bit ? members[pos - bit] : me;
            Inbox &in = io.lists->inbox;
            in.clear();
            if (low == 0 && pos + bit < g) {
                // The child's subtree's blocks, less those that met their destination in it.
                const int child = pos + bit;
                Message &msg = in.add(members[child]);
                for (int q = child; q < std::min(child + bit, g); ++q)
                    for (int d = 0; d < x.size; ++d) {
                        const int qd = position_in_group(d);
                        if (d != members[q] && !(qd >= child && ancestor(qd, q)))
                            msg.items.push_back(Item{members[q], d, sent_size(members[q], d), nullptr});
                    }
                std::sort(msg.items.begin(), msg.items.end(), item_less);
            }
            MPIX_CHECK(hop(x, x.tag + kGatherTag + k, held,
                           [&](const Item &it) { return it.d == me ? me : parent; }, in, group_key, sizes_for(false),
                           &io, &mismatch, record, planned, 1 + k));
        }
        deliver(x, held, &mismatch, copy);  // what met this rank on the way up
    }
    // Hop 2: leaders pass each block to the leader handling its destination unit
    // (every rank leading: and the unit's blocks to their destinations).
    {
        Inbox &in = from_other_leaders([&](int y, std::vector<Item> *items) {
            if (p.every_rank_leads)
                items->push_back(Item{y, me, x.recvbytes[y], nullptr});
            else  // the unit's blocks for my group, through the leaders
                for (int m : p.group[y])
                    for (int d : p.group[me])
                        items->push_back(Item{m, d, recv_size(m, d), nullptr});
            for (int m : p.group[y])
                for (int v : handled)
                    for (int i = 0; i < U.size_of(v); ++i)
                        items->push_back(Item{m, U.member(v, i), sent_size(m, U.member(v, i)), nullptr});
        });
        auto next = [&](const Item &it) {
            int v = U.region_of[it.d];
            return v == u ? p.lead_of[it.d] : p.handler(u, v);  // lead_of[d] is d when every rank leads
        };
        MPIX_CHECK(hop(x, x.tag + 2, held, next, in, leader_key, sizes_for(false), &io, &mismatch, record, planned,
                       round_of(2)));
        deliver(x, held, &mismatch, copy);
    }
    // Hop 3: between units, one message per pair of units.
    {
        Inbox &in = io.lists->inbox;
        in.clear();
        for (int v : handled) {
            Message &msg = in.add(p.handler(v, u));
            msg.items.reserve(static_cast<std::size_t>(U.size_of(v)) * static_cast<std::size_t>(U.size_of(u)));
            for (int i = 0; i < U.size_of(v); ++i)
                for (int j = 0; j < U.size_of(u); ++j) {
                    int s = U.member(v, i), d = U.member(u, j);
                    msg.items.push_back(Item{s, d, recv_size(s, d), nullptr});
                }
            // hop() sorts its items by_leader, as the sender's
        }
        auto next = [&](const Item &it) { return remote(it.d) ? p.handler(U.region_of[it.d], u) : me; };
        // Grouped by hop 4's receiver (the destination's leader), so a handler of
        // one unit forwards each group from its receive buffer, unpacked.
        const auto by_leader = [&](const Item &a, const Item &b) {
            const int la = p.lead_of[a.d], lb = p.lead_of[b.d];
            return la != lb ? la < lb : item_less(a, b);
        };
        MPIX_CHECK(hop(x, x.tag + 3, held, next, in,
                       unit_key, sizes_for(false), &io, &mismatch, record, planned,
                       round_of(3), &by_leader));
    }
    // Hop 4: handlers pass each block to the leader of its destination's group
    // (the destination itself when every rank leads: its sizes are known there).
    {
        Inbox &in = from_other_leaders([&](int y, std::vector<Item> *items) {
            for (int v = 0; v < U.count; ++v) {
                if (v == u || p.handler(u, v) != y)
                    continue;  // a unit leader y of my unit does not handle
                for (int i = 0; i < U.size_of(v); ++i)
                    for (int d : p.group[me])
                        items->push_back(Item{U.member(v, i), d, recv_size(U.member(v, i), d), nullptr});
            }
        });
        MPIX_CHECK(hop(x, x.tag + 4, held, [&](const Item &it) { return p.lead_of[it.d]; }, in, leader_key,
                       sizes_for(p.every_rank_leads), &io, &mismatch, record, planned,
                       round_of(4)));
    }
    // Hop 5: leaders scatter to their group (receivers know their sizes); or in
    // binomial steps, the reverse of the gather: at step k (from the top) a rank
    // at a position that is a multiple of 2^(k+1) sends position + 2^k the blocks
    // for positions [pos + 2^k, pos + 2^(k+1)). The last step's messages hold the
    // receiver's blocks alone: their sizes are known there. Tags kScatterTag + k.
    if (!p.every_rank_leads && !binomial) {
        Inbox &in = io.lists->inbox;
        in.clear();
        if (!leader) {
            Message &msg = in.add(lead);
            for (int s = 0; s < x.size; ++s)
                if (s != me)
                    msg.items.push_back(Item{s, me, x.recvbytes[s], nullptr});
        }
        MPIX_CHECK(hop(x, x.tag + 5, held, [](const Item &it) { return it.d; }, in, group_key, sizes_for(true), &io,
                       &mismatch, record, planned,
                       round_of(5)));
    }
    if (!p.every_rank_leads && binomial) {
        int steps = 0;
        while ((1 << steps) < g)
            ++steps;
        for (int k = steps - 1; k >= 0; --k) {
            const int bit = 1 << k, low = pos & ((bit << 1) - 1);
            Inbox &in = io.lists->inbox;
            in.clear();
            if (low == bit) {
                Message &msg = in.add(members[pos - bit]);
                for (int q = pos; q < std::min(pos + bit, g); ++q)
                    for (int s = 0; s < x.size; ++s)
                        if (s != members[q] && !ancestor(q, position_in_group(s)))
                            msg.items.push_back(Item{s, members[q], recv_size(s, members[q]), nullptr});
                std::sort(msg.items.begin(), msg.items.end(), item_less);
            }
            auto next = [&](const Item &it) {
                const int q = p.group_pos[it.d];
                return low == 0 && q >= pos + bit && q < pos + 2 * bit ? members[pos + bit] : me;
            };
            MPIX_CHECK(hop(x, x.tag + kScatterTag + k, held, next, in, group_key, sizes_for(bit == 1), &io,
                           &mismatch, record, planned,
                       4 + G + (G - 1 - k)));
        }
    }
    deliver(x, held, &mismatch, copy);
    return held.empty() ? mismatch : MPI_ERR_INTERN;
}

// What node_aware's starts reuse: the node map as it was at init (its own copy:
// a later MPIX_Comm_update_locality must not change a request's messages) and
// every hop's sizes, so no message carries sizes and none is probed.
class NodeAwarePlan : public ExchangePlan {
public:
    RelayPlan relay;
    RelaySizes sizes;
};

}  // namespace

int relay_exchange(const Exchange &x, const RelayPlan &p) { return relay(x, p, nullptr, nullptr); }

int node_aware(const Exchange &x)
{
    // Only node_aware_prepare makes the plans this row is given.
    if (const NodeAwarePlan *planned = static_cast<const NodeAwarePlan *>(x.plan))
        return relay(x, planned->relay, nullptr, &planned->sizes);
    const RelayPlan *plan = nullptr;
    const RelaySteps steps = x.hints->relay_steps;
    MPIX_CHECK(cached_plan(x.xcomm, CacheKey("relay:node_aware:").add(static_cast<int>(steps)), [&](RelayPlan *p) -> int {
        MPIX_CHECK(get_regions(x.xcomm, Locality::node, &p->units));
        build_relay_groups(p, INT_MAX);  // every rank its own group: all relay
        choose_relay_steps(p, steps);
        return MPI_SUCCESS;
    }, &plan));
    return relay_exchange(x, *plan);
}

int node_aware_prepare(const Exchange &x, std::unique_ptr<ExchangePlan> *out)
{
    if (x.uniform)
        return MPI_SUCCESS;  // every size is known everywhere: nothing to agree
    const Regions *nodes = nullptr;
    MPIX_CHECK(get_regions(x.xcomm, Locality::node, &nodes));
    std::unique_ptr<NodeAwarePlan> plan(new NodeAwarePlan());
    Regions &own = plan->relay.owned;
    own.count = nodes->count;
    own.region_of = nodes->region_of;
    own.index_of = nodes->index_of;
    own.offsets = nodes->offsets;
    own.members = nodes->members;
    own.my_region = nodes->my_region;
    own.my_index = nodes->my_index;
    own.max_size = nodes->max_size;
    plan->relay.units = &own;
    build_relay_groups(&plan->relay, INT_MAX);  // as node_aware's cached plan
    choose_relay_steps(&plan->relay, x.hints->relay_steps);
    Exchange sizes_only = x;
    sizes_only.trace = nullptr;
    int rc = relay(sizes_only, plan->relay, &plan->sizes, nullptr);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_TRUNCATE && rc != MPI_ERR_COUNT)
        return rc;  // a wrong size is reported by every start
    *out = std::move(plan);
    return MPI_SUCCESS;
}

int locality_aware(const Exchange &x)
{
    const RelayPlan *plan = nullptr;
    bool socket = x.hints->locality == Locality::socket;
    int groups = x.hints->leaders_per_node;
    const RelaySteps steps = x.hints->relay_steps;
    CacheKey key("relay:locality_aware:");
    if (socket)
        key.add("socket");
    else
        key.add(groups);
    key.add(":").add(static_cast<int>(steps));
    MPIX_CHECK(cached_plan(x.xcomm, key, [&](RelayPlan *p) -> int {
        if (socket) {
            MPIX_CHECK(get_regions(x.xcomm, Locality::socket, &p->units));
        } else {
            const Regions *nodes = nullptr;
            MPIX_CHECK(get_regions(x.xcomm, Locality::node, &nodes));
            split_regions(*nodes, groups, x.rank, &p->owned);
            p->units = &p->owned;
        }
        build_relay_groups(p, INT_MAX);
        choose_relay_steps(p, steps);
        return MPI_SUCCESS;
    }, &plan));
    return relay_exchange(x, *plan);
}

}  // namespace mpix
