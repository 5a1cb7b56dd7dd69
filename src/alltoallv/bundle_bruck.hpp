// Radix-r Bruck all-to-all of variable-size bundles among a group of ranks, with
// each bundle's size travelling in the same message as its bytes: one message per
// round and peer, never a separate size message. The building block of
// node_bruck (inside each node, twice) and two_phase_bruck (the whole comm).
#ifndef MPIX_ALLTOALLV_BUNDLE_BRUCK_HPP
#define MPIX_ALLTOALLV_BUNDLE_BRUCK_HPP

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/local_work.hpp"
#include "core/p2p.hpp"  // Piece
#include "core/scratch.hpp"

namespace mpix {

class Trace;

// Who knows a bundle's size before it arrives.
enum class SizesKnown {
    // Only its sender: every message starts with a header (the group statistic,
    // then the length of each bundle in it), and is received by probing its size.
    nowhere,
    // Its sender and its final receiver (alltoallv recvcounts): messages whose
    // bundles all make their last hop carry no header; they are still probed, so
    // a longer or shorter bundle is reported, never a truncated MPI receive.
    at_destination,
    // Everyone (uniform blocks): no header, exact receives posted in advance.
    everywhere,
};

// What one round brings this rank, as agreed once (a persistent request's
// init): the length of each bundle in it, in position order, and the bytes its
// sender sends. They differ only where a final bundle is not its receiver's
// expected size; the start then reports it as a call would.
struct BundleRoundSizes {
    std::vector<std::size_t> sizes;
    std::size_t bytes = 0;
};
using BundleSizes = std::vector<BundleRoundSizes>;  // by round, from the group's first

// What bundle_bruck keeps between its calls for the capacity (its per-round
// lists: made fresh they were about 6 allocations a call). A caller's cached
// lists hold one; one bundle_bruck call uses it at a time.
class BundleSpare {
public:
    BundleSpare();
    ~BundleSpare();
    BundleSpare(BundleSpare &&) noexcept;
    BundleSpare &operator=(BundleSpare &&) noexcept;
    struct Lists;  // bundle_bruck.cpp's
    Lists &lists();

private:
    std::unique_ptr<Lists> lists_;
};

struct BundleGroup {
    MPI_Comm comm;
    LocalWork *work;   // where the packing of each message (header and pieces) is counted
    const int *ranks;  // the group's ranks in comm, by group index
    int size;          // n
    int me;            // this rank's group index
    int radix;         // clamped to 2..n
    int tag;           // digit k's rounds use tag + k (see kBundleBruckTags)
    SizesKnown known;
    // Bytes of the bundle from index s to index d: for every (s, d) when `known`
    // is everywhere, only for d == me when it is at_destination.
    std::function<std::size_t(int s, int d)> expected_bytes;
    // Statistics spread by maximum (agreed_count of them, 1 unless set): in,
    // this rank's values; out, the largest of each over the group. Every message
    // carries them (at_destination: the rounds whose bundles all arrive home carry
    // a header of the statistics alone), so they are complete, except with
    // `known` everywhere, which sends no header. May be null.
    std::uint64_t *agreed_max;
    int agreed_count;
    // Tracing (null: off): one record per message, rounds numbered from
    // first_round; block_ids(s, d, out) appends the global block ids of bundle s -> d.
    Trace *trace;
    int first_round;
    std::function<void(int s, int d, std::vector<long long> *out)> block_ids;
    // Persistent requests (both null for a one-off call). `record`: at init, the
    // messages carry every bundle's length and none of their bytes, and what
    // each round brings is appended here. `planned`: what init recorded, so no
    // message carries a header, none is probed, receives are posted with their
    // exact length, and empty messages are not sent. agreed_max is not spread
    // in either mode.
    BundleSizes *record;
    const BundleSizes *planned;
    // A mismatch the caller noted before this exchange (null: none), e.g. in an
    // earlier phase: the messages whose length the receiver knows then go empty,
    // as they do after one noted here (see relay_length in core/p2p.hpp).
    const int *upstream_mismatch = nullptr;
    // Lists kept from an earlier call (null: made for this one).
    BundleSpare *spare = nullptr;
};

// A group over `ranks` (by group index; `me` this rank's index) with everything
// else off: the caller sets expected_bytes, agreed_max and block_ids as needed.
BundleGroup bundle_group(MPI_Comm comm, LocalWork *work, const std::vector<int> &ranks, int me, int radix, int tag, SizesKnown known,
                         Trace *trace, int first_round);

// Exchanges bundles[d] (pieces of this rank's bundle for group index d; entry
// `me` is ignored) so that (*arrived)[s] is the bundle from index s (s != me),
// contiguous, in memory owned by `store` (kept until the caller is done).
// Returns MPI_SUCCESS, an MPI error of a failed call, MPI_ERR_NO_MEM, or
// MPI_ERR_TRUNCATE / MPI_ERR_COUNT when a final bundle is longer / shorter than
// expected (it is then left empty; every round still completes, so the other
// ranks do not wait on this one).
int bundle_bruck(const BundleGroup &g, const std::vector<std::vector<Piece>> &bundles, std::vector<Piece> *arrived,
                 ScratchStore *store);

// Tags a group uses from its first: one per digit, so every message on a digit's
// tag comes from one of that digit's peers (probed for any source, in arrival
// order). 31 digits cover any group at radix 2.
constexpr int kBundleBruckTags = 31;

// Rounds (messages sent per rank) of bundle_bruck on n ranks at radix r.
int bundle_bruck_rounds(int n, int radix);
// Digits of bundle_bruck on n ranks at radix r: a group uses tags tag ..
// tag + digits - 1, so tag + digits is the first it leaves free.
int bundle_bruck_digits(int n, int radix);

// The sizes of a list of blocks, encoded to travel in front of them: one byte
// (1, 2, 4 or 8, the width of each size), then the sizes in the host's byte order
// (every rank of a job shares it; MPI_BYTE is not converted), each as wide as
// the largest needs: a byte each for blocks under 256 bytes, so small
// blocks do not carry more header than data (at 16 B blocks, 8-byte sizes had
// doubled the bytes between nodes of two_phase_bruck).
void encode_sizes(const std::vector<std::size_t> &sizes, std::vector<unsigned char> *out);
// Decodes `count` sizes from the front of [p, p + avail) into *sizes (resized to
// count); *used receives the bytes read. False when the bytes are not a valid
// encoding of `count` sizes (*sizes then unchanged).
bool decode_sizes(const char *p, std::size_t avail, std::size_t count, std::vector<std::size_t> *sizes,
                  std::size_t *used);

}  // namespace mpix

#endif
