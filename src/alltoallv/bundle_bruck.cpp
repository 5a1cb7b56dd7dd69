// Bruck over bundles. Position t (1..n-1) of rank `me` holds the bundle that still
// has to travel t group indices forward; the round (weight w = r^k, value z)
// moves every position whose base-r digit k is z to index me + z*w, so a bundle
// makes one hop per nonzero digit of its distance and lands on its last one
// (ParLogNa's schedule). All rounds of one digit are in flight together; each is
// one message: [header: statistic, length of each bundle] [the bundles' bytes].
// Received messages stay in `store` until the caller is done, so forwarded
// bundles are sent from where they arrived: nothing is copied between rounds.
#include "alltoallv/bundle_bruck.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>

#include "alltoall/bruck.hpp"
#include "alltoallv/parlogna.hpp"
#include "core/wait.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/trace.hpp"

namespace mpix {

namespace {

int mod(long long a, int n)
{
    long long m = a % n;
    return static_cast<int>(m < 0 ? m + n : m);
}

// One round of the current digit, as this rank sees it.
struct Round {
    // As made, its lists keeping their capacity.
    void reset()
    {
        std::vector<int> p = std::move(positions);
        std::vector<unsigned char> h = std::move(head);
        *this = Round();
        positions = std::move(p);
        positions.clear();
        head = std::move(h);  // not cleared: encode_sizes resizes it (no refill when the length stays)
    }
    int to = 0, from = 0;            // group indices
    std::vector<int> positions;      // positions with this digit value, ascending
    bool header = false;             // its messages start with a header
    bool home_check = false;         // all its bundles arrive home, their sizes unsent (at_destination)
    bool stats_only = false;         // home_check, and the statistics still travel: a header of them alone
    std::vector<unsigned char> head;  // the header this rank sends (encode_sizes)
    MPI_Request send_req = MPI_REQUEST_NULL, recv_req = MPI_REQUEST_NULL;
    bool posted = false;             // receive of known size posted (or known empty)
    bool home_known = false;         // posted as home_check: a wrong length is this rank's error alone
    bool arrived_wrong = false;      // home_known, and the message's length was not the expected one
    char *in = nullptr;              // where the incoming message lands
    std::size_t in_bytes = 0;
};

// The bundle a position holds: the caller's pieces until its first hop (not
// copied: n - 1 vectors a call), then the one piece it arrived as.
class Held {
public:
    void start(const std::vector<Piece> &pieces)
    {
        pieces_ = pieces.data();
        count_ = pieces.size();
        moved_ = false;
    }
    void arrive(Piece p)
    {
        here_ = p;
        moved_ = true;
    }
    const Piece *begin() const { return moved_ ? &here_ : pieces_; }
    const Piece *end() const { return moved_ ? &here_ + 1 : pieces_ + count_; }
    Piece only() const { return moved_ ? here_ : Piece{nullptr, 0}; }

private:
    const Piece *pieces_ = nullptr;
    std::size_t count_ = 0;
    Piece here_{nullptr, 0};
    bool moved_ = false;
};

std::size_t bundle_bytes(const Held &pieces)
{
    std::size_t b = 0;
    for (const Piece &p : pieces)
        b += p.bytes;
    return b;
}

}  // namespace

struct BundleSpare::Lists {
    std::vector<Held> held;
    std::vector<std::uint64_t> agreed;
    std::vector<Round> rounds;
    ScratchStore packed;  // bound to the call's pool; between calls it keeps only small buffers (recycle)
    RangeList message;
    std::vector<char *> data;
    std::vector<std::size_t> sizes, bytes, head_values;
    std::vector<int> peers;
    std::vector<Round *> of_peer;
    std::vector<MPI_Request> reqs;
};

BundleSpare::BundleSpare() = default;
BundleSpare::~BundleSpare() = default;
BundleSpare::BundleSpare(BundleSpare &&) noexcept = default;
BundleSpare &BundleSpare::operator=(BundleSpare &&) noexcept = default;

BundleSpare::Lists &BundleSpare::lists()
{
    if (!lists_)
        lists_.reset(new Lists());  // std::bad_alloc: the entry points report MPI_ERR_NO_MEM
    return *lists_;
}

namespace {

template <class SourceOf>
void trace_message(const BundleGroup &g, int round, bool sent, int peer, const std::vector<int> &positions,
                   const SourceOf &source_of, std::size_t bytes)
{
    std::vector<long long> ids;
    for (int t : positions) {
        int s = source_of(t);
        g.block_ids(s, mod(s + t, g.size), &ids);
    }
    g.trace->round(round, sent ? g.ranks[peer] : -1, sent ? -1 : g.ranks[peer], ids, sent ? bytes : 0,
                   sent ? 0 : bytes);
}

}  // namespace

BundleGroup bundle_group(MPI_Comm comm, LocalWork *work, const std::vector<int> &ranks, int me, int radix, int tag, SizesKnown known,
                         Trace *trace, int first_round)
{
    BundleGroup g{};
    g.comm = comm;
    g.work = work;
    g.ranks = ranks.data();
    g.size = static_cast<int>(ranks.size());
    g.me = me;
    g.radix = radix;
    g.tag = tag;
    g.known = known;
    g.agreed_max = nullptr;
    g.agreed_count = 1;
    g.record = nullptr;
    g.planned = nullptr;
    g.trace = trace;
    g.first_round = first_round;
    return g;
}

int bundle_bruck_rounds(int n, int radix) { return parlogna_round_count(n, std::max(2, std::min(radix, n))); }

int bundle_bruck_digits(int n, int radix)
{
    const long long r = std::max(2, std::min(radix, n));
    int digits = 0;
    for (long long w = 1; w < n; w *= r)
        ++digits;
    return digits;
}

int bundle_bruck(const BundleGroup &g, const std::vector<std::vector<Piece>> &bundles, std::vector<Piece> *arrived,
                 ScratchStore *store)
{
    const int n = g.size, me = g.me;
    arrived->assign(static_cast<std::size_t>(n), Piece{nullptr, 0});
    if (n <= 1)
        return MPI_SUCCESS;
    const int r = std::max(2, std::min(g.radix, n));
    const bool sizes_only = g.record != nullptr;  // init of a persistent request
    const BundleSizes *planned = g.planned;
    BundleSpare::Lists fresh_lists;
    BundleSpare::Lists &kept = g.spare ? g.spare->lists() : fresh_lists;
    std::vector<Held> &held = kept.held;
    held.assign(static_cast<std::size_t>(n), Held());
    for (int t = 1; t < n; ++t)
        held[t].start(bundles[mod(me + t, n)]);
    const std::size_t stats = static_cast<std::size_t>(std::max(1, g.agreed_count));
    std::vector<std::uint64_t> &agreed = kept.agreed;  // statistics, not data: not a LocalWork copy
    agreed.assign(stats, 0);
    for (std::size_t k = 0; g.agreed_max && k < stats; ++k)
        agreed[k] = g.agreed_max[k];
    int mismatch = MPI_SUCCESS;  // a final bundle of unexpected size, reported at the end
    int relayed_wrong = MPI_SUCCESS;  // a whole message of unexpected size (see relay_length)
    int round_id = g.first_round;
    std::vector<Round> &rounds = kept.rounds;
    // A digit's packed sends, until they complete; small buffers kept from call
    // to call (no malloc a message), large ones back to the pool on every return.
    StoreForCall packed_for_call(&kept.packed, store->pool());
    ScratchStore &packed = *packed_for_call;
    RangeList &message = kept.message;
    std::vector<std::size_t> &sizes = kept.sizes, &head_values = kept.head_values;
    // A message: a header and at least a piece per position (fewer regrowths).
    message.reserve(static_cast<std::size_t>(n) + 1);
    sizes.reserve(static_cast<std::size_t>(n));
    // Receives of unknown size, per digit (kept across digits: fewer allocations).
    std::vector<int> &peers = kept.peers;
    std::vector<Round *> &of_peer = kept.of_peer;
    std::vector<char *> &data = kept.data;
    std::vector<std::size_t> &bytes = kept.bytes;
    std::vector<MPI_Request> &reqs = kept.reqs;
    int digit = 0;
    for (long long w = 1; w < n; w *= r, ++digit) {
        const int tag = g.tag + digit;
        const long long wr = w * r;
        const int zmax = static_cast<int>(std::min<long long>(r - 1, (n - 1) / w));
        rounds.resize(static_cast<std::size_t>(zmax));
        for (Round &rd : rounds)
            rd.reset();
        for (int z = 1; z <= zmax; ++z) {
            Round &rd = rounds[z - 1];
            rd.to = mod(me + z * w, n);
            rd.from = mod(me - z * w, n);
            rd.positions.reserve(static_cast<std::size_t>((n - 1) / w / r + 1) * static_cast<std::size_t>(w));
            for_each_position_with_digit(n, w, r, z, [&rd](int t) { rd.positions.push_back(t); });
            // The smallest position of value z with a higher digit is w*r + z*w.
            bool all_final = wr + z * w > n - 1;
            rd.home_check = g.known == SizesKnown::at_destination && all_final;
            rd.header = sizes_only || (!planned && (g.known == SizesKnown::nowhere ||
                                                    (g.known == SizesKnown::at_destination && !all_final)));
            // The statistics reach every rank only if every round carries them.
            rd.stats_only = rd.home_check && !rd.header && !planned && g.agreed_max != nullptr;
        }
        // Round rounds[i] is the group's round `first + i` (planned / recorded sizes).
        const std::size_t first = static_cast<std::size_t>(round_id - g.first_round);
        if (planned && planned->size() < first + rounds.size())
            return MPI_ERR_INTERN;
        // A position arriving here left index me - (t mod w*r); one leaving here
        // left index me - (t mod w). Either way it is bound for its source + t.
        auto arriving_from = [&](int t) { return mod(me - t % wr, n); };
        auto leaving_from = [&](int t) { return mod(me - t % w, n); };
        auto expected = [&](const Round &rd, std::vector<std::size_t> *out) {
            std::size_t total = 0;
            out->clear();
            for (int t : rd.positions) {
                int s = arriving_from(t);
                out->push_back(g.expected_bytes(s, mod(s + t, n)));
                total += out->back();
            }
            return total;
        };

        // Receives of a length this rank knows are posted before any send, so
        // their messages move as soon as they are sent, not when a probe sees
        // them: planned or known everywhere (an empty one is not sent: the
        // sender knows it too), and a round whose bundles all arrive home with
        // no header (its length from this rank's own receive sizes; the sender
        // always sends, an empty message too, as it cannot know what the
        // receiver expects). A longer message truncates the receive:
        // WorldErrorsReturn, around every exchange (dispatch, the engine), brings
        // MPICH's report of it back here.
        const bool exact = planned || g.known == SizesKnown::everywhere;
        for (Round &rd : rounds) {
            rd.home_known = !exact && rd.home_check && !rd.header && !rd.stats_only;
            if (!exact && !rd.home_known)
                continue;  // probed after the sends
            rd.posted = true;
            rd.in_bytes = planned ? (*planned)[first + (&rd - rounds.data())].bytes : expected(rd, &sizes);
            if (rd.in_bytes == 0 && exact)
                continue;
            if (rd.in_bytes > 0) {
                store->emplace_back();
                if (!store->back().resize(rd.in_bytes))
                    return MPI_ERR_NO_MEM;
                rd.in = store->back().data();
            }
            MPIX_CHECK(irecv_bytes(rd.in, rd.in_bytes, g.ranks[rd.from], tag, g.comm, &rd.recv_req));
        }

        // Receives of unknown size: one message from each remaining peer, probed
        // in arrival order (this digit's tag carries nothing else), posted
        // between the sends as they are found and the rest after them
        // (UnknownSizeReceives says why).
        peers.clear();
        of_peer.clear();
        for (Round &rd : rounds)
            if (!rd.posted) {
                peers.push_back(g.ranks[rd.from]);
                of_peer.push_back(&rd);
            }
        std::optional<UnknownSizeReceives> probed_receives;
        if (!peers.empty())
            probed_receives.emplace(peers, tag, g.comm, true, store, &data, &bytes, &reqs);

        // Sends: [header] then every position's pieces, in position order.
        for (Round &rd : rounds) {
            message.clear();
            if (rd.header || rd.stats_only) {
                // The statistics, then each bundle's length, as narrow as the
                // largest allows (16 B blocks: a byte each, not eight).
                head_values.resize(stats + (rd.header ? rd.positions.size() : 0));
                for (std::size_t k = 0; k < stats; ++k)  // statistics, not data
                    head_values[k] = agreed[k];
                if (rd.header)
                    for (std::size_t k = 0; k < rd.positions.size(); ++k)
                        head_values[stats + k] = bundle_bytes(held[rd.positions[k]]);
                encode_sizes(head_values, &rd.head);
                message.add(reinterpret_cast<const char *>(rd.head.data()), rd.head.size());
            }
            // The bundles' bytes (the list's total less its header); none where
            // the header says it all (sizes_only).
            const std::size_t head_bytes = message.total();
            if (!sizes_only)
                for (int t : rd.positions)
                    for (const Piece &p : held[t])
                        message.add(p.data, p.bytes);  // side by side: one range
            const std::size_t payload = message.total() - head_bytes;
            if (payload == 0 && !rd.header && !rd.stats_only) {
                // Known everywhere or planned: the receiver skips it too.
                // Otherwise the receiver probes for it, so an empty message still goes.
                if (g.known != SizesKnown::everywhere && !planned)
                    MPIX_CHECK(isend_bytes(nullptr, 0, g.ranks[rd.to], tag, g.comm, &rd.send_req));
            } else {
                // The receiver knows the length: after a message of the wrong
                // length here (its bundles zeroed) or a mismatch upstream, it goes empty.
                const bool receiver_knows = !rd.header && !rd.stats_only && (planned || g.known == SizesKnown::everywhere);
                const int poison = relayed_wrong != MPI_SUCCESS ? relayed_wrong
                                   : g.upstream_mismatch        ? *g.upstream_mismatch
                                                                : MPI_SUCCESS;
                MPIX_CHECK(isend_ranges(message, g.ranks[rd.to], tag, g.comm, g.work, &packed, &rd.send_req,
                                        receiver_knows ? &poison : nullptr));
            }
            if (g.trace && !sizes_only)
                trace_message(g, round_id + static_cast<int>(&rd - rounds.data()), true, rd.to, rd.positions, leaving_from, payload);
            if (probed_receives)
                MPIX_CHECK(probed_receives->packed(payload));
        }
        if (probed_receives) {
            MPIX_CHECK(probed_receives->finish());
            for (std::size_t k = 0; k < peers.size(); ++k) {
                of_peer[k]->in = data[k];
                of_peer[k]->in_bytes = bytes[k];
                of_peer[k]->recv_req = reqs[k];
            }
        }

        // Completion: read each header (or the expected sizes) and point every
        // received position at its bytes.
        for (Round &rd : rounds) {
            // Sizes known everywhere yet a sender's differ (MPIX_Alltoall with
            // unequal block sizes across ranks): reported, the round goes on.
            if (rd.home_known) {
                // Nothing of it is relayed, so a wrong length poisons no later send.
                int wrong = MPI_SUCCESS;
                MPIX_CHECK(wait_known_receive(&rd.recv_req, rd.in, rd.in_bytes, &wrong));
                if (wrong != MPI_SUCCESS) {
                    note_mismatch(&mismatch, wrong);
                    rd.arrived_wrong = true;  // its bundles arrive empty, as a probed message of the wrong length's do
                }
            } else if (rd.posted && rd.in_bytes > 0) {
                MPIX_CHECK(wait_known_receive(&rd.recv_req, rd.in, rd.in_bytes, &relayed_wrong));
                note_mismatch(&mismatch, relayed_wrong);
            } else {
                MPIX_CHECK(wait_request(&rd.recv_req, MPI_STATUS_IGNORE));
            }
            std::size_t head = 0;
            const std::size_t round_index = first + (&rd - rounds.data());
            if (rd.header || rd.stats_only) {  // the statistics lead every header
                const std::size_t count = stats + (rd.header ? rd.positions.size() : 0);
                if (!decode_sizes(rd.in, rd.in_bytes, count, &head_values, &head) ||
                    (sizes_only && rd.in_bytes != head))
                    return MPI_ERR_INTERN;
                for (std::size_t k = 0; k < stats; ++k)
                    agreed[k] = std::max<std::uint64_t>(agreed[k], head_values[k]);
            }
            if (rd.header) {
                sizes.clear();
                std::size_t total = head;
                for (std::size_t k = 0; k < rd.positions.size(); ++k) {
                    sizes.push_back(head_values[stats + k]);
                    if (!sizes_only && sizes.back() > rd.in_bytes - total)
                        return MPI_ERR_INTERN;  // the sender's own sizes cannot disagree
                    total += sizes.back();
                }
                if (!sizes_only && total != rd.in_bytes)
                    return MPI_ERR_INTERN;
                if (sizes_only) {
                    // What a start receives: the sender's bytes, read as the
                    // lengths the receiver itself expects where a call sends none.
                    BundleRoundSizes rec;
                    rec.bytes = total - head;
                    if (rd.home_check)
                        expected(rd, &rec.sizes);
                    else
                        rec.sizes = sizes;
                    g.record->push_back(std::move(rec));
                    if (rd.home_check && expected(rd, &sizes) != total - head) {
                        note_mismatch(&mismatch, total - head > std::accumulate(sizes.begin(), sizes.end(), std::size_t(0))
                                                     ? MPI_ERR_TRUNCATE
                                                     : MPI_ERR_COUNT);
                        std::fill(sizes.begin(), sizes.end(), 0);
                    }
                }
            } else if (planned) {
                sizes = (*planned)[round_index].sizes;
                if (sizes.size() != rd.positions.size())
                    return MPI_ERR_INTERN;
                const std::size_t total = std::accumulate(sizes.begin(), sizes.end(), std::size_t(0));
                if (total != rd.in_bytes) {
                    // Agreed at init that some final bundle has the wrong size.
                    note_mismatch(&mismatch, rd.in_bytes > total ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
                    std::fill(sizes.begin(), sizes.end(), 0);
                    rd.in_bytes = 0;
                }
            } else if (rd.home_known) {
                expected(rd, &sizes);  // the length the receive was posted with
                if (rd.arrived_wrong)
                    std::fill(sizes.begin(), sizes.end(), 0);
            } else if (expected(rd, &sizes) != rd.in_bytes - head) {
                // Some final bundle does not have the size its receiver expects.
                note_mismatch(&mismatch, rd.in_bytes - head > std::accumulate(sizes.begin(), sizes.end(), std::size_t(0))
                                             ? MPI_ERR_TRUNCATE
                                             : MPI_ERR_COUNT);
                std::fill(sizes.begin(), sizes.end(), 0);
                rd.in_bytes = 0;
            }
            std::size_t at = head;
            for (std::size_t k = 0; k < rd.positions.size(); ++k) {
                held[rd.positions[k]].arrive(Piece{sizes_only ? nullptr : rd.in + at, sizes[k]});
                at += sizes_only ? 0 : sizes[k];
            }
            if (g.trace && !sizes_only)
                trace_message(g, round_id + static_cast<int>(&rd - rounds.data()), false, rd.from, rd.positions,
                              arriving_from, at - head);
        }
        for (Round &rd : rounds)
            MPIX_CHECK(wait_request(&rd.send_req, MPI_STATUS_IGNORE));
        packed.recycle();
        round_id += zmax;
    }
    for (int t = 1; t < n; ++t)
        (*arrived)[mod(me - t, n)] = held[t].only();
    for (std::size_t k = 0; g.agreed_max && k < stats; ++k)
        g.agreed_max[k] = agreed[k];
    return mismatch;
}

namespace {

template <class Word>
void put_sizes(const std::vector<std::size_t> &sizes, unsigned char *at)
{
    for (std::size_t s : sizes) {
        const Word v = static_cast<Word>(s);
        std::memcpy(at, &v, sizeof v);
        at += sizeof v;
    }
}

template <class Word>
void get_sizes(const char *at, std::size_t count, std::vector<std::size_t> *sizes)
{
    sizes->resize(count);
    for (std::size_t k = 0; k < count; ++k, at += sizeof(Word)) {
        Word v;
        std::memcpy(&v, at, sizeof v);
        (*sizes)[k] = static_cast<std::size_t>(v);
    }
}

}  // namespace

void encode_sizes(const std::vector<std::size_t> &sizes, std::vector<unsigned char> *out)
{
    std::size_t largest = 0;
    for (std::size_t s : sizes)
        largest = std::max(largest, s);
    const unsigned char width = largest <= 0xffu ? 1 : largest <= 0xffffu ? 2 : largest <= 0xffffffffu ? 4 : 8;
    out->resize(1 + sizes.size() * width);
    (*out)[0] = width;
    unsigned char *at = out->data() + 1;
    switch (width) {
    case 1: put_sizes<std::uint8_t>(sizes, at); break;
    case 2: put_sizes<std::uint16_t>(sizes, at); break;
    case 4: put_sizes<std::uint32_t>(sizes, at); break;
    default: put_sizes<std::uint64_t>(sizes, at); break;
    }
}

bool decode_sizes(const char *p, std::size_t avail, std::size_t count, std::vector<std::size_t> *sizes,
                  std::size_t *used)
{
    if (avail < 1)
        return false;
    const unsigned char width = static_cast<unsigned char>(p[0]);
    if ((width != 1 && width != 2 && width != 4 && width != 8) || (avail - 1) / width < count)
        return false;
    switch (width) {
    case 1: get_sizes<std::uint8_t>(p + 1, count, sizes); break;
    case 2: get_sizes<std::uint16_t>(p + 1, count, sizes); break;
    case 4: get_sizes<std::uint32_t>(p + 1, count, sizes); break;
    default: get_sizes<std::uint64_t>(p + 1, count, sizes); break;
    }
    *used = 1 + count * width;
    return true;
}

}  // namespace mpix
