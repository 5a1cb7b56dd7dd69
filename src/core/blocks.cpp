#include "core/blocks.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>

#include "config.h"
#include "core/error.hpp"

namespace mpix {

namespace {

// A type whose data is exactly its extent, contiguous, starting at offset 0, in
// typemap order: predefined types, and contiguous/duplicated copies of them.
bool is_plain(MPI_Datatype type)
{
    int ni, na, nt, combiner;
    if (MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner) != MPI_SUCCESS)
        return false;
    if (combiner == MPI_COMBINER_NAMED) {
        MPI_Aint lb, extent;
        int size;
        MPI_Type_get_extent(type, &lb, &extent);
        MPI_Type_size(type, &size);
        return lb == 0 && extent == size;
    }
    if (combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS)
        return false;
    std::vector<int> ints(ni > 0 ? ni : 1);
    std::vector<MPI_Aint> addrs(na > 0 ? na : 1);
    std::vector<MPI_Datatype> types(nt > 0 ? nt : 1);
    if (MPI_Type_get_contents(type, ni, na, nt, ints.data(), addrs.data(), types.data()) != MPI_SUCCESS)
        return false;
    bool plain = is_plain(types[0]);
    int tni, tna, tnt, tcomb;
    MPI_Type_get_envelope(types[0], &tni, &tna, &tnt, &tcomb);
    if (tcomb != MPI_COMBINER_NAMED)
        MPI_Type_free(&types[0]);
    return plain;
}

// MPI_Pack/MPI_Unpack take int sizes: move at most this many bytes per call.
constexpr std::size_t kMaxPackBytes = static_cast<std::size_t>(INT_MAX) / 2;

// Elements per MPI_Pack/MPI_Unpack call. SimGrid 3.32's MPI_Pack ignores a
// resized type's extent when count > 1, so under SMPI elements go one by one.
std::size_t pack_chunk(const TypeInfo &ti)
{
    if (MPIX_SMPI)
        return 1;
    return kMaxPackBytes / ti.size > 0 ? kMaxPackBytes / ti.size : 1;
}

// MPI_Pack (pack: `src` typed, `dst` packed) or MPI_Unpack (`src` packed, `dst`
// typed) of `n` elements of `type`, `bytes` packed bytes. A piece past an int
// (one element past 2 GiB) goes through MPI-4's MPI_Pack_c / MPI_Unpack_c;
// without them it is MPI_ERR_COUNT.
int pack_call(bool pack, const char *src, char *dst, std::size_t n, MPI_Datatype type, std::size_t bytes,
              MPI_Comm comm)
{
    if (n <= static_cast<std::size_t>(INT_MAX) && bytes <= static_cast<std::size_t>(INT_MAX)) {
        int position = 0;
        return pack ? MPI_Pack(src, static_cast<int>(n), type, dst, static_cast<int>(bytes), &position, comm)
                    : MPI_Unpack(src, static_cast<int>(bytes), &position, dst, static_cast<int>(n), type, comm);
    }
#if MPIX_HAVE_LARGE_COUNT
    MPI_Count position = 0;
    return pack ? MPI_Pack_c(src, static_cast<MPI_Count>(n), type, dst, static_cast<MPI_Count>(bytes), &position,
                             comm)
                : MPI_Unpack_c(src, static_cast<MPI_Count>(bytes), &position, dst, static_cast<MPI_Count>(n), type,
                               comm);
#else
    (void)src, (void)dst, (void)type, (void)comm;
    return MPI_ERR_COUNT;
#endif
}

// convert_elements' call for n elements at MPI_BOTTOM (a null pointer in MPICH,
// whose MPI_Pack and MPI_Unpack refuse it although the type's data lies at
// absolute addresses): the same elements through a type that starts true_lb
// before its first data byte, passed that byte's (non-null) address.
int convert_from_bottom(bool pack, const char *src, std::size_t n, MPI_Datatype type, const TypeInfo &ti,
                        char *dst, MPI_Comm comm)
{
    int blocklength = static_cast<int>(n);
    MPI_Aint displacement = -ti.true_lb;
    MPI_Datatype shifted;
    MPIX_CHECK(MPI_Type_create_hindexed(1, &blocklength, &displacement, type, &shifted));
    int rc = MPI_Type_commit(&shifted);
    char *first = reinterpret_cast<char *>(static_cast<std::uintptr_t>(ti.true_lb));
    if (rc == MPI_SUCCESS)
        rc = pack_call(pack, pack ? first : src, pack ? dst : first, 1, shifted, n * ti.size, comm);
    MPI_Type_free(&shifted);
    return rc;
}

// pack_elements (pack) or unpack_elements, pack_chunk elements per MPI call.
int convert_elements(bool pack, const char *src, std::size_t count, MPI_Datatype type, const TypeInfo &ti,
                     char *dst, MPI_Comm comm, LocalWork *work)
{
    if (count == 0 || ti.size == 0)
        return MPI_SUCCESS;
    if (ti.contiguous) {
        work->copy(dst, src, count * ti.size);
        return MPI_SUCCESS;
    }
    // At least one contiguous piece per element of a non-contiguous type.
    work->note(count * ti.size, count);
    std::size_t chunk = pack_chunk(ti);
    for (std::size_t done = 0; done < count; done += chunk) {
        std::size_t n = count - done < chunk ? count - done : chunk;
        const MPI_Aint typed_offset = static_cast<MPI_Aint>(done) * ti.extent;
        if (!(pack ? src : dst) && typed_offset == 0) {
            MPIX_CHECK(convert_from_bottom(pack, src, n, type, ti, dst + done * ti.size, comm));
            continue;
        }
        if (pack)
            MPIX_CHECK(pack_call(true, src + typed_offset, dst + done * ti.size, n, type, n * ti.size, comm));
        else
            MPIX_CHECK(pack_call(false, src + done * ti.size, dst + typed_offset, n, type, n * ti.size, comm));
    }
    return MPI_SUCCESS;
}

}  // namespace

int describe_type(MPI_Datatype type, MPI_Comm comm, TypeInfo *out, const char **why)
{
    *why = "invalid datatype";
    if (type == MPI_DATATYPE_NULL) {
        *why = "datatype is MPI_DATATYPE_NULL";
        return MPI_ERR_TYPE;
    }
    MPI_Aint lb = 0, extent = 0;
    MPI_Count size = 0;  // MPI_Type_size_x: an int size is MPI_UNDEFINED past 2 GiB
    int ni, na, nt, combiner;
    if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || MPI_Type_size_x(type, &size) != MPI_SUCCESS ||
        MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner) != MPI_SUCCESS || size < 0)
        return MPI_ERR_TYPE;
    // MPI has no query for "committed"; packing no element of the type is one
    // that MPI libraries check (MPICH, Open MPI), at the cost of a local call.
    if (combiner != MPI_COMBINER_NAMED) {
        char none = 0;
        int position = 0;
        if (MPI_Pack(&none, 0, type, &none, 1, &position, comm) != MPI_SUCCESS) {
            *why = "datatype is not committed (MPI_Type_commit)";
            return MPI_ERR_TYPE;
        }
    }
    MPI_Aint true_lb = 0, true_extent = 0;
    if (combiner != MPI_COMBINER_NAMED && MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    out->true_lb = true_lb;
    out->extent = extent;
    out->size = static_cast<std::size_t>(size);
    out->predefined = combiner == MPI_COMBINER_NAMED;
    out->contiguous = out->predefined ? lb == 0 && extent == size : is_plain(type);
    return MPI_SUCCESS;
}

int pack_elements(const char *src, std::size_t count, MPI_Datatype type, const TypeInfo &ti,
                  char *dst, MPI_Comm comm, LocalWork *work)
{
    return convert_elements(true, src, count, type, ti, dst, comm, work);
}

int unpack_elements(const char *src, std::size_t count, MPI_Datatype type, const TypeInfo &ti,
                    char *dst, MPI_Comm comm, LocalWork *work)
{
    return convert_elements(false, src, count, type, ti, dst, comm, work);
}

UserSide SeparateCounts::receive_side(const void *sendbuf, const UserSide &send, const UserSide &recv, int size)
{
    UserSide out = recv;
    if (sendbuf != recv.buf || send.type != recv.type)
        return out;
    const std::size_t n = static_cast<std::size_t>(size);
    if (recv.form == UserSide::Form::per_peer && send.counts == recv.counts) {
        counts_.assign(recv.counts, recv.counts + n);
        out.counts = counts_.data();
    } else if (recv.form == UserSide::Form::per_peer_large && send.counts_c == recv.counts_c) {
        counts_c_.assign(recv.counts_c, recv.counts_c + n);
        out.counts_c = counts_c_.data();
    }
    return out;
}

namespace {

// One dense range per element run: the block is count * size bytes from its displacement.
bool dense(const TypeInfo &ti) { return ti.contiguous && ti.extent == static_cast<MPI_Aint>(ti.size); }

}  // namespace

bool OwnBlockApart::applies(const void *sendbuf, const UserSide &send, const UserSide &recv, int rank)
{
    if (sendbuf == MPI_IN_PLACE || send.form == UserSide::Form::uniform || recv.form != send.form ||
        !dense(send.info) || !dense(recv.info) || send.raw_count(rank) < 0 || recv.raw_count(rank) < 0)
        return false;
    return worth(send.count(rank) * send.info.size, recv.count(rank) * recv.info.size);
}

bool OwnBlockApart::take(const void *sendbuf, UserSide *send, UserSide *recv, int rank, int size, LocalWork *work)
{
    if (!applies(sendbuf, *send, *recv, rank))
        return false;
    const std::size_t n = static_cast<std::size_t>(size), bytes = send->count(rank) * send->info.size;
    const char *from = send->buf + send->displ_bytes(rank);
    char *to = const_cast<char *>(recv->buf) + recv->displ_bytes(rank);
    if (send->form == UserSide::Form::per_peer) {
        send_counts_.assign(send->counts, send->counts + n);
        recv_counts_.assign(recv->counts, recv->counts + n);
        send_counts_[rank] = recv_counts_[rank] = 0;
        send->counts = send_counts_.data();
        recv->counts = recv_counts_.data();
    } else {
        send_counts_c_.assign(send->counts_c, send->counts_c + n);
        recv_counts_c_.assign(recv->counts_c, recv->counts_c + n);
        send_counts_c_[rank] = recv_counts_c_[rank] = 0;
        send->counts_c = send_counts_c_.data();
        recv->counts_c = recv_counts_c_.data();
    }
    if (from != to)  // the same block on both sides is in place already; overlapping ones MPI forbids
        work->move(to, from, bytes);
    return true;
}

bool BlockSide::stage()
{
    displs.assign(bytes.size(), 0);
    std::size_t offset = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        displs[i] = static_cast<MPI_Aint>(offset);
        offset += bytes[i];
    }
    total_bytes = offset;
    if (!staging.resize(offset > 0 ? offset : 1))
        return false;
    base = staging.data();
    staged = true;
    return true;
}

namespace {

// Per-peer loops, one per form of the caller's arrays, with no branch on the
// form inside: they run on every call for every peer (sim/README.md, "The
// library's CPU per peer cut"), and without branches they vectorize.
template <class Count>
std::size_t bytes_of_counts(const Count *counts, std::size_t type_size, int size, std::size_t *bytes)
{
    std::size_t total = 0;
    for (int p = 0; p < size; ++p) {
        bytes[p] = static_cast<std::size_t>(counts[p]) * type_size;
        total += bytes[p];
    }
    return total;
}

template <class Displ>
void bytes_of_displs(const Displ *displs, MPI_Aint extent, int size, MPI_Aint *out)
{
    for (int p = 0; p < size; ++p)
        out[p] = static_cast<MPI_Aint>(displs[p]) * extent;
}

void describe_blocks(const UserSide &user, int size, int kept, BlockSide *out)
{
    out->bytes.resize(size);
    std::size_t *bytes = out->bytes.data();
    std::size_t total = 0;
    switch (user.form) {
    case UserSide::Form::uniform: {
        const std::size_t b = user.count(0) * user.info.size;
        std::fill_n(bytes, size, b);
        total = b * static_cast<std::size_t>(size);
        break;
    }
    case UserSide::Form::per_peer: total = bytes_of_counts(user.counts, user.info.size, size, bytes); break;
    case UserSide::Form::per_peer_large: total = bytes_of_counts(user.counts_c, user.info.size, size, bytes); break;
    }
    if (kept >= 0) {
        total -= bytes[kept];
        bytes[kept] = 0;
    }
    out->total_bytes = total;
    out->kept = kept;
}

void use_in_place(const UserSide &user, int size, char *buf, BlockSide *out)
{
    out->base = buf;
    out->displs.resize(size);
    MPI_Aint *displs = out->displs.data();
    switch (user.form) {
    case UserSide::Form::uniform: {
        const MPI_Aint step = static_cast<MPI_Aint>(user.uniform_count) * user.info.extent;
        for (int p = 0; p < size; ++p)
            displs[p] = static_cast<MPI_Aint>(p) * step;
        break;
    }
    case UserSide::Form::per_peer: bytes_of_displs(user.displs, user.info.extent, size, displs); break;
    case UserSide::Form::per_peer_large: bytes_of_displs(user.displs_c, user.info.extent, size, displs); break;
    }
}

}  // namespace

// Only under a copy model (note_working_set), never natively: not counted as
// the library's CPU.
MPIX_NOT_COUNTED std::size_t side_bytes(const UserSide &user, int size)
{
    if (user.form == UserSide::Form::uniform)
        return user.count(0) * user.info.size * static_cast<std::size_t>(size);
    std::size_t total = 0;
    for (int p = 0; p < size; ++p)
        total += user.count(p) * user.info.size;
    return total;
}

int make_send_side(const UserSide &user, int size, bool force_copy, MPI_Comm comm, LocalWork *work,
                   BlockSide *out, int kept)
{
    describe_blocks(user, size, kept, out);
    if (user.info.contiguous && !force_copy) {
        use_in_place(user, size, const_cast<char *>(user.buf), out);
        return MPI_SUCCESS;
    }
    if (!out->stage())
        return MPI_ERR_NO_MEM;
    return pack_send_side(user, size, comm, work, out);
}

int pack_send_side(const UserSide &user, int size, MPI_Comm comm, LocalWork *work, BlockSide *side)
{
    if (!side->staged)
        return MPI_SUCCESS;
    LocalWork::Batch batch(work);
    for (int p = 0; p < size; ++p)
        if (p != side->kept)
            MPIX_CHECK(pack_elements(user.buf + user.displ_bytes(p), user.count(p), user.type, user.info,
                                     side->base + side->displs[p], comm, work));
    return MPI_SUCCESS;
}

int make_recv_side(const UserSide &user, int size, LocalWork *work, BlockSide *out, int kept)
{
    describe_blocks(user, size, kept, out);
    if (user.info.contiguous) {
        use_in_place(user, size, const_cast<char *>(user.buf), out);
        return MPI_SUCCESS;
    }
    if (!out->stage())
        return MPI_ERR_NO_MEM;
    // A truncated receive may leave its staged block unwritten (MPICH writes
    // nothing) and the other blocks are still unpacked: zeroed, so the user's
    // block never gets stale scratch bytes.
    work->fill(out->base, 0, out->total_bytes);
    return MPI_SUCCESS;
}

int finish_recv_side(const UserSide &user, int size, const BlockSide &side, MPI_Comm comm, LocalWork *work)
{
    if (!side.staged)
        return MPI_SUCCESS;
    LocalWork::Batch batch(work);
    for (int p = 0; p < size; ++p)
        if (p != side.kept)
            MPIX_CHECK(unpack_elements(side.base + side.displs[p], user.count(p), user.type, user.info,
                                       const_cast<char *>(user.buf) + user.displ_bytes(p), comm, work));
    return MPI_SUCCESS;
}

int FittedSend::fit(const LocalMismatch &m, const UserSide &send, int me, int size, MPI_Comm comm,
                    LocalWork *work, UserSide *side)
{
    *side = send;
    if (m.error_class == MPI_SUCCESS)
        return MPI_SUCCESS;
    const std::size_t n = static_cast<std::size_t>(size);
    if (!m.uniform) {  // the self block: whole elements within its receive block
        if (m.sent <= m.expected)
            return MPI_SUCCESS;  // (a stand-in alone: StandInSides made the side)
        const std::size_t elements = send.info.size ? m.expected / send.info.size : 0;
        if (send.form == UserSide::Form::per_peer) {
            counts_.assign(send.counts, send.counts + n);
            counts_[static_cast<std::size_t>(me)] = static_cast<int>(elements);
            side->counts = counts_.data();
        } else {
            counts_c_.assign(send.counts_c, send.counts_c + n);
            counts_c_[static_cast<std::size_t>(me)] = static_cast<MPI_Count>(elements);
            side->counts_c = counts_c_.data();
        }
        return MPI_SUCCESS;
    }
    // Each block packed whole (a non-contiguous type), then cut or padded.
    const std::size_t block = m.expected, kept = std::min(m.sent, m.expected);
    if (!staging_.resize(block * n + m.sent + 1))
        return MPI_ERR_NO_MEM;
    char *packed = staging_.data() + block * n;
    for (int p = 0; p < size; ++p) {
        char *to = staging_.data() + block * static_cast<std::size_t>(p);
        MPIX_CHECK(pack_elements(send.buf + send.displ_bytes(p), send.count(p), send.type, send.info, packed, comm,
                                 work));
        std::memcpy(to, packed, kept);
        std::memset(to + kept, 0, block - kept);
    }
    *side = UserSide::bytes(UserSide::uniform(staging_.data(), static_cast<MPI_Count>(block), MPI_BYTE));
    return MPI_SUCCESS;
}

int StandInSides::as_bytes(UserSide *side, int size, bool zero, std::vector<MPI_Count> *bytes,
                           std::vector<MPI_Aint> *displs, ScratchBytes *data)
{
    const std::size_t n = static_cast<std::size_t>(size);
    bytes->assign(n, 0);
    displs->assign(n, 0);
    std::size_t total = 0;
    for (int q = 0; q < size; ++q) {
        const MPI_Count count = side->raw_count(q);
        std::size_t length = 0;
        if (count > 0 && (__builtin_mul_overflow(static_cast<std::size_t>(count), side->info.size, &length) ||
                          total + length < total || total + length > static_cast<std::size_t>(PTRDIFF_MAX)))
            return MPI_ERR_NO_MEM;
        (*bytes)[q] = static_cast<MPI_Count>(length);
        (*displs)[q] = static_cast<MPI_Aint>(total);
        total += length;
    }
    if (!data->resize(total + 1))
        return MPI_ERR_NO_MEM;
    if (zero)
        std::memset(data->data(), 0, total);
    *side = UserSide::bytes(UserSide::per_peer(data->data(), bytes->data(), displs->data(), MPI_BYTE));
    return MPI_SUCCESS;
}

void StandInSides::unusable(UserSide *side, int size)
{
    if (side->form == UserSide::Form::uniform) {
        *side = UserSide::bytes(UserSide::uniform(side->buf, -1, MPI_BYTE));
        return;
    }
    unusable_counts_.assign(static_cast<std::size_t>(size), -1);
    unusable_displs_.assign(static_cast<std::size_t>(size), 0);
    *side = UserSide::bytes(
        UserSide::per_peer(side->buf, unusable_counts_.data(), unusable_displs_.data(), MPI_BYTE));
}

std::string stand_in_text(const LocalMismatch &m)
{
    using StandIn = LocalMismatch::StandIn;
    switch (m.stand_in) {
    case StandIn::none: break;
    case StandIn::negative_count: return "negative count";
    case StandIn::null_sendbuf: return "sendbuf is NULL";
    case StandIn::null_recvbuf: return "recvbuf is NULL";
    case StandIn::bad_sendtype: return std::string("sendtype: ") + (m.type_problem ? m.type_problem : "invalid datatype");
    case StandIn::bad_recvtype: return std::string("recvtype: ") + (m.type_problem ? m.type_problem : "invalid datatype");
    }
    return "";
}

int StandInSides::make(UserSide *send, UserSide *recv, int size, bool zero_send)
{
    const std::size_t n = static_cast<std::size_t>(size);
    if (recv->form == UserSide::Form::uniform) {
        if (send->uniform_count < 0 && recv->uniform_count < 0)
            return MPI_ERR_COUNT;
        // Blocks of the one length known (MPI_Alltoall's equal type signatures);
        // the products fit: the sides passed check_byte_range.
        const std::size_t block = recv->uniform_count >= 0
                                      ? static_cast<std::size_t>(recv->uniform_count) * recv->info.size
                                      : static_cast<std::size_t>(send->uniform_count) * send->info.size;
        send->uniform_count = std::max<MPI_Count>(send->uniform_count, 0);
        if (zero_send) {
            const std::size_t sent = static_cast<std::size_t>(send->uniform_count) * send->info.size;
            if (!zeros_.resize(sent * n + 1))
                return MPI_ERR_NO_MEM;
            std::memset(zeros_.data(), 0, sent * n);
            *send = UserSide::bytes(UserSide::uniform(zeros_.data(), static_cast<MPI_Count>(sent), MPI_BYTE));
        }
        if (!dropped_.resize(block * n + 1))
            return MPI_ERR_NO_MEM;
        *recv = UserSide::bytes(UserSide::uniform(dropped_.data(), static_cast<MPI_Count>(block), MPI_BYTE));
        return MPI_SUCCESS;
    }
    if (zero_send) {
        const int rc = as_bytes(send, size, true, &send_bytes_, &send_displs_, &zeros_);
        if (rc != MPI_SUCCESS)
            return rc;
    } else if (send->form == UserSide::Form::per_peer) {
        send_counts_.assign(send->counts, send->counts + n);
        for (int &count : send_counts_)
            count = std::max(count, 0);
        send->counts = send_counts_.data();
    } else {
        send_counts_c_.assign(send->counts_c, send->counts_c + n);
        for (MPI_Count &count : send_counts_c_)
            count = std::max<MPI_Count>(count, 0);
        send->counts_c = send_counts_c_.data();
    }
    return as_bytes(recv, size, false, &recv_bytes_, &recv_displs_, &dropped_);
}

int finish_exchange(int rc, int mismatch, const UserSide &recv, int size, const BlockSide &side, MPI_Comm comm,
                    LocalWork *work)
{
    if (rc == MPI_SUCCESS)
        rc = mismatch;
    int rc_class = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc_class);
    if (rc == MPI_SUCCESS || rc_class == MPI_ERR_TRUNCATE || rc_class == MPI_ERR_COUNT) {
        int unpacked = finish_recv_side(recv, size, side, comm, work);
        if (rc == MPI_SUCCESS)
            rc = unpacked;
    }
    return rc;
}

}  // namespace mpix
