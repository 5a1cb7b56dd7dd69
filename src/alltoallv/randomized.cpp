#include "alltoallv/randomized.hpp"

#include <memory>
#include <string>
#include <vector>

#include "alltoallv/direct.hpp"
#include "core/wait.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/trace.hpp"

namespace mpix {

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, a full-period
// sequence; written here so that a seed means the same order everywhere.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n), n >= 1: draws below 2^64 mod n are rejected, so every
    // residue is equally likely.
    std::uint64_t below(std::uint64_t n)
    {
        const std::uint64_t reject_below = (0 - n) % n;
        std::uint64_t r;
        do
            r = next();
        while (r < reject_below);
        return r % n;
    }

private:
    std::uint64_t state_;
};

// The shuffled order and its inverse, cached per seed on the communicator.
struct RankOrder : CacheEntry {
    std::uint64_t seed = 0;
    std::vector<int> order, position;
};

const RankOrder *rank_order(const Exchange &x)
{
    const std::string_view key = "randomized:order";
    RankOrder *o = cached<RankOrder>(x.xcomm, key);
    if (!o || o->seed != x.hints->random_seed || static_cast<int>(o->order.size()) != x.size) {
        std::unique_ptr<RankOrder> made(new RankOrder());
        made->seed = x.hints->random_seed;
        made->order = random_rank_order(x.size, made->seed);
        made->position.resize(made->order.size());
        for (int k = 0; k < x.size; ++k)
            made->position[made->order[k]] = k;
        o = cache_keep(x.xcomm, key, std::move(made));
    }
    return o;
}

// The trace's params: the seed and, where the row reads them, queue and segment.
void trace_params(const Exchange &x, bool queue, std::size_t segment = 0)
{
    if (!x.trace)
        return;
    std::string params = "seed=" + std::to_string(x.hints->random_seed);
    if (queue)
        params += ",max_queue=" + std::to_string(x.hints->max_queue);
    if (segment)
        params += ",segment=" + std::to_string(segment);
    x.trace->set_params(params);
}

}  // namespace

std::vector<int> random_rank_order(int size, std::uint64_t seed)
{
    std::vector<int> order(size > 0 ? size : 0);
    for (int i = 0; i < size; ++i)
        order[i] = i;
    SplitMix64 rng(seed);
    for (int i = size - 1; i > 0; --i) {
        int j = static_cast<int>(rng.below(static_cast<std::uint64_t>(i) + 1));
        std::swap(order[i], order[j]);
    }
    return order;
}

int randomized_scatter(const Exchange &x)
{
    trace_params(x, false);
    return post_receives_then_sends(x, &rank_order(x)->order);
}

int randomized_sendrecv(const Exchange &x)
{
    const RankOrder *o = rank_order(x);
    trace_params(x, true);
    // Steps in flight; a full queue drains before the next step is posted.
    const int queue = x.hints->max_queue;
    std::vector<MPI_Request> reqs;
    std::vector<std::size_t> expected;
    // Two messages a step, up to a full queue (or every step): one allocation each.
    const std::size_t most = 2 * static_cast<std::size_t>(queue > 0 && queue < x.size ? queue : x.size);
    reqs.reserve(most);
    expected.reserve(most);
    int in_flight = 0;
    // The one step where a rank meets itself (from == rank too) copies the own
    // block once the next step's messages are posted, so the copy runs while
    // they move (or at the end, when it is the last step).
    bool own_block_due = false;
    bool agreed = false;  // auto's statistics (agree_carried_stats)
    for (int k = 0; k < x.size; ++k) {
        const int to = randomized_send_peer(o->order, x.rank, k);
        const int from = randomized_recv_peer(o->position, x.rank, k);
        if (to == x.rank) {
            own_block_due = true;
            continue;
        }
        reqs.emplace_back();
        expected.push_back(x.recvbytes[from]);
        MPIX_CHECK(irecv_bytes(x.recv_block(from), x.recvbytes[from], from, x.tag, x.comm, &reqs.back()));
        reqs.emplace_back();
        expected.push_back(kNotChecked);
        MPIX_CHECK(isend_bytes(x.send_block(to), x.sendbytes[to], to, x.tag, x.comm, &reqs.back()));
        trace_direct_step(x, k, to, from, x.sendbytes[to], x.recvbytes[from]);
        if (own_block_due) {
            copy_self_block(x);
            own_block_due = false;
        }
        if (queue > 0 && ++in_flight == queue) {
            if (!agreed) {  // while the first queue moves
                agreed = true;
                MPIX_CHECK(agree_carried_stats(x));
            }
            MPIX_CHECK(wait_all(static_cast<int>(reqs.size()), reqs.data(), expected.data(), x.mismatch));
            reqs.clear();
            expected.clear();
            in_flight = 0;
        }
    }
    if (own_block_due)
        copy_self_block(x);
    const int agreement = agreed ? MPI_SUCCESS : agree_carried_stats(x);
    const int rc = wait_all(static_cast<int>(reqs.size()), reqs.data(), expected.data(), x.mismatch);
    return rc != MPI_SUCCESS ? rc : agreement;
}

namespace {

// Pieces travel on a communicator of their own, so that a receive can take any
// tag: the last piece of a block carries kLastPiece, the others kMorePieces.
// A receiver therefore learns where the sender's block ends from the sender,
// and posts exactly as many receives as the sender sent pieces, even when the
// two disagree on the block's length or on segment_size: a wrong length is
// reported, never a hang, and no receive can take another call's message.
// (Its receives match one source's pieces in send order: non-overtaking.)
constexpr int kMorePieces = 0;
constexpr int kLastPiece = 1;

struct PieceComm : CacheEntry {
    MPI_Comm comm = MPI_COMM_NULL;
    ~PieceComm() override
    {
        if (comm != MPI_COMM_NULL)
            MPI_Comm_free(&comm);
    }
};

// Collective on the comm the first time (every rank runs the same row); a
// nonblocking or persistent exchange makes it at its call (randomized_warm),
// in the order every rank shares, never inside the engine's task.
int piece_comm(MPIX_Comm *xcomm, MPI_Comm *comm)
{
    const std::string_view key = "randomized:pieces";
    PieceComm *c = cached<PieceComm>(xcomm, key);
    if (!c) {
        std::unique_ptr<PieceComm> made(new PieceComm());
        MPIX_CHECK(MPI_Comm_dup(xcomm->comm, &made->comm));
        c = cache_keep(xcomm, key, std::move(made));
    }
    *comm = c->comm;
    return MPI_SUCCESS;
}

std::size_t piece_count(std::size_t bytes, std::size_t segment)
{
    return bytes == 0 ? 1 : (bytes - 1) / segment + 1;  // no overflow at any segment length
}

// One call's pieces: a receive slot per source (one piece in flight from each,
// the next posted when it lands) and the sends of the queue.
class SegmentedExchange {
public:
    SegmentedExchange(const Exchange &x, MPI_Comm comm)
        : x_(x), comm_(comm), reqs_(x.size, MPI_REQUEST_NULL), got_(x.size, 0), truncated_(x.size, false)
    {
    }

    int post_first_receive(int from)
    {
        return irecv_bytes(x_.recv_block(from), x_.recvbytes[from], from, MPI_ANY_TAG, comm_, &reqs_[from]);
    }

    int post_send(const char *buf, std::size_t bytes, int to, bool last)
    {
        reqs_.emplace_back();
        ++sends_in_flight_;
        return isend_bytes(buf, bytes, to, last ? kLastPiece : kMorePieces, comm_, &reqs_.back());
    }

    int sends_in_flight() const { return sends_in_flight_; }

    // A full queue: progresses receives and sends until no send is in flight
    // (receives must go on, or a peer draining its own queue would wait on us).
    int drain_sends() { return progress(static_cast<int>(reqs_.size()), true); }

    // Every send posted: the receives first, then the sends (with no queue
    // there may be P x pieces of them; they are not scanned on every wakeup).
    int finish()
    {
        MPIX_CHECK(progress(x_.size, false));
        std::vector<MPI_Status> statuses(reqs_.size() - x_.size);
        int rc = wait_requests(static_cast<int>(statuses.size()), reqs_.data() + x_.size, statuses.data());
        if (rc == MPI_ERR_IN_STATUS)
            for (const MPI_Status &st : statuses)
                if (st.MPI_ERROR != MPI_SUCCESS)
                    return st.MPI_ERROR;
        return rc;
    }

private:
    // Waits on the first `count` requests until no send is in flight
    // (`sends_only`) or none of them is active.
    int progress(int count, bool sends_only)
    {
        std::vector<int> done(count);
        std::vector<MPI_Status> statuses(count);
        while (sends_only ? sends_in_flight_ > 0 : receives_in_flight() > 0) {
            int n = 0;
            int rc = wait_some_requests(count, reqs_.data(), &n, done.data(), statuses.data());
            if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)
                return rc;
            if (n == MPI_UNDEFINED)
                break;
            for (int i = 0; i < n; ++i) {
                const int idx = done[i];
                const int err = rc == MPI_ERR_IN_STATUS ? statuses[i].MPI_ERROR : MPI_SUCCESS;
                if (idx >= x_.size) {
                    if (err != MPI_SUCCESS)
                        return err;
                    --sends_in_flight_;
                } else {
                    MPIX_CHECK(received(idx, err, &statuses[i]));
                }
            }
        }
        if (sends_only)
            reqs_.resize(x_.size);
        return MPI_SUCCESS;
    }

    int receives_in_flight() const
    {
        int n = 0;
        for (int j = 0; j < x_.size; ++j)
            n += reqs_[j] != MPI_REQUEST_NULL;
        return n;
    }

    // A piece from `from` landed: count it, and post the next receive unless it
    // was the sender's last piece. After a truncation the rest is discarded
    // (zero-length receives), so nothing lands past the caller's block.
    int received(int from, int err, MPI_Status *st)
    {
        const std::size_t expected = x_.recvbytes[from];
        if (err != MPI_SUCCESS) {
            int errclass = MPI_ERR_OTHER;
            MPI_Error_class(err, &errclass);
            if (errclass != MPI_ERR_TRUNCATE)
                return err;
            truncated_[from] = true;
        } else {
            std::size_t bytes = 0;
            MPIX_CHECK(received_bytes(st, &bytes));
            got_[from] += bytes;
        }
        if (st->MPI_TAG == kLastPiece) {
            if (truncated_[from])
                note_mismatch(x_.mismatch, MPI_ERR_TRUNCATE);
            else if (got_[from] != expected)
                note_mismatch(x_.mismatch, MPI_ERR_COUNT);
            return MPI_SUCCESS;
        }
        const std::size_t room = truncated_[from] ? 0 : expected - got_[from];
        return irecv_bytes(x_.recv_block(from) + (expected - room), room, from, MPI_ANY_TAG, comm_, &reqs_[from]);
    }

    const Exchange &x_;
    MPI_Comm comm_;
    // [0, P): the receive from each source; then the sends in flight.
    std::vector<MPI_Request> reqs_;
    std::vector<std::size_t> got_;
    std::vector<bool> truncated_;
    int sends_in_flight_ = 0;
};

}  // namespace

int randomized_warm(MPIX_Comm *xcomm)
{
    MPI_Comm comm;
    return piece_comm(xcomm, &comm);
}

bool randomized_warm_ready(MPIX_Comm *xcomm) { return cached<PieceComm>(xcomm, "randomized:pieces") != nullptr; }

int randomized_segmented(const Exchange &x)
{
    copy_self_block(x);
    if (x.size == 1)
        return MPI_SUCCESS;
    const RankOrder *o = rank_order(x);
    MPI_Comm comm = MPI_COMM_NULL;
    MPIX_CHECK(piece_comm(x.xcomm, &comm));
    const std::size_t segment = x.hints->segment_size ? x.hints->segment_size : kDefaultSegmentBytes;
    const int queue = x.hints->max_queue;  // pieces in flight (0: all)
    trace_params(x, true, segment);
    SegmentedExchange pieces(x, comm);
    std::size_t most_pieces = 0;
    for (int k = 0; k < x.size; ++k) {
        const int from = randomized_recv_peer(o->position, x.rank, k);
        if (from != x.rank)
            MPIX_CHECK(pieces.post_first_receive(from));
        const std::size_t n = piece_count(x.sendbytes[k], segment);
        if (k != x.rank && n > most_pieces)
            most_pieces = n;
    }
    // Segment by segment; within a segment, the anti-circulant order of steps.
    for (std::size_t s = 0; s < most_pieces; ++s) {
        for (int k = 0; k < x.size; ++k) {
            const int to = randomized_send_peer(o->order, x.rank, k);
            if (to == x.rank)
                continue;
            const std::size_t bytes = x.sendbytes[to], count = piece_count(bytes, segment);
            if (s >= count)
                continue;
            const std::size_t offset = s * segment;
            const std::size_t length = bytes - offset < segment ? bytes - offset : segment;
            MPIX_CHECK(pieces.post_send(x.send_block(to) + offset, length, to, s + 1 == count));
            if (x.trace) {
                const int from = randomized_recv_peer(o->position, x.rank, k);
                const std::size_t in = x.recvbytes[from];
                trace_direct_step(x, static_cast<int>(s) * x.size + k, to, from, length,
                           in > offset ? (in - offset < segment ? in - offset : segment) : 0);
            }
            if (queue > 0 && pieces.sends_in_flight() == queue)
                MPIX_CHECK(pieces.drain_sends());
        }
    }
    return pieces.finish();
}

}  // namespace mpix
