// Receiving a message whose source and size are unknown: matched probes where the
// MPI library has them, else a probe followed by a receive from the probed source
// with this call's own tag (SimGrid SMPI). Each source sends at most one message
// per tag in one call, so the probed message is the one received.
#include <climits>

#include "config.h"
#include "core/error.hpp"
#include "core/p2p.hpp"
#include "sparse/sparse.hpp"

namespace mpix {

namespace {

int message_bytes(const MPI_Status &st, std::size_t *bytes)
{
    int n = 0;
    MPIX_CHECK(MPI_Get_count(&st, MPI_BYTE, &n));
    if (n == MPI_UNDEFINED || n < 0)
        return MPI_ERR_COUNT;  // over 2 GiB: not supported for one sparse message
    *bytes = static_cast<std::size_t>(n);
    return MPI_SUCCESS;
}

#if MPIX_HAVE_MPROBE
int receive_matched(MPI_Message *msg, const MPI_Status &st, SparseInbox *inbox)
{
    std::size_t n = 0;
    MPIX_CHECK(message_bytes(st, &n));
    char *dst = inbox->add(st.MPI_SOURCE, n);
    return MPI_Mrecv(dst, static_cast<int>(n), MPI_BYTE, msg, MPI_STATUS_IGNORE);
}
#else
int receive_probed(MPI_Comm comm, int tag, const MPI_Status &st, SparseInbox *inbox)
{
    std::size_t n = 0;
    MPIX_CHECK(message_bytes(st, &n));
    char *dst = inbox->add(st.MPI_SOURCE, n);
    return recv_bytes(dst, n, st.MPI_SOURCE, tag, comm);
}
#endif

}  // namespace

int recv_any(MPI_Comm comm, int tag, SparseInbox *inbox)
{
    MPI_Status st;
#if MPIX_HAVE_MPROBE
    MPI_Message msg;
    MPIX_CHECK(MPI_Mprobe(MPI_ANY_SOURCE, tag, comm, &msg, &st));
    return receive_matched(&msg, st, inbox);
#else
    MPIX_CHECK(MPI_Probe(MPI_ANY_SOURCE, tag, comm, &st));
    return receive_probed(comm, tag, st, inbox);
#endif
}

int try_recv_any(MPI_Comm comm, int tag, SparseInbox *inbox, bool *got)
{
    MPI_Status st;
    int flag = 0;
#if MPIX_HAVE_MPROBE
    MPI_Message msg;
    MPIX_CHECK(MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &flag, &msg, &st));
    *got = flag != 0;
    return flag ? receive_matched(&msg, st, inbox) : MPI_SUCCESS;
#else
    MPIX_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st));
    *got = flag != 0;
    return flag ? receive_probed(comm, tag, st, inbox) : MPI_SUCCESS;
#endif
}

}  // namespace mpix
