// Selection tables: `auto` as data. A table lists, per collective, ordered
// rules; each rule has conditions on values every rank agrees on and names a
// registry row with hint values. The built-in table (src/select/default_table.json,
// compiled in and installed under share/mpix/) is today's rule; a site's table
// (mpix-tune's output, hint `tuning_file` / MPIX_TUNING_FILE) is tried first.
// The format is documented in docs/tuning.md ("Selection tables").
#ifndef MPIX_SELECT_TABLE_HPP
#define MPIX_SELECT_TABLE_HPP

#include <mpi.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/hints.hpp"

namespace mpix {

// What a rule may test. Static facts are known on every rank without
// communication; agreed ones cost a reduction, so a call computes them only when
// a rule that could win tests them.
enum class Fact {
    ranks,               // P
    nodes,               // node (locality) count
    ranks_per_node,      // floor(P / nodes)
    max_ranks_per_node,  // ranks on the largest node
    uneven_nodes,        // 1 when nodes hold different rank counts
    block_bytes,         // alltoall: the block size
    recv_nnz_known,      // crs: the hint promises the exact source count
    in_place,            // alltoall(v): 1 when sendbuf is MPI_IN_PLACE (every rank passes it or none)
    persistent,          // alltoall(v): 1 for a persistent request (MPIX_Alltoall(v)_init), picked once at init
    mean_block_bytes,    // alltoallv, agreed: the largest per-rank mean block to the other ranks
    max_block_bytes,     // alltoallv, agreed: the largest block any rank sends
    max_remote_sends,    // crs, agreed: the most messages a rank sends to other nodes
    max_offnode_blocks,  // neighbor_alltoallv, agreed: the most blocks a rank sends off its node
};
constexpr int kFacts = 13;
constexpr int kFirstAgreedFact = static_cast<int>(Fact::mean_block_bytes);

// The values of one call; agreed ones are meaningful only once computed.
struct SelectionFacts {
    unsigned long long value[kFacts] = {};
    void set(Fact f, unsigned long long v) { value[static_cast<int>(f)] = v; }
};

// The static facts of a communicator shape: P, the node count, and the ranks
// on its largest and smallest node.
void node_facts(int size, int nnodes, int largest, int smallest, SelectionFacts *facts);
// The same when only P and the node count are known (nodes as equal as P allows).
void shape_facts(int size, int nnodes, SelectionFacts *facts);

using RuleHints = std::map<std::string, std::string>;  // validated hint strings

struct TableRule {
    unsigned mask = 0;  // bit per Fact tested
    unsigned long long min[kFacts] = {}, max[kFacts] = {};
    const Algorithm *algorithm = nullptr;
    RuleHints hints;
    bool matches_static(const SelectionFacts &f) const;
    bool tests_agreed() const { return (mask >> kFirstAgreedFact) != 0; }
    bool matches(const SelectionFacts &f) const;
};

class SelectionTable {
public:
    // Parses and checks a table; MPI_SUCCESS or MPI_ERR_INFO_VALUE with `why`
    // naming `origin` (the file), the rule and the field.
    static int parse(const std::string &text, const std::string &origin, AlgorithmLookup lookup,
                     std::unique_ptr<SelectionTable> *out, std::string *why);
    const std::vector<TableRule> &rules(Collective c) const { return rules_[static_cast<int>(c)]; }
    const std::string &origin() const { return origin_; }

private:
    std::vector<TableRule> rules_[kCollectives];
    std::string origin_;
};

// The tables a call consults, in order: the comm info's, the environment's, the
// built-in one (never null).
struct TableChain {
    const SelectionTable *site[2] = {nullptr, nullptr};
};

// The built-in table, parsed once per process (read-only afterwards).
const SelectionTable &builtin_table();
// The built-in table's JSON text (what share/mpix/selection-default.json holds).
const char *builtin_table_text();

// True when the first rule whose static conditions hold also tests agreed
// facts: the call must agree on them before `pick_rule`.
bool chain_needs_agreed(const TableChain &chain, Collective c, const SelectionFacts &facts);
// The first matching rule of the chain (the site tables, then the built-in one);
// nullptr only if even the built-in table has no rule that matches.
const TableRule *pick_rule(const TableChain &chain, Collective c, const SelectionFacts &facts);

// Reads a table file on rank 0 of `comm`, broadcasts its text, and parses it on
// every rank (collective; every rank returns the same result).
int load_table_file(MPI_Comm comm, const std::string &path, AlgorithmLookup lookup,
                    std::shared_ptr<const SelectionTable> *out, std::string *why);

// `base` with a rule's hints applied for every key the caller did not set
// (explicit hints beat the table): keys found in any of `explicit_sets` stay.
void apply_rule_hints(const RuleHints &rule_hints, AlgorithmLookup lookup,
                      const std::map<std::string, std::string> *const explicit_sets[], int nsets, Hints *hints);

}  // namespace mpix

#endif
