#include "core/hints.hpp"

#include <mpi.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace mpix {

namespace {

const char *const kCollectiveNames[kCollectives] = {"alltoall", "alltoallv", "alltoall_crs", "alltoallv_crs",
                                                    "neighbor_alltoallv"};

const HintKey kKeys[] = {
    {"alltoall_algorithm", HintKind::algorithm, 0, "registry name or auto", "auto",
     "algorithm for MPIX_Alltoall"},
    {"alltoallv_algorithm", HintKind::algorithm, 0, "registry name or auto", "auto",
     "algorithm for MPIX_Alltoallv"},
    {"alltoall_crs_algorithm", HintKind::algorithm, 0, "registry name or auto", "auto",
     "backend for MPIX_Alltoall_crs"},
    {"alltoallv_crs_algorithm", HintKind::algorithm, 0, "registry name or auto", "auto",
     "backend for MPIX_Alltoallv_crs"},
    {"neighbor_alltoallv_algorithm", HintKind::algorithm, 0, "registry name or auto", "auto",
     "backend for MPIX_Neighbor_alltoallv(_init)"},
    {"radix", HintKind::integer, 2, "integer >= 2 (clamped to P)", "ceil(sqrt(P)); node_bruck, ParLinNa: from the bytes",
     "radix of Bruck-family and ParLogNa exchanges (node_bruck: of its rounds inside a node)"},
    {"batch_size", HintKind::integer, 1, "integer >= 1", "32",
     "requests per direction in flight (scattered, batched rounds)"},
    {"locality", HintKind::enumeration, 0, "node|socket", "node",
     "regions used by locality-aware algorithms"},
    {"inner", HintKind::enumeration, 0, "pairwise|nonblocking", "nonblocking",
     "inner exchange of hierarchical algorithms"},
    {"relay_steps", HintKind::enumeration, 0, "auto|2|3", "auto",
     "node_aware and locality_aware: 2 sends each block to the rank at the sender's local index in the "
     "destination's region, which passes it on inside that region (MPI Advance's node-aware alltoall); 3 gathers "
     "each remote region's blocks at one rank of the sender's region, exchanges one message per pair of regions and "
     "redistributes; auto takes the one that sends fewer messages per rank (2 while regions <= ranks a region, "
     "about)"},
    {"leaders_per_node", HintKind::integer, 1, "integer >= 1 (clamped to node size)", "4",
     "leaders per node of multileader algorithms"},
    {"random_seed", HintKind::integer, 0, "integer >= 0", "0",
     "seed of the shuffled rank order of the randomized rows (the same order on every rank)"},
    {"max_queue", HintKind::integer, 0, "integer >= 0 (0: unlimited)", "0",
     "steps (randomized_sendrecv) or pieces (randomized_segmented) in flight; a full queue drains"},
    {"segment_size", HintKind::size, 0, "bytes >= 0 (0: 16384)", "0",
     "piece length of randomized_segmented"},
    {"direct_above", HintKind::size, 0, "bytes >= 0 (0: never)", "2097152",
     "node_bruck: from this many bytes a rank sends or receives per call (MPIX_Alltoall: this call's; "
     "MPIX_Alltoallv: the previous call's, agreed by every rank, on average over some node's ranks, or on one "
     "rank twice it or (P-1)/45 times it where more; on one node a twelfth of it), a spread-out direct exchange "
     "(scattered, batch 32), which copies only the rank's own block; in the Bruck rounds a rank that receives "
     "more than it gets the last phase in place and, from the next call, its group's data bypasses it"},
    {"group_size", HintKind::integer, 0, "integer >= 0 (0: the rule)", "0",
     "node_bruck: ranks per aggregation group; nodes larger than it are split into groups of at most that many "
     "consecutive local ranks, each aggregating for itself (0: groups of 16 or more where several nodes have more "
     "than 16 ranks, sized by node_bruck's rule: sim/README.md, Groups inside large nodes)"},
    {"agreement_period", HintKind::integer, 1, "integer >= 1", "16",
     "auto on MPIX_Alltoallv: the most calls between two agreements of the block statistics it picks on; an "
     "agreement that picks the same rule as the one before doubles the calls to the next, up to this, and one that "
     "picks another brings back one every call (1: every call, each pick on the previous call's statistics)"},
    {"crs_recv_nnz_known", HintKind::boolean, 0, "true|false", "false",
     "*recv_nnz is the exact number of sources, not a capacity"},
    {"crs_recv_size_known", HintKind::boolean, 0, "true|false", "false",
     "*recv_size is the exact received size, not a capacity (accepted; no backend needs it: sizes travel with the data)"},
    {"async_progress", HintKind::boolean, 0, "true|false (1|0)", "false",
     "a progress thread advances started nonblocking and persistent exchanges between the caller's calls "
     "(needs MPI_THREAD_MULTIPLE; one per process, held while an MPIX_Comm asks for it)"},
    {"trace", HintKind::path, 0, "path prefix (empty: off)", "(off)",
     "append one JSON line per round to PREFIX.<rank>.jsonl"},
    {"tuning_file", HintKind::path, 0, "path of a selection table (JSON; empty: none)", "(none)",
     "site selection table (mpix-tune) that auto tries before the built-in one; read collectively by "
     "MPIX_Comm_init (MPIX_TUNING_FILE) and MPIX_Comm_set_info, never per call"},
    {nullptr, HintKind::path, 0, nullptr, nullptr, nullptr},
};

bool parse_integer(const char *value, long long min_value, long long *out)
{
    if (!value || !*value)
        return false;
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(value, &end, 10);
    if (errno != 0 || *end != '\0' || v < min_value || v > INT_MAX)
        return false;
    *out = v;
    return true;
}

bool parse_size(const char *value, long long *out)
{
    if (!value || !*value || *value == '-')
        return false;
    errno = 0;
    char *end = nullptr;
    unsigned long long v = std::strtoull(value, &end, 10);
    if (errno != 0 || *end != '\0' || v > static_cast<unsigned long long>(LLONG_MAX))
        return false;
    *out = static_cast<long long>(v);
    return true;
}

bool parse_boolean(const char *value, bool *out)
{
    if (!std::strcmp(value, "true") || !std::strcmp(value, "1") || !std::strcmp(value, "yes")) {
        *out = true;
        return true;
    }
    if (!std::strcmp(value, "false") || !std::strcmp(value, "0") || !std::strcmp(value, "no")) {
        *out = false;
        return true;
    }
    return false;
}

bool in_enumeration(const char *values, const char *value)
{
    size_t n = std::strlen(value);
    for (const char *p = values; *p;) {
        const char *bar = std::strchr(p, '|');
        size_t len = bar ? static_cast<size_t>(bar - p) : std::strlen(p);
        if (len == n && !std::strncmp(p, value, n))
            return true;
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

// "alltoallv_algorithm" -> alltoallv
Collective collective_of_algorithm_key(const char *key)
{
    for (int c = 0; c < kCollectives; ++c) {
        size_t n = std::strlen(kCollectiveNames[c]);
        if (!std::strncmp(key, kCollectiveNames[c], n) && !std::strcmp(key + n, "_algorithm"))
            return static_cast<Collective>(c);
    }
    return Collective::alltoall;
}

}  // namespace

const char *collective_name(Collective c) { return kCollectiveNames[static_cast<int>(c)]; }

bool collective_from_name(const char *name, Collective *out)
{
    if (!name)
        return false;
    for (int c = 0; c < kCollectives; ++c)
        if (!std::strcmp(name, kCollectiveNames[c])) {
            *out = static_cast<Collective>(c);
            return true;
        }
    return false;
}

const HintKey *hint_keys() { return kKeys; }

const HintKey *find_hint_key(const char *key)
{
    if (!key)
        return nullptr;
    for (const HintKey *k = kKeys; k->key; ++k)
        if (!std::strcmp(k->key, key))
            return k;
    return nullptr;
}

int parse_emulated_ppn(const char *value, int *ppn, const char **why)
{
    long long v = 0;
    if (!parse_integer(value, 0, &v)) {
        *why = "value is not an integer >= 0 (ranks per emulated node; 0: the real nodes)";
        return MPI_ERR_INFO_VALUE;
    }
    *ppn = static_cast<int>(v);
    return MPI_SUCCESS;
}

int validate_hint(const char *key, const char *value, AlgorithmLookup lookup, const char **why)
{
    const HintKey *k = find_hint_key(key);
    if (!k) {
        *why = "unknown hint key";
        return MPI_ERR_INFO_KEY;
    }
    if (!value) {
        *why = "NULL hint value";
        return MPI_ERR_INFO_VALUE;
    }
    long long v;
    bool b;
    switch (k->kind) {
    case HintKind::algorithm:
        if (!std::strcmp(value, "auto") || lookup(collective_of_algorithm_key(key), value))
            return MPI_SUCCESS;
        *why = "unknown algorithm name for this collective";
        return MPI_ERR_INFO_VALUE;
    case HintKind::integer:
        if (parse_integer(value, k->min_value, &v))
            return MPI_SUCCESS;
        *why = "value is not an integer in the accepted range";
        return MPI_ERR_INFO_VALUE;
    case HintKind::size:
        if (parse_size(value, &v))
            return MPI_SUCCESS;
        *why = "value is not a non-negative byte count";
        return MPI_ERR_INFO_VALUE;
    case HintKind::enumeration:
        if (in_enumeration(k->values, value))
            return MPI_SUCCESS;
        *why = "value is not one of the accepted words";
        return MPI_ERR_INFO_VALUE;
    case HintKind::boolean:
        if (parse_boolean(value, &b))
            return MPI_SUCCESS;
        *why = "value is not true or false";
        return MPI_ERR_INFO_VALUE;
    case HintKind::path:
        return MPI_SUCCESS;
    }
    *why = "unsupported hint";
    return MPI_ERR_INFO_VALUE;
}

void apply_hints(const std::map<std::string, std::string> &values, AlgorithmLookup lookup, Hints *h)
{
    for (const auto &kv : values) {
        const char *key = kv.first.c_str();
        const char *value = kv.second.c_str();
        const HintKey *k = find_hint_key(key);
        if (!k)
            continue;  // cannot happen: values are validated when set
        long long v = 0;
        switch (k->kind) {
        case HintKind::algorithm: {
            const Collective c = collective_of_algorithm_key(key);
            h->algorithm[static_cast<int>(c)] = kv.second;
            h->row[static_cast<int>(c)] = kv.second == "auto" ? nullptr : lookup(c, value);
            break;
        }
        case HintKind::integer:
        case HintKind::size:
            if (k->kind == HintKind::integer ? !parse_integer(value, k->min_value, &v)
                                             : !parse_size(value, &v))
                break;
            if (!std::strcmp(key, "radix"))
                h->radix = static_cast<int>(v);
            else if (!std::strcmp(key, "batch_size"))
                h->batch_size = static_cast<int>(v);
            else if (!std::strcmp(key, "leaders_per_node"))
                h->leaders_per_node = static_cast<int>(v);
            else if (!std::strcmp(key, "random_seed"))
                h->random_seed = static_cast<std::uint64_t>(v);
            else if (!std::strcmp(key, "max_queue"))
                h->max_queue = static_cast<int>(v);
            else if (!std::strcmp(key, "segment_size"))
                h->segment_size = static_cast<std::size_t>(v);
            else if (!std::strcmp(key, "direct_above"))
                h->direct_above = static_cast<std::uint64_t>(v);
            else if (!std::strcmp(key, "agreement_period"))
                h->agreement_period = static_cast<unsigned>(v);
            else if (!std::strcmp(key, "group_size"))
                h->group_size = static_cast<int>(v);
            break;
        case HintKind::enumeration:
            if (!std::strcmp(key, "locality"))
                h->locality = !std::strcmp(value, "socket") ? Locality::socket : Locality::node;
            else if (!std::strcmp(key, "inner"))
                h->inner = !std::strcmp(value, "pairwise") ? Inner::pairwise : Inner::nonblocking;
            else if (!std::strcmp(key, "relay_steps"))
                h->relay_steps = !std::strcmp(value, "2")   ? RelaySteps::two
                                 : !std::strcmp(value, "3") ? RelaySteps::three
                                                            : RelaySteps::automatic;
            break;
        case HintKind::boolean: {
            bool b = false;
            parse_boolean(value, &b);
            if (!std::strcmp(key, "crs_recv_nnz_known"))
                h->crs_recv_nnz_known = b;
            else if (!std::strcmp(key, "crs_recv_size_known"))
                h->crs_recv_size_known = b;
            else if (!std::strcmp(key, "async_progress"))
                h->async_progress = b;
            break;
        }
        case HintKind::path:
            if (!std::strcmp(key, "trace"))
                h->trace = kv.second;
            break;
        }
    }
}

}  // namespace mpix
