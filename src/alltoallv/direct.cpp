#include "alltoallv/direct.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

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
// if any) and waits for them.
int post_window(const Exchange &x, int first, int last, std::vector<MPI_Request> &reqs,
                std::vector<std::size_t> &expected, RidingMax *rider = nullptr)
{
    reqs.clear();
    expected.clear();
    if (rider)  // its round's small messages ahead of the window's blocks
        MPIX_CHECK(rider->post(&reqs, &expected));
    for (int k = first; k < last; ++k) {
        int from = recv_peer(x, k);
        reqs.emplace_back();
        expected.push_back(x.recvbytes[from]);
        MPIX_CHECK(irecv_bytes(x.recv_block(from), x.recvbytes[from], from, x.tag, x.comm, &reqs.back()));
    }
    for (int k = first; k < last; ++k) {
        int to = send_peer(x, k);
        reqs.emplace_back();
        expected.push_back(kNotChecked);
        MPIX_CHECK(isend_bytes(x.send_block(to), x.sendbytes[to], to, x.tag, x.comm, &reqs.back()));
        trace_step(x, k, to, recv_peer(x, k));
    }
    const int rc = wait_all(static_cast<int>(reqs.size()), reqs.data(), expected.data(), x.mismatch);
    if (rider)
        rider->fold();
    return rc;
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
        copy_self_block(x);
        for (std::size_t k = 0; k < send_peers_.size(); ++k)
            trace_step(x, static_cast<int>(k) + 1, send_peers_[k], recv_peers_[k]);
        return reqs_.empty() ? MPI_SUCCESS : MPI_Startall(static_cast<int>(reqs_.size()), reqs_.data());
    }

    int test(const Exchange &x, bool *done) override
    {
        return complete_requests(reqs_, expected_.data(), false, done, x.mismatch);
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
    x.work->charge_mpi_self_copy(std::min(x.sendbytes[x.rank], x.recvbytes[x.rank]));
    // Blocking or nonblocking as the call is (core/wait.hpp, mpi_alltoall_bytes).
    // Uniform exchanges always lay block j at j * block_bytes (see Exchange).
    if (x.uniform && fits_int(x.block_bytes * static_cast<std::size_t>(p))) {
        trace_opaque(x, "MPI_Alltoall");
        const int n = static_cast<int>(x.block_bytes);
        return mpi_alltoall_bytes(x.sendbuf, n, x.recvbuf, x.comm);
    }
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    for (int i = 0; i < p; ++i) {
        // MPI_Alltoallv takes int byte counts and offsets; beyond that the
        // library's collective cannot describe the call, so use the spread-out one.
        if (!fits_int(x.sendbytes[i]) || !fits_int(x.sdispls[i]) || !fits_int(x.recvbytes[i]) ||
            !fits_int(x.rdispls[i]))
            return direct_nonblocking(x);
        sc[i] = static_cast<int>(x.sendbytes[i]);
        sd[i] = static_cast<int>(x.sdispls[i]);
        rc[i] = static_cast<int>(x.recvbytes[i]);
        rd[i] = static_cast<int>(x.rdispls[i]);
    }
    trace_opaque(x, "MPI_Alltoallv");
    return mpi_alltoallv_bytes(x.sendbuf, sc.data(), sd.data(), x.recvbuf, rc.data(), rd.data(), x.comm);
}

int post_receives_then_sends(const Exchange &x, const std::vector<int> *order)
{
    auto peer_at = [&](int k) { return order ? (*order)[k] : k; };
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    reqs.reserve(2 * static_cast<size_t>(x.size));
    expected.reserve(2 * static_cast<size_t>(x.size));
    for (int k = 0; k < x.size; ++k) {
        const int from = peer_at(k);
        if (from == x.rank)
            continue;
        reqs.emplace_back();
        expected.push_back(x.recvbytes[from]);
        MPIX_CHECK(irecv_bytes(x.recv_block(from), x.recvbytes[from], from, x.tag, x.comm, &reqs.back()));
    }
    for (int k = 0; k < x.size; ++k) {
        const int to = peer_at(k);
        if (to == x.rank)
            continue;
        reqs.emplace_back();
        expected.push_back(kNotChecked);
        MPIX_CHECK(isend_bytes(x.send_block(to), x.sendbytes[to], to, x.tag, x.comm, &reqs.back()));
        trace_step(x, k, to, to);
    }
    copy_self_block(x);
    return wait_all(static_cast<int>(reqs.size()), reqs.data(), expected.data(), x.mismatch);
}

int direct_linear(const Exchange &x)
{
    // Every receive in rank order, then every send in rank order (Open MPI's basic linear).
    return post_receives_then_sends(x, nullptr);
}

int direct_pairwise(const Exchange &x)
{
    copy_self_block(x);
    bool power_of_two = (x.size & (x.size - 1)) == 0;
    for (int k = 1; k < x.size; ++k) {
        int to = power_of_two ? (x.rank ^ k) : send_peer(x, k);
        int from = power_of_two ? (x.rank ^ k) : recv_peer(x, k);
        MPIX_CHECK(sendrecv_bytes(x.send_block(to), x.sendbytes[to], to, x.recv_block(from), x.recvbytes[from],
                                  from, x.tag, x.comm, x.mismatch));
        trace_step(x, k, to, from);
    }
    return MPI_SUCCESS;
}

int direct_nonblocking(const Exchange &x)
{
    copy_self_block(x);
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    return post_window(x, 1, x.size, reqs, expected);
}

int direct_scattered(const Exchange &x)
{
    return direct_scattered_riding(x, nullptr);
}

int direct_scattered_riding(const Exchange &x, RidingMax *rider)
{
    copy_self_block(x);
    int batch = x.hints->batch_size > 0 ? x.hints->batch_size : 32;
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    // Steps in windows of `batch` (any int: the window is clamped to the P - 1 steps).
    int rc = MPI_SUCCESS;
    for (int first = 1; first < x.size && rc == MPI_SUCCESS;) {
        int last = batch >= x.size - first ? x.size : first + batch;
        rc = post_window(x, first, last, reqs, expected, rider);
        first = last;
    }
    // The agreement completes even after a failed window: the other ranks wait
    // for this rank's rounds.
    const int agreed = rider ? rider->finish() : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : agreed;
}

}  // namespace mpix
