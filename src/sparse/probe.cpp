// Receiving a message whose source and size are unknown, through the shared
// probe-then-receive mechanism (core/p2p: matched probes where the MPI library
// has them, else a probe and a receive from the probed source with this call's
// own tag). Each source sends at most one message per tag in one call, so the
// probed message is the one received.
#include <climits>

#include "core/error.hpp"
#include "core/p2p.hpp"
#include "sparse/sparse.hpp"

namespace mpix {

namespace {

int receive_into_inbox(ProbedMessage *m, int tag, MPI_Comm comm, SparseInbox *inbox)
{
    if (m->bytes > static_cast<std::size_t>(INT_MAX))
        return MPI_ERR_COUNT;  // over 2 GiB: not supported for one sparse message
    char *dst = nullptr;
    if (!inbox->add(m->source, m->bytes, &dst))
        return MPI_ERR_NO_MEM;
    MPI_Request req;
    MPIX_CHECK(irecv_probed(m, dst, tag, comm, &req));
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

}  // namespace

int recv_any(MPI_Comm comm, int tag, SparseInbox *inbox)
{
    ProbedMessage m;
    bool found = false;
    MPIX_CHECK(probe_message(MPI_ANY_SOURCE, tag, comm, true, &m, &found));
    return receive_into_inbox(&m, tag, comm, inbox);
}

int try_recv_any(MPI_Comm comm, int tag, SparseInbox *inbox, bool *got)
{
    ProbedMessage m;
    MPIX_CHECK(probe_message(MPI_ANY_SOURCE, tag, comm, false, &m, got));
    return *got ? receive_into_inbox(&m, tag, comm, inbox) : MPI_SUCCESS;
}

}  // namespace mpix
