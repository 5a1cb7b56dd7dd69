#include "sched/engine.hpp"
#include "select/dispatch.hpp"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>

#include "config.h"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/request.hpp"
#include "core/trace.hpp"
#include "select/registry.hpp"

namespace mpix {

namespace {

using Form = UserSide::Form;

// The hot checks below take the side's form as a template argument: a call's
// two sides always share one (both come from one entry point; MPI_IN_PLACE
// copies the receive side), so run_exchange dispatches on it once and each
// check compiles to the arithmetic of that form alone.
template <Form F>
[[gnu::always_inline]] inline MPI_Count count_as(const UserSide &side, int peer)
{
    if constexpr (F == Form::per_peer)
        return side.counts[peer];
    else if constexpr (F == Form::per_peer_large)
        return side.counts_c[peer];
    else
        return side.uniform_count;
}

// Validates one side's count and displacement arrays (before its type is
// described: describe_type checks the type). A negative count only sets
// *negative: the rank may take part (StandInSides).
template <Form F>
[[gnu::always_inline]] inline int check_counts(const UserSide &side, int size, const char **why, bool *negative)
{
    if ((F == Form::per_peer && (!side.counts || !side.displs)) ||
        (F == Form::per_peer_large && (!side.counts_c || !side.displs_c))) {
        *why = "a count or displacement array is NULL";
        return MPI_ERR_ARG;
    }
    const int peers = F == Form::uniform ? 1 : size;
    bool any_negative = false;  // one flag over the loop, which then has no branch
    for (int p = 0; p < peers; ++p)
        any_negative |= count_as<F>(side, p) < 0;
    if (any_negative)
        *negative = true;
    return MPI_SUCCESS;
}

// a * b fits a signed pointer-sized integer (no division on the call's path).
[[gnu::always_inline]] inline bool product_fits(MPI_Aint a, MPI_Aint b)
{
    MPI_Aint product;
    return !__builtin_mul_overflow(a, b, &product);
}

// Byte sizes and offsets must be representable: counts and displacements of the
// large-count calls (and P times a uniform block) can overflow them once
// multiplied by the type's size or extent.
template <Form F>
[[gnu::always_inline]] inline int check_byte_range(const UserSide &side, int size, const char **why)
{
    if constexpr (F == Form::per_peer) {
        (void)side, (void)size, (void)why;
        return MPI_SUCCESS;  // int counts and displacements times an int size fit
    } else {
        const MPI_Aint type_size = static_cast<MPI_Aint>(side.info.size);
        if constexpr (F == Form::uniform) {
            // Block j lies at j * count extents.
            MPI_Aint span = 0;
            if (!product_fits(side.uniform_count, type_size) ||
                __builtin_mul_overflow(static_cast<MPI_Aint>(size), side.uniform_count, &span) ||
                !product_fits(span, side.info.extent)) {
                *why = "P times the count times the datatype's size or extent exceeds the address space";
                return MPI_ERR_COUNT;
            }
            return MPI_SUCCESS;
        }
        for (int p = 0; p < size; ++p) {
            if (!product_fits(side.counts_c[p], type_size)) {
                *why = "a count times the datatype's size exceeds the address space";
                return MPI_ERR_COUNT;
            }
            if (!product_fits(side.displs_c[p], side.info.extent)) {
                *why = "a displacement times the datatype's extent exceeds the address space";
                return MPI_ERR_ARG;
            }
        }
        return MPI_SUCCESS;
    }
}

// describe_type, keeping a predefined type's description on the communicator.
[[gnu::noinline]] int describe_type_and_remember(MPIX_Comm *xcomm, MPI_Datatype type, TypeInfo *out, const char **why)
{
    int rc = describe_type(type, xcomm->comm, out, why);
    if (rc == MPI_SUCCESS && out->predefined) {
        auto &slot = xcomm->named_types[xcomm->next_named_type];
        xcomm->next_named_type = (xcomm->next_named_type + 1) % static_cast<int>(std::size(xcomm->named_types));
        slot.type = type;
        slot.info = *out;
    }
    return rc;
}

// describe_type, remembering predefined types on the communicator: a call with
// MPI_DOUBLE then asks MPI nothing about it.
[[gnu::always_inline]] inline int describe_type_memo(MPIX_Comm *xcomm, MPI_Datatype type, TypeInfo *out, const char **why)
{
    for (const auto &n : xcomm->named_types)
        if (n.type == type && type != MPI_DATATYPE_NULL) {
            *out = n.info;
            return MPI_SUCCESS;
        }
    return describe_type_and_remember(xcomm, type, out, why);
}

[[gnu::always_inline]] inline bool fits_int(MPI_Count v) { return v <= INT_MAX; }

// SMPI: what the MPI library does with the rank's own block (a copy, or a
// message to itself), charged as its collective does not charge it.
template <Form F>
[[gnu::always_inline]] inline void charge_mpi_own_block(MPIX_Comm *xcomm, const UserSide &recv, bool in_place)
{
    if (!xcomm->work.charged())
        return;
    const std::size_t own = static_cast<std::size_t>(count_as<F>(recv, xcomm->rank)) * recv.info.size;
    xcomm->work.charge_mpi_own_block(
        own, mpi_library_sends_own_block(F != Form::uniform, false, in_place, own, xcomm->size));
}

// Hands the caller's own arguments to the MPI library's collective; for
// MPI_Alltoallv the rank's own block apart where OwnBlockApart applies. Sets
// *passed = false, doing nothing, when the MPI library has no call that takes
// them (large counts where it lacks MPI_Alltoall(v)_c).
template <Form F>
[[gnu::always_inline]] inline int call_mpi_collective(MPIX_Comm *xcomm, const UserSide &send, const UserSide &recv,
                                                      bool in_place, bool *passed)
{
    *passed = true;
    cpu_charge();  // the dispatch's work before the MPI library's collective (counting SMPI build only)
    const void *sbuf = in_place ? MPI_IN_PLACE : static_cast<const void *>(send.buf);
    void *rbuf = const_cast<char *>(recv.buf);
    if constexpr (F == Form::uniform) {
        charge_mpi_own_block<F>(xcomm, recv, in_place);
        if (fits_int(send.uniform_count) && fits_int(recv.uniform_count))
            return PMPI_Alltoall(sbuf, static_cast<int>(send.uniform_count), send.type, rbuf,
                                 static_cast<int>(recv.uniform_count), recv.type, xcomm->comm);
#if MPIX_HAVE_LARGE_COUNT
        return PMPI_Alltoall_c(sbuf, send.uniform_count, send.type, rbuf, recv.uniform_count, recv.type,
                               xcomm->comm);
#endif
    } else if constexpr (F == Form::per_peer) {
        SeparateCounts separate;
        UserSide s = send, r = separate.receive_side(sbuf, send, recv, xcomm->size);
        OwnBlockApart own;
        if (!own.take(sbuf, &s, &r, xcomm->rank, xcomm->size, &xcomm->work))
            charge_mpi_own_block<F>(xcomm, recv, in_place);
        return PMPI_Alltoallv(sbuf, s.counts, s.displs, s.type, rbuf, r.counts, r.displs, r.type, xcomm->comm);
    } else {
#if MPIX_HAVE_LARGE_COUNT
        SeparateCounts separate;
        UserSide s = send, r = separate.receive_side(sbuf, send, recv, xcomm->size);
        OwnBlockApart own;
        if (!own.take(sbuf, &s, &r, xcomm->rank, xcomm->size, &xcomm->work))
            charge_mpi_own_block<F>(xcomm, recv, in_place);
        return PMPI_Alltoallv_c(sbuf, s.counts_c, s.displs_c, s.type, rbuf, r.counts_c, r.displs_c, r.type,
                                xcomm->comm);
#endif
    }
    *passed = false;
    return MPI_SUCCESS;
}

}  // namespace

// The outcome of a call as the caller sees it. A block of the wrong length is
// reported after every message has moved, as MPI_ERR_TRUNCATE (longer) or
// MPI_ERR_COUNT (shorter): by the algorithms that carry sizes in their messages,
// by the completion helpers from the receive statuses, or by the MPI library.
int report(MPIX_Comm *xcomm, const char *fn, const Algorithm *algorithm, int rc, const char *receive_state)
{
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    int rc_class = rc;
    MPI_Error_class(rc, &rc_class);
    if (rc_class == MPI_ERR_TRUNCATE || rc_class == MPI_ERR_COUNT)
        return raise(xcomm->user, rc_class, fn,
                     (std::string("a block sent to this rank is ") +
                      (rc_class == MPI_ERR_TRUNCATE ? "longer" : "shorter") +
                      " than its receive block (algorithm " + algorithm->name + "); " + receive_state)
                         .c_str());
    return raise_internal(xcomm->user, rc, fn, algorithm->name);
}

int report_local_mismatch(MPIX_Comm *xcomm, const char *fn, const LocalMismatch &local)
{
    using StandIn = LocalMismatch::StandIn;
    switch (local.stand_in) {
    case StandIn::none: break;
    case StandIn::negative_count:
        return raise(xcomm->user, local.error_class, fn,
                     local.uniform ? "negative count; this rank took part so that the other ranks complete, with "
                                     "blocks of the length they expect (zero bytes for a negative send count), and "
                                     "wrote nothing to its receive buffer"
                                   : "negative count; this rank took part so that the other ranks complete, each "
                                     "such block empty, and wrote nothing to its receive buffer");
    case StandIn::null_sendbuf:
        return raise(xcomm->user, local.error_class, fn,
                     "sendbuf is NULL; this rank took part so that the other ranks complete, sending zero bytes, and "
                     "wrote nothing to its receive buffer");
    case StandIn::null_recvbuf:
        return raise(xcomm->user, local.error_class, fn,
                     "recvbuf is NULL; this rank took part so that the other ranks complete, and wrote nothing");
    case StandIn::bad_sendtype:
    case StandIn::bad_recvtype:
        return raise(xcomm->user, local.error_class, fn,
                     (stand_in_text(local) +
                      "; this rank took part so that the other ranks complete, with the blocks of that side empty" +
                      (local.uniform && local.stand_in == StandIn::bad_sendtype
                           ? " (zero bytes of the receive length)"
                           : "") +
                      ", and wrote nothing to its receive buffer")
                         .c_str());
    }
    const std::string sent = std::to_string(local.sent), expected = std::to_string(local.expected);
    const std::string text =
        local.uniform
            ? "this rank's send blocks (" + sent + " bytes) and receive blocks (" + expected +
                  " bytes) differ in length (MPI_Alltoall needs equal type signatures); each send block went out " +
                  (local.sent > local.expected ? "cut" : "padded with zero bytes") + " to " + expected +
                  " bytes, the blocks this rank received are right"
            : "the block this rank sends itself (" + sent + " bytes) is longer than its receive block (" + expected +
                  " bytes); the whole elements that fit were received, the other blocks moved as given";
    return raise(xcomm->user, local.error_class, fn, text.c_str());
}

int refuse_stand_in_on_mpi_row(MPIX_Comm *xcomm, Collective c, const char *fn, const LocalMismatch &local,
                               const Algorithm *algorithm)
{
    using StandIn = LocalMismatch::StandIn;
    if (local.stand_in == StandIn::none || c != Collective::alltoallv || !algorithm->pass_through)
        return MPI_SUCCESS;
    return raise(xcomm->user, local.error_class, fn,
                 (stand_in_text(local) + " (the MPI library's own MPI_Alltoallv, which this call runs, can take no part "
                                      "with it: the error is returned at once, as that collective returns it)")
                     .c_str());
}

int report_with_own(MPIX_Comm *xcomm, const char *fn, const Algorithm *algorithm, int rc, const LocalMismatch *local)
{
    if (rc != MPI_SUCCESS && local && local->stand_in != LocalMismatch::StandIn::none) {
        int rc_class = rc;
        MPI_Error_class(rc, &rc_class);
        if (rc_class == MPI_ERR_TRUNCATE || rc_class == MPI_ERR_COUNT)
            return report_local_mismatch(xcomm, fn, *local);
    }
    return report(xcomm, fn, algorithm, rc);
}

int report_guarded(MPIX_Comm *xcomm, const char *fn, const Algorithm *algorithm, int rc)
{
    return guard_entry(xcomm->user, fn, [&] { return report(xcomm, fn, algorithm, rc); });
}

Exchange byte_exchange(MPIX_Comm *xcomm, Collective c, const BlockSide &sb, const BlockSide &rb, const Hints *hints,
                       int *mismatch)
{
    Exchange x{};
    x.xcomm = xcomm;
    x.comm = xcomm->comm;
    x.size = xcomm->size;
    x.rank = xcomm->rank;
    x.sendbuf = sb.base;
    x.sendbytes = sb.bytes.data();
    x.sdispls = sb.displs.data();
    x.recvbuf = rb.base;
    x.recvbytes = rb.bytes.data();
    x.rdispls = rb.displs.data();
    // An in-place MPIX_Alltoall with its own block kept (kept_block) has one
    // empty block: the row reads the sizes.
    x.uniform = c == Collective::alltoall && rb.kept < 0;
    x.block_bytes = x.uniform ? rb.bytes[0] : 0;
    x.hints = hints;
    x.mismatch = mismatch;
    x.work = &xcomm->work;
    return x;
}

namespace {

// The communicator's spare per-peer vectors, swapped into a call's two sides for
// its duration (no allocation once they have grown to P).
class LentViews {
public:
    LentViews(MPIX_Comm *xcomm, BlockSide *send, BlockSide *recv) : xcomm_(xcomm), send_(send), recv_(recv) { swap(); }
    ~LentViews() { swap(); }
    LentViews(const LentViews &) = delete;
    LentViews &operator=(const LentViews &) = delete;

private:
    void swap()
    {
        send_->bytes.swap(xcomm_->spare_bytes[0]);
        send_->displs.swap(xcomm_->spare_displs[0]);
        recv_->bytes.swap(xcomm_->spare_bytes[1]);
        recv_->displs.swap(xcomm_->spare_displs[1]);
    }
    MPIX_Comm *xcomm_;
    BlockSide *send_, *recv_;
};

// Under a copy model, the call's send and receive bytes pick the copy
// bandwidth (LocalWork::set_working_set); natively the sums are not computed.
void note_working_set(MPIX_Comm *xcomm, const UserSide &send, const UserSide &recv)
{
    if (xcomm->work.charged())
        xcomm->work.set_working_set(side_bytes(send, xcomm->size) + side_bytes(recv, xcomm->size));
}

// The byte path: user blocks as byte views, the algorithm, then unpacking;
// returns what report() returns.
// `carried_stats`: Exchange::carried_stats (nullptr: none).
int run_byte_path(MPIX_Comm *xcomm, Collective c, const char *fn, const Algorithm *algorithm, const Hints &hints,
                  const UserSide &send, const UserSide &recv, bool in_place, std::uint64_t *carried_stats,
                  const LocalMismatch *local)
{
    const int p = xcomm->size;
    BlockSide sb, rb;
    LentViews lent(xcomm, &sb, &rb);
    note_working_set(xcomm, send, recv);
    const int kept = kept_block(xcomm, c, in_place, algorithm);
    int rc = make_send_side(send, p, in_place, xcomm->comm, &xcomm->work, &sb, kept);
    if (rc != MPI_SUCCESS)
        return raise_staging(xcomm->user, rc, fn, "the send staging buffer");
    rc = make_recv_side(recv, p, &xcomm->work, &rb, kept);
    if (rc != MPI_SUCCESS)
        return raise_staging(xcomm->user, rc, fn, "the receive staging buffer");

    int mismatch = MPI_SUCCESS;
    Exchange x = byte_exchange(xcomm, c, sb, rb, &hints, &mismatch);
    x.tag = call_tags(xcomm, algorithm);
    x.mpi_in_place = in_place && algorithm->pass_through;
    x.carried_stats = carried_stats;

    std::unique_ptr<Trace> trace =
        open_trace(hints.trace, xcomm->trace_group, x.rank, collective_name(c), algorithm->name, x.work);
    x.trace = trace.get();
    {
        WorldErrorsReturn world_returns(xcomm->world_available);  // a truncated receive must come back here
        rc = algorithm->run(x);
    }
    rc = finish_exchange(rc, mismatch, recv, p, rb, xcomm->comm, &xcomm->work);
    return report_with_own(xcomm, fn, algorithm, rc, local);
}

// The send and receive sides name the same memory, block for block: the same
// buffer, datatype and counts (and displacement arrays). MPI forbids aliased
// buffers without MPI_IN_PLACE, and every row would read blocks it has already
// overwritten. Partly overlapping sides are not looked for (that costs a pass
// over the blocks on every call); MPICH checks the same buffer, type and counts.
bool same_blocks(const UserSide &send, const UserSide &recv)
{
    if (send.buf != recv.buf || send.type != recv.type || send.form != recv.form)
        return false;
    switch (send.form) {
    case UserSide::Form::uniform: return send.uniform_count == recv.uniform_count;
    case UserSide::Form::per_peer: return send.counts == recv.counts && send.displs == recv.displs;
    case UserSide::Form::per_peer_large: return send.counts_c == recv.counts_c && send.displs_c == recv.displs_c;
    }
    return false;
}

bool has_data(const UserSide &u, int p)
{
    if (u.info.size == 0)
        return false;
    if (u.form == UserSide::Form::uniform)
        return u.uniform_count > 0;
    for (int q = 0; q < p; ++q)
        if (u.raw_count(q) > 0)
            return true;
    return false;
}

}  // namespace

const UserSide &selection_side(const LocalMismatch &local, const UserSide &send, const UserSide &recv)
{
    return local.error_class != MPI_SUCCESS && local.uniform ? recv : send;
}

namespace {

// The error class of a stand-in's argument error.
int stand_in_class(LocalMismatch::StandIn why)
{
    using StandIn = LocalMismatch::StandIn;
    return why == StandIn::negative_count                                  ? MPI_ERR_COUNT
           : why == StandIn::bad_sendtype || why == StandIn::bad_recvtype ? MPI_ERR_TYPE
                                                                           : MPI_ERR_BUFFER;
}

// Off the call's path: a negative count, a NULL buffer with data or an
// unusable datatype on this rank (`wrong`, its error). A blocking call
// (`stand_in` given) takes part with the sides kept in *stand_in
// (StandInSides), sending zero bytes where `zero_send` (a NULL send buffer,
// whatever the error); a nonblocking or persistent one, and one in place,
// raises the error at once.
[[gnu::noinline]] int stand_in_for(MPIX_Comm *xcomm, const char *fn, UserSide &send, UserSide &recv, bool in_place,
                                   const LocalMismatch &wrong, bool zero_send,
                                   std::unique_ptr<StandInSides> *stand_in)
{
    const int error_class = stand_in_class(wrong.stand_in);
    if (!stand_in || in_place)
        return raise(xcomm->user, error_class, fn, stand_in_text(wrong).c_str());
    if (!*stand_in)
        stand_in->reset(new (std::nothrow) StandInSides);
    const int rc = *stand_in ? (*stand_in)->make(&send, &recv, xcomm->size, zero_send) : MPI_ERR_NO_MEM;
    if (rc == MPI_ERR_NO_MEM)
        return raise_staging(xcomm->user, rc, fn, "the stand-in blocks of a call with an erroneous argument");
    if (rc != MPI_SUCCESS)
        return raise(xcomm->user, error_class, fn,
                     (stand_in_text(wrong) + " (and the other side's count negative or type unusable: "
                                             "no block length to take part with)")
                         .c_str());
    return MPI_SUCCESS;
}

// A side whose datatype cannot be used (`why`: describe_type's text): a
// blocking call not in place takes part with its blocks empty
// (StandInSides::unusable), else the error at once.
[[gnu::noinline]] int unusable_type(MPIX_Comm *xcomm, const char *fn, UserSide &side, bool in_place,
                                    const char *why, std::unique_ptr<StandInSides> *stand_in)
{
    if (!stand_in || in_place)
        return raise(xcomm->user, MPI_ERR_TYPE, fn, why);
    if (!*stand_in)
        stand_in->reset(new (std::nothrow) StandInSides);
    if (!*stand_in)
        return raise_staging(xcomm->user, MPI_ERR_NO_MEM, fn, "the stand-in blocks of a call with an erroneous argument");
    (*stand_in)->unusable(&side, xcomm->size);
    return MPI_SUCCESS;
}

// check_exchange's body for one form, inlined into run_exchange (every call's path).
template <Form F>
[[gnu::always_inline]] inline int check_exchange_as(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send,
                                                    UserSide &recv, bool in_place, LocalMismatch *local,
                                                    std::unique_ptr<StandInSides> *stand_in)
{
    const int p = xcomm->size;
    const char *why = nullptr;
    bool negative = false;
    int rc = check_counts<F>(recv, p, &why, &negative);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_counts<F>(send, p, &why, &negative);
    if (rc != MPI_SUCCESS)
        return raise(xcomm->user, rc, fn, why);
    // A datatype that cannot be used: like a negative count, a blocking call
    // takes part without that side's blocks (its lengths are unknown).
    using StandIn = LocalMismatch::StandIn;
    const char *type_problem = nullptr;
    bool recv_unusable = false, send_unusable = false;
    const bool same_type = send.type == recv.type;  // (before a stand-in side becomes MPI_BYTE)
    if (describe_type_memo(xcomm, recv.type, &recv.info, &why) != MPI_SUCCESS) {
        if ((rc = unusable_type(xcomm, fn, recv, in_place, why, stand_in)) != MPI_SUCCESS)
            return rc;
        recv_unusable = true;
        type_problem = why;
    }
    if (in_place || (same_type && !recv_unusable)) {
        send.info = recv.info;  // MPI_IN_PLACE: the send side is the receive buffer's current content
    } else if (same_type || describe_type_memo(xcomm, send.type, &send.info, &why) != MPI_SUCCESS) {
        if ((rc = unusable_type(xcomm, fn, send, in_place, why, stand_in)) != MPI_SUCCESS)
            return rc;
        send_unusable = true;
        type_problem = type_problem ? type_problem : why;
    }
    const StandIn bad_type = recv_unusable ? StandIn::bad_recvtype
                             : send_unusable ? StandIn::bad_sendtype
                                             : StandIn::none;
    // (an unusable side's counts are its stand-in's)
    rc = recv_unusable ? MPI_SUCCESS : check_byte_range<F>(recv, p, &why);
    if (rc == MPI_SUCCESS && !in_place && !send_unusable)
        rc = check_byte_range<F>(send, p, &why);
    if (rc != MPI_SUCCESS)
        return raise(xcomm->user, rc, fn, why);
    // MPI_IN_PLACE is a send-side marker; as recvbuf every row would write through it.
    if (static_cast<const void *>(recv.buf) == MPI_IN_PLACE)
        return raise(xcomm->user, MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    // NULL buffers before anything reads them (packing a non-contiguous side
    // would). Like a negative count, a blocking call takes part without them.
    StandIn wrong = bad_type != StandIn::none ? bad_type : negative ? StandIn::negative_count : StandIn::none;
    if (wrong == StandIn::none && !in_place && null_buffer_for(send.buf, send.info) && has_data(send, p))
        wrong = StandIn::null_sendbuf;
    if (wrong == StandIn::none && null_buffer_for(recv.buf, recv.info) && has_data(recv, p))
        wrong = StandIn::null_recvbuf;
    if (wrong == StandIn::none && !in_place && same_blocks(send, recv) && has_data(send, p))
        return raise(xcomm->user, MPI_ERR_BUFFER, fn,
                     "sendbuf and recvbuf are the same blocks of memory (MPI_IN_PLACE is the in-place form)");
    // MPI_Alltoall requires equal type signatures, so every block has one size;
    // MPI_Alltoallv a block to itself no longer than its receive block. The
    // other ranks cannot see either, nor the errors above: the rank takes
    // part, then reports it.
    *local = LocalMismatch{};
    if (wrong != StandIn::none) {
        LocalMismatch why_wrong;
        why_wrong.stand_in = wrong;
        why_wrong.type_problem = type_problem;
        if ((rc = stand_in_for(xcomm, fn, send, recv, in_place, why_wrong,
                               !in_place && null_buffer_for(send.buf, send.info), stand_in)) != MPI_SUCCESS)
            return rc;
    }
    if (!in_place) {
        const int peer = c == Collective::alltoall ? 0 : xcomm->rank;
        // (StandInSides' sides are of any form: their counts as such)
        const std::size_t sent =
            (wrong != StandIn::none ? send.count(peer) : static_cast<std::size_t>(count_as<F>(send, peer))) *
            send.info.size;
        const std::size_t expected =
            (wrong != StandIn::none ? recv.count(peer) : static_cast<std::size_t>(count_as<F>(recv, peer))) *
            recv.info.size;
        if (c == Collective::alltoall ? sent != expected : sent > expected)
            *local = {sent > expected ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT, c == Collective::alltoall, sent, expected};
        local->sent = sent;  // (a stand-in MPIX_Alltoall fits its send blocks to these)
        local->expected = expected;
    }
    if (wrong != StandIn::none) {
        local->error_class = stand_in_class(wrong);
        local->uniform = c == Collective::alltoall;
        local->stand_in = wrong;
        local->type_problem = type_problem;
    }
    return MPI_SUCCESS;
}

// check_and_select's body for one form, inlined into run_exchange.
// (selection_side: a rank with a LocalMismatch takes part with blocks of its
// receive length, and picks its row for them.)
template <Form F>
[[gnu::always_inline]] inline int check_and_select_as(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send,
                                                      UserSide &recv, bool in_place, LocalMismatch *local,
                                                      std::unique_ptr<StandInSides> *stand_in,
                                                      const Algorithm **algorithm, const RuleHints **rule_hints)
{
    const int rc = check_exchange_as<F>(xcomm, c, fn, send, recv, in_place, local, stand_in);
    if (rc != MPI_SUCCESS)
        return rc;
    *algorithm =
        select_algorithm(c, xcomm, xcomm->hints, selection_side(*local, send, recv), in_place, false, rule_hints);
    xcomm->last_algorithm[static_cast<int>(c)] = (*algorithm)->name;
    return MPI_SUCCESS;
}

// Records a call that went to the MPI library's own collective for the
// shortcuts of dispatch.hpp: only where the next call with the same types (and,
// for MPIX_Alltoall, counts) is sure to get the same row and pass the same
// checks of its types. The types are predefined (their handles never change
// meaning), the counts fit an int, the row is the hints' or auto's kept pick
// (both cleared when the hints, tables or nodes change; for MPIX_Alltoallv a
// pick kept whatever the blocks), and no copy model charges the call (SMPI
// builds charge each call). MPIX_Alltoallv_c takes no shortcut.
template <Form F>
void remember_pass_through(MPIX_Comm *xcomm, Collective c, const UserSide &send, const UserSide &recv, bool in_place,
                           const Algorithm *algorithm)
{
    if constexpr (F == Form::uniform || F == Form::per_peer) {
        const int ci = static_cast<int>(c);
        const MPIX_Comm::AutoMemo &kept = xcomm->auto_memo[ci];
        const bool row_kept = xcomm->hints.row[ci] == algorithm ||
                              (!xcomm->hints.row[ci] && kept.row == algorithm &&
                               auto_memo_holds(kept, c, send, in_place));
        if (ci > 1 || !row_kept || xcomm->work.charged() || !recv.info.predefined || !send.info.predefined)
            return;
        MPIX_Comm::PassMemo &m = xcomm->pass_memo[ci];
        if constexpr (F == Form::uniform) {
            if (!fits_int(send.uniform_count) || !fits_int(recv.uniform_count))
                return;
            m.sendcount = static_cast<int>(send.uniform_count);
            m.recvcount = static_cast<int>(recv.uniform_count);
        }
        m.valid = true;
        m.in_place = in_place;
        m.sendtype = send.type;
        m.recvtype = recv.type;
        m.sendsize = send.info.size;
        m.recvsize = recv.info.size;
        m.row = algorithm;
    } else {
        (void)xcomm, (void)c, (void)send, (void)recv, (void)in_place, (void)algorithm;
    }
}

// A checked call on its selected row. The MPI library's own collective gets
// the caller's arguments as they are: calling it through mpix then costs what
// calling it directly costs. Tracing needs the byte path (it records the
// blocks). So does a non-contiguous side: mpix packs it on every row, so a side
// no machine could stage is MPI_ERR_NO_MEM before anything moves, whichever row
// auto picks. `remember`: a pass-through may take the shortcuts next time.
// `carried`: Exchange::carried_stats.
// `local`: the call's LocalMismatch, if any (report_with_own).
template <Form F>
[[gnu::always_inline]] inline int run_row(MPIX_Comm *xcomm, Collective c, const char *fn, const Algorithm *algorithm,
                                          const RuleHints *rule_hints, const UserSide &send, const UserSide &recv,
                                          bool in_place, bool remember, std::uint64_t *carried,
                                          const LocalMismatch *local = nullptr)
{
    if (algorithm->pass_through && xcomm->hints.trace.empty() && recv.info.contiguous &&
        (in_place || send.info.contiguous)) {
        bool passed = false;
        if (xcomm->work.charged())  // SMPI: the working set, which picks the copy rate
            note_working_set(xcomm, send, recv);
        const int rc = call_mpi_collective<F>(xcomm, send, recv, in_place, &passed);
        if (passed && rc == MPI_SUCCESS && remember)
            remember_pass_through<F>(xcomm, c, send, recv, in_place, algorithm);
        if (passed)
            return rc == MPI_SUCCESS ? MPI_SUCCESS : report_with_own(xcomm, fn, algorithm, rc, local);
    }
    return run_byte_path(xcomm, c, fn, algorithm, comm_hints_with_rule(xcomm, rule_hints), send, recv, in_place,
                         carried, local);
}

// A call with a LocalMismatch: its fitted send side on the row, then the
// rank's own error. Off the fast path (it copies the send blocks).
template <Form F>
[[gnu::noinline]] int run_local_mismatch(MPIX_Comm *xcomm, Collective c, const char *fn, const Algorithm *algorithm,
                                         const RuleHints *rule_hints, const UserSide &send, const UserSide &recv,
                                         const LocalMismatch &local, std::uint64_t *carried)
{
    FittedSend fitted;
    UserSide fitted_send;
    int rc = fitted.fit(local, send, xcomm->rank, xcomm->size, xcomm->comm, &xcomm->work, &fitted_send);
    if (rc != MPI_SUCCESS)
        return raise_staging(xcomm->user, rc, fn, "the send staging buffer");
    rc = run_row<F>(xcomm, c, fn, algorithm, rule_hints, fitted_send, recv, false, false, carried, &local);
    return rc == MPI_SUCCESS ? report_local_mismatch(xcomm, fn, local) : rc;
}

// run_exchange for one form.
template <Form F>
int run_exchange_as(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place)
{
    sched::drain(xcomm);  // started exchanges complete first (sched/engine.hpp)
    const Algorithm *algorithm = nullptr;
    const RuleHints *rule_hints = nullptr;
    LocalMismatch local;
    std::unique_ptr<StandInSides> stand_in;  // none on the path of a correct call
    int rc = check_and_select_as<F>(xcomm, c, fn, send, recv, in_place, &local, &stand_in, &algorithm, &rule_hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (local.stand_in != LocalMismatch::StandIn::none &&
        (rc = refuse_stand_in_on_mpi_row(xcomm, c, fn, local, algorithm)) != MPI_SUCCESS)
        return rc;
    // auto's agreement of this call's block statistics, at once, before any
    // step a rank could fail alone: in the row's messages where it carries
    // them, else begun now (select/registry.hpp, hand_over_agreement).
    std::uint64_t *carried = xcomm->agreement_awaiting ? hand_over_agreement(xcomm, algorithm, true) : nullptr;
    if (local.error_class != MPI_SUCCESS)
        return run_local_mismatch<F>(xcomm, c, fn, algorithm, rule_hints, send, recv, local, carried);
    if (nothing_moves(xcomm, in_place, xcomm->hints))
        return MPI_SUCCESS;
    return run_row<F>(xcomm, c, fn, algorithm, rule_hints, send, recv, in_place, true, carried);
}

// The exported entries dispatch on the form once (a call's two sides share it):
// with_form calls f with the form as a compile-time constant.
template <typename Body>
[[gnu::always_inline]] inline int with_form(Form form, Body &&f)
{
    switch (form) {
    case Form::uniform:
        return f(std::integral_constant<Form, Form::uniform>{});
    case Form::per_peer:
        return f(std::integral_constant<Form, Form::per_peer>{});
    case Form::per_peer_large:
        break;
    }
    return f(std::integral_constant<Form, Form::per_peer_large>{});
}

}  // namespace

int check_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place,
                   LocalMismatch *local, std::unique_ptr<StandInSides> *stand_in)
{
    return with_form(recv.form, [&](auto form) {
        return check_exchange_as<decltype(form)::value>(xcomm, c, fn, send, recv, in_place, local, stand_in);
    });
}

int check_and_select(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place,
                     LocalMismatch *local, std::unique_ptr<StandInSides> *stand_in, const Algorithm **algorithm,
                     const RuleHints **rule_hints)
{
    *rule_hints = nullptr;
    return with_form(recv.form, [&](auto form) {
        return check_and_select_as<decltype(form)::value>(xcomm, c, fn, send, recv, in_place, local, stand_in,
                                                          algorithm, rule_hints);
    });
}

int run_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place)
{
    return with_form(recv.form, [&](auto form) {
        return run_exchange_as<decltype(form)::value>(xcomm, c, fn, send, recv, in_place);
    });
}

}  // namespace mpix
