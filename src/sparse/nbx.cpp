// `nonblocking` (NBX, Hoefler et al.): synchronous sends, probed receives while
// testing them, and a non-blocking barrier entered once every send was matched;
// when the barrier completes every message has arrived. No global reduction.
//
// The barrier is our own dissemination barrier of zero-byte point-to-point
// messages progressed by MPI_Test, on every MPI library: SimGrid SMPI's
// MPI_Ibarrier lets ranks leave early (NBX then hangs), and one code path means
// the path used in simulation is the one tested here. It costs ceil(log2 P)
// rounds, like MPICH's own Ibarrier.
#include <vector>

#include "core/error.hpp"
#include "core/p2p.hpp"
#include "sparse/sparse.hpp"

namespace mpix {

namespace {

class DisseminationBarrier {
public:
    DisseminationBarrier(MPI_Comm comm, int tag) : comm_(comm), tag_(tag)
    {
        MPI_Comm_size(comm, &size_);
        MPI_Comm_rank(comm, &rank_);
    }
    ~DisseminationBarrier()
    {
        // Only reached early on an error path: do not leave requests dangling.
        for (MPI_Request &r : reqs_)
            if (r != MPI_REQUEST_NULL) {
                MPI_Cancel(&r);
                MPI_Request_free(&r);
            }
    }
    bool started() const { return started_; }

    int start()
    {
        started_ = true;
        return dist_ < size_ ? post() : MPI_SUCCESS;
    }

    // Progresses the barrier; *done once every rank has entered it.
    int test(bool *done)
    {
        while (dist_ < size_) {
            int flag = 0;
            MPIX_CHECK(MPI_Testall(2, reqs_, &flag, MPI_STATUSES_IGNORE));
            if (!flag)
                break;
            dist_ *= 2;
            if (dist_ < size_)
                MPIX_CHECK(post());
        }
        *done = dist_ >= size_;
        return MPI_SUCCESS;
    }

private:
    // Round with distance d: hear from rank - d, tell rank + d. Distances are
    // distinct and below P, so a round's source is unique within the call.
    int post()
    {
        MPIX_CHECK(MPI_Irecv(&sink_, 0, MPI_BYTE, (rank_ - dist_ % size_ + size_) % size_, tag_, comm_, &reqs_[0]));
        return MPI_Isend(&sink_, 0, MPI_BYTE, (rank_ + dist_) % size_, tag_, comm_, &reqs_[1]);
    }

    MPI_Comm comm_;
    int tag_;
    int size_ = 1, rank_ = 0;
    int dist_ = 1;
    bool started_ = false;
    char sink_ = 0;
    MPI_Request reqs_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
};

}  // namespace

int nbx_exchange(MPI_Comm comm, int tag, const std::vector<SparseMessage> &sends, long long known,
                 SparseInbox *inbox)
{
    std::vector<MPI_Request> reqs(sends.size(), MPI_REQUEST_NULL);
    if (known >= 0) {
        // Counts stated by the caller: plain sends and exactly that many receives.
        for (std::size_t i = 0; i < sends.size(); ++i)
            MPIX_CHECK(isend_bytes(sends[i].data, sends[i].bytes, sends[i].dest, tag, comm, &reqs[i]));
        for (long long i = 0; i < known; ++i)
            MPIX_CHECK(recv_any(comm, tag, inbox));
        return wait_all(static_cast<int>(reqs.size()), reqs.data());
    }
    for (std::size_t i = 0; i < sends.size(); ++i)
        MPIX_CHECK(issend_bytes(sends[i].data, sends[i].bytes, sends[i].dest, tag, comm, &reqs[i]));
    DisseminationBarrier barrier(comm, tag + 1);
    for (;;) {
        bool got = false;
        MPIX_CHECK(try_recv_any(comm, tag, inbox, &got));
        if (got)
            continue;
        if (!barrier.started()) {
            int all_sent = 0;
            MPIX_CHECK(MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &all_sent, MPI_STATUSES_IGNORE));
            if (all_sent)
                MPIX_CHECK(barrier.start());
        } else {
            bool done = false;
            MPIX_CHECK(barrier.test(&done));
            if (done)
                return MPI_SUCCESS;
        }
    }
}

// Traced as one round 0 of sends (the barrier carries no block).
int sparse_nonblocking(const SparseExchange &x)
{
    const std::size_t first = x.inbox->count();
    MPIX_CHECK(nbx_exchange(x.comm, x.tag, x.sends, x.known_recv_nnz, x.inbox));
    trace_direct_messages(x, 0, first);
    return MPI_SUCCESS;
}

int sparse_nonblocking_locality(const SparseExchange &x)
{
    return locality_exchange(x, nbx_exchange);
}

}  // namespace mpix
