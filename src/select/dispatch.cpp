#include "select/dispatch.hpp"

#include <memory>
#include <string>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "select/registry.hpp"

namespace mpix {

int check_user_side(const UserSide &side, int size, bool counts_needed, const char **why)
{
    if (counts_needed && (!side.counts || !side.displs)) {
        *why = "a count or displacement array is NULL";
        return MPI_ERR_ARG;
    }
    if (side.type == MPI_DATATYPE_NULL) {
        *why = "datatype is MPI_DATATYPE_NULL";
        return MPI_ERR_TYPE;
    }
    if (side.counts) {
        for (int p = 0; p < size; ++p)
            if (side.counts[p] < 0) {
                *why = "negative count";
                return MPI_ERR_COUNT;
            }
    } else if (side.uniform_count < 0) {
        *why = "negative count";
        return MPI_ERR_COUNT;
    }
    return MPI_SUCCESS;
}

int run_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, const UserSide &send, const UserSide &recv,
                 bool in_place)
{
    int p = xcomm->size;
    // NULL buffers first: packing a non-contiguous send side would read from one.
    auto has_data = [p](const UserSide &u) {
        for (int q = 0; q < p; ++q)
            if (u.count(q) > 0 && u.info.size > 0)
                return true;
        return false;
    };
    // MPI_IN_PLACE is a send-side marker; as recvbuf every row would write through it.
    if (static_cast<const void *>(recv.buf) == MPI_IN_PLACE)
        return raise(xcomm->user, MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if (!in_place && !send.buf && has_data(send))
        return raise(xcomm->user, MPI_ERR_BUFFER, fn, "sendbuf is NULL");
    if (!recv.buf && has_data(recv))
        return raise(xcomm->user, MPI_ERR_BUFFER, fn, "recvbuf is NULL");
    BlockSide sb, rb;
    int rc = make_send_side(send, p, in_place, xcomm->comm, &sb);
    if (rc != MPI_SUCCESS)
        return raise_staging(xcomm->user, rc, fn, "the send staging buffer");
    rc = make_recv_side(recv, p, &rb);
    if (rc != MPI_SUCCESS)
        return raise_staging(xcomm->user, rc, fn, "the receive staging buffer");
    if (sb.bytes[xcomm->rank] > rb.bytes[xcomm->rank])
        return raise(xcomm->user, MPI_ERR_TRUNCATE, fn, "the block a rank sends itself exceeds its receive block");

    Hints hints = resolve_hints(xcomm, nullptr);
    Exchange x{};
    x.xcomm = xcomm;
    x.comm = xcomm->comm;
    x.size = p;
    x.rank = xcomm->rank;
    x.tag = allocate_tags(xcomm);
    x.sendbuf = sb.base;
    x.sendbytes = sb.bytes.data();
    x.sdispls = sb.displs.data();
    x.recvbuf = rb.base;
    x.recvbytes = rb.bytes.data();
    x.rdispls = rb.displs.data();
    x.uniform = c == Collective::alltoall;
    x.block_bytes = x.uniform ? rb.bytes[0] : 0;
    x.hints = &hints;
    int mismatch = MPI_SUCCESS;
    x.mismatch = &mismatch;

    const Algorithm *algorithm = select_algorithm(c, x);
    xcomm->last_algorithm[static_cast<int>(c)] = algorithm->name;
    std::unique_ptr<Trace> trace;
    if (!hints.trace.empty()) {
        trace.reset(new Trace(hints.trace + "." + std::to_string(x.rank) + ".jsonl", collective_name(c),
                              algorithm->name));
        x.trace = trace.get();
    }
    {
        WorldErrorsReturn world_returns;  // a truncated receive must come back here, not abort
        rc = algorithm->run(x);
    }
    if (rc == MPI_SUCCESS)
        rc = mismatch;
    // A block of the wrong length is reported after every message has moved,
    // as MPI_ERR_TRUNCATE (longer) or MPI_ERR_COUNT (shorter): by the algorithms
    // that carry sizes in their messages, and by the completion helpers from the
    // receive statuses. The blocks that did arrive are unpacked (a staged side).
    int rc_class = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc_class);
    const bool wrong_length = rc_class == MPI_ERR_TRUNCATE || rc_class == MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS || wrong_length) {
        int unpacked = finish_recv_side(recv, p, rb, xcomm->comm);
        if (rc == MPI_SUCCESS)
            rc = unpacked;
    }
    if (wrong_length)
        return raise(xcomm->user, rc_class, fn,
                     (std::string("a block sent to this rank is ") +
                      (rc_class == MPI_ERR_TRUNCATE ? "longer" : "shorter") +
                      " than its receive block (algorithm " + algorithm->name +
                      "); this rank's receive blocks are undefined, the other ranks completed")
                         .c_str());
    if (rc != MPI_SUCCESS)
        return raise_internal(xcomm->user, rc, fn, algorithm->name);
    return MPI_SUCCESS;
}

}  // namespace mpix
