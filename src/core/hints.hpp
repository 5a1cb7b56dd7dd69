// Hint keys, their validation, and the typed view algorithms read.
#ifndef MPIX_CORE_HINTS_HPP
#define MPIX_CORE_HINTS_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace mpix {

enum class Collective { alltoall = 0, alltoallv = 1, alltoall_crs = 2, alltoallv_crs = 3, neighbor_alltoallv = 4 };
constexpr int kCollectives = 5;
const char *collective_name(Collective c);
bool collective_from_name(const char *name, Collective *out);

struct Algorithm;  // select/registry.hpp
// How core finds a registry row by name without including select/: the api
// layer passes select's find_algorithm (include arrows point down only).
using AlgorithmLookup = const Algorithm *(*)(Collective c, const char *name);

enum class Locality { node, socket };
enum class Inner { pairwise, nonblocking };
// node_aware / locality_aware: how a block reaches another region (relay_steps).
enum class RelaySteps { automatic, two, three };

// Typed hints, resolved per call: per-call info > comm info > environment > defaults.
struct Hints {
    std::string algorithm[kCollectives] = {"auto", "auto", "auto", "auto", "auto"};
    // The registry row each name above resolves to (nullptr: auto), so a call
    // does not look it up by name.
    const Algorithm *row[kCollectives] = {};
    int radix = 0;              // 0: the algorithm's default (e.g. ceil(sqrt(P)))
    int batch_size = 32;        // requests per direction in flight (MPICH's default)
    Locality locality = Locality::node;
    Inner inner = Inner::nonblocking;
    int leaders_per_node = 4;
    RelaySteps relay_steps = RelaySteps::automatic;
    std::uint64_t random_seed = 0;
    int max_queue = 0;          // 0: unlimited
    std::size_t segment_size = 0;  // 0: no segmentation
    // node_bruck: above this many bytes a rank sends or receives per call (the
    // previous call's, agreed), a spread-out direct exchange; 0: never.
    std::uint64_t direct_above = std::uint64_t(2) << 20;
    // node_bruck: ranks per aggregation group (a node, or a part of a large
    // node); 0: the algorithm's rule (node_bruck_group_size).
    int group_size = 0;
    // auto on MPIX_Alltoallv: the most calls between agreements of its block
    // statistics (select/registry.cpp, AgreedBlocks).
    unsigned agreement_period = 16;
    bool crs_recv_nnz_known = false;
    bool crs_recv_size_known = false;
    bool async_progress = false;  // the progress thread (sched/engine.hpp)
    std::string trace;          // path prefix; empty: tracing off

    const std::string &algorithm_for(Collective c) const { return algorithm[static_cast<int>(c)]; }
};

enum class HintKind { algorithm, integer, size, enumeration, boolean, path };

struct HintKey {
    const char *key;
    HintKind kind;
    long long min_value;         // integer/size kinds
    const char *values;          // accepted values, for documentation and enumerations
    const char *default_value;
    const char *summary;
};

// The table of every key (read-only); terminated by a null key.
const HintKey *hint_keys();
const HintKey *find_hint_key(const char *key);

// Checks a value for a key: MPI_SUCCESS, MPI_ERR_INFO_KEY or MPI_ERR_INFO_VALUE;
// `why` receives a fixed text naming the problem.
int validate_hint(const char *key, const char *value, AlgorithmLookup lookup, const char **why);

// MPIX_PPN (environment only, read by MPIX_Comm_init): ranks per emulated node,
// an integer >= 0 (0: the real nodes), as MPIX_Comm_update_locality takes it.
// MPI_SUCCESS or MPI_ERR_INFO_VALUE with `why` naming the problem.
int parse_emulated_ppn(const char *value, int *ppn, const char **why);

// Applies validated key/value strings onto typed hints.
void apply_hints(const std::map<std::string, std::string> &values, AlgorithmLookup lookup, Hints *hints);

}  // namespace mpix

// The opaque public info object: validated key/value strings.
struct MPIX_Info {
    std::map<std::string, std::string> values;
};

#endif
