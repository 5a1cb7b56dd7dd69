// ParLogNa: non-uniform all-to-all in K rounds with radix r (2 <= r <= P).
//
// Position t (1..P-1) of rank me holds the block that still has to travel t ranks
// forward. Round (w = r^i, z) moves every position whose digit of weight w is z to
// rank me + z*w. A position's last hop is its highest nonzero digit; it then lands
// in its receive block. Positions with two or more nonzero digits are forwarded
// through temporary slots; at most P-1-K such positions are held at once, each in
// a slot sized to its block, so the temporary space is at most P-1-K blocks of
// the largest block (none when r >= P, the direct exchange).
//
// Every round is one message per peer: the sizes of the blocks the receiver will
// forward again, then every block of the round (the receiver knows the sizes of
// the blocks that arrive home: its recvcounts). Receives are probed into a
// staging buffer (traced as `stage_bytes`) and copied out once the round's sends
// have completed, so a slot being sent can take its position's next block; the
// last digit's messages, whose blocks all arrive home, have a length the
// receiver knows and are received into buffers posted before the sends. No
// block size is agreed in advance: there is no reduction and no size message.
// A persistent request agrees them once at init (parlogna_prepare: the same
// rounds carrying lengths only); its starts then send blocks alone.
#include "alltoallv/parlogna.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "alltoall/bruck.hpp"
#include "alltoallv/bundle_bruck.hpp"
#include "alltoallv/direct.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/scratch.hpp"
#include "core/trace.hpp"

namespace mpix {

int parlogna_round_count(int p, int radix)
{
    int k = 0;
    for (long long w = 1; w < p; w *= radix) {
        long long values = (p - 1) / w;  // z with z*w <= P-1
        k += static_cast<int>(values < radix - 1 ? values : radix - 1);
    }
    return k;
}

int parlogna_radix(int p, int hint)
{
    int r = hint;
    if (r <= 0) {
        r = 2;
        while (static_cast<long long>(r) * r < p)
            ++r;
    }
    if (r > p)
        r = p;
    return r < 2 ? 2 : r;
}

namespace {

int mod(long long a, int p)
{
    long long m = a % p;
    return static_cast<int>(m < 0 ? m + p : m);
}

struct RoundState {
    int z, round, to, from;
    std::vector<int> pending;                   // positions moved in this round
    std::vector<std::size_t> meta_out;          // sizes of those the receiver forwards
    std::vector<unsigned char> meta_bytes;      // ... as sent (encode_sizes: a byte each below 256)
    std::size_t sent = 0;                       // tracing
    std::vector<long long> ids;
};

// What one round brings this rank, agreed at a persistent request's init: the
// lengths of the blocks it forwards again (a call's header) and the bytes the
// sender sends (differing from what the header and recvcounts add up to only
// where a block arriving home has the wrong length).
struct RoundSizes {
    std::vector<std::size_t> forwarded;
    std::size_t bytes = 0;
};

// A call's lists, kept on the communicator (SpareLists) with their capacity:
// made fresh, they were about 15 allocations per batch of every call.
struct ParLogNaLists {
    std::vector<const char *> loc;
    std::vector<std::size_t> len;
    std::vector<ScratchBytes> slot;
    std::vector<RoundState> rounds;
    RangeList message;
    std::vector<char *> in_data;
    std::vector<std::size_t> in_bytes, expected, meta_in, in_len;
    std::vector<int> peers;
    std::vector<MPI_Request> recv_reqs, send_reqs;
    // The last digit's statistics, received apart (two values a round), and
    // their receives then sends.
    std::vector<std::uint64_t> stats_in;
    std::vector<MPI_Request> stats_reqs;
    std::vector<char> arrived_wrong;
    // A batch's staged receives and packed sends (StoreForCall: recycled).
    ScratchStore stage, packed;
};
struct ParLogNaCache : CacheEntry {
    SpareLists<ParLogNaLists> lists;
};

// What parlogna's starts reuse: every round's sizes, so no round carries a
// header or is probed.
class ParLogNaPlan : public ExchangePlan {
public:
    std::vector<RoundSizes> rounds;  // in round order
};

// The rounds. A call: each message is [header] + blocks, received by probing.
// `record` (init): each message is the length of every block it would carry and
// nothing else, and what each round brings is kept there. `planned` (a start):
// each message is the blocks alone, into receives of the planned length.
int rounds_of(const Exchange &x, std::vector<RoundSizes> *record, const std::vector<RoundSizes> *planned)
{
    const int p = x.size, me = x.rank;
    const bool sizes_only = record != nullptr;
    Trace *trace = sizes_only ? nullptr : x.trace;
    if (!sizes_only)
        copy_self_block(x);
    if (p == 1)
        return MPI_SUCCESS;
    const int r = parlogna_radix(p, x.hints->radix);
    const int batch = x.hints->batch_size > 0 ? x.hints->batch_size : 32;
    if (trace)
        trace->set_params("radix=" + std::to_string(r) + ",batch=" + std::to_string(batch));

    // Where each position's current block is and how long; forwarded blocks live
    // in slot[t] (empty once the position is home).
    ParLogNaCache *cache = cached_or_make<ParLogNaCache>(x.xcomm, "parlogna");
    if (!cache)
        return MPI_ERR_NO_MEM;
    LeasedLists<ParLogNaLists> lists(&cache->lists);
    std::vector<const char *> &loc = lists->loc;
    std::vector<std::size_t> &len = lists->len;
    std::vector<ScratchBytes> &slot = lists->slot;
    loc.assign(static_cast<std::size_t>(p), nullptr);
    len.assign(static_cast<std::size_t>(p), 0);
    // Bound to the communicator's pool: a forwarded block of 64 KiB or more
    // then lands in a warm buffer of an earlier call, not in fresh pages (at 8
    // ranks and 256 KiB blocks, 160 page faults a call and rank before). A
    // call that failed may have left one: it goes back to the pool here.
    // Smaller slots keep their memory from call to call (reset_for).
    slot.resize(static_cast<std::size_t>(p));
    for (ScratchBytes &b : slot)
        b.reset_for(&x.xcomm->scratch);
    for (int t = 1; t < p; ++t) {
        int dst = mod(static_cast<long long>(me) + t, p);
        loc[t] = x.send_block(dst);
        len[t] = x.sendbytes[dst];
    }
    std::size_t stage_peak = 0;  // largest batch staged so far (traced)
    int mismatch = MPI_SUCCESS;
    // auto's statistics (Exchange::carried_stats): in front of every message of
    // a call, each round's the largest this rank has seen. A round of digit i
    // is sent after every message of the digits below has come, so the values
    // from every rank me - t (t's digits) reach this rank: agreed by the end.
    std::uint64_t *carry = planned || sizes_only ? nullptr : x.carried_stats;
    constexpr std::size_t kCarryBytes = 2 * sizeof(std::uint64_t);
    // The last digit's expected message (agreed mean block x its w blocks) from
    // which carried statistics go apart from it.
    constexpr std::uint64_t kStatsApartBytes = 32 * 1024;

    std::vector<RoundState> &rounds = lists->rounds;
    RangeList &message = lists->message;
    std::vector<char *> &in_data = lists->in_data;
    std::vector<std::size_t> &in_bytes = lists->in_bytes;
    std::vector<int> &peers = lists->peers;
    std::vector<MPI_Request> &recv_reqs = lists->recv_reqs, &send_reqs = lists->send_reqs;
    std::vector<char> &arrived_wrong = lists->arrived_wrong;  // a home message of the wrong length
    int round = 0, digit = 0;
    for (long long w = 1; w < p; w *= r, ++digit) {
        const int tag = x.tag + digit;  // a tag per digit (at most 31 at radix 2)
        const long long zmax = (p - 1) / w < r - 1 ? (p - 1) / w : r - 1;
        // One batch per digit: nothing else arrives on its tag, probe any source.
        const bool exclusive = zmax <= batch;
        const long long beyond = w * r;  // t >= beyond: t has a higher nonzero digit
        for (long long z0 = 1; z0 <= zmax; z0 += batch) {
            const long long z1 = z0 + batch - 1 < zmax ? z0 + batch - 1 : zmax;
            // Rounds of one digit move disjoint positions: a batch of them at once.
            // Every position of the last digit arrives home: the receiver knows
            // each message's length (its recvcounts) and no header travels.
            const bool last_digit = !planned && !sizes_only && beyond >= p;
            // Carried statistics cannot ride in front of these messages: a
            // longer (erroneous) message would lose them with the blocks (MPICH
            // leaves a truncated receive's buffer unwritten), and the ranks
            // would pick differently on the next call. So the messages are
            // probed for their length (the blocks then move only once probed),
            // or, where they are large, the statistics go apart, a 16-byte
            // message after each round's blocks. SMPI, fattree-64x16's nodes of
            // one rank (auto's parlogna band; the row alone at 90.1 us at P=64,
            // 8 KiB): probing cost 105.0 us there, apart 98.9; at 1-4 KiB
            // blocks apart cost 3-6 us more than probing. Chosen on the values
            // the row was picked on, the same on every rank, as both sides of a
            // message must choose alike.
            const bool stats_apart =
                carry && last_digit && carry[2] >= kStatsApartBytes / static_cast<std::uint64_t>(w);
            const bool carry_inline = carry && !stats_apart;
            // Its receives posted before the sends, for the lengths expected.
            const bool home_digit = last_digit && !carry_inline;
            // Rounds keep their lists' capacity from the last call.
            rounds.resize(static_cast<std::size_t>(z1 - z0 + 1));
            for (long long z = z0; z <= z1; ++z) {
                RoundState &rs = rounds[static_cast<std::size_t>(z - z0)];
                rs.pending.clear();
                rs.meta_out.clear();
                rs.ids.clear();
                rs.sent = 0;
                rs.z = static_cast<int>(z);
                rs.round = round++;
                rs.to = mod(me + z * w, p);
                rs.from = mod(me - z * w, p);
                // Positions with digit z: at most w of every w * r (one allocation, not one per doubling).
                const std::size_t most = static_cast<std::size_t>(((p - 1) / w / r + 1) * w);
                rs.pending.reserve(most);
                if (sizes_only || (!planned && beyond < p))
                    rs.meta_out.reserve(most);
                for_each_position_with_digit(p, w, r, static_cast<int>(z), [&](int t) {
                    rs.pending.push_back(t);
                    if (sizes_only || (!planned && t >= beyond))
                        rs.meta_out.push_back(len[t]);
                });
            }
            if (planned && planned->size() < static_cast<std::size_t>(round))
                return MPI_ERR_INTERN;
            // Receives: of planned length, posted before the sends (none when
            // empty: the sender knows it too); in the last digit of the length
            // the receive counts give (empty too: the sender cannot know that
            // the receiver expects nothing), so they move as soon as they are
            // sent; else probed after the sends. A longer message truncates the
            // receive: the callers' WorldErrorsReturn brings that back here.
            StoreForCall stage_for_batch(&lists->stage, &x.xcomm->scratch);
            ScratchStore &stage = *stage_for_batch;
            arrived_wrong.assign(rounds.size(), 0);
            if (planned || home_digit) {
                stage.extend_to(rounds.size());
                in_data.assign(rounds.size(), nullptr);
                in_bytes.assign(rounds.size(), 0);
                recv_reqs.assign(rounds.size(), MPI_REQUEST_NULL);
                for (std::size_t k = 0; k < rounds.size(); ++k) {
                    if (planned) {
                        in_bytes[k] = (*planned)[rounds[k].round].bytes;
                        if (in_bytes[k] == 0)
                            continue;
                    } else {
                        for (int t : rounds[k].pending)
                            in_bytes[k] += x.recvbytes[mod(static_cast<long long>(me) - t, p)];
                    }
                    if (in_bytes[k] > 0 && !stage[k].resize(in_bytes[k]))
                        return MPI_ERR_NO_MEM;
                    in_data[k] = stage[k].data();
                    MPIX_CHECK(irecv_bytes(in_data[k], in_bytes[k], rounds[k].from, tag, x.comm, &recv_reqs[k]));
                }
            }
            // The statistics apart: received after the blocks of the same sender
            // and tag (sent in that order, so matched in that order).
            std::vector<std::uint64_t> &stats_in = lists->stats_in;
            std::vector<MPI_Request> &stats_reqs = lists->stats_reqs;
            stats_in.assign(stats_apart ? 2 * rounds.size() : 0, 0);
            stats_reqs.assign(stats_apart ? 2 * rounds.size() : 0, MPI_REQUEST_NULL);
            for (std::size_t k = 0; stats_apart && k < rounds.size(); ++k)
                MPIX_CHECK(irecv_bytes(&stats_in[2 * k], kCarryBytes, rounds[k].from, tag, x.comm, &stats_reqs[k]));
            // Receives, probed: each round's message into its own staging
            // buffer, posted between the sends as the messages are found and
            // the rest after them (UnknownSizeReceives says why).
            std::optional<UnknownSizeReceives> probed_receives;
            if (!planned && !home_digit) {
                peers.clear();
                for (const RoundState &rs : rounds)
                    peers.push_back(rs.from);
                probed_receives.emplace(peers, tag, x.comm, exclusive, &stage, &in_data, &in_bytes, &recv_reqs);
            }
            // Sends: [sizes of the blocks the receiver forwards] + every block.
            send_reqs.assign(rounds.size(), MPI_REQUEST_NULL);
            StoreForCall packed_for_batch(&lists->packed, &x.xcomm->scratch);
            ScratchStore &packed = *packed_for_batch;  // the batch's packed sends, until they complete
            for (std::size_t k = 0; k < rounds.size(); ++k) {
                RoundState &rs = rounds[k];
                message.clear();
                if (carry_inline) {
                    message.add(reinterpret_cast<const char *>(carry), kCarryBytes);
                }
                if (!rs.meta_out.empty()) {
                    encode_sizes(rs.meta_out, &rs.meta_bytes);
                    message.add(reinterpret_cast<const char *>(rs.meta_bytes.data()), rs.meta_bytes.size());
                }
                // The blocks' bytes (the list's total less carry and sizes);
                // none where the sizes say it all (sizes_only).
                const std::size_t head_bytes = message.total();
                if (!sizes_only)
                    for (int t : rs.pending)
                        message.add(loc[t], len[t]);
                const std::size_t sent = message.total() - head_bytes;
                if (sent == 0 && rs.meta_out.empty() && !carry_inline) {
                    if (!planned)  // the receiver probes or expects it: send it empty
                        MPIX_CHECK(isend_bytes(nullptr, 0, rs.to, tag, x.comm, &send_reqs[k]));
                } else {
                    MPIX_CHECK(isend_ranges(message, rs.to, tag, x.comm, x.work, &packed, &send_reqs[k]));
                }
                if (stats_apart)  // unchanged until every send of the batch completes
                    MPIX_CHECK(isend_bytes(carry, kCarryBytes, rs.to, tag, x.comm, &stats_reqs[rounds.size() + k]));
                if (probed_receives)
                    MPIX_CHECK(probed_receives->packed(sent));
                if (trace) {
                    for (int t : rs.pending) {
                        int src = mod(static_cast<long long>(me) - t % w, p);
                        rs.ids.push_back(static_cast<long long>(src) * p + mod(static_cast<long long>(src) + t, p));
                    }
                    rs.sent = sent;
                }
            }
            if (planned) {
                // Planned lengths are the senders' own: another length cannot
                // come, unless a rank's plan differs (noted, never overrun).
                std::vector<std::size_t> &expected = lists->expected;
                expected.assign(in_bytes.begin(), in_bytes.end());
                for (std::size_t k = 0; k < expected.size(); ++k)
                    if (recv_reqs[k] == MPI_REQUEST_NULL)
                        expected[k] = kNotChecked;
                MPIX_CHECK(wait_all(static_cast<int>(recv_reqs.size()), recv_reqs.data(), expected.data(), &mismatch));
            } else if (home_digit) {
                // A message of another length holds a block of the wrong length
                // (none of it goes on): reported, and none of its blocks
                // delivered, as with a probed message.
                for (std::size_t k = 0; k < rounds.size(); ++k) {
                    int wrong = MPI_SUCCESS;
                    MPIX_CHECK(wait_known_receive(&recv_reqs[k], in_data[k], in_bytes[k], &wrong));
                    if (wrong != MPI_SUCCESS) {
                        note_mismatch(&mismatch, wrong);
                        arrived_wrong[k] = 1;
                    }
                }
            } else {
                MPIX_CHECK(probed_receives->finish());
                MPIX_CHECK(wait_all(static_cast<int>(recv_reqs.size()), recv_reqs.data()));
            }
            MPIX_CHECK(wait_all(static_cast<int>(send_reqs.size()), send_reqs.data()));
            if (stats_apart) {
                // Both sides agree on 16 bytes: a mismatch here is the library's own.
                std::vector<std::size_t> &stats_expected = lists->expected;
                stats_expected.assign(stats_reqs.size(), kNotChecked);
                for (std::size_t k = 0; k < rounds.size(); ++k)
                    stats_expected[k] = kCarryBytes;
                int wrong = MPI_SUCCESS;
                MPIX_CHECK(wait_all(static_cast<int>(stats_reqs.size()), stats_reqs.data(), stats_expected.data(), &wrong));
                if (wrong != MPI_SUCCESS)
                    return MPI_ERR_INTERN;
                for (std::size_t k = 0; k < rounds.size(); ++k) {
                    carry[0] = std::max(carry[0], stats_in[2 * k]);
                    carry[1] = std::max(carry[1], stats_in[2 * k + 1]);
                }
            }
            // Every send of the batch is complete: slots may take new blocks,
            // and the statistics the messages brought may join this rank's.
            for (std::size_t k = 0; carry_inline && k < rounds.size(); ++k) {
                if (in_bytes[k] < kCarryBytes)
                    return MPI_ERR_INTERN;  // every rank carries them, or none does
                std::uint64_t theirs[2];
                std::memcpy(theirs, in_data[k], sizeof theirs);  // a header of two scalars
                carry[0] = std::max(carry[0], theirs[0]);
                carry[1] = std::max(carry[1], theirs[1]);
                in_data[k] += kCarryBytes;
                in_bytes[k] -= kCarryBytes;
            }
            LocalWork::Batch batch(x.work);
            std::vector<std::size_t> &meta_in = lists->meta_in;  // a message's header: the sizes of the blocks forwarded again
            for (std::size_t k = 0; k < rounds.size(); ++k) {
                RoundState &rs = rounds[k];
                std::size_t forwarded = 0;
                for (int t : rs.pending)
                    forwarded += t >= beyond;
                const std::size_t values = sizes_only ? rs.pending.size() : planned ? 0 : forwarded;
                std::size_t head = 0;
                if (values > 0 && !decode_sizes(in_data[k], in_bytes[k], values, &meta_in, &head))
                    return MPI_ERR_INTERN;
                if (sizes_only && in_bytes[k] != head)
                    return MPI_ERR_INTERN;
                // The bytes the sender sends (at init: the lengths it sends instead).
                std::size_t payload = in_bytes[k] - head;
                std::size_t expected = 0, f = 0;
                std::vector<std::size_t> &in_len = lists->in_len;
                in_len.assign(rs.pending.size(), 0);
                RoundSizes rec;
                if (sizes_only)
                    payload = 0;
                if (planned && (*planned)[rs.round].forwarded.size() != forwarded)
                    return MPI_ERR_INTERN;
                for (std::size_t i = 0; i < rs.pending.size(); ++i) {
                    int t = rs.pending[i];
                    std::size_t v = 0;
                    if (sizes_only || (!planned && t >= beyond))
                        v = meta_in[sizes_only ? i : f];
                    if (sizes_only)
                        payload += static_cast<std::size_t>(v);
                    if (t >= beyond) {
                        in_len[i] = planned ? (*planned)[rs.round].forwarded[f] : static_cast<std::size_t>(v);
                        ++f;
                        if (sizes_only)
                            rec.forwarded.push_back(in_len[i]);
                    } else {
                        in_len[i] = x.recvbytes[mod(static_cast<long long>(me) - t, p)];
                    }
                    expected += in_len[i];
                }
                if (sizes_only) {
                    rec.bytes = payload;
                    record->push_back(std::move(rec));
                }
                std::size_t at = head, forwarded_bytes = 0;
                for (std::size_t i = 0; i < rs.pending.size(); ++i)
                    if (rs.pending[i] >= beyond)
                        forwarded_bytes += in_len[i];
                if (expected != payload) {
                    if (forwarded == rs.pending.size() || payload < forwarded_bytes)
                        return MPI_ERR_INTERN;  // the sender's own sizes: cannot disagree
                    // A block arriving home is not its receive count long: report it
                    // and deliver none of this message's home blocks (which one is
                    // wrong is unknown). The forwarded blocks come last and their
                    // sizes travel in the header: they still go on, right.
                    note_mismatch(&mismatch, payload > expected ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
                }
                const bool usable = expected == payload && !arrived_wrong[k];
                if (!usable)
                    at = head + payload - forwarded_bytes;
                for (std::size_t i = 0; i < rs.pending.size(); ++i) {
                    int t = rs.pending[i];
                    std::size_t b = usable || t >= beyond ? in_len[i] : 0;
                    if (t < beyond) {  // home
                        if (!sizes_only)
                            x.work->copy(x.recv_block(mod(static_cast<long long>(me) - t, p)), in_data[k] + at, b);
                        if (trace)
                            trace->temp_free(slot[t].size());
                        slot[t].reset_for(&x.xcomm->scratch);  // a large buffer back to the pool
                        loc[t] = nullptr;
                        len[t] = 0;
                    } else if (sizes_only) {  // only its length goes on
                        len[t] = b;
                    } else {  // forwarded again later: into its slot
                        if (b > slot[t].size()) {
                            std::size_t grow = b - slot[t].size();
                            if (!slot[t].resize(b))
                                return MPI_ERR_NO_MEM;
                            if (trace)
                                trace->temp_alloc(grow);
                        }
                        x.work->copy(slot[t].data(), in_data[k] + at, b);
                        loc[t] = slot[t].data();
                        len[t] = b;
                    }
                    at += sizes_only ? 0 : b;
                }
                if (trace)
                    trace->round(rs.round, rs.to, rs.from, rs.ids, rs.sent, payload, payload);
            }
            std::size_t staged = 0;
            for (std::size_t b : in_bytes)
                staged += b;
            if (trace && staged > stage_peak) {
                trace->stage_alloc(staged - stage_peak);
                stage_peak = staged;
            }
        }
    }
    return mismatch;
}

}  // namespace

int parlogna(const Exchange &x)
{
    // Only parlogna_prepare makes the plans this row is given.
    const ParLogNaPlan *plan = static_cast<const ParLogNaPlan *>(x.plan);
    return rounds_of(x, nullptr, plan ? &plan->rounds : nullptr);
}

int parlogna_prepare(const Exchange &x, std::unique_ptr<ExchangePlan> *out)
{
    std::unique_ptr<ParLogNaPlan> plan(new ParLogNaPlan());
    int rc = rounds_of(x, &plan->rounds, nullptr);
    int rc_class = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc_class);
    if (rc_class != MPI_SUCCESS && rc_class != MPI_ERR_TRUNCATE && rc_class != MPI_ERR_COUNT)
        return rc;  // a wrong size is reported by every start
    *out = std::move(plan);
    return MPI_SUCCESS;
}

}  // namespace mpix
