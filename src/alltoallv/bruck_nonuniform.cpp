// Bruck for non-uniform blocks (HPDC'22): pad to the largest block, or exchange
// the block sizes in every step (two-phase).
#include "alltoallv/bruck_nonuniform.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
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

namespace {

// The padded rows' two buffers, kept on the communicator from call to call: a
// fresh multi-megabyte buffer per call faults in every page (measured at P=2,
// 1 MiB blocks: 900 page faults a call, 3.6 ms against 0.2 ms for the rows that
// reuse their memory). Grown (and the new part zeroed, so no uninitialised
// byte goes on the wire) when a call needs more. One blocking call uses them at
// a time; persistent starts run one after another.
struct PaddedScratch : CacheEntry {
    ScratchBytes send, recv;
    std::vector<std::size_t> bytes;  // the padded exchange's lengths and offsets, their
    std::vector<MPI_Aint> displs;    // capacity kept from call to call (no malloc a call)
};

// b's first n bytes, growing it (zeroing what is new) where it is shorter.
bool padded_buffer(ScratchBytes *b, std::size_t n, LocalWork *work)
{
    const std::size_t had = b->size();
    if (had >= n)
        return true;
    if (!b->resize(n))
        return false;
    work->fill(b->data() + had, 0, n - had);
    return true;
}

// Pads every block to the largest one anywhere, runs `uniform` on the padded
// buffers, then scans the real data out. Each padded slot starts with its
// block's length, so a receiver finds a block longer or shorter than its receive
// block (which the padding would otherwise hide) and copies no more than fits.
int padded(const Exchange &x, int (*uniform)(const Exchange &))
{
    using Length = std::uint64_t;
    const int p = x.size;
    unsigned long long mine = 0, largest = 0;
    for (int j = 0; j < p; ++j)
        mine = std::max<unsigned long long>(mine, x.sendbytes[j]);
    // Tagged messages, not MPI_Allreduce: the engine may run this while another
    // communicator's collective is under way (sched/engine.hpp, ordering rules).
    std::uint64_t agreed = mine;
    MPIX_CHECK(agree_max(&agreed, x.tag + kAgreementTag, x.comm));
    largest = agreed;
    if (largest == 0) {
        for (int j = 0; j < p; ++j)
            if (j != x.rank && x.recvbytes[j] != 0)
                note_mismatch(x.mismatch, MPI_ERR_COUNT);
        return copy_self_block(x);
    }
    const std::size_t m = sizeof(Length) + static_cast<std::size_t>(largest);
    const std::size_t n = static_cast<std::size_t>(p) * m;
    const std::string_view key = "padded:scratch";
    PaddedScratch *scratch = cached_or_make<PaddedScratch>(x.xcomm, key);
    if (!scratch)
        return MPI_ERR_NO_MEM;
    if (!padded_buffer(&scratch->send, n, x.work) || !padded_buffer(&scratch->recv, n, x.work))
        return MPI_ERR_NO_MEM;
    char *spad = scratch->send.data(), *rpad = scratch->recv.data();
    if (x.trace) {
        x.trace->set_params("padded_block=" + std::to_string(m));
        x.trace->temp_alloc(2 * n);
    }
    std::vector<std::size_t> &bytes = scratch->bytes;
    std::vector<MPI_Aint> &displs = scratch->displs;
    bytes.assign(static_cast<std::size_t>(p), m);
    displs.resize(static_cast<std::size_t>(p));
    {
        LocalWork::Batch batch(x.work);
        for (int j = 0; j < p; ++j) {
            displs[j] = static_cast<MPI_Aint>(static_cast<std::size_t>(j) * m);
            const Length length = x.sendbytes[j];
            x.work->copy(&spad[displs[j]], &length, sizeof length);
            x.work->copy(&spad[displs[j] + sizeof length], x.send_block(j), x.sendbytes[j]);
        }
    }
    Exchange sub = with_buffers(x, spad, bytes.data(), displs.data(), rpad, bytes.data(), displs.data());
    sub.uniform = true;
    sub.block_bytes = m;
    MPIX_CHECK(uniform(sub));
    LocalWork::Batch batch(x.work);
    for (int j = 0; j < p; ++j) {
        Length length;
        std::memcpy(&length, &rpad[displs[j]], sizeof length);
        if (length != x.recvbytes[j] && j != x.rank)
            note_mismatch(x.mismatch, length > x.recvbytes[j] ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
        x.work->copy(x.recv_block(j), &rpad[displs[j] + sizeof length],
                     std::min<std::size_t>(std::min<Length>(length, x.recvbytes[j]), m - sizeof length));
    }
    if (x.trace)
        x.trace->temp_free(2 * n);
    return MPI_SUCCESS;
}

}  // namespace

int padded_bruck(const Exchange &x) { return padded(x, bruck_modified); }

int padded_alltoall(const Exchange &x) { return padded(x, direct_pmpi); }

namespace {

// What two_phase_bruck's starts reuse: the length of every bundle each step
// brings, so no step carries a header or is probed.
class TwoPhasePlan : public ExchangePlan {
public:
    BundleSizes steps;
};

// two_phase's per-call lists, kept on the communicator (SpareLists): made fresh,
// the bundles were one allocation per rank on every call.
struct TwoPhaseLists {
    std::vector<std::vector<Piece>> bundles;
    std::vector<Piece> arrived;
    BundleSpare bundle_spare;
    ScratchStore store;  // a call's received messages (StoreForCall: recycled)
};
struct TwoPhaseCache : CacheEntry {
    std::vector<int> ranks;  // 0 .. p-1: the group is the whole communicator
    SpareLists<TwoPhaseLists> lists;
};

// Radix-2 Bruck (HPDC'22's two-phase Bruck) with each step's block sizes in front
// of its blocks, in the same message (bundle_bruck: probed receives, one message
// per step; the last step, whose blocks all land at their destinations, carries
// no sizes: the receivers know them, and post its receive before the sends). Blocks never rotate: they are sent from the
// send buffer and from where they arrived, and copied into their receive blocks.
// With `record` (prepare) only the sizes travel and are kept there; with
// `planned` (a start) only the blocks travel. `maxima`: `count` maxima agreed in
// the messages (one-off calls only).
int two_phase(const Exchange &x, BundleSizes *record, const BundleSizes *planned, std::uint64_t *maxima = nullptr,
              int count = 1)
{
    const int p = x.size, me = x.rank;
    if (!record)
        copy_self_block(x);
    if (p == 1)
        return MPI_SUCCESS;
    TwoPhaseCache *cache = cached_or_make<TwoPhaseCache>(x.xcomm, "two_phase_bruck");
    if (!cache)
        return MPI_ERR_NO_MEM;
    std::vector<int> &ranks = cache->ranks;
    if (ranks.size() != static_cast<std::size_t>(p)) {
        ranks.resize(static_cast<std::size_t>(p));
        for (int r = 0; r < p; ++r)
            ranks[r] = r;
    }
    LeasedLists<TwoPhaseLists> lists(&cache->lists);
    std::vector<std::vector<Piece>> &bundles = lists->bundles;
    empty_lists(&bundles, static_cast<std::size_t>(p));
    for (int d = 0; d < p; ++d)
        if (d != me)
            bundles[d].push_back(Piece{x.send_block(d), x.sendbytes[d]});
    BundleGroup g = bundle_group(x.comm, x.work, ranks, me, 2, x.tag, SizesKnown::at_destination, record ? nullptr : x.trace, 0);
    g.expected_bytes = [&](int s, int) { return x.recvbytes[s]; };
    g.block_ids = [&](int s, int d, std::vector<long long> *ids) { ids->push_back(static_cast<long long>(s) * p + d); };
    g.record = record;
    g.planned = planned;
    g.agreed_max = record || planned ? nullptr : maxima;
    g.agreed_count = count;
    g.spare = &lists->bundle_spare;
    std::vector<Piece> &arrived = lists->arrived;  // bundle_bruck assigns it
    StoreForCall store_for_call(&lists->store, &x.xcomm->scratch);
    ScratchStore &store = *store_for_call;
    int rc = bundle_bruck(g, bundles, &arrived, &store);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_TRUNCATE && rc != MPI_ERR_COUNT)
        return rc;
    if (record)
        return MPI_SUCCESS;  // a wrong size is reported by every start
    int mismatch = rc;
    LocalWork::Batch batch(x.work);
    for (int s = 0; s < p; ++s) {
        if (s == me)
            continue;
        if (arrived[s].bytes != x.recvbytes[s]) {
            note_mismatch(&mismatch, arrived[s].bytes > x.recvbytes[s] ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT);
            continue;
        }
        x.work->copy(x.recv_block(s), arrived[s].data, arrived[s].bytes);
    }
    return mismatch;
}

}  // namespace

int two_phase_bruck(const Exchange &x)
{
    // Only two_phase_bruck_prepare makes the plans this row is given.
    const TwoPhasePlan *plan = static_cast<const TwoPhasePlan *>(x.plan);
    if (x.carried_stats && !plan)  // auto's statistics ride in the messages (16 bytes each)
        return two_phase(x, nullptr, nullptr, x.carried_stats, 2);
    return two_phase(x, nullptr, plan ? &plan->steps : nullptr);
}

int two_phase_bruck_agreeing(const Exchange &x, std::uint64_t *maxima, int count)
{
    return two_phase(x, nullptr, nullptr, maxima, count);
}

int two_phase_bruck_prepare(const Exchange &x, std::unique_ptr<ExchangePlan> *out)
{
    std::unique_ptr<TwoPhasePlan> plan(new TwoPhasePlan());
    MPIX_CHECK(two_phase(x, &plan->steps, nullptr));
    *out = std::move(plan);
    return MPI_SUCCESS;
}

}  // namespace mpix
