// The MPIX_Comm object: private duplicate, tag allocator, hints and caches.
#ifndef MPIX_CORE_COMM_HPP
#define MPIX_CORE_COMM_HPP

#include <mpi.h>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "core/blocks.hpp"
#include "core/exchange.hpp"
#include "core/hints.hpp"
#include "topo/topology.hpp"

namespace mpix {

// Something an algorithm caches on the communicator (rotation index arrays,
// RMA windows, ...). Freed collectively, in key order, by MPIX_Comm_free.
struct CacheEntry {
    virtual ~CacheEntry() = default;
    // True if the entry depends on the node/socket map and must be dropped
    // when MPIX_Comm_update_locality changes it.
    virtual bool depends_on_topology() const { return false; }
};

}  // namespace mpix

struct MPIX_Request;  // core/request.hpp
namespace mpix {
class SelectionTable;  // select/table.hpp
struct TableRule;      // select/table.hpp
}

struct MPIX_Comm {
    // Working buffers kept between calls (core/scratch.hpp). First, so that it
    // is destroyed last: buffers of cached plans go back to it as they end.
    mpix::ScratchPool scratch;
    MPI_Comm user = MPI_COMM_NULL;  // the caller's communicator: errors are raised here
    MPI_Comm comm = MPI_COMM_NULL;  // private duplicate: all library traffic
    // The MPI library's own nonblocking and persistent collectives on the
    // caller's arguments (the pmpi row passed through): a duplicate of their
    // own, made from `user` at the first, so their order on it is the order of
    // the calls, never mixed with the collectives tasks start later on `comm`.
    MPI_Comm mpi_requests = MPI_COMM_NULL;
    int size = 0;
    int rank = 0;
    std::string trace_group;  // core/trace.hpp's trace_group_tag: names this comm's trace files
    int tag_ub = 32767;
    int next_tag = 0;

    mpix::Hints hints;                                   // environment + comm info, resolved
    mpix::AlgorithmLookup lookup = nullptr;              // select's find_algorithm, set by MPIX_Comm_init
    std::map<std::string, std::string> env_values;        // validated MPIX_<KEY> variables
    std::map<std::string, std::string> info_values;       // MPIX_Comm_set_info
    // Selection tables (select/table.hpp), read collectively: MPIX_TUNING_FILE's
    // at MPIX_Comm_init, the comm info's tuning_file at MPIX_Comm_set_info (that
    // path kept so an unchanged one is not read again). `auto` tries the info's,
    // then the environment's, then the built-in table.
    std::shared_ptr<const mpix::SelectionTable> env_table, info_table;
    std::string info_table_path;
    // The comm's hints with a table rule's hint values, per rule (select's
    // comm_hints_with_rule); emptied whenever the hints change.
    std::map<const void *, mpix::Hints> rule_hints;

    int emulated_ppn = 0;  // -1: the map below, installed by mpix::set_emulated_regions (tests)
    std::vector<long long> emulated_node_keys;    // per rank, when emulated_ppn == -1
    std::vector<long long> emulated_socket_keys;  // per rank, empty: hwloc decides
    std::unique_ptr<mpix::Regions> regions[2];            // indexed by Locality
    // std::less<>: looked up by std::string_view (mpix::CacheKey), no string made a call.
    std::map<std::string, std::unique_ptr<mpix::CacheEntry>, std::less<>> cache;
    // `auto`'s pick where it depended only on what does not change between
    // calls (P, the nodes, the hints and tables, MPI_IN_PLACE; MPIX_Alltoall: the
    // block size too), so the next call with the same block size skips the tables
    // (select/registry.hpp, select_algorithm); cleared whenever the hints, tables or nodes change.
    struct AutoMemo {
        bool valid = false;
        std::size_t block_bytes = 0;
        bool in_place = false;
        const mpix::Algorithm *row = nullptr;
        const std::map<std::string, std::string> *rule_hints = nullptr;
        // Picks on agreed values (MPIX_Alltoallv), which run every call: whether
        // a call without and with MPI_IN_PLACE needs them ([in_place]: 0 not yet
        // known, 1 no, 2 yes), and the rule the last agreed values picked, so
        // that a steady exchange walks the tables' rules only when they change.
        unsigned char needs_agreed[2] = {0, 0};
        bool agreed_rule_kept = false;
        bool agreed_in_place = false;
        unsigned long long agreed_values[2] = {0, 0};
        const mpix::TableRule *agreed_rule = nullptr;
    };
    AutoMemo auto_memo[mpix::kCollectives];
    // `auto` took an agreed MPIX_Alltoallv statistic in this call and left the
    // call's own values to hand over (select/registry.hpp, hand_over_agreement):
    // a flag, so calls that agree nothing skip the cache lookup.
    bool agreement_awaiting = false;
    // Counts the times auto's kept picks were forgotten (hints, tables or nodes
    // changed; collective, so alike on every rank): auto's agreement schedule
    // starts again then, since a reloaded table's rules may sit where the old
    // one's did on one rank and not on another.
    unsigned selection_epoch = 0;
    // The last MPIX_Alltoall / MPIX_Alltoallv call that went to the MPI
    // library's own collective (select/dispatch.hpp, pass_alltoall_again): a
    // call with the same predefined types and MPI_IN_PLACE choice (and, for
    // MPIX_Alltoall, counts) gets the same row, and passes the checks of the
    // types, so it goes there directly after those of its counts and buffers.
    // Indexed by Collective (alltoall, alltoallv); cleared with auto_memo.
    struct PassMemo {
        bool valid = false;
        bool in_place = false;
        int sendcount = 0, recvcount = 0;  // MPIX_Alltoall's
        MPI_Datatype sendtype = MPI_DATATYPE_NULL, recvtype = MPI_DATATYPE_NULL;
        std::size_t sendsize = 0, recvsize = 0;  // the types' sizes (bytes)
        const mpix::Algorithm *row = nullptr;
    };
    PassMemo pass_memo[2];
    // The registry name of the algorithm the last MPIX_Alltoall / MPIX_Alltoallv
    // ran (what `auto` picked), for the benchmark; indexed by Collective.
    const char *last_algorithm[mpix::kCollectives] = {};

    // MPI_COMM_WORLD exists (MPI_Init'ed, not finalized) since MPIX_Comm_init.
    bool world_available = false;
    // The per-peer byte sizes and offsets of a call's two sides, lent to each
    // call so that it allocates none (calls on one MPIX_Comm do not overlap).
    std::vector<std::size_t> spare_bytes[2];
    std::vector<MPI_Aint> spare_displs[2];
    // The memory and per-peer vectors of the last completed nonblocking
    // MPIX_Alltoall(v) request, taken by the next one (select/exchange_request):
    // a nonblocking call then allocates nothing. Atomic: a request may complete
    // on another thread than the one starting the next (MPI_THREAD_MULTIPLE).
    struct SpareRequest {
        void *memory = nullptr;  // raw, for a request of select/exchange_request's size
        std::vector<std::size_t> bytes[2];
        std::vector<MPI_Aint> displs[2];
        ~SpareRequest() { ::operator delete(memory); }
        // Trades its vectors with a request's two sides (given at start, kept at the end).
        void swap_views(mpix::BlockSide *send, mpix::BlockSide *recv)
        {
            send->bytes.swap(bytes[0]);
            send->displs.swap(displs[0]);
            recv->bytes.swap(bytes[1]);
            recv->displs.swap(displs[1]);
        }
    };
    std::atomic<SpareRequest *> spare_request{nullptr};
    ~MPIX_Comm() { delete spare_request.load(); }

    // The descriptions of the last predefined datatypes a call used (their
    // handles never change meaning), so a call need not ask MPI (select/dispatch).
    struct NamedType {
        MPI_Datatype type = MPI_DATATYPE_NULL;
        mpix::TypeInfo info;
    };
    NamedType named_types[4];
    int next_named_type = 0;

    // Persistent requests and neighbour topologies made on this comm and not yet
    // freed: they point to it, so MPIX_Comm_free refuses while any remains.
    int live_objects = 0;
    int next_persistent_tag = 0;
    // This comm holds the process's progress thread (hint async_progress).
    bool holds_progress_thread = false;

    // The library's local copies on this comm: counted, and charged to simulated
    // time under SMPI (core/local_work.hpp); its model read at MPIX_Comm_init.
    mpix::LocalWork work;
};

namespace mpix {

// Reserves kTagsPerCall tags for one collective call. Every rank calls collectives
// in the same order on an MPIX_Comm, so every rank gets the same tag.
int allocate_tags(MPIX_Comm *xcomm);

// The typed hints of one call: comm-level hints overridden by `call_info` (may be null).
Hints resolve_hints(const MPIX_Comm *xcomm, const MPIX_Info *call_info);

// Per-call info may not carry hints that only a communicator takes
// (tuning_file: its table is read collectively at MPIX_Comm_init or
// MPIX_Comm_set_info). MPI_SUCCESS, or MPI_ERR_INFO_KEY with `why`.
int check_call_info(const MPIX_Info *call_info, const char **why);

// Re-resolves xcomm->hints from the environment and comm info values.
void refresh_hints(MPIX_Comm *xcomm);
// Reads MPIX_<KEY> for every key, and MPIX_PPN; the first malformed one is
// reported in `bad` with its MPI error class returned.
int read_environment(AlgorithmLookup lookup, std::map<std::string, std::string> *values, int *ppn, std::string *bad);

// A cache key built on the stack: a name and numbers appended, e.g.
// CacheKey("relay:multileader:").add(groups). Looking one up allocates nothing
// (a std::string key of more than 15 characters was a malloc a call: `auto`'s
// alltoallv, the node-aware and Bruck rows).
class CacheKey {
public:
    explicit CacheKey(std::string_view name) { add(name); }
    CacheKey &add(std::string_view text);
    CacheKey &add(long long number);
    operator std::string_view() const { return long_.empty() ? std::string_view(buf_, len_) : std::string_view(long_); }

private:
    char buf_[96];
    std::size_t len_ = 0;
    std::string long_;  // where the key outgrows buf_ (never for the library's own names)
};

// Keeps `entry` under `key` (replacing what was there); returns it.
template <class T>
T *cache_keep(MPIX_Comm *xcomm, std::string_view key, std::unique_ptr<T> entry)
{
    T *kept = entry.get();
    xcomm->cache[std::string(key)] = std::move(entry);
    return kept;
}

// Cached per-comm data, by key; nullptr if absent.
template <class T>
T *cached(MPIX_Comm *xcomm, std::string_view key)
{
    auto it = xcomm->cache.find(key);
    return it == xcomm->cache.end() ? nullptr : static_cast<T *>(it->second.get());
}

// The same, made (value-initialized) and cached where absent; nullptr only when
// no memory could be had. For entries whose making cannot fail otherwise.
template <class T>
T *cached_or_make(MPIX_Comm *xcomm, std::string_view key)
{
    if (T *found = cached<T>(xcomm, key))
        return found;
    std::unique_ptr<T> fresh(new (std::nothrow) T());
    if (!fresh)
        return nullptr;
    return cache_keep(xcomm, key, std::move(fresh));
}

// Drops the topology and everything derived from it (collective).
void drop_topology(MPIX_Comm *xcomm);

}  // namespace mpix

#endif
