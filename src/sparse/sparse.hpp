// Sparse dynamic data exchange (MPIX_Alltoall_crs / MPIX_Alltoallv_crs) reduced to
// byte messages: what every sparse backend receives and fills in.
#ifndef MPIX_SPARSE_SPARSE_HPP
#define MPIX_SPARSE_SPARSE_HPP

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/hints.hpp"
#include "core/scratch.hpp"
#include "topo/topology.hpp"

struct MPIX_Comm;

namespace mpix {

class Trace;  // core/trace.hpp

// One outgoing message: `bytes` bytes at `data` for rank `dest`.
struct SparseMessage {
    int dest;
    const char *data;
    std::size_t bytes;
};

// What arrived: message i came from source[i], bytes[i] bytes at data + offset[i].
// Backends append in any order; the entry point sorts by source.
// `data` is bound to the communicator's pool: a call's received bytes land in the
// warm buffer of the calls before, not in fresh memory that faults in again on
// every call (a std::vector of 256 KiB or more did: 96 page faults a call at 2
// ranks). A message's bytes stay where add() put them only until the next add().
struct SparseInbox {
    explicit SparseInbox(ScratchPool *pool) : data(pool) {}
    std::vector<int> source;
    std::vector<std::size_t> offset, bytes;
    ScratchBytes data;

    // Reserves room for one message; *where receives where its bytes go. False
    // when out of memory (nothing added).
    bool add(int src, std::size_t n, char **where)
    {
        const std::size_t at = data.size();
        if (!data.resize(at + n))
            return false;
        source.push_back(src);
        offset.push_back(at);
        bytes.push_back(n);
        *where = data.data() + at;
        return true;
    }
    const char *message(std::size_t i) { return data.data() + offset[i]; }
    std::size_t count() const { return source.size(); }
};

// One call: distinct destinations, messages already packed into bytes. Sends are
// complete (buffers reusable) when a backend returns.
struct SparseExchange {
    MPIX_Comm *xcomm;
    MPI_Comm comm;  // the library's private duplicate
    int size;
    int rank;
    int tag;  // first of kTagsPerCall tags reserved for this call
    bool uniform;               // alltoall_crs: every message is block_bytes long
    std::size_t block_bytes;    // alltoall_crs only
    std::vector<SparseMessage> sends;
    // Exact number of messages arriving, when the caller stated it
    // (hint crs_recv_nnz_known); -1 when unknown.
    long long known_recv_nnz;
    const Hints *hints;
    SparseInbox *inbox;  // output
    // nullptr when tracing is off. Rows: block id = original source * P + final
    // destination; a message to oneself is a local copy, never traced.
    Trace *trace;
};

// Traces a backend whose messages go straight to their destinations: in round
// `round` a send row per message of x.sends and a receive row per message of
// x.inbox from index `first_arrival` on, each `overhead` bytes longer on the
// wire than its payload (RMA's header).
void trace_direct_messages(const SparseExchange &x, int round, std::size_t first_arrival, std::size_t overhead = 0);

// Inner exchanges over any communicator (used by the backends and by the
// locality variants for their two phases). `known` >= 0: exactly that many
// messages arrive, so discovery is skipped.
int personalized_exchange(MPI_Comm comm, int tag, const std::vector<SparseMessage> &sends, long long known,
                          SparseInbox *inbox);
int nbx_exchange(MPI_Comm comm, int tag, const std::vector<SparseMessage> &sends, long long known,
                 SparseInbox *inbox);

using InnerExchange = int (*)(MPI_Comm, int, const std::vector<SparseMessage> &, long long, SparseInbox *);
// Node-aware aggregation around an inner exchange (locality.cpp).
int locality_exchange(const SparseExchange &x, InnerExchange inner);

// Receives one message with `tag` from any source into the inbox, blocking
// (matched probe where available, else probe + receive from the probed source).
int recv_any(MPI_Comm comm, int tag, SparseInbox *inbox);
// The same, but only if a message is already there; *got tells.
int try_recv_any(MPI_Comm comm, int tag, SparseInbox *inbox, bool *got);

// Backends (registry rows).
int sparse_personalized(const SparseExchange &x);
int sparse_nonblocking(const SparseExchange &x);
int sparse_rma(const SparseExchange &x);
int sparse_personalized_locality(const SparseExchange &x);
int sparse_nonblocking_locality(const SparseExchange &x);

}  // namespace mpix

#endif
