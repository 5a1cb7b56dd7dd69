// Selection tables: parsing, checking, loading (rank 0 reads, all parse) and
// the rule walk `auto` does per call.
#include "select/table.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "select/registry.hpp"

namespace mpix {

namespace {

using Json = nlohmann::json;

constexpr int kTableVersion = 1;
// A table is a few KiB; a bigger file is a wrong path, not a table.
constexpr long long kMaxTableBytes = 16ll << 20;
constexpr unsigned long long kUnbounded = ~0ULL;

struct FactName {
    const char *name;
    Fact fact;
    bool boolean;
    // Collectives whose calls know it, bit per Collective.
    unsigned collectives;
};

constexpr unsigned kAll = 0x1f;
constexpr unsigned bit(Collective c) { return 1u << static_cast<int>(c); }

const FactName kFactNames[] = {
    {"ranks", Fact::ranks, false, kAll},
    {"nodes", Fact::nodes, false, kAll},
    {"ranks_per_node", Fact::ranks_per_node, false, kAll},
    {"max_ranks_per_node", Fact::max_ranks_per_node, false, kAll},
    {"uneven_nodes", Fact::uneven_nodes, true, kAll},
    {"block_bytes", Fact::block_bytes, false, bit(Collective::alltoall)},
    {"recv_nnz_known", Fact::recv_nnz_known, true, bit(Collective::alltoall_crs) | bit(Collective::alltoallv_crs)},
    {"in_place", Fact::in_place, true, bit(Collective::alltoall) | bit(Collective::alltoallv)},
    {"persistent", Fact::persistent, true, bit(Collective::alltoall) | bit(Collective::alltoallv)},
    {"mean_block_bytes", Fact::mean_block_bytes, false, bit(Collective::alltoallv)},
    {"max_block_bytes", Fact::max_block_bytes, false, bit(Collective::alltoallv)},
    {"max_remote_sends", Fact::max_remote_sends, false,
     bit(Collective::alltoall_crs) | bit(Collective::alltoallv_crs)},
    {"max_offnode_blocks", Fact::max_offnode_blocks, false, bit(Collective::neighbor_alltoallv)},
};

// Hints a table may not set: they choose rows, name files, or are promises
// only the caller can make.
bool tunable_hint(const std::string &key)
{
    static const std::string suffix = "_algorithm";
    const bool chooses_row = key.size() > suffix.size() &&
                             key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
    return !chooses_row && key != "trace" && key != "tuning_file" && key != "crs_recv_nnz_known" &&
           key != "crs_recv_size_known" && key != "async_progress" && key != "agreement_period";
}

bool reads_hint(const Algorithm *a, const std::string &key)
{
    std::string list = std::string(",") + (a->hint_keys ? a->hint_keys : "") + ",";
    return list.find("," + key + ",") != std::string::npos;
}

// A rule's failure text: "tuning file 'F': alltoallv rule 3, field 'when.ranks': ..."
class Where {
public:
    Where(const std::string &origin, const std::string &coll, std::size_t rule)
        : prefix_(origin + ": " + coll + " rule " + std::to_string(rule + 1))
    {
    }
    std::string field(const std::string &name, const std::string &problem) const
    {
        return prefix_ + ", field '" + name + "': " + problem;
    }
    std::string rule(const std::string &problem) const { return prefix_ + ": " + problem; }

private:
    std::string prefix_;
};

bool non_negative_integer(const Json &v, unsigned long long *out)
{
    if (v.is_number_unsigned()) {
        *out = v.get<unsigned long long>();
        return true;
    }
    if (v.is_number_integer() && v.get<long long>() >= 0) {
        *out = static_cast<unsigned long long>(v.get<long long>());
        return true;
    }
    return false;
}

bool parse_condition(const Json &v, const FactName &f, const Where &where, TableRule *rule, std::string *why)
{
    const int i = static_cast<int>(f.fact);
    const std::string field = std::string("when.") + f.name;
    unsigned long long lo = 0, hi = kUnbounded;
    if (f.boolean) {
        if (!v.is_boolean()) {
            *why = where.field(field, "not true or false");
            return false;
        }
        lo = hi = v.get<bool>() ? 1 : 0;
    } else if (v.is_object()) {
        if (v.empty()) {
            *why = where.field(field, "an empty range (give \"min\", \"max\" or both)");
            return false;
        }
        for (auto it = v.begin(); it != v.end(); ++it) {
            unsigned long long n = 0;
            if (it.key() != "min" && it.key() != "max") {
                *why = where.field(field + "." + it.key(), "unknown (a range has \"min\" and \"max\")");
                return false;
            }
            if (!non_negative_integer(it.value(), &n)) {
                *why = where.field(field + "." + it.key(), "not a non-negative integer");
                return false;
            }
            (it.key() == "min" ? lo : hi) = n;
        }
        if (lo > hi) {
            *why = where.field(field, "min is greater than max");
            return false;
        }
    } else if (!non_negative_integer(v, &lo)) {
        *why = where.field(field, "not a non-negative integer or a {\"min\", \"max\"} range");
        return false;
    } else {
        hi = lo;
    }
    rule->mask |= 1u << i;
    rule->min[i] = lo;
    rule->max[i] = hi;
    return true;
}

bool parse_hints(const Json &v, const Where &where, AlgorithmLookup lookup, TableRule *rule, std::string *why)
{
    if (!v.is_object()) {
        *why = where.field("hints", "not an object of hint keys and values");
        return false;
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string field = "hints." + it.key();
        std::string value;
        if (it.value().is_string())
            value = it.value().get<std::string>();
        else if (it.value().is_number_integer())
            value = std::to_string(it.value().get<long long>());
        else if (it.value().is_boolean())
            value = it.value().get<bool>() ? "true" : "false";
        else {
            *why = where.field(field, "not a string, an integer or a boolean");
            return false;
        }
        if (!find_hint_key(it.key().c_str())) {
            *why = where.field(field, "unknown hint key");
            return false;
        }
        if (!tunable_hint(it.key())) {
            *why = where.field(field, "not a hint a table may set (it chooses rows, names files, is a caller's promise or the communicator's)");
            return false;
        }
        if (!reads_hint(rule->algorithm, it.key())) {
            *why = where.field(field, std::string("not read by '") + rule->algorithm->name + "' (it reads: " +
                                          (*rule->algorithm->hint_keys ? rule->algorithm->hint_keys : "none") + ")");
            return false;
        }
        const char *problem = nullptr;
        if (validate_hint(it.key().c_str(), value.c_str(), lookup, &problem) != MPI_SUCCESS) {
            *why = where.field(field, std::string("'") + value + "': " + problem);
            return false;
        }
        rule->hints[it.key()] = value;
    }
    return true;
}

bool parse_rule(const Json &r, Collective c, const Where &where, AlgorithmLookup lookup, TableRule *rule,
                std::string *why)
{
    if (!r.is_object()) {
        *why = where.rule("not an object");
        return false;
    }
    for (auto it = r.begin(); it != r.end(); ++it)
        if (it.key() != "when" && it.key() != "algorithm" && it.key() != "hints" && it.key() != "measured" &&
            it.key() != "note") {
            *why = where.field(it.key(), "unknown (a rule has when, algorithm, hints, measured, note)");
            return false;
        }
    auto alg = r.find("algorithm");
    if (alg == r.end() || !alg->is_string()) {
        *why = where.field("algorithm", alg == r.end() ? "missing" : "not a string");
        return false;
    }
    const std::string name = alg->get<std::string>();
    rule->algorithm = lookup(c, name.c_str());
    if (!rule->algorithm) {
        *why = where.field("algorithm", "'" + name + "' is not a " + collective_name(c) + " algorithm");
        return false;
    }
    auto when = r.find("when");
    if (when != r.end()) {
        if (!when->is_object()) {
            *why = where.field("when", "not an object of conditions");
            return false;
        }
        for (auto it = when->begin(); it != when->end(); ++it) {
            const FactName *f = nullptr;
            for (const FactName &n : kFactNames)
                if (it.key() == n.name)
                    f = &n;
            if (!f) {
                *why = where.field("when." + it.key(), "unknown condition");
                return false;
            }
            if (!(f->collectives & bit(c))) {
                *why = where.field("when." + it.key(), std::string("not known to ") + collective_name(c) + " calls");
                return false;
            }
            if (!parse_condition(it.value(), *f, where, rule, why))
                return false;
        }
    }
    auto hints = r.find("hints");
    return hints == r.end() || parse_hints(*hints, where, lookup, rule, why);
}

// True when every call `later` matches is matched by `earlier` first.
bool covers(const TableRule &earlier, const TableRule &later)
{
    for (int i = 0; i < kFacts; ++i) {
        if (!(earlier.mask & (1u << i)))
            continue;
        const unsigned long long lo = (later.mask & (1u << i)) ? later.min[i] : 0;
        const unsigned long long hi = (later.mask & (1u << i)) ? later.max[i] : kUnbounded;
        if (lo < earlier.min[i] || hi > earlier.max[i])
            return false;
    }
    return true;
}

}  // namespace

bool TableRule::matches_static(const SelectionFacts &f) const
{
    for (int i = 0; i < kFirstAgreedFact; ++i)
        if ((mask & (1u << i)) && (f.value[i] < min[i] || f.value[i] > max[i]))
            return false;
    return true;
}

bool TableRule::matches(const SelectionFacts &f) const
{
    for (int i = 0; i < kFacts; ++i)
        if ((mask & (1u << i)) && (f.value[i] < min[i] || f.value[i] > max[i]))
            return false;
    return true;
}

void node_facts(int size, int nnodes, int largest, int smallest, SelectionFacts *facts)
{
    nnodes = std::max(nnodes, 1);
    facts->set(Fact::ranks, static_cast<unsigned long long>(size));
    facts->set(Fact::nodes, static_cast<unsigned long long>(nnodes));
    facts->set(Fact::ranks_per_node, static_cast<unsigned long long>(size / nnodes));
    facts->set(Fact::max_ranks_per_node, static_cast<unsigned long long>(largest));
    facts->set(Fact::uneven_nodes, largest != smallest ? 1 : 0);
}

void shape_facts(int size, int nnodes, SelectionFacts *facts)
{
    nnodes = std::max(1, std::min(nnodes, std::max(size, 1)));
    node_facts(size, nnodes, (size + nnodes - 1) / nnodes, size / nnodes, facts);
}

int SelectionTable::parse(const std::string &text, const std::string &origin, AlgorithmLookup lookup,
                          std::unique_ptr<SelectionTable> *out, std::string *why)
{
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::exception &e) {  // names the byte where parsing stopped
        *why = origin + ": not JSON: " + e.what();
        return MPI_ERR_INFO_VALUE;
    }
    if (!doc.is_object()) {
        *why = origin + ": not a JSON object";
        return MPI_ERR_INFO_VALUE;
    }
    auto version = doc.find("mpix_selection_table");
    unsigned long long v = 0;
    if (version == doc.end() || !non_negative_integer(*version, &v) || v != kTableVersion) {
        *why = origin + ", field 'mpix_selection_table': " +
               (version == doc.end() ? std::string("missing (the format version, 1)")
                                     : "format version " + version->dump() + " is not supported (this library reads 1)");
        return MPI_ERR_INFO_VALUE;
    }
    std::unique_ptr<SelectionTable> t(new SelectionTable());
    t->origin_ = origin;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        const std::string &key = it.key();
        if (key == "mpix_selection_table" || key == "description" || key == "generated")
            continue;
        Collective c;
        if (!collective_from_name(key.c_str(), &c)) {
            *why = origin + ", field '" + key +
                   "': unknown (a table has mpix_selection_table, description, generated and collective names)";
            return MPI_ERR_INFO_VALUE;
        }
        if (!it.value().is_array()) {
            *why = origin + ", field '" + key + "': not an array of rules";
            return MPI_ERR_INFO_VALUE;
        }
        std::vector<TableRule> &rules = t->rules_[static_cast<int>(c)];
        for (std::size_t i = 0; i < it.value().size(); ++i) {
            const Where where(origin, key, i);
            TableRule rule;
            if (!parse_rule(it.value()[i], c, where, lookup, &rule, why))
                return MPI_ERR_INFO_VALUE;
            for (std::size_t j = 0; j < rules.size(); ++j)
                if (covers(rules[j], rule)) {
                    *why = where.rule("never used: rule " + std::to_string(j + 1) +
                                      " matches every call it matches (rules are tried in order)");
                    return MPI_ERR_INFO_VALUE;
                }
            rules.push_back(std::move(rule));
        }
    }
    *out = std::move(t);
    return MPI_SUCCESS;
}

const char *builtin_table_text()
{
    return
#include "src/select/default_table.inc"
        ;
}

const SelectionTable &builtin_table()
{
    // Parsed once (thread-safe static); the text is tested at build time
    // (test/test_table.cpp), so a failure here is a build defect: the table is
    // then empty and selection falls back to each collective's safe row.
    static const std::unique_ptr<SelectionTable> table = [] {
        std::unique_ptr<SelectionTable> t;
        std::string why;
        if (SelectionTable::parse(builtin_table_text(), "built-in table", find_algorithm, &t, &why) != MPI_SUCCESS)
            t.reset(new SelectionTable());
        return t;
    }();
    return *table;
}

bool chain_needs_agreed(const TableChain &chain, Collective c, const SelectionFacts &facts)
{
    const SelectionTable *tables[3] = {chain.site[0], chain.site[1], &builtin_table()};
    for (const SelectionTable *t : tables)
        if (t)
            for (const TableRule &r : t->rules(c))
                if (r.matches_static(facts))
                    return r.tests_agreed();  // else this rule wins whatever the agreed values
    return false;
}

const TableRule *pick_rule(const TableChain &chain, Collective c, const SelectionFacts &facts)
{
    const SelectionTable *tables[3] = {chain.site[0], chain.site[1], &builtin_table()};
    for (const SelectionTable *t : tables)
        if (t)
            for (const TableRule &r : t->rules(c))
                if (r.matches(facts))
                    return &r;
    return nullptr;
}

namespace {

// The file's text, read only up to the size limit, so a device (/dev/zero) or
// a huge file cannot stall or exhaust rank 0; *ok = 1 when it is the text,
// else the text is the reason.
std::string read_bounded(const std::string &path, const std::string &origin, long long *ok)
{
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        return origin + ": a directory, not a selection table";
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return origin + ": cannot be read (" + std::strerror(errno) + ")";
    std::string text;
    char chunk[65536];
    while (in && static_cast<long long>(text.size()) <= kMaxTableBytes) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    }
    if (static_cast<long long>(text.size()) > kMaxTableBytes)
        return origin + ": larger than 16 MiB, not a selection table";
    if (in.bad())
        return origin + ": cannot be read";
    *ok = 1;
    return text;
}

}  // namespace

int load_table_file(MPI_Comm comm, const std::string &path, AlgorithmLookup lookup,
                    std::shared_ptr<const SelectionTable> *out, std::string *why)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const std::string origin = "tuning file '" + path + "'";
    // Rank 0 reads; the others learn the text or the failure from it.
    std::string text;
    long long header[2] = {0, 0};  // {readable, length}
    if (rank == 0) {
        text = read_bounded(path, origin, &header[0]);
        header[1] = static_cast<long long>(text.size());
    }
    int rc = MPI_Bcast(header, 2, MPI_LONG_LONG, 0, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    text.resize(static_cast<std::size_t>(header[1]));
    if (header[1] > 0 && (rc = MPI_Bcast(&text[0], static_cast<int>(header[1]), MPI_CHAR, 0, comm)) != MPI_SUCCESS)
        return rc;
    if (!header[0]) {
        *why = text;
        return MPI_ERR_INFO_VALUE;
    }
    std::unique_ptr<SelectionTable> t;
    rc = SelectionTable::parse(text, origin, lookup, &t, why);
    if (rc == MPI_SUCCESS)
        *out = std::move(t);
    return rc;
}

void apply_rule_hints(const RuleHints &rule_hints, AlgorithmLookup lookup,
                      const std::map<std::string, std::string> *const explicit_sets[], int nsets, Hints *hints)
{
    std::map<std::string, std::string> chosen;
    for (const auto &kv : rule_hints) {
        bool given = false;
        for (int i = 0; i < nsets && !given; ++i)
            given = explicit_sets[i] && explicit_sets[i]->count(kv.first);
        if (!given)
            chosen.insert(kv);
    }
    apply_hints(chosen, lookup, hints);
}

}  // namespace mpix
