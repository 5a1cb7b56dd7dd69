// `personalized`: a reduction of per-destination flags tells each rank how many
// messages arrive (MPI_Reduce_scatter_block: O(P) data, one collective), then
// non-blocking sends and that many probed receives. With crs_recv_nnz_known the
// reduction is skipped.
#include <vector>

#include "core/error.hpp"
#include "core/p2p.hpp"
#include "core/trace.hpp"
#include "sparse/sparse.hpp"

namespace mpix {

int personalized_exchange(MPI_Comm comm, int tag, const std::vector<SparseMessage> &sends, long long known,
                          SparseInbox *inbox)
{
    int expected = static_cast<int>(known);
    if (known < 0) {
        int p = 0;
        MPIX_CHECK(MPI_Comm_size(comm, &p));
        std::vector<int> flags(p, 0);
        for (const SparseMessage &m : sends)
            flags[m.dest] += 1;
        MPIX_CHECK(MPI_Reduce_scatter_block(flags.data(), &expected, 1, MPI_INT, MPI_SUM, comm));
    }
    std::vector<MPI_Request> reqs(sends.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < sends.size(); ++i)
        MPIX_CHECK(isend_bytes(sends[i].data, sends[i].bytes, sends[i].dest, tag, comm, &reqs[i]));
    for (int i = 0; i < expected; ++i)
        MPIX_CHECK(recv_any(comm, tag, inbox));
    return wait_all(static_cast<int>(reqs.size()), reqs.data());
}

void trace_direct_messages(const SparseExchange &x, int round, std::size_t first_arrival, std::size_t overhead)
{
    if (!x.trace)
        return;
    const long long p = x.size, me = x.rank;
    for (const SparseMessage &m : x.sends)
        if (m.dest != x.rank)
            x.trace->round(round, m.dest, -1, {me * p + m.dest}, m.bytes + overhead, 0);
    const SparseInbox &in = *x.inbox;
    for (std::size_t i = first_arrival; i < in.count(); ++i)
        if (in.source[i] != x.rank)
            x.trace->round(round, -1, in.source[i], {in.source[i] * p + me}, 0, in.bytes[i] + overhead);
}

// Traced as one round 0 of sends (the flags' reduce-scatter carries no block).
int sparse_personalized(const SparseExchange &x)
{
    const std::size_t first = x.inbox->count();
    MPIX_CHECK(personalized_exchange(x.comm, x.tag, x.sends, x.known_recv_nnz, x.inbox));
    trace_direct_messages(x, 0, first);
    return MPI_SUCCESS;
}

int sparse_personalized_locality(const SparseExchange &x)
{
    return locality_exchange(x, personalized_exchange);
}

}  // namespace mpix
