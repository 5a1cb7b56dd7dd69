// Byte-block views (DESIGN principle 1): user (buffer, counts, displacements,
// datatype) becomes blocks of bytes once; algorithms never see datatypes.
#ifndef MPIX_CORE_BLOCKS_HPP
#define MPIX_CORE_BLOCKS_HPP

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/local_work.hpp"
#include "core/scratch.hpp"

namespace mpix {

struct TypeInfo {
    MPI_Aint extent = 0;
    std::size_t size = 0;  // bytes of data per element
    bool contiguous = false;  // element data is `size` bytes at offset 0, in typemap order
    bool predefined = false;  // a named (predefined) type: its handle never changes meaning
    MPI_Aint true_lb = 0;     // offset of the first data byte from the buffer (MPI_Type_get_true_extent)
};

// A NULL buffer for data of this type is an error unless the type's data lies
// at absolute addresses: MPI_BOTTOM is a null pointer in MPICH, and a derived
// type with a nonzero true lower bound may address memory from it (MPICH's own
// rule for its collectives).
inline bool null_buffer_for(const void *buf, const TypeInfo &ti) { return !buf && ti.true_lb == 0; }

// Fills `out`; MPI_ERR_TYPE, with *why naming the problem, for MPI_DATATYPE_NULL,
// an invalid handle or a derived type never committed. `comm` (the library's
// duplicate, whose errors return) carries the probe for the commit.
int describe_type(MPI_Datatype type, MPI_Comm comm, TypeInfo *out, const char **why);

// Copies `count` elements starting at `src` (typed) into packed bytes at `dst`,
// counted (and charged) on `work`: one copy when contiguous, else one per element.
int pack_elements(const char *src, std::size_t count, MPI_Datatype type, const TypeInfo &ti,
                  char *dst, MPI_Comm comm, LocalWork *work);
// The reverse: packed bytes at `src` into `count` typed elements at `dst`.
int unpack_elements(const char *src, std::size_t count, MPI_Datatype type, const TypeInfo &ti,
                    char *dst, MPI_Comm comm, LocalWork *work);

// One side of an exchange as P byte blocks. When the user's layout can be used
// directly `base` points into the user buffer; otherwise blocks live packed in
// `staging`, in peer order.
struct BlockSide {
    char *base = nullptr;
    std::vector<std::size_t> bytes;
    std::vector<MPI_Aint> displs;
    ScratchBytes staging;
    bool staged = false;
    std::size_t total_bytes = 0;  // sum of bytes
    // The block that stays where the caller has it: with MPI_IN_PLACE the
    // rank's own MPIX_Alltoallv block is its own data already. The algorithm
    // sees it empty on both sides, and it is neither packed nor unpacked (at 2
    // ranks it was half of the staging and a self copy more). -1: none.
    int kept = -1;

    // Lays blocks out packed (prefix sums of `bytes`) in a fresh staging buffer;
    // false when it cannot be allocated.
    bool stage();
};

// Per-peer element counts and displacements (in extents) of one side, as the
// caller gave them: `int` arrays (MPI_Alltoallv), `MPI_Count`/`MPI_Aint` arrays
// (MPI_Alltoallv_c), or one count for every peer at peer * count (MPI_Alltoall(_c)).
struct UserSide {
    enum class Form { uniform, per_peer, per_peer_large };
    Form form = Form::uniform;
    const char *buf = nullptr;
    const int *counts = nullptr;
    const int *displs = nullptr;
    const MPI_Count *counts_c = nullptr;
    const MPI_Aint *displs_c = nullptr;
    MPI_Count uniform_count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    TypeInfo info;

    // Each field set once (every call builds two sides on its path).
    static UserSide uniform(const void *buf, MPI_Count count, MPI_Datatype type)
    {
        return UserSide(Form::uniform, buf, nullptr, nullptr, nullptr, nullptr, count, type);
    }
    static UserSide per_peer(const void *buf, const int *counts, const int *displs, MPI_Datatype type)
    {
        return UserSide(Form::per_peer, buf, counts, displs, nullptr, nullptr, 0, type);
    }
    static UserSide per_peer(const void *buf, const MPI_Count *counts, const MPI_Aint *displs, MPI_Datatype type)
    {
        return UserSide(Form::per_peer_large, buf, nullptr, nullptr, counts, displs, 0, type);
    }
    UserSide() = default;
    // `layout`, a side of MPI_BYTE (staged or fitted data), with its type's
    // description filled in here rather than asked of MPI.
    static UserSide bytes(UserSide layout)
    {
        layout.info.extent = 1;
        layout.info.size = 1;
        layout.info.contiguous = true;
        layout.info.predefined = true;
        return layout;
    }

    // The caller's count for `peer`, as given (may be negative: run_exchange takes part without it, or rejects it).
    MPI_Count raw_count(int peer) const
    {
        return form == Form::per_peer ? counts[peer] : form == Form::per_peer_large ? counts_c[peer] : uniform_count;
    }
    std::size_t count(int peer) const { return static_cast<std::size_t>(raw_count(peer)); }
    MPI_Aint displ_bytes(int peer) const
    {
        MPI_Aint d = form == Form::per_peer         ? static_cast<MPI_Aint>(displs[peer])
                     : form == Form::per_peer_large ? displs_c[peer]
                                                    : static_cast<MPI_Aint>(peer) * static_cast<MPI_Aint>(uniform_count);
        return d * info.extent;
    }

private:
    UserSide(Form f, const void *b, const int *c, const int *d, const MPI_Count *cc, const MPI_Aint *dc,
             MPI_Count n, MPI_Datatype t)
        : form(f), buf(static_cast<const char *>(b)), counts(c), displs(d), counts_c(cc), displs_c(dc),
          uniform_count(n), type(t)
    {
    }
};

// The bytes of all of a side's blocks (counts times the type's size).
std::size_t side_bytes(const UserSide &user, int size);

// What the MPI library's own MPI_Alltoallv(_c) (and their nonblocking and
// persistent forms) is handed for the receive side. MPICH refuses one buffer
// whose two sides share a counts array and datatype as aliased, whatever the
// displacements; calls whose blocks are truly the same were refused before
// (same_blocks), so such a receive side gets a copy of its counts, kept here
// for as long as the MPI call may read it.
class SeparateCounts {
public:
    UserSide receive_side(const void *sendbuf, const UserSide &send, const UserSide &recv, int size);

private:
    std::vector<int> counts_;
    std::vector<MPI_Count> counts_c_;
};

// The MPI library's MPI_Alltoallv(_c) on the caller's arguments, the rank's own
// block copied here and handed to MPI as empty on both sides. MPICH 4.0 sends
// the own block of its MPI_Alltoallv to itself as a message, a rendezvous from
// 8 KiB: natively at 2 ranks 5.8 us at 8 KiB, 10.5 at 16 KiB and 143 at 1 MiB,
// against 2.2, 6.7-7.1 and 97-115 with the block copied and its counts 0 (and
// 1.73 against 1.66 at 4 KiB). Each rank decides alone: its own counts pair with
// nothing on another rank. Only where the own block is one dense range of equal
// length on both sides (a longer or shorter block is MPI's to report), not in
// place, from kOwnBlockApartFrom bytes.
constexpr std::size_t kOwnBlockApartFrom = 4096;
class OwnBlockApart {
public:
    // True when it applies: then `send` and `recv` count from copies whose own
    // entry is 0 (kept here for as long as the MPI call may read them), and the
    // own block has been copied (counted on `work`). False: nothing changed.
    bool take(const void *sendbuf, UserSide *send, UserSide *recv, int rank, int size, LocalWork *work);
    // Whether take() would apply (the same test, nothing done).
    static bool applies(const void *sendbuf, const UserSide &send, const UserSide &recv, int rank);
    // The test on the own block's bytes alone, for sides already in bytes (direct_pmpi).
    static bool worth(std::size_t send_bytes, std::size_t recv_bytes)
    {
        return send_bytes >= kOwnBlockApartFrom && send_bytes == recv_bytes;
    }

private:
    std::vector<int> send_counts_, recv_counts_;
    std::vector<MPI_Count> send_counts_c_, recv_counts_c_;
};

// Send side: used in place if contiguous, else packed now. With `force_copy`
// (MPI_IN_PLACE: the data also lives in the receive buffer) always packed.
// MPI_ERR_NO_MEM when the packed copy cannot be allocated.
// `kept`: BlockSide::kept (-1 for none).
int make_send_side(const UserSide &user, int size, bool force_copy, MPI_Comm comm, LocalWork *work,
                   BlockSide *out, int kept = -1);
// Packs the user's current send data again into a staged side made by
// make_send_side (persistent requests, at every start); nothing if not staged.
int pack_send_side(const UserSide &user, int size, MPI_Comm comm, LocalWork *work, BlockSide *side);
// Receive side: in place if contiguous, else a staging buffer to unpack later
// (MPI_ERR_NO_MEM when it cannot be allocated).
int make_recv_side(const UserSide &user, int size, LocalWork *work, BlockSide *out, int kept = -1);
// Unpacks a staged receive side into the user's buffer.
int finish_recv_side(const UserSide &user, int size, const BlockSide &side, MPI_Comm comm, LocalWork *work);
// A call that is erroneous on this rank alone, which the other ranks cannot see:
// MPI_Alltoall send and receive blocks of different lengths (`uniform`), or an
// MPI_Alltoallv block to this rank itself longer than its receive block.
// Returning at once would leave the other ranks waiting for this rank's blocks
// (MPI's own collectives take part and report a truncation), so the rank takes
// part and reports the error after the exchange (select/dispatch.hpp).
// A blocking call's negative count, NULL buffer or unusable datatype is
// another (StandInSides).
struct LocalMismatch {
    int error_class = MPI_SUCCESS;  // MPI_ERR_TRUNCATE (longer) or MPI_ERR_COUNT (shorter); MPI_SUCCESS: none
    bool uniform = false;
    std::size_t sent = 0, expected = 0;  // the bytes of a send block and of its receive block
    // Why the rank takes part with StandInSides (error_class MPI_ERR_COUNT,
    // MPI_ERR_BUFFER or MPI_ERR_TYPE).
    enum class StandIn : unsigned char { none, negative_count, null_sendbuf, null_recvbuf, bad_sendtype, bad_recvtype };
    StandIn stand_in = StandIn::none;
    const char *type_problem = nullptr;  // bad_*type: describe_type's text (a literal)
};
// What a stand-in's error is, in a few words ("negative count", "sendbuf is
// NULL", describe_type's text and the side), for its error texts.
std::string stand_in_text(const LocalMismatch &m);
// A blocking call with a negative count, a NULL buffer that should hold
// data, or a datatype that cannot be used (MPI_DATATYPE_NULL, not committed),
// which only this rank can see: the rank takes part so that the other
// ranks complete, writes nothing to its receive buffer, and reports the error
// after the exchange (LocalMismatch::stand_in). Returning at once would leave
// the other ranks waiting for its blocks, and its next call's messages would
// meet their receives. The sides it takes part with live here.
//  - The send side: each negative count taken as 0 (an MPI_Alltoall(_c)
//    negative send count as send blocks of zero bytes, of the receive length:
//    FittedSend pads them); a NULL send buffer as zero bytes of its lengths.
//  - The receive side: scratch with the caller's lengths (a negative count's
//    block empty; an MPI_Alltoall negative receive count as the send length),
//    dropped after the exchange.
//  - A side whose datatype cannot be used has no lengths: every count taken
//    as negative (`unusable`), so its blocks are empty (an MPI_Alltoall's of
//    the other side's length).
// In place, or with both of an MPI_Alltoall's counts negative (or types
// unusable), there is nothing to take part with: the error at once (as for nonblocking and
// persistent calls, which must not leave a request behind an argument error).
class StandInSides {
public:
    // Rewrites *send and *recv (types described, not in place) to the sides
    // kept here; `zero_send`: the send side's data as zero bytes. MPI_SUCCESS,
    // MPI_ERR_COUNT (nothing to take part with) or MPI_ERR_NO_MEM.
    int make(UserSide *send, UserSide *recv, int size, bool zero_send);
    // *side, whose datatype cannot be used, as MPI_BYTE blocks of a negative
    // count each (taken as empty by make), before the checks of the counts.
    void unusable(UserSide *side, int size);

private:
    // *side as MPI_BYTE blocks laid one after another in `data` (zeroed if
    // `zero`), with its lengths (a negative count's block empty).
    static int as_bytes(UserSide *side, int size, bool zero, std::vector<MPI_Count> *bytes,
                        std::vector<MPI_Aint> *displs, ScratchBytes *data);
    std::vector<int> send_counts_;
    std::vector<MPI_Count> send_counts_c_, send_bytes_, recv_bytes_;
    std::vector<MPI_Aint> send_displs_, recv_displs_;
    std::vector<MPI_Count> unusable_counts_;  // a count of -1 per peer (both sides may share it)
    std::vector<MPI_Aint> unusable_displs_;
    ScratchBytes zeros_, dropped_;
};
// The send side a rank with a LocalMismatch takes part with: the blocks the
// other ranks expect, so that every path runs a correct call: a row, or an
// algorithm of the MPI library's own collectives, picked for another block
// size would not match the other ranks' messages.
//  - MPI_Alltoall: each send block cut, or padded with zero bytes, to the
//    receive block's length, as MPI_BYTE in a staging buffer.
//  - MPI_Alltoallv: the block to itself cut to the whole elements that fit
//    its receive block.
class FittedSend {
public:
    // *side becomes the fitted side of `send` (which must stay valid: a
    // persistent request fits again at every start, into the same buffer).
    // MPI_ERR_NO_MEM when the staging buffer cannot be allocated.
    int fit(const LocalMismatch &m, const UserSide &send, int me, int size, MPI_Comm comm, LocalWork *work,
            UserSide *side);

private:
    ScratchBytes staging_;
    std::vector<int> counts_;
    std::vector<MPI_Count> counts_c_;
};
// After an exchange's messages: the algorithm's `rc`, else the first block of
// the wrong length (`mismatch`); the blocks that did arrive are unpacked (a
// staged side) also when some block had the wrong length.
int finish_exchange(int rc, int mismatch, const UserSide &recv, int size, const BlockSide &side, MPI_Comm comm,
                    LocalWork *work);

}  // namespace mpix

#endif
