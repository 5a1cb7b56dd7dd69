// `personalized`: a reduction of per-destination flags tells each rank how many
// messages arrive (MPI_Reduce_scatter_block: O(P) data, one collective), then
// non-blocking sends and that many probed receives. With crs_recv_nnz_known the
// reduction is skipped.
#include <vector>

#include "core/error.hpp"
#include "core/p2p.hpp"
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

int sparse_personalized(const SparseExchange &x)
{
    return personalized_exchange(x.comm, x.tag, x.sends, x.known_recv_nnz, x.inbox);
}

int sparse_personalized_locality(const SparseExchange &x)
{
    return locality_exchange(x, personalized_exchange);
}

}  // namespace mpix
