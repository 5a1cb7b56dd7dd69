// Bruck for non-uniform blocks (HPDC'22): pad to the largest block, or exchange
// the block sizes in every step (two-phase).
#include "alltoallv/bruck_nonuniform.hpp"

#include <algorithm>
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

namespace {

int mod(long long a, int p)
{
    long long m = a % p;
    return static_cast<int>(m < 0 ? m + p : m);
}

// Pads every block to the largest one anywhere, runs `uniform` on the padded
// buffers, then scans the real data out.
int padded(const Exchange &x, int (*uniform)(const Exchange &))
{
    const int p = x.size;
    unsigned long long mine = 0, largest = 0;
    for (int j = 0; j < p; ++j)
        mine = std::max<unsigned long long>(mine, x.sendbytes[j]);
    MPIX_CHECK(MPI_Allreduce(&mine, &largest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, x.comm));
    const std::size_t m = static_cast<std::size_t>(largest);
    if (m == 0)
        return copy_self_block(x);
    const std::size_t n = static_cast<std::size_t>(p) * m;
    std::vector<char> spad(n), rpad(n);  // zeroed: no uninitialised bytes on the wire
    if (x.trace) {
        x.trace->set_params("padded_block=" + std::to_string(m));
        x.trace->temp_alloc(2 * n);
    }
    std::vector<std::size_t> bytes(static_cast<std::size_t>(p), m);
    std::vector<MPI_Aint> displs(static_cast<std::size_t>(p));
    for (int j = 0; j < p; ++j) {
        displs[j] = static_cast<MPI_Aint>(static_cast<std::size_t>(j) * m);
        std::memcpy(&spad[displs[j]], x.send_block(j), x.sendbytes[j]);
    }
    Exchange sub = with_buffers(x, spad.data(), bytes.data(), displs.data(), rpad.data(), bytes.data(), displs.data());
    sub.uniform = true;
    sub.block_bytes = m;
    MPIX_CHECK(uniform(sub));
    for (int j = 0; j < p; ++j)
        std::memcpy(x.recv_block(j), &rpad[displs[j]], std::min(x.recvbytes[j], m));
    if (x.trace)
        x.trace->temp_free(2 * n);
    return MPI_SUCCESS;
}

}  // namespace

int padded_bruck(const Exchange &x) { return padded(x, bruck_modified); }

int padded_alltoall(const Exchange &x) { return padded(x, direct_pmpi); }

// Radix-2 Bruck where each step first sends the sizes of the blocks it moves, then
// the blocks themselves as one derived datatype (no packing). Blocks never rotate:
// position t starts in the send buffer and its last hop lands in its receive
// block; blocks in between live in one working buffer, appended on arrival and
// compacted when more than half of it is dead.
int two_phase_bruck(const Exchange &x)
{
    const int p = x.size, me = x.rank;
    copy_self_block(x);
    if (p == 1)
        return MPI_SUCCESS;
    ScratchBytes work;
    std::size_t peak = 0;
    std::vector<std::size_t> off(static_cast<std::size_t>(p)), len(static_cast<std::size_t>(p));
    std::vector<char> in_work(static_cast<std::size_t>(p), 0);
    for (int t = 1; t < p; ++t)
        len[t] = x.sendbytes[mod(static_cast<long long>(me) + t, p)];
    std::vector<int> ts;
    std::vector<unsigned long long> meta_out, meta_in;
    std::vector<char *> saddr, raddr;
    std::vector<std::size_t> slen, rlen, new_off;
    int round = 0;
    for (long long k = 1; k < p; k <<= 1, ++round) {
        ts.clear();
        for (int t = 1; t < p; ++t)
            if (t & k)
                ts.push_back(t);
        int to = mod(me + k, p), from = mod(me - k, p);
        meta_out.clear();
        for (int t : ts)
            meta_out.push_back(len[t]);
        meta_in.resize(ts.size());
        int n = static_cast<int>(ts.size());
        MPIX_CHECK(MPI_Sendrecv(meta_out.data(), n, MPI_UNSIGNED_LONG_LONG, to, x.tag, meta_in.data(), n,
                                MPI_UNSIGNED_LONG_LONG, from, x.tag, x.comm, MPI_STATUS_IGNORE));
        // Room for the blocks that will be forwarded again, at the end of the buffer.
        std::size_t end = work.size();
        new_off.assign(ts.size(), 0);
        for (std::size_t i = 0; i < ts.size(); ++i)
            if (ts[i] >= 2 * k) {
                new_off[i] = end;
                end += static_cast<std::size_t>(meta_in[i]);
            }
        if (end > work.size()) {
            if (!work.resize(end))  // between rounds: no request is in flight
                return MPI_ERR_NO_MEM;
            if (x.trace && end > peak) {
                x.trace->temp_alloc(end - peak);
                peak = end;
            }
        }
        saddr.clear();
        slen.clear();
        raddr.clear();
        rlen.clear();
        for (std::size_t i = 0; i < ts.size(); ++i) {
            int t = ts[i];
            saddr.push_back(in_work[t] ? work.data() + off[t]
                                       : const_cast<char *>(x.send_block(mod(static_cast<long long>(me) + t, p))));
            slen.push_back(len[t]);
            if (t >= 2 * k) {
                raddr.push_back(work.data() + new_off[i]);
                rlen.push_back(static_cast<std::size_t>(meta_in[i]));
            } else {  // last hop
                int src = mod(static_cast<long long>(me) - t, p);
                raddr.push_back(x.recv_block(src));
                rlen.push_back(std::min(x.recvbytes[src], static_cast<std::size_t>(meta_in[i])));
            }
        }
        MPI_Request reqs[2];
        MPIX_CHECK(irecv_ranges(raddr, rlen, false, from, x.tag + 1, x.comm, &reqs[0]));
        MPIX_CHECK(isend_ranges(saddr, slen, false, to, x.tag + 1, x.comm, &reqs[1]));
        MPIX_CHECK(wait_all(2, reqs));
        if (x.trace) {
            std::vector<long long> ids;
            std::size_t sent = 0, recv = 0;
            for (std::size_t i = 0; i < ts.size(); ++i) {
                int src = mod(static_cast<long long>(me) - ts[i] % k, p);
                ids.push_back(static_cast<long long>(src) * p + mod(static_cast<long long>(src) + ts[i], p));
                sent += slen[i];
                recv += rlen[i];
            }
            x.trace->round(round, to, from, ids, sent, recv);
        }
        std::size_t live = 0;
        for (std::size_t i = 0; i < ts.size(); ++i) {
            int t = ts[i];
            in_work[t] = t >= 2 * k;
            off[t] = new_off[i];
            len[t] = in_work[t] ? static_cast<std::size_t>(meta_in[i]) : 0;
        }
        for (int t = 1; t < p; ++t)
            if (in_work[t])
                live += len[t];
        if (2 * live < work.size()) {  // compact: keep blocks in offset order
            std::vector<int> order;
            for (int t = 1; t < p; ++t)
                if (in_work[t])
                    order.push_back(t);
            std::sort(order.begin(), order.end(), [&](int a, int b) { return off[a] < off[b]; });
            std::size_t at = 0;
            for (int t : order) {
                if (len[t])
                    std::memmove(work.data() + at, work.data() + off[t], len[t]);
                off[t] = at;
                at += len[t];
            }
            work.resize(at);  // shrinking keeps the allocation: cannot fail
        }
    }
    if (x.trace)
        x.trace->temp_free(peak);
    return MPI_SUCCESS;
}

}  // namespace mpix
