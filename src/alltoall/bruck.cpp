// Bruck family for uniform blocks. Notation used throughout: a block at "position"
// t on rank me still has to travel t ranks forward; a round with weight w and
// digit value z moves every position whose base-radix digit of weight w equals z
// to rank me + z*w. Position t's final home on rank me is recv_block(me - t).
#include "alltoall/bruck.hpp"

#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "alltoallv/direct.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/trace.hpp"

namespace mpix {

namespace {

int mod(long long a, int p)
{
    long long m = a % p;
    return static_cast<int>(m < 0 ? m + p : m);
}

// Positions moved by the round (weight w, digit z).
void round_positions(int p, long long w, int radix, int z, std::vector<int> *ts)
{
    ts->clear();
    for_each_position_with_digit(p, w, radix, z, [ts](int t) { ts->push_back(t); });
}

std::size_t max_round_positions(int p, int radix)
{
    std::size_t most = 0;  // counted digit by digit: no list a call
    for (long long w = 1; w < p; w *= radix)
        for (int z = 1; z < radix; ++z) {
            std::size_t count = 0;
            for_each_position_with_digit(p, w, radix, z, [&count](int) { ++count; });
            most = count > most ? count : most;
        }
    return most;
}

// Records one round: the blocks sent are identified by their global id src*P + dst;
// digits below weight w have already been travelled.
void trace_round(const Exchange &x, int round, int to, int from, const std::vector<int> &ts, long long w,
                 std::size_t sent, std::size_t recv)
{
    if (!x.trace)
        return;
    std::vector<long long> ids;
    ids.reserve(ts.size());
    for (int t : ts) {
        int src = mod(x.rank - t % w, x.size);
        ids.push_back(static_cast<long long>(src) * x.size + mod(static_cast<long long>(src) + t, x.size));
    }
    x.trace->round(round, to, from, ids, sent, recv);
}

// Rotation index arrays for rank `rank` of a P-rank communicator, cached on the
// MPIX_Comm: position t starts at send block (rank + t) and ends at receive block
// (rank - t), so neither rotation needs a copy.
struct RotationIndex : CacheEntry {
    std::vector<int> send_index, recv_index;
};

const RotationIndex &rotation_index(const Exchange &x)
{
    CacheKey key("bruck_rotation:");
    key.add(x.size).add(":").add(x.rank);
    if (RotationIndex *r = cached<RotationIndex>(x.xcomm, key))
        return *r;
    std::unique_ptr<RotationIndex> r(new RotationIndex);
    r->send_index.resize(static_cast<std::size_t>(x.size));
    r->recv_index.resize(static_cast<std::size_t>(x.size));
    for (int t = 0; t < x.size; ++t) {
        r->send_index[t] = mod(static_cast<long long>(x.rank) + t, x.size);
        r->recv_index[t] = mod(static_cast<long long>(x.rank) - t, x.size);
    }
    return *cache_keep(x.xcomm, key, std::move(r));
}

int effective_radix(const Exchange &x, int fallback)
{
    int r = x.hints->radix > 0 ? x.hints->radix : fallback;
    if (r < 2)
        r = 2;
    return r > x.size ? x.size : r;
}

// Radix-r Bruck with explicit packing. Positions live in the send buffer until
// their first hop and in their final receive block afterwards (that slot belongs
// to position t alone), so no rotation and no working buffer are needed.
// rotate_first: copy every block to its final-layout slot first (modified Bruck).
int packed_bruck(const Exchange &x, int radix, bool rotate_first)
{
    const int p = x.size, me = x.rank;
    const std::size_t b = x.block_bytes;
    copy_self_block(x);
    if (p == 1 || b == 0)
        return MPI_SUCCESS;
    const RotationIndex &ix = rotation_index(x);
    std::vector<char> moved(static_cast<std::size_t>(p), rotate_first ? 1 : 0);
    if (rotate_first) {
        LocalWork::Batch batch(x.work);
        LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
        for (int t = 1; t < p; ++t)
            run.copy(x.recv_block(ix.recv_index[t]), x.send_block(ix.send_index[t]), b);
    }
    std::size_t most = max_round_positions(p, radix);
    PooledScratch sbuf(&x.xcomm->scratch), rbuf(&x.xcomm->scratch);
    if (!sbuf.take(most * b) || !rbuf.take(most * b))
        return MPI_ERR_NO_MEM;
    if (x.trace) {
        x.trace->set_params("radix=" + std::to_string(radix));
        x.trace->temp_alloc(2 * most * b);
    }
    std::vector<int> ts;
    ts.reserve(most);  // one allocation, not one per doubling
    int round = 0;
    for (long long w = 1; w < p; w *= radix)
        for (int z = 1; z < radix && z * w < p; ++z, ++round) {
            round_positions(p, w, radix, z, &ts);
            {
                LocalWork::Batch batch(x.work);
                LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
                for (std::size_t i = 0; i < ts.size(); ++i) {
                    int t = ts[i];
                    const char *src = moved[t] ? x.recv_block(ix.recv_index[t]) : x.send_block(ix.send_index[t]);
                    run.copy(sbuf.data() + i * b, src, b);
                }
            }
            int to = mod(me + z * w, p), from = mod(me - z * w, p);
            std::size_t n = ts.size() * b;
            MPIX_CHECK(sendrecv_bytes(sbuf.data(), relay_length(n, x.mismatch), to, rbuf.data(), n, from, x.tag, x.comm,
                                      x.mismatch));
            LocalWork::Batch batch(x.work);
            LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
            for (std::size_t i = 0; i < ts.size(); ++i) {
                run.copy(x.recv_block(ix.recv_index[ts[i]]), rbuf.data() + i * b, b);
                moved[ts[i]] = 1;
            }
            trace_round(x, round, to, from, ts, w, n, n);
        }
    if (x.trace)
        x.trace->temp_free(2 * most * b);
    return MPI_SUCCESS;
}

// The radix-2 rounds of the derived-datatype variants: in round k, position t
// (bit k set) is sent from and received to where `place(t, k, &from, &to)` says,
// as one datatype per direction; `landed(t, k, to)` runs once the round is done.
template <class Place, class Landed>
int datatype_rounds(const Exchange &x, bool use_struct, Place place, Landed landed)
{
    const int p = x.size, me = x.rank;
    const std::size_t b = x.block_bytes;
    std::vector<int> ts;
    ts.reserve(static_cast<std::size_t>(p) / 2 + 1);  // a radix-2 round moves at most half the positions
    std::vector<char *> saddr, raddr;
    int round = 0;
    for (long long k = 1; k < p; k <<= 1, ++round) {
        round_positions(p, k, 2, 1, &ts);
        saddr.clear();
        raddr.clear();
        for (int t : ts) {
            char *from_addr, *to_addr;
            place(t, k, &from_addr, &to_addr);
            saddr.push_back(from_addr);
            raddr.push_back(to_addr);
        }
        std::vector<std::size_t> lens(ts.size(), b);
        int to = mod(me + k, p), from = mod(me - k, p);
        MPI_Request reqs[2];
        MPIX_CHECK(irecv_ranges_datatype(raddr, lens, use_struct, from, x.tag, x.comm, x.work, &reqs[0]));
        MPIX_CHECK(isend_ranges_datatype(saddr, lens, use_struct, to, x.tag, x.comm, x.work, &reqs[1], x.mismatch));
        const std::size_t expected[2] = {ts.size() * b, kNotChecked};
        MPIX_CHECK(wait_all(2, reqs, expected, x.mismatch));
        LocalWork::Batch batch(x.work);
        LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
        for (std::size_t i = 0; i < ts.size(); ++i)
            landed(ts[i], k, raddr[i]);
        trace_round(x, round, to, from, ts, k, ts.size() * b, ts.size() * b);
    }
    return MPI_SUCCESS;
}

// Radix-2 Bruck moving blocks with derived datatypes: positions live at pos[t];
// each step sends them straight from there and receives into a scratch buffer of
// the same layout, then copies back (send and receive sets coincide).
int datatype_bruck(const Exchange &x, std::vector<char *> &pos)
{
    const std::size_t b = x.block_bytes;
    PooledScratch scratch(&x.xcomm->scratch);
    if (!scratch.take(static_cast<std::size_t>(x.size) * b))
        return MPI_ERR_NO_MEM;
    if (x.trace)
        x.trace->temp_alloc(scratch.size());
    MPIX_CHECK(datatype_rounds(
        x, false,
        [&](int t, long long, char **from, char **to) {
            *from = pos[t];
            *to = scratch.data() + static_cast<std::size_t>(t) * b;
        },
        [&](int t, long long, char *at) { x.work->copy(pos[t], at, b); }));
    if (x.trace)
        x.trace->temp_free(scratch.size());
    return MPI_SUCCESS;
}

}  // namespace

int bruck_basic(const Exchange &x)
{
    const int p = x.size, me = x.rank;
    const std::size_t b = x.block_bytes;
    if (p == 1 || b == 0)
        return copy_self_block(x);
    // Rotation: working position t holds the block for rank me + t.
    std::size_t most = max_round_positions(p, 2);
    PooledScratch work(&x.xcomm->scratch), sbuf(&x.xcomm->scratch), rbuf(&x.xcomm->scratch);
    if (!work.take(static_cast<std::size_t>(p) * b) || !sbuf.take(most * b) || !rbuf.take(most * b))
        return MPI_ERR_NO_MEM;
    {
        LocalWork::Batch batch(x.work);
        LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
        for (int t = 0; t < p; ++t)
            run.copy(work.data() + static_cast<std::size_t>(t) * b, x.send_block(mod(me + t, p)), b);
    }
    if (x.trace)
        x.trace->temp_alloc(work.size() + 2 * most * b);
    std::vector<int> ts;
    ts.reserve(most);  // one allocation, not one per doubling
    int round = 0;
    for (long long k = 1; k < p; k <<= 1, ++round) {
        round_positions(p, k, 2, 1, &ts);
        {
            LocalWork::Batch batch(x.work);
            LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
            for (std::size_t i = 0; i < ts.size(); ++i)
                run.copy(sbuf.data() + i * b, work.data() + static_cast<std::size_t>(ts[i]) * b, b);
        }
        int to = mod(me + k, p), from = mod(me - k, p);
        std::size_t n = ts.size() * b;
        MPIX_CHECK(sendrecv_bytes(sbuf.data(), relay_length(n, x.mismatch), to, rbuf.data(), n, from, x.tag, x.comm,
                                      x.mismatch));
        {
            LocalWork::Batch batch(x.work);
            LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
            for (std::size_t i = 0; i < ts.size(); ++i)
                run.copy(work.data() + static_cast<std::size_t>(ts[i]) * b, rbuf.data() + i * b, b);
        }
        trace_round(x, round, to, from, ts, k, n, n);
    }
    // Inverse rotation: position t now holds the block from rank me - t.
    LocalWork::Batch batch(x.work);
    LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
    for (int t = 0; t < p; ++t)
        run.copy(x.recv_block(mod(me - t, p)), work.data() + static_cast<std::size_t>(t) * b, b);
    if (x.trace)
        x.trace->temp_free(work.size() + 2 * most * b);
    return MPI_SUCCESS;
}

int bruck_basic_dt(const Exchange &x)
{
    const int p = x.size, me = x.rank;
    const std::size_t b = x.block_bytes;
    if (p == 1 || b == 0)
        return copy_self_block(x);
    PooledScratch work(&x.xcomm->scratch);
    if (!work.take(static_cast<std::size_t>(p) * b))
        return MPI_ERR_NO_MEM;
    std::vector<char *> pos(static_cast<std::size_t>(p));
    {
        LocalWork::Batch batch(x.work);
        LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
        for (int t = 0; t < p; ++t) {
            pos[t] = work.data() + static_cast<std::size_t>(t) * b;
            run.copy(pos[t], x.send_block(mod(me + t, p)), b);
        }
    }
    if (x.trace)
        x.trace->temp_alloc(work.size());
    MPIX_CHECK(datatype_bruck(x, pos));
    LocalWork::Batch batch(x.work);
    LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
    for (int t = 0; t < p; ++t)
        run.copy(x.recv_block(mod(me - t, p)), pos[t], b);
    if (x.trace)
        x.trace->temp_free(work.size());
    return MPI_SUCCESS;
}

int bruck_modified(const Exchange &x) { return packed_bruck(x, 2, true); }

int bruck_modified_dt(const Exchange &x)
{
    const int p = x.size, me = x.rank;
    const std::size_t b = x.block_bytes;
    copy_self_block(x);
    if (p == 1 || b == 0)
        return MPI_SUCCESS;
    // Modified Bruck's only rotation: block d goes to slot 2*me - d, i.e. position
    // t = d - me sits in its final receive slot me - t from the start.
    std::vector<char *> pos(static_cast<std::size_t>(p));
    {
        LocalWork::Batch batch(x.work);
        LocalWork::CopyRun run(x.work);  // blocks that follow each other: one copy
        for (int t = 1; t < p; ++t) {
            pos[t] = x.recv_block(mod(me - t, p));
            run.copy(pos[t], x.send_block(mod(me + t, p)), b);
        }
    }
    pos[0] = x.recv_block(me);
    return datatype_bruck(x, pos);
}

int bruck_zerocopy_dt(const Exchange &x)
{
    const int p = x.size, me = x.rank;
    const std::size_t b = x.block_bytes;
    copy_self_block(x);
    if (p == 1 || b == 0)
        return MPI_SUCCESS;
    // Two alternating buffers: a position is received into the one it is not in,
    // so no step sends from and receives into the same bytes; the last hop of a
    // position lands in the receive buffer. Struct types describe the blocks
    // wherever they are: no local copy at all.
    PooledScratch bufs[2] = {PooledScratch(&x.xcomm->scratch), PooledScratch(&x.xcomm->scratch)};
    if (!bufs[0].take(static_cast<std::size_t>(p) * b) || !bufs[1].take(static_cast<std::size_t>(p) * b))
        return MPI_ERR_NO_MEM;
    if (x.trace)
        x.trace->temp_alloc(2 * bufs[0].size());
    std::vector<char *> loc(static_cast<std::size_t>(p));
    std::vector<int> in(static_cast<std::size_t>(p), -1);  // -1: send buffer, else bufs[i]
    for (int t = 0; t < p; ++t)
        loc[t] = const_cast<char *>(x.send_block(mod(me + t, p)));  // only ever sent from
    MPIX_CHECK(datatype_rounds(
        x, true,
        [&](int t, long long k, char **from, char **to) {
            *from = loc[t];
            if (t < 2 * k)  // k is t's highest bit: last hop
                *to = x.recv_block(mod(me - t, p));
            else
                *to = bufs[in[t] == 0 ? 1 : 0].data() + static_cast<std::size_t>(t) * b;
        },
        [&](int t, long long k, char *at) {
            loc[t] = at;
            if (t >= 2 * k)
                in[t] = in[t] == 0 ? 1 : 0;
        }));
    if (x.trace)
        x.trace->temp_free(2 * bufs[0].size());
    return MPI_SUCCESS;
}

int bruck_zero_rotation(const Exchange &x) { return packed_bruck(x, 2, false); }

int bruck_radix(const Exchange &x)
{
    int sq = 2;
    while (static_cast<long long>(sq) * sq < x.size)
        ++sq;
    return packed_bruck(x, effective_radix(x, sq), false);
}

}  // namespace mpix
