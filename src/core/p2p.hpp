// Point-to-point of byte ranges with size_t lengths (messages over 2 GiB are
// described by a derived datatype instead of an int count).
#ifndef MPIX_CORE_P2P_HPP
#define MPIX_CORE_P2P_HPP

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/local_work.hpp"
#include "core/scratch.hpp"

namespace mpix {

int isend_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req);
int issend_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req);
int irecv_bytes(void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req);
int send_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm);
int recv_bytes(void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm);
// With `mismatch`, a receive of another length than recvbytes is noted there
// (see note_mismatch) and the call returns MPI_SUCCESS.
int sendrecv_bytes(const void *sendbuf, std::size_t sendbytes, int dest, void *recvbuf,
                   std::size_t recvbytes, int source, int tag, MPI_Comm comm, int *mismatch = nullptr);

// One datatype describing n byte ranges at arbitrary addresses, relative to *base
// (the lowest address; pass it as the buffer). Ranges over INT_MAX bytes are split.
// use_struct: MPI_Type_create_struct instead of hindexed (same type map).
// Zero-length ranges are skipped (their addresses may be null). With no bytes at
// all, *type is MPI_DATATYPE_NULL and nothing needs freeing.
int byte_ranges_type(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct,
                     char **base, MPI_Datatype *type);

// A byte range; a message (a bundle) is the concatenation of its pieces.
struct Piece {
    const char *data;
    std::size_t bytes;
};

// A message's ranges as its sender lists them, and their total. A range that
// continues the previous one joins it (blocks of consecutive ranks of a send
// buffer, bundles that arrived side by side in one message: the message is the
// same either way) and empty ones are left out, so isend_ranges packs it with
// no pass of its own to count or join them: every range costs the sender a turn
// of its packing loop, and forwarding blocks is most of a bundle row's CPU a
// peer (sim/README.md, "The library's CPU per peer cut").
class RangeList {
public:
    void clear()
    {
        pieces_.clear();
        total_ = 0;
    }
    void reserve(std::size_t n) { pieces_.reserve(n); }
    // A header that goes first but is known only once the rest is listed (the
    // totals of the blocks that follow it): open_head() before the first add,
    // set_head() when it is written (never joined to what follows).
    void open_head() { pieces_.push_back(Piece{nullptr, 0}); }
    void set_head(const char *p, std::size_t bytes)
    {
        if (bytes == 0) {
            pieces_.erase(pieces_.begin());
            return;
        }
        pieces_.front() = Piece{p, bytes};
        total_ += bytes;
    }
    void add(const char *p, std::size_t bytes)
    {
        if (bytes == 0)
            return;
        total_ += bytes;
        if (!pieces_.empty() && pieces_.back().data + pieces_.back().bytes == p)
            pieces_.back().bytes += bytes;
        else
            pieces_.push_back(Piece{p, bytes});
    }
    // Its ranges (none empty, none continuing the one before) and their bytes.
    std::size_t size() const { return pieces_.size(); }
    const Piece *data() const { return pieces_.data(); }
    std::size_t total() const { return total_; }

private:
    std::vector<Piece> pieces_;
    std::size_t total_ = 0;
};

// Posts a nonblocking send of the ranges as one message (nothing when they
// total 0 bytes: the peer knows the same total and skips too; *req is then
// MPI_REQUEST_NULL). One range goes as it is; several are copied here, in
// order, into a new buffer appended to `store` (keep it until the send
// completes), counted and charged on `work`, and sent contiguous. Not as a
// datatype of ranges: MPICH 4.0 packs such a datatype (hindexed of MPI_BYTE)
// at 2-3 GB/s on the project's machine, 15x below memcpy (sim/README.md,
// "Calibration"), and every MPI packs a non-contiguous message at least once.
//
// `relay_mismatch`: for a message that forwards received blocks to a receiver
// who knows its length (sizes known everywhere), the exchange's mismatch slot;
// see relay_length.
int isend_ranges(const RangeList &ranges, int peer, int tag, MPI_Comm comm, LocalWork *work, ScratchStore *store,
                 MPI_Request *req, const int *relay_mismatch = nullptr);

// The length to send of a message of `bytes` that forwards received blocks to a
// receiver who knows its length: 0 once *relay_mismatch holds an error. A block
// that came with the wrong length (the ranks passed different block sizes) was
// zeroed; forwarded as it is, it would reach a rank that saw nothing wrong and
// returns success with zeros. Sent empty, the message makes its receiver note a
// mismatch too, so the error reaches every rank the data would have.
inline std::size_t relay_length(std::size_t bytes, const int *relay_mismatch)
{
    return relay_mismatch && *relay_mismatch != MPI_SUCCESS ? 0 : bytes;
}
// The derived-datatype variants (bruck_*_dt): the ranges as one datatype that
// the MPI library packs (unpacks), counted and charged on `work` as a copy of
// each range. `relay_mismatch` as isend_ranges'.
int isend_ranges_datatype(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct,
                          int peer, int tag, MPI_Comm comm, LocalWork *work, MPI_Request *req,
                          const int *relay_mismatch = nullptr);
int irecv_ranges_datatype(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct,
                          int peer, int tag, MPI_Comm comm, LocalWork *work, MPI_Request *req);

// The largest of each of the `count` values at `value` over the ranks of comm,
// on every rank (waits through core/wait.hpp):
// ceil(log2 P) rounds of one 8-byte message each way (dissemination), on `tag`.
int agree_max(std::uint64_t *value, int tag, MPI_Comm comm, int count = 1);

// agree_max with its rounds riding another exchange's windows: each window
// posts the next round's two messages beside its own (post) and, after its
// wait, folds in what came (fold); finish() runs the rounds left after the
// last window. A round needs the previous round's result: one round a window.
// Measured (dragonfly-256x64, P=256, 8 windows of 32 carrying all 8 rounds):
// the exchange's slowest rank pays the rounds' message overheads, 10 us on a
// 1178 us exchange; a round waited for only at the next window, or folded in
// whenever it had come, cost more (1194, 1196 us): rounds fell behind and ran
// after the exchange.
class RidingMax {
public:
    RidingMax(std::uint64_t *value, int count, int tag, MPI_Comm comm);
    // Appends this round's receive and send (expected: kNotChecked) where rounds are left.
    int post(std::vector<MPI_Request> *reqs, std::vector<std::size_t> *expected);
    // After the window's wait: the posted round's value folded in.
    void fold();
    int finish();

private:
    std::uint64_t *value_;
    int count_, tag_;
    MPI_Comm comm_;
    int size_ = 1, rank_ = 0, distance_ = 1;
    bool posted_ = false;
    std::vector<std::uint64_t> in_, out_;
};

// The sum of *value over the ranks `group` of comm (this rank is group[me]), on
// every rank of the group: a Bruck allgather of the values (ceil(log2 n) rounds,
// at most n/2 values a message), summed in the same order everywhere, so every
// rank gets the same exact sum for any n (a dissemination sum would count some
// ranks twice where n is not a power of two). Waits through core/wait.hpp.
int agree_sum(std::uint64_t *value, int tag, MPI_Comm comm, const std::vector<int> &group, int me);
// Every rank's `width` values, on every rank of the group, by the same Bruck
// allgather (at most n/2 records a message): record k of *all (width values
// from k * width) is group index me + k's (mod n).
int agree_gather(const std::uint64_t *mine, int width, int tag, MPI_Comm comm, const std::vector<int> &group, int me,
                 std::vector<std::uint64_t> *all);

// Bytes a completed receive got (MPI_Get_count of MPI_BYTE, or the element
// count where that overflows an int).
int received_bytes(MPI_Status *st, std::size_t *bytes);

// Keeps the first block-length mismatch (MPI_ERR_TRUNCATE or MPI_ERR_COUNT) in *slot.
inline void note_mismatch(int *slot, int errclass)
{
    if (slot && *slot == MPI_SUCCESS)
        *slot = errclass;
}

// Marks a request of wait_all's `expected` array that is not a receive to check.
constexpr std::size_t kNotChecked = static_cast<std::size_t>(-1);

// A message found by a probe and not yet received: its source and its size in
// bytes. Where the MPI library has matched probes (MPI_Mprobe) the message is
// taken off the queue, so no other receive can match it first; elsewhere (SimGrid
// SMPI) the caller receives from `source` with the same tag, which is the same
// message because a source's messages on one tag are matched in order.
struct ProbedMessage {
    int source = MPI_PROC_NULL;
    std::size_t bytes = 0;
    MPI_Message handle = MPI_MESSAGE_NULL;  // used with matched probes only
};

// Looks for a message from `source` (or MPI_ANY_SOURCE) with `tag`. With `wait`
// it blocks until one is there; otherwise *found tells whether one was.
int probe_message(int source, int tag, MPI_Comm comm, bool wait, ProbedMessage *m, bool *found);
// Posts the receive of a probed message into `buf` (room for m->bytes bytes).
int irecv_probed(ProbedMessage *m, void *buf, int tag, MPI_Comm comm, MPI_Request *req);

// Posts the receive of one message of unknown size from each of `peers` (distinct)
// on `tag`, each into a new buffer appended to `store`. (*data)[k] / (*bytes)[k]
// say where peers[k]'s message lands; (*reqs)[k] is its receive, for the caller
// to wait on. `exclusive`: in this call no other message on `tag` comes to this
// rank, so a blocking probe for any source takes them in arrival order;
// otherwise each peer is probed in turn (blocking once only one is left), which
// costs a probe per peer and pass while they are missing.
int irecv_unknown_sizes(const std::vector<int> &peers, int tag, MPI_Comm comm, bool exclusive,
                        ScratchStore *store, std::vector<char *> *data, std::vector<std::size_t> *bytes,
                        std::vector<MPI_Request> *reqs);

// The same receives, posted in steps: poll() between a caller's own sends posts
// those whose messages are already there, finish() the rest (blocking), with
// the arguments and outputs of irecv_unknown_sizes (the constructor empties the
// outputs; `peers` must outlive the object). A receive posted early lets the
// transfer start: a rendezvous protocol, and SimGrid for every message, move
// no data until the receive is matched, so a rank that packs several messages
// before it receives would hold its peers' messages back by its own packing.
class UnknownSizeReceives {
public:
    UnknownSizeReceives(const std::vector<int> &peers, int tag, MPI_Comm comm, bool exclusive,
                        ScratchStore *store, std::vector<char *> *data, std::vector<std::size_t> *bytes,
                        std::vector<MPI_Request> *reqs);
    UnknownSizeReceives(const UnknownSizeReceives &) = delete;
    UnknownSizeReceives &operator=(const UnknownSizeReceives &) = delete;
    // Never blocks: one probe for any source while they find messages
    // (exclusive), else one pass of a probe per missing peer.
    int poll() { return take(false); }
    int finish() { return take(true); }
    // After a send that packed `bytes`: poll() once kPackedBetweenLooks were
    // packed since the last look. A look posts the receives of the messages
    // found, a receive overhead each, which delays this rank's next sends; it
    // pays once the packing it lets a peer's message overlap costs more (a
    // 1 us overhead is about a 4 KiB copy at the platforms' 2-4 GB/s).
    // Measured at P=256 (dragonfly-64x16, node_aware): a look after every send
    // cost 5.7 % at 16 B blocks and saved 6 % at 1 and 16 KiB; with this
    // threshold 16 B is as before and 1 KiB saves 6.5 %.
    int packed(std::size_t bytes)
    {
        packed_since_look_ += bytes;
        if (packed_since_look_ < kPackedBetweenLooks)
            return MPI_SUCCESS;
        packed_since_look_ = 0;
        return poll();
    }
    static constexpr std::size_t kPackedBetweenLooks = 8192;
    // Where a message may land instead of a new buffer: (*places)[k], when it is
    // not nullptr and peers[k]'s message is exactly (*place_bytes)[k] bytes long
    // (a final block in the caller's receive buffer: no copy out of scratch
    // afterwards). A message of another length goes to a new buffer as before,
    // so a wrong length never writes into the place. Both vectors are indexed
    // like `peers` and must outlive the object.
    void land_in_place(const std::vector<char *> *places, const std::vector<std::size_t> *place_bytes)
    {
        places_ = places;
        place_bytes_ = place_bytes;
    }

private:
    int take(bool block);
    int receive(std::size_t k, ProbedMessage *m);

    // Bookkeeping inline up to kInline peers (a digit's rounds, mostly), else in
    // two allocations: a per-peer map cost one per peer, which node_bruck,
    // bundle_bruck and parlogna paid on every digit of every call.
    static constexpr std::size_t kInline = 16;
    const std::vector<int> &peers_;
    int tag_;
    MPI_Comm comm_;
    bool exclusive_;
    ScratchStore *store_;
    std::vector<char *> *data_;
    std::vector<std::size_t> *bytes_;
    std::vector<MPI_Request> *reqs_;
    std::size_t left_;
    std::size_t packed_since_look_ = 0;
    const std::vector<char *> *places_ = nullptr;
    const std::vector<std::size_t> *place_bytes_ = nullptr;
    char posted_inline_[kInline] = {};
    std::pair<int, std::size_t> index_inline_[kInline];
    std::vector<char> posted_heap_;
    std::vector<std::pair<int, std::size_t>> index_heap_;
    char *posted_;
    std::pair<int, std::size_t> *index_;  // (peer, k), by peer
};

// Waits for the requests with MPI_Waitall, a run of 64 at a time (one request
// at a time in a task, and under SimGrid SMPI: wait_all_requests); every
// request completes; returns the first request's error.
int wait_all(int count, MPI_Request *reqs);
// The same, checking receives: request i received expected[i] bytes (kNotChecked
// for sends and receives of sizes not known here). A truncated receive or one of
// another length is noted in *mismatch, not returned; every request completes.
int wait_all(int count, MPI_Request *reqs, const std::size_t *expected, int *mismatch);

// Frees persistent requests (inactive) and empties the vector.
void free_requests(std::vector<MPI_Request> &requests);

// Waits for (`wait`) or tests a started set of requests as one: *done once
// every one has completed. Receives (expected[i] != kNotChecked) are checked as
// wait_all checks them; `expected` nullptr: every length is exact by
// construction, only errors are returned.
int complete_requests(std::vector<MPI_Request> &requests, const std::size_t *expected, bool wait, bool *done,
                      int *mismatch);
// Completes a receive posted for exactly `bytes` into `buf`, a size every rank
// computes itself (uniform blocks): another length means the ranks passed
// different block sizes. That is noted in *mismatch and `buf` is zeroed, so the
// caller goes on with the expected size and later steps still match what their
// receivers expect.
int wait_known_receive(MPI_Request *req, char *buf, std::size_t bytes, int *mismatch);

}  // namespace mpix

#endif
