#include "alltoallv/direct.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/blocks.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/request.hpp"
#include "core/trace.hpp"
#include "core/wait.hpp"

namespace mpix {

void trace_direct_step(const Exchange &x, int step, int to, int from, std::size_t sent, std::size_t received)
{
    if (x.trace)
        x.trace->round(step, to, from, {static_cast<long long>(x.rank) * x.size + to}, sent, received);
}

int copy_self_block(const Exchange &x)
{
    std::size_t n = x.sendbytes[x.rank] < x.recvbytes[x.rank] ? x.sendbytes[x.rank] : x.recvbytes[x.rank];
    x.work->move(x.recv_block(x.rank), x.send_block(x.rank), n);
    return MPI_SUCCESS;
}

// Each round is waited for alone, before any block is. Under SimGrid SMPI the
// reduction otherwise runs, blocking, at the next call's start
// (select/registry.cpp, AgreedBlocks); here its rounds overlap the blocks.
// Every rank calls it once per call, at the same point of the row, whatever
// its blocks.
int agree_carried_stats(const Exchange &x)
{
    return x.carried_stats ? agree_max(x.carried_stats, x.tag + kAgreementTag, x.comm, 2) : MPI_SUCCESS;
}

namespace {

bool fits_int(std::size_t v) { return v <= static_cast<std::size_t>(INT_MAX); }
bool fits_int(MPI_Aint v) { return v >= 0 && v <= static_cast<MPI_Aint>(INT_MAX); }

// The peer order of the spread-out family: send to rank+k, receive from rank-k.
int send_peer(const Exchange &x, int k) { return (x.rank + k) % x.size; }
int recv_peer(const Exchange &x, int k) { return (x.rank - k + x.size) % x.size; }

void trace_step(const Exchange &x, int step, int to, int from)
{
    trace_direct_step(x, step, to, from, x.sendbytes[to], x.recvbytes[from]);
}

// Posts steps [first, last) of the spread-out order (and a round of `rider`,
// if any) and waits for them; with `copy_own_block`, the rank's own block is
// copied once they are posted, while they move; with `agree_carried`, auto's
// statistics are agreed then too (agree_carried_stats).
int post_window(const Exchange &x, int first, int last, std::vector<MPI_Request> &reqs,
                std::vector<std::size_t> &expected, RidingMax *rider = nullptr, bool copy_own_block = false,
                bool agree_carried = false)
{
    reqs.clear();
    expected.clear();
    // Room for the window at once (a receive and a send per step, and the
    // rider's pair): growing one by one cost a few reallocations per call.
    const std::size_t room = 2 * static_cast<std::size_t>(last - first) + (rider ? 2 : 0);
    reqs.reserve(room);
    expected.reserve(room);
    if (rider)  // its round's small messages ahead of the window's blocks
        MPIX_CHECK(rider->post(&reqs, &expected));
    // The window's requests sized at once and written by index (a push_back a
    // request was a capacity check and a call each).
    std::size_t r = reqs.size();
    reqs.resize(r + 2 * static_cast<std::size_t>(last - first), MPI_REQUEST_NULL);
    expected.resize(reqs.size(), kNotChecked);
    for (int k = first; k < last; ++k) {
        int from = recv_peer(x, k);
        expected[r] = x.recvbytes[from];
        MPIX_CHECK(irecv_bytes(x.recv_block(from), x.recvbytes[from], from, x.tag, x.comm, &reqs[r++]));
    }
    for (int k = first; k < last; ++k) {
        int to = send_peer(x, k);
        MPIX_CHECK(isend_bytes(x.send_block(to), x.sendbytes[to], to, x.tag, x.comm, &reqs[r++]));
        trace_step(x, k, to, recv_peer(x, k));
    }
    if (copy_own_block)
        copy_self_block(x);
    const int agreed = agree_carried ? agree_carried_stats(x) : MPI_SUCCESS;
    const int rc = wait_all(static_cast<int>(reqs.size()), reqs.data(), expected.data(), x.mismatch);
    if (rider)
        rider->fold();
    return rc != MPI_SUCCESS ? rc : agreed;
}

// A persistent request's direct exchange: every receive and send a persistent
// point-to-point request made at init (MPI_Recv_init / MPI_Send_init on tags
// the request keeps), so a start is one MPI_Startall and the exchange
// progresses as MPI requests do, between MPIX_Start and MPIX_Wait.
class PostedDirectPlan : public ExchangePlan {
public:
    ~PostedDirectPlan() override { free_requests(reqs_); }
    bool posts_at_start() const override { return true; }

    int post(const Exchange &x) override
    {
        // (nonempty's lists may differ in length: a record per pair then, as its run's)
        for (std::size_t k = 0; k < send_peers_.size(); ++k)
            if (send_peers_.size() == recv_peers_.size())
                trace_step(x, static_cast<int>(k) + 1, send_peers_[k], recv_peers_[k]);
            else
                trace_direct_step(x, static_cast<int>(k) + 1, send_peers_[k], -1, x.sendbytes[send_peers_[k]], 0);
        const int rc = reqs_.empty() ? MPI_SUCCESS : MPI_Startall(static_cast<int>(reqs_.size()), reqs_.data());
        copy_self_block(x);  // while the messages move
        return rc;
    }

    int complete(const Exchange &x) override
    {
        bool done = false;
        return complete_requests(reqs_, expected_.data(), true, &done, x.mismatch);
    }

    std::vector<int> send_peers_, recv_peers_;
    std::vector<MPI_Request> reqs_;
    std::vector<std::size_t> expected_;
};

// `prepare` of the direct rows whose messages are all posted at once: receives
// from recv_peers, then sends to send_peers (the row's own order). Blocks over
// INT_MAX bytes leave no plan (the request then replays the row).
int prepare_posted(const Exchange &x, const std::vector<int> &recv_peers, const std::vector<int> &send_peers,
                   std::unique_ptr<ExchangePlan> *plan)
{
    for (int q = 0; q < x.size; ++q)
        if (!fits_int(x.sendbytes[q]) || !fits_int(x.recvbytes[q]))
            return MPI_SUCCESS;
    std::unique_ptr<PostedDirectPlan> made(new PostedDirectPlan());
    const int tag = allocate_persistent_tags(x.xcomm);
    for (int from : recv_peers) {
        made->reqs_.push_back(MPI_REQUEST_NULL);
        made->expected_.push_back(x.recvbytes[from]);
        MPIX_CHECK(MPI_Recv_init(x.recv_block(from), static_cast<int>(x.recvbytes[from]), MPI_BYTE, from, tag, x.comm,
                                 &made->reqs_.back()));
    }
    for (int to : send_peers) {
        made->reqs_.push_back(MPI_REQUEST_NULL);
        made->expected_.push_back(kNotChecked);
        MPIX_CHECK(MPI_Send_init(x.send_block(to), static_cast<int>(x.sendbytes[to]), MPI_BYTE, to, tag, x.comm,
                                 &made->reqs_.back()));
    }
    made->send_peers_ = send_peers;
    made->recv_peers_ = recv_peers;
    *plan = std::move(made);
    return MPI_SUCCESS;
}

}  // namespace

int prepare_linear(const Exchange &x, std::unique_ptr<ExchangePlan> *plan)
{
    std::vector<int> peers;
    for (int q = 0; q < x.size; ++q)
        if (q != x.rank)
            peers.push_back(q);
    return prepare_posted(x, peers, peers, plan);
}

int prepare_nonblocking(const Exchange &x, std::unique_ptr<ExchangePlan> *plan)
{
    std::vector<int> to, from;
    for (int k = 1; k < x.size; ++k) {
        to.push_back(send_peer(x, k));
        from.push_back(recv_peer(x, k));
    }
    return prepare_posted(x, from, to, plan);
}

// The MPI library's collective is opaque: traced as one round 0 in which every
// block goes straight from its source to its destination, a send row per
// destination and a receive row per source (non-empty blocks; MPI_Alltoall: all),
// with params opaque=1 and the MPI function.
static void trace_opaque(const Exchange &x, const char *mpi_function)
{
    if (!x.trace)
        return;
    const std::string params = std::string("opaque=1,mpi=") + mpi_function;
    x.trace->set_params(x.trace->params().empty() ? params : x.trace->params() + "," + params);
    const long long p = x.size, me = x.rank;
    for (int d = 0; d < x.size; ++d) {
        const std::size_t bytes = x.uniform ? x.block_bytes : x.sendbytes[d];
        if (d != x.rank && (x.uniform || bytes > 0))
            x.trace->round(0, d, -1, {me * p + d}, bytes, 0);
    }
    for (int s = 0; s < x.size; ++s) {
        const std::size_t bytes = x.uniform ? x.block_bytes : x.recvbytes[s];
        if (s != x.rank && (x.uniform || bytes > 0))
            x.trace->round(0, -1, s, {s * p + me}, 0, bytes);
    }
}

int direct_pmpi(const Exchange &x)
{
    int p = x.size;
    const int me = x.rank;
    const std::size_t own = std::min(x.sendbytes[me], x.recvbytes[me]);
    // MPI_Alltoallv: the own block copied here and empty for MPI, as the
    // pass-through does (OwnBlockApart: MPICH sends it to itself).
    const bool own_apart = !x.uniform && !x.mpi_in_place && OwnBlockApart::worth(x.sendbytes[me], x.recvbytes[me]);
    if (own_apart)
        x.work->move(x.recv_block(me), x.send_block(me), own);
    else  // in a task the MPI library's nonblocking collective runs (mpi_alltoall_bytes)
        x.work->charge_mpi_own_block(
            own, mpi_library_sends_own_block(!x.uniform, wait_context() != nullptr, x.mpi_in_place, own, p));
    // In place as the caller's call is, like the ranks that pass their own
    // arguments (Exchange::mpi_in_place): the receive blocks get their data first.
    const char *sendbuf = x.sendbuf;
    if (x.mpi_in_place) {
        LocalWork::Batch batch(x.work);
        LocalWork::CopyRun run(x.work);
        for (int q = 0; q < p; ++q)
            run.copy(x.recv_block(q), x.send_block(q), std::min(x.sendbytes[q], x.recvbytes[q]));
        run.flush();
        sendbuf = static_cast<const char *>(MPI_IN_PLACE);
    }
    // Blocking or nonblocking as the call is (core/wait.hpp, mpi_alltoall_bytes).
    // Uniform exchanges always lay block j at j * block_bytes (see Exchange).
    // Other ranks may hand MPI their own arguments (a contiguous layout passes
    // through, run_row), so this rank calls the MPI library's collective too,
    // whatever its sizes: past an int, through MPI-4's large-count form.
    if (x.uniform && fits_int(x.block_bytes * static_cast<std::size_t>(p))) {
        trace_opaque(x, "MPI_Alltoall");
        const int n = static_cast<int>(x.block_bytes);
        return mpi_alltoall_bytes(sendbuf, n, x.recvbuf, x.comm);
    }
#if MPIX_HAVE_LARGE_COUNT
    if (x.uniform) {
        trace_opaque(x, "MPI_Alltoall");
        return mpi_alltoall_bytes_c(sendbuf, static_cast<MPI_Count>(x.block_bytes), x.recvbuf, x.comm);
    }
#endif
    bool fits = true;
    for (int i = 0; i < p && fits; ++i)
        fits = fits_int(x.sendbytes[i]) && fits_int(x.sdispls[i]) && fits_int(x.recvbytes[i]) &&
               fits_int(x.rdispls[i]);
    if (!fits) {
#if MPIX_HAVE_LARGE_COUNT
        std::vector<MPI_Count> sc(p), rc(p);
        std::vector<MPI_Aint> sd(p), rd(p);
        for (int i = 0; i < p; ++i) {
            sc[i] = static_cast<MPI_Count>(x.sendbytes[i]);
            sd[i] = x.sdispls[i];
            rc[i] = static_cast<MPI_Count>(x.recvbytes[i]);
            rd[i] = x.rdispls[i];
        }
        if (own_apart)
            sc[me] = rc[me] = 0;
        trace_opaque(x, "MPI_Alltoallv");
        return mpi_alltoallv_bytes_c(sendbuf, sc.data(), sd.data(), x.recvbuf, rc.data(), rd.data(), x.comm);
#else
        // No call of the MPI library takes these sizes (nor then does any
        // rank's pass-through): the spread-out exchange.
        return direct_nonblocking(x);
#endif
    }
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    for (int i = 0; i < p; ++i) {
        sc[i] = static_cast<int>(x.sendbytes[i]);
        sd[i] = static_cast<int>(x.sdispls[i]);
        rc[i] = static_cast<int>(x.recvbytes[i]);
        rd[i] = static_cast<int>(x.rdispls[i]);
    }
    if (own_apart)
        sc[me] = rc[me] = 0;
    trace_opaque(x, "MPI_Alltoallv");
    return mpi_alltoallv_bytes(sendbuf, sc.data(), sd.data(), x.recvbuf, rc.data(), rd.data(), x.comm);
}

int post_receives_then_sends(const Exchange &x, const std::vector<int> *order)
{
    auto peer_at = [&](int k) { return order ? (*order)[k] : k; };
    // Sized once and written by index (a push_back a request was a capacity
    // check and a call each: sim/README.md, "The library's CPU per peer cut").
    const std::size_t others = static_cast<std::size_t>(x.size - 1);
    std::vector<MPI_Request> reqs(2 * others, MPI_REQUEST_NULL);
    std::vector<std::size_t> expected(2 * others, kNotChecked);
    std::size_t r = 0;
    for (int k = 0; k < x.size; ++k) {
        const int from = peer_at(k);
        if (from == x.rank)
            continue;
        expected[r] = x.recvbytes[from];
        MPIX_CHECK(irecv_bytes(x.recv_block(from), x.recvbytes[from], from, x.tag, x.comm, &reqs[r++]));
    }
    for (int k = 0; k < x.size; ++k) {
        const int to = peer_at(k);
        if (to == x.rank)
            continue;
        MPIX_CHECK(isend_bytes(x.send_block(to), x.sendbytes[to], to, x.tag, x.comm, &reqs[r++]));
        trace_step(x, k, to, to);
    }
    copy_self_block(x);
    return wait_all(static_cast<int>(r), reqs.data(), expected.data(), x.mismatch);
}

int direct_linear(const Exchange &x)
{
    // Every receive in rank order, then every send in rank order (Open MPI's basic linear).
    return post_receives_then_sends(x, nullptr);
}

// Own blocks from this size are copied while pairwise's first step moves.
constexpr std::size_t kOverlappedOwnBlock = 4096;

int direct_pairwise(const Exchange &x)
{
    // A large own block is copied while the first step's blocks move. A small
    // one first: then every step is one MPI_Sendrecv, which at 2 ranks costs
    // 0.04 us less than a step posted in parts (mpix-passthrough, 16 B), more
    // than the copy of a block below kOverlappedOwnBlock takes.
    const bool copy_during_first_step = x.size > 1 && x.sendbytes[x.rank] >= kOverlappedOwnBlock;
    if (!copy_during_first_step)
        copy_self_block(x);
    bool power_of_two = (x.size & (x.size - 1)) == 0;
    for (int k = 1; k < x.size; ++k) {
        int to = power_of_two ? (x.rank ^ k) : send_peer(x, k);
        int from = power_of_two ? (x.rank ^ k) : recv_peer(x, k);
        if (k == 1 && copy_during_first_step) {
            MPI_Request reqs[2];
            MPIX_CHECK(irecv_bytes(x.recv_block(from), x.recvbytes[from], from, x.tag, x.comm, &reqs[0]));
            MPIX_CHECK(isend_bytes(x.send_block(to), x.sendbytes[to], to, x.tag, x.comm, &reqs[1]));
            copy_self_block(x);
            const std::size_t expected[2] = {x.recvbytes[from], kNotChecked};
            MPIX_CHECK(wait_all(2, reqs, expected, x.mismatch));
        } else {
            MPIX_CHECK(sendrecv_bytes(x.send_block(to), x.sendbytes[to], to, x.recv_block(from), x.recvbytes[from],
                                      from, x.tag, x.comm, x.mismatch));
        }
        trace_step(x, k, to, from);
    }
    return MPI_SUCCESS;
}

int direct_nonblocking(const Exchange &x)
{
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    return post_window(x, 1, x.size, reqs, expected, nullptr, true, true);
}

int direct_scattered(const Exchange &x)
{
    return direct_scattered_riding(x, nullptr);
}

int direct_scattered_riding(const Exchange &x, RidingMax *rider)
{
    int batch = x.hints->batch_size > 0 ? x.hints->batch_size : 32;
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    // Steps in windows of `batch` (any int: the window is clamped to the P - 1 steps).
    int rc = MPI_SUCCESS;
    for (int first = 1; first < x.size && rc == MPI_SUCCESS;) {
        int last = batch >= x.size - first ? x.size : first + batch;
        rc = post_window(x, first, last, reqs, expected, rider, first == 1, first == 1 && !rider);
        first = last;
    }
    if (x.size == 1)
        copy_self_block(x);  // no window: nothing to agree with either
    // The agreement completes even after a failed window: the other ranks wait
    // for this rank's rounds.
    const int agreed = rider ? rider->finish() : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : agreed;
}

namespace {

// A 64-bit hash of one non-empty block (source, destination, bytes): the
// splitmix64 finaliser, so that two patterns that differ sum to the same value
// only by chance (2^-64).
std::uint64_t block_hash(int source, int destination, std::size_t bytes)
{
    std::uint64_t z = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(source)) << 32 |
                       static_cast<std::uint32_t>(destination)) ^
                      (static_cast<std::uint64_t>(bytes) * 0x9e3779b97f4a7c15ULL);
    for (int i = 0; i < 2; ++i) {
        z += 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
    }
    return z;
}

// Receives nonempty keeps in flight: batch_size (32, MPICH's batch), or all of
// them where the rank's non-empty blocks average 256 KiB or more. Posted at
// once, a busy receiver's blocks share its link, all arrive at the end together
// and their message overheads then follow one by one; a window lets the
// overheads of one part run while the next arrives. Large blocks cost more to
// move than their overhead, and there a window only keeps the busy receiver's
// share of its link down. dragonfly-256x64, P=256, moe:16,2 (an expert's rank
// receives 256 blocks of 76 KiB at 1 KiB, 1.2 MiB at 16 KiB): at 1 KiB 324.1 us
// with a window of 8-32, 373.6 with all posted; at 16 KiB 3619.8 with all
// posted, 4259.0 with 32.
std::size_t nonempty_receive_window(const Exchange &x, const std::vector<int> &sources)
{
    constexpr std::uint64_t kLargeBlock = 256 * 1024;
    std::uint64_t bytes = 0;
    for (int s : sources)
        bytes += x.recvbytes[s];
    if (!sources.empty() && bytes / sources.size() >= kLargeBlock)
        return sources.size();
    return static_cast<std::size_t>(std::max(1, x.hints->batch_size));
}

// The ranks disagree on which blocks are empty: each learns the length every
// other sent it (one message each way per pair, on `tag`), cancels the receives
// that will get nothing and receives, into scratch, the blocks it expected
// none of (their requests appended to *drops, their buffers to *store); both
// noted as mismatches. receives[r] is the posted receive from sources[r].
int settle_empty_blocks(const Exchange &x, int tag, std::vector<MPI_Request> &receives,
                        std::vector<std::size_t> &expected, const std::vector<int> &sources,
                        std::vector<MPI_Request> *drops, ScratchStore *store)
{
    const std::size_t p = static_cast<std::size_t>(x.size);
    std::vector<std::uint64_t> sent_here(p, 0), sent_there(p, 0);
    std::vector<MPI_Request> lengths;
    for (int q = 0; q < x.size; ++q)
        if (q != x.rank) {
            sent_there[static_cast<std::size_t>(q)] = x.sendbytes[q];
            lengths.emplace_back();
            MPIX_CHECK(MPI_Irecv(&sent_here[static_cast<std::size_t>(q)], 1, MPI_UINT64_T, q, tag, x.comm,
                                 &lengths.back()));
            lengths.emplace_back();
            MPIX_CHECK(MPI_Isend(&sent_there[static_cast<std::size_t>(q)], 1, MPI_UINT64_T, q, tag, x.comm,
                                 &lengths.back()));
        }
    MPIX_CHECK(wait_all(static_cast<int>(lengths.size()), lengths.data()));
    for (std::size_t r = 0; r < receives.size(); ++r)
        if (sent_here[static_cast<std::size_t>(sources[r])] == 0) {
            MPIX_CHECK(MPI_Cancel(&receives[r]));
            MPIX_CHECK(wait_request(&receives[r], MPI_STATUS_IGNORE));
            expected[r] = kNotChecked;
            note_mismatch(x.mismatch, MPI_ERR_COUNT);
        }
    for (int q = 0; q < x.size; ++q) {
        const std::uint64_t bytes = sent_here[static_cast<std::size_t>(q)];
        if (q == x.rank || x.recvbytes[q] > 0 || bytes == 0)
            continue;
        store->emplace_back();
        if (!store->back().resize(static_cast<std::size_t>(bytes)))
            return MPI_ERR_NO_MEM;
        drops->emplace_back();
        MPIX_CHECK(irecv_bytes(store->back().data(), static_cast<std::size_t>(bytes), q, x.tag, x.comm, &drops->back()));
        note_mismatch(x.mismatch, MPI_ERR_TRUNCATE);
    }
    return MPI_SUCCESS;
}

// The sum over the ranks of `pattern`, and the largest of each of `count` maxima.
int agree_pattern(const Exchange &x, std::uint64_t *pattern, std::uint64_t *maxima, int count)
{
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(count) + 1), all;
    mine[0] = *pattern;
    for (int i = 0; i < count; ++i)
        mine[static_cast<std::size_t>(i) + 1] = maxima[i];
    std::vector<int> everyone(static_cast<std::size_t>(x.size));
    std::iota(everyone.begin(), everyone.end(), 0);
    const int width = count + 1;
    MPIX_CHECK(agree_gather(mine.data(), width, x.tag + 1, x.comm, everyone, x.rank, &all));
    *pattern = 0;
    for (std::size_t r = 0; r < all.size(); r += static_cast<std::size_t>(width)) {
        *pattern += all[r];
        for (int i = 0; i < count; ++i)
            maxima[i] = std::max(maxima[i], all[r + 1 + static_cast<std::size_t>(i)]);
    }
    return MPI_SUCCESS;
}

// The spread-out order's non-empty blocks: the sources to receive from, the
// destinations to send to, and the pattern's hash (the blocks this rank sends
// minus those it expects; a sum mod 2^64).
std::uint64_t nonempty_peers(const Exchange &x, std::vector<int> *from, std::vector<int> *to)
{
    std::uint64_t pattern = 0;
    for (int k = 1; k < x.size; ++k) {
        const int source = recv_peer(x, k), destination = send_peer(x, k);
        if (x.recvbytes[source] > 0) {
            from->push_back(source);
            pattern -= block_hash(source, x.rank, x.recvbytes[source]);
        }
        if (x.sendbytes[destination] > 0) {
            to->push_back(destination);
            pattern += block_hash(x.rank, destination, x.sendbytes[destination]);
        }
    }
    return pattern;
}

}  // namespace

int prepare_nonempty(const Exchange &x, std::unique_ptr<ExchangePlan> *plan)
{
    std::vector<int> from, to;
    std::uint64_t pattern = nonempty_peers(x, &from, &to);
    // Checked once, at init; where the ranks disagree there is no plan and
    // every start runs the row, which reports it.
    MPIX_CHECK(agree_pattern(x, &pattern, nullptr, 0));
    return pattern == 0 ? prepare_posted(x, from, to, plan) : MPI_SUCCESS;
}

int direct_nonempty(const Exchange &x)
{
    // auto's statistics ride the pattern's agreement (its values beside the hash).
    return direct_nonempty_agreeing(x, x.carried_stats, x.carried_stats ? 2 : 0);
}

int direct_nonempty_agreeing(const Exchange &x, std::uint64_t *maxima, int count)
{
    std::vector<int> sources, destinations;
    sources.reserve(static_cast<std::size_t>(x.size));  // one allocation each, not one per doubling
    destinations.reserve(static_cast<std::size_t>(x.size));
    std::uint64_t pattern = nonempty_peers(x, &sources, &destinations);
    std::vector<MPI_Request> receives(sources.size(), MPI_REQUEST_NULL), sends;
    std::vector<std::size_t> expected(sources.size());
    auto post_receive = [&](std::size_t r) {
        expected[r] = x.recvbytes[sources[r]];
        return irecv_bytes(x.recv_block(sources[r]), expected[r], sources[r], x.tag, x.comm, &receives[r]);
    };
    const std::size_t window = std::min(sources.size(), nonempty_receive_window(x, sources));
    for (std::size_t r = 0; r < window; ++r)
        MPIX_CHECK(post_receive(r));
    sends.reserve(destinations.size());
    for (int to : destinations) {
        sends.emplace_back();
        MPIX_CHECK(isend_bytes(x.send_block(to), x.sendbytes[to], to, x.tag, x.comm, &sends.back()));
        trace_direct_step(x, (to - x.rank + x.size) % x.size, to, -1, x.sendbytes[to], 0);  // its step k
    }
    copy_self_block(x);  // while the first blocks move
    // The agreement runs while the blocks move; nothing waits for a block before it.
    MPIX_CHECK(agree_pattern(x, &pattern, maxima, count));
    int rc = MPI_SUCCESS;
    if (pattern != 0) {
        for (std::size_t r = window; r < sources.size(); ++r)
            MPIX_CHECK(post_receive(r));
        ScratchStore dropped;  // empty blocks sent as messages: a few bytes each
        std::vector<MPI_Request> drops;
        MPIX_CHECK(settle_empty_blocks(x, x.tag + 2, receives, expected, sources, &drops, &dropped));
        rc = wait_all(static_cast<int>(receives.size()), receives.data(), expected.data(), x.mismatch);
        const int rc_drops = wait_all(static_cast<int>(drops.size()), drops.data());
        rc = rc != MPI_SUCCESS ? rc : rc_drops;
    } else {
        // A window of receives in flight, the next posted as each completes: all
        // posted at once, a busy receiver's blocks share its link and arrive
        // together at the end, and their message overheads then follow one by one.
        for (std::size_t r = 0; r < sources.size(); ++r) {
            const int got = wait_all(1, &receives[r], &expected[r], x.mismatch);
            rc = rc != MPI_SUCCESS ? rc : got;
            if (r + window < sources.size())
                MPIX_CHECK(post_receive(r + window));
        }
    }
    const int sent = wait_all(static_cast<int>(sends.size()), sends.data());
    return rc != MPI_SUCCESS ? rc : sent;
}

}  // namespace mpix
