// ParLogNa: non-uniform all-to-all in K rounds with radix r (2 <= r <= P).
//
// Position t (1..P-1) of rank me holds the block that still has to travel t ranks
// forward. Round (w = r^i, z) moves every position whose digit of weight w is z to
// rank me + z*w. A position's last hop is its highest nonzero digit; it then lands
// directly in its receive block. Positions with two or more nonzero digits are
// forwarded through temporary slots; there are exactly P-1-K such positions, so
// the temporary buffer holds P-1-K slots of the largest block (none when r >= P,
// which is the direct exchange).
//
// A slot being sent cannot take the block arriving for the same position in the
// same round. Such a block takes a spare slot if one is free, else it is received
// into a staging buffer and copied into its old slot once the round's sends have
// completed (traced as `stage_bytes`). So every round is one message per peer:
// splitting rounds instead doubled the message count at small radix.
#include "alltoallv/parlogna.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "alltoall/bruck.hpp"
#include "alltoallv/direct.hpp"
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
    std::vector<int> pending;                   // positions not yet moved in this round
    std::vector<unsigned long long> meta_out, meta_in;
};

}  // namespace

int parlogna(const Exchange &x)
{
    const int p = x.size, me = x.rank;
    copy_self_block(x);
    if (p == 1)
        return MPI_SUCCESS;
    const int r = parlogna_radix(p, x.hints->radix);
    const int batch = x.hints->batch_size > 0 ? x.hints->batch_size : 32;
    const int k_rounds = parlogna_round_count(p, r);
    const int nslots = p - 1 - k_rounds;

    // Largest block anywhere: every rank's slots must hold any forwarded block.
    unsigned long long largest = 0;
    if (nslots > 0) {
        unsigned long long mine = 0;
        for (int j = 0; j < p; ++j)
            if (j != me && x.sendbytes[j] > mine)
                mine = x.sendbytes[j];
        MPIX_CHECK(MPI_Allreduce(&mine, &largest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, x.comm));
    }
    const std::size_t slot_bytes = static_cast<std::size_t>(largest);
    ScratchBytes temp;
    if (!temp.resize(static_cast<std::size_t>(nslots) * slot_bytes))
        return MPI_ERR_NO_MEM;
    if (x.trace) {
        x.trace->set_params("radix=" + std::to_string(r) + ",batch=" + std::to_string(batch));
        x.trace->temp_alloc(temp.size());
    }
    std::vector<int> free_slots;
    for (int s = nslots - 1; s >= 0; --s)
        free_slots.push_back(s);

    // Where each position's current block is, how long, and which slot (-1: none).
    std::vector<char *> loc(static_cast<std::size_t>(p));
    std::vector<std::size_t> len(static_cast<std::size_t>(p)), in_len(static_cast<std::size_t>(p));
    std::vector<int> slot(static_cast<std::size_t>(p), -1), new_slot(static_cast<std::size_t>(p), -1);
    for (int t = 1; t < p; ++t) {
        int dst = mod(static_cast<long long>(me) + t, p);
        loc[t] = const_cast<char *>(x.send_block(dst));  // only ever sent from
        len[t] = x.sendbytes[dst];
    }

    std::vector<RoundState> rounds;
    std::vector<MPI_Request> reqs;
    std::vector<char *> saddr, raddr;
    std::vector<std::size_t> slen, rlen;
    std::vector<long long> staged_at(static_cast<std::size_t>(p), -1);  // offset in stage, -1: not staged
    ScratchBytes stage;  // grows to the largest batch of staged blocks
    int round = 0;
    for (long long w = 1; w < p; w *= r) {
        const long long zmax = (p - 1) / w < r - 1 ? (p - 1) / w : r - 1;
        const long long beyond = w * r;  // t >= beyond: t has a higher nonzero digit
        for (long long z0 = 1; z0 <= zmax; z0 += batch) {
            const long long z1 = z0 + batch - 1 < zmax ? z0 + batch - 1 : zmax;
            // Rounds of one digit move disjoint positions: post a batch of them at once.
            rounds.clear();
            for (long long z = z0; z <= z1; ++z) {
                RoundState rs;
                rs.z = static_cast<int>(z);
                rs.round = round++;
                rs.to = mod(me + z * w, p);
                rs.from = mod(me - z * w, p);
                for (int t = 1; t < p; ++t)
                    if (radix_digit(t, w, r) == z) {
                        rs.pending.push_back(t);
                        if (t >= beyond)
                            rs.meta_out.push_back(len[t]);
                    }
                rs.meta_in.resize(rs.meta_out.size());
                rounds.push_back(std::move(rs));
            }
            // Block sizes first, only for blocks the receiver forwards again: a
            // block that arrives home has the receive count as its size.
            reqs.clear();
            for (RoundState &rs : rounds)
                if (!rs.meta_in.empty()) {
                    int n = static_cast<int>(rs.meta_in.size());
                    reqs.emplace_back();
                    MPIX_CHECK(MPI_Irecv(rs.meta_in.data(), n, MPI_UNSIGNED_LONG_LONG, rs.from, x.tag, x.comm,
                                         &reqs.back()));
                    reqs.emplace_back();
                    MPIX_CHECK(MPI_Isend(rs.meta_out.data(), n, MPI_UNSIGNED_LONG_LONG, rs.to, x.tag, x.comm,
                                         &reqs.back()));
                }
            MPIX_CHECK(wait_all(static_cast<int>(reqs.size()), reqs.data()));
            for (RoundState &rs : rounds) {
                std::size_t m = 0;
                for (int t : rs.pending)
                    in_len[t] = t >= beyond ? static_cast<std::size_t>(rs.meta_in[m++])
                                            : x.recvbytes[mod(static_cast<long long>(me) - t, p)];
            }

            // Data: one message per round and peer. A block forwarded again takes a
            // free slot; when none is left (its old slot is still being sent) it lands
            // in the staging buffer and moves into its old slot after the sends
            // complete. Blocks that never sat in a slot always find a free one (they
            // and the slots in use are distinct forwarded positions, at most P-1-K).
            std::size_t stage_need = 0;
            {
                std::size_t fresh = 0;
                for (RoundState &rs : rounds)
                    for (int t : rs.pending)
                        fresh += t >= beyond && slot[t] < 0;
                std::size_t spare = free_slots.size() - fresh;  // fresh <= free, see above
                for (RoundState &rs : rounds)
                    for (int t : rs.pending) {
                        staged_at[t] = -1;
                        if (t >= beyond && slot[t] >= 0) {
                            if (spare > 0) {
                                --spare;
                            } else {
                                staged_at[t] = static_cast<long long>(stage_need);
                                stage_need += in_len[t];
                            }
                        }
                    }
            }
            if (stage_need > stage.size()) {
                if (x.trace)
                    x.trace->stage_alloc(stage_need - stage.size());
                if (!stage.resize(stage_need))  // no request is in flight here
                    return MPI_ERR_NO_MEM;
            }
            reqs.clear();
            for (RoundState &rs : rounds) {
                saddr.clear();
                slen.clear();
                raddr.clear();
                rlen.clear();
                std::size_t staged = 0;
                for (int t : rs.pending) {
                    saddr.push_back(loc[t]);
                    slen.push_back(len[t]);
                    if (t < beyond) {
                        new_slot[t] = -1;
                        raddr.push_back(x.recv_block(mod(static_cast<long long>(me) - t, p)));
                    } else if (staged_at[t] >= 0) {
                        new_slot[t] = slot[t];
                        raddr.push_back(stage.data() + staged_at[t]);
                        staged += in_len[t];
                    } else {
                        new_slot[t] = free_slots.back();
                        free_slots.pop_back();
                        raddr.push_back(temp.data() + static_cast<std::size_t>(new_slot[t]) * slot_bytes);
                    }
                    rlen.push_back(in_len[t]);
                }
                if (rs.pending.empty())
                    continue;
                reqs.emplace_back();
                MPIX_CHECK(irecv_ranges(raddr, rlen, false, rs.from, x.tag + 1, x.comm, &reqs.back()));
                reqs.emplace_back();
                MPIX_CHECK(isend_ranges(saddr, slen, false, rs.to, x.tag + 1, x.comm, &reqs.back()));
                if (x.trace) {
                    std::vector<long long> ids;
                    std::size_t sent = 0, recv = 0;
                    for (int t : rs.pending) {
                        int src = mod(static_cast<long long>(me) - t % w, p);
                        ids.push_back(static_cast<long long>(src) * p + mod(static_cast<long long>(src) + t, p));
                        sent += len[t];
                        recv += in_len[t];
                    }
                    x.trace->round(rs.round, rs.to, rs.from, ids, sent, recv, staged);
                }
            }
            MPIX_CHECK(wait_all(static_cast<int>(reqs.size()), reqs.data()));
            for (RoundState &rs : rounds)
                for (int t : rs.pending) {
                    if (slot[t] >= 0 && new_slot[t] != slot[t])
                        free_slots.push_back(slot[t]);  // its send has completed
                    slot[t] = new_slot[t];
                    if (slot[t] >= 0) {
                        loc[t] = temp.data() + static_cast<std::size_t>(slot[t]) * slot_bytes;
                        len[t] = in_len[t];
                        if (staged_at[t] >= 0 && in_len[t] > 0)
                            std::memcpy(loc[t], stage.data() + staged_at[t], in_len[t]);
                    } else {
                        loc[t] = nullptr;  // home
                        len[t] = 0;
                    }
                }
        }
    }
    if (x.trace)
        x.trace->temp_free(temp.size());
    return MPI_SUCCESS;
}

}  // namespace mpix
