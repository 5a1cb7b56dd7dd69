// Selection tables: the built-in table against today's rule written out here,
// parsing (valid, malformed, unknown names, overlapping and empty rules),
// loading (MPIX_TUNING_FILE, tuning_file), precedence, the same pick on every
// rank when ranks see different local statistics, and the data of every pick.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "exchange_cases.hpp"
#include "harness.hpp"
#include "mpix.h"
#include "select/registry.hpp"
#include "select/table.hpp"

namespace {

using mpix::Collective;

std::string error_text(int code)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPIX_Error_string(code, s, &len) != MPI_SUCCESS || len < 0)
        return "(MPIX_Error_string failed)";
    return std::string(s, static_cast<std::size_t>(len));
}

int error_class(int code)
{
    int c = code;
    MPI_Error_class(code, &c);
    return c;
}

// Parses `json` as a table; "" when it is accepted, else the error text.
std::string parse_error(const std::string &json)
{
    std::unique_ptr<mpix::SelectionTable> t;
    std::string why;
    int rc = mpix::SelectionTable::parse(json, "tuning file 't.json'", mpix::find_algorithm, &t, &why);
    if (rc == MPI_SUCCESS)
        return t ? "" : "(accepted without a table)";
    return rc == MPI_ERR_INFO_VALUE ? why : "(wrong class) " + why;
}

std::string table(const std::string &collectives)
{
    return "{\"mpix_selection_table\": 1, " + collectives + "}";
}

// Table files written by rank 0 in a fresh shared directory, removed at the end.
class TableFiles {
public:
    TableFiles() : dir_(mpixtest::shared_temp_dir()) {}
    ~TableFiles()
    {
        MPI_Barrier(MPI_COMM_WORLD);
        if (mpixtest::rank() == 0) {
            for (const std::string &f : files_)
                std::remove(f.c_str());
            std::remove(dir_.c_str());
        }
    }
    TableFiles(const TableFiles &) = delete;
    TableFiles &operator=(const TableFiles &) = delete;
    // Writes `text` (rank 0); its path on every rank.
    std::string write(const std::string &text)
    {
        std::string path = dir_ + "/table" + std::to_string(files_.size()) + ".json";
        files_.push_back(path);
        if (mpixtest::rank() == 0) {
            std::ofstream out(path);
            out << text;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        return path;
    }
    std::string missing() const { return dir_ + "/none.json"; }
    const std::string &dir() const { return dir_; }

private:
    std::string dir_;
    std::vector<std::string> files_;
};

// A send side of `bytes` per block, for select_algorithm.
mpix::UserSide bytes_side(int bytes)
{
    mpix::UserSide u = mpix::UserSide::uniform(nullptr, bytes, MPI_BYTE);
    u.info.size = 1;
    return u;
}

const char *ran(MPIX_Comm *xcomm, Collective c)
{
    const char *name = xcomm->last_algorithm[static_cast<int>(c)];
    return name ? name : "(none)";
}

// The registry index of what the last call ran, equal on every rank?
bool same_on_every_rank(MPIX_Comm *xcomm, Collective c)
{
    int index = 0, lowest = 0, highest = 0;
    while (mpix::algorithm_at(c, index) && std::strcmp(mpix::algorithm_at(c, index)->name, ran(xcomm, c)))
        ++index;
    MPI_Allreduce(&index, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&index, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lowest == highest;
}

// (With an agreement of auto's MPIX_Alltoallv statistics every call, so each
// pick is on the previous call's values, as the tests below name them, unless
// more_key sets agreement_period: test_agreement_schedule.)
int set_tuning_file(MPIX_Comm *xcomm, const std::string &path, const char *more_key = nullptr,
                    const char *more_value = nullptr)
{
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "tuning_file", path.c_str());
    MPIX_Info_set(info, "agreement_period", "1");
    if (more_key)
        MPIX_Info_set(info, more_key, more_value);
    int rc = MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
    return rc;
}

// Today's rule (before tables), written out independently of the built-in
// table: the table must pick exactly this everywhere, so it is never worse.
std::string todays_alltoall(int p, int nodes, unsigned long long block, bool in_place, bool persistent)
{
    if (p == 1 && block <= 16384)  // measured natively: a memcpy beats MPICH's self-exchange
        return "pairwise";
    if (p == 2 && persistent && (in_place || block <= 4096))  // MPICH's persistent collective, measured natively
        return "pmpi";
    if (p == 2 && in_place)  // MPICH's in-place exchange sends nothing to itself
        return block <= 4096 ? "pmpi" : "pairwise";
    if (p == 2 && block <= 32768)  // measured natively: MPICH sends the own block to itself up to 32 KiB
        return "pairwise";
    if (p < 8)
        return "pmpi";
    if (nodes <= 1 && p == 8 && block <= 64)  // one node of 8 ranks, tiny blocks: MPICH's own, measured natively
        return "pmpi";
    if (nodes <= 1 && p <= 16)  // one node of up to 16 ranks: measured natively
        return block <= 1024 ? "bruck_zero_rotation" : block <= 8192 ? "randomized_sendrecv" : "pmpi";
    if (nodes >= 2 && nodes <= 4 && p / nodes >= 64 && block >= 1024 && block <= 4096)
        return "locality_aware";  // with todays_leaders_per_node
    if (nodes >= 2 && nodes <= 4 && p / nodes >= 64 && block > 4096 && block <= 8192)
        return nodes == 2 ? "randomized_sendrecv" : "scattered";
    if (nodes <= 1 || p >= 4 * nodes)
        return "node_bruck";
    // Nodes of 1-3 ranks: the tuned fat-tree table's rules at one rank per node.
    if (p <= 32)
        return block <= 66 ? "pmpi" : block <= 3684 ? "bruck_zerocopy_dt" : "nonblocking";
    if (block <= 69)
        return "pmpi";
    if (block <= (p <= 64 ? 1402u : 632u))  // above 64 ranks: held back at P=256 (radix 8 wins from ~632 B)
        return "bruck_zerocopy_dt";
    if (block <= 4956)
        return "bruck_radix";
    if (block <= 16389)
        return "randomized_sendrecv";
    return p <= 64 ? "nonblocking" : "pmpi";
}

// The radix of today's bruck_radix picks on nodes of 1-3 ranks: 4 as measured at
// P=64, 8 above 64 ranks (P=256, 2 KiB: 233.0 us against radix 4's 262.3).
int todays_bruck_radix(int p) { return p <= 64 ? 4 : 8; }

// The radix hint of today's parlogna picks on nodes of 1-3 ranks ("" for its own,
// ceil(sqrt(P))): its own up to 32 ranks; from 33 ranks radix 4 to a 1235 B mean as
// measured at P=64, above 64 ranks to 668 B (P=256: its own 118.4 us at a 1137 B
// mean, radix 4 140.8).
std::string todays_parlogna_radix(int p, unsigned long long mean)
{
    if (p <= 32)
        return "";
    return mean <= (p <= 64 ? 1235u : 668u) ? "4" : "";
}

// The group count of today's locality_aware picks: a sixteenth of the node up to
// 2 KiB blocks, then groups of 16 ranks to 4 KiB (a quarter of a node of 64-127,
// an eighth of one of 128+).
int todays_leaders_per_node(int p, int nodes, unsigned long long block)
{
    return block <= 2048 ? 16 : p / nodes >= 128 ? 8 : 4;
}

std::string todays_alltoallv(int p, int nodes, unsigned long long mean, bool in_place, bool persistent)
{
    if (p == 1)
        return "pairwise";
    if (p == 2 && persistent && mean <= 4096)  // MPICH's persistent collective, measured natively
        return "pmpi";
    if (p == 2)  // measured natively: MPICH's MPI_Alltoallv sends the own block to itself, but not in place
        return in_place ? "pmpi" : "pairwise";
    if (p < 8)
        return "pmpi";
    if (nodes <= 1 && p <= 16)  // one node of up to 16 ranks, measured natively: MPICH's own to a 96 B mean
        return mean <= 96 ? "pmpi" : "randomized_sendrecv";
    if (nodes <= 1)
        return "node_bruck";
    if (nodes <= 4 && p / nodes >= 32)
        return "node_bruck_adaptive";  // picks by the volumes node_bruck's own messages agree
    if (p >= 4 * nodes)
        return "node_bruck";
    // Nodes of 1-3 ranks: the tuned fat-tree table's rules at one rank per node.
    if (p <= 32)
        return mean <= 365 ? "two_phase_bruck" : mean <= 5949 ? "parlogna" : "nonblocking";
    if (mean <= 259)
        return "two_phase_bruck";
    if (mean <= 7482)
        return "parlogna";  // radix 4 to 1235 B (above 64 ranks to 668 B), then its own: todays_parlogna_radix
    return p <= 64 ? "nonblocking" : "pmpi";
}

// The hint `key` of the built-in rule that auto picks at P ranks on `nodes` nodes
// for `bytes` (alltoall's block; alltoallv's agreed mean, and largest block alike),
// with the facts auto_alltoall_rule and auto_alltoallv_rule set: "" where the rule
// has no such hint, "(no rule)" where none matched.
std::string builtin_hint(Collective coll, int p, int nodes, unsigned long long bytes, const char *key)
{
    mpix::SelectionFacts f;
    mpix::shape_facts(p, nodes, &f);
    f.set(mpix::Fact::in_place, 0);
    f.set(mpix::Fact::persistent, 0);
    if (coll == Collective::alltoall) {
        f.set(mpix::Fact::block_bytes, bytes);
    } else {
        f.set(mpix::Fact::mean_block_bytes, bytes);
        f.set(mpix::Fact::max_block_bytes, bytes);
    }
    const mpix::TableRule *rule = mpix::pick_rule(mpix::TableChain(), coll, f);
    if (!rule)
        return "(no rule)";
    auto h = rule->hints.find(key);
    return h == rule->hints.end() ? "" : h->second;
}

void test_builtin_is_todays_rule()
{
    // It parses, and every collective ends with a rule that always matches.
    std::unique_ptr<mpix::SelectionTable> t;
    std::string why;
    CU_ASSERT_EQUAL_FATAL(mpix::SelectionTable::parse(mpix::builtin_table_text(), "built-in", mpix::find_algorithm,
                                                      &t, &why),
                          MPI_SUCCESS);
    for (int c = 0; c < mpix::kCollectives; ++c) {
        const auto &rules = mpix::builtin_table().rules(static_cast<Collective>(c));
        MPIX_EXPECT(!rules.empty() && rules.back().mask == 0,
                    std::string(mpix::collective_name(static_cast<Collective>(c))) + ": no catch-all last rule");
    }
    long checked = 0;
    for (int p = 1; p <= 4096; p = p < 40 ? p + 1 : p * 2 - 1)
        for (int nodes = 1; nodes <= p; nodes = nodes < 8 ? nodes + 1 : nodes * 3)
            for (unsigned long long b : {0ull, 1ull, 31ull, 32ull, 33ull, 66ull, 67ull, 69ull, 70ull, 128ull, 129ull, 255ull,
                                         256ull, 257ull, 259ull, 260ull, 365ull, 366ull, 632ull, 633ull, 668ull, 669ull,
                                         767ull, 768ull, 769ull, 1024ull, 1025ull, 1235ull, 1236ull, 1402ull, 1403ull, 2048ull, 2049ull, 3684ull, 3685ull, 4096ull, 4097ull,
                                         4956ull, 4957ull, 5949ull, 5950ull, 7482ull, 7483ull, 8192ull, 8193ull, 16384ull,
                                         16385ull, 16389ull, 16390ull, 32768ull, 32769ull, 1ull << 20}) {
                const std::string at = " P=" + std::to_string(p) + " nodes=" + std::to_string(nodes) + " " +
                                       std::to_string(b) + " B: ";
                if (std::string(mpix::auto_alltoallv_rule(p, nodes, b)->name) == "parlogna" && nodes > 1) {
                    const std::string got = builtin_hint(Collective::alltoallv, p, nodes, b, "radix");
                    const std::string want = todays_parlogna_radix(p, b);
                    MPIX_EXPECT(got == want, "alltoallv" + at + "parlogna radix '" + got + "', want '" + want + "'");
                }
                std::string a = mpix::auto_alltoall_rule(p, nodes, b)->name;
                if (a == "bruck_radix") {  // and its radix
                    const std::string want = std::to_string(todays_bruck_radix(p));
                    MPIX_EXPECT(builtin_hint(Collective::alltoall, p, nodes, b, "radix") == want,
                                "alltoall" + at + "radix not " + want);
                }
                if (a == "locality_aware") {  // and its group count
                    const std::string want = std::to_string(todays_leaders_per_node(p, nodes, b));
                    MPIX_EXPECT(builtin_hint(Collective::alltoall, p, nodes, b, "leaders_per_node") == want,
                                "alltoall" + at + "leaders_per_node not " + want);
                }
                // Ordinary calls, MPI_IN_PLACE and persistent requests (1 and 2
                // ranks differ, the rest alike).
                for (bool in_place : {false, true})
                    for (bool persistent : {false, true}) {
                        const std::string where = std::string(in_place ? " in place" : "") +
                                                  (persistent ? " persistent" : "") + " P=" + std::to_string(p) +
                                                  " nodes=" + std::to_string(nodes) + " " + std::to_string(b) +
                                                  " B: table ";
                        const std::string ai = mpix::auto_alltoall_rule(p, nodes, b, in_place, persistent)->name;
                        const std::string vi = mpix::auto_alltoallv_rule(p, nodes, b, in_place, persistent)->name;
                        const std::string want_a = todays_alltoall(p, nodes, b, in_place, persistent);
                        const std::string want_v = todays_alltoallv(p, nodes, b, in_place, persistent);
                        MPIX_EXPECT(ai == want_a, "alltoall" + where + ai + ", today " + want_a);
                        MPIX_EXPECT(vi == want_v, "alltoallv" + where + vi + ", today " + want_v);
                    }
                // nodes of 1-3 ranks, and one node of 8-16 ranks: bands of the agreed mean
                bool needs = p >= 8 && ((nodes > 1 && p < 4 * nodes) || (nodes == 1 && p <= 16));
                MPIX_EXPECT(mpix::auto_alltoallv_needs_mean(p, nodes) == needs,
                            "agreement needed at P=" + std::to_string(p) + " nodes=" + std::to_string(nodes));
                ++checked;
            }
    // Sparse and neighbour rules.
    mpix::Hints h;
    for (int nodes = 1; nodes <= 64; nodes *= 2)
        for (long long sends : {0LL, 16LL, 17LL, 100LL})
            for (bool known : {false, true}) {
                h.crs_recv_nnz_known = known;
                std::string want = known ? "personalized" : nodes >= 4 && sends > 16 ? "nonblocking_locality"
                                                                                     : "nonblocking";
                for (Collective c : {Collective::alltoall_crs, Collective::alltoallv_crs}) {
                    std::string got = mpix::select_sparse_algorithm(c, h, 64, nodes, sends)->name;
                    MPIX_EXPECT(got == want, std::string(mpix::collective_name(c)) + " nodes " +
                                                 std::to_string(nodes) + " sends " + std::to_string(sends) + ": " +
                                                 got + ", today " + want);
                }
                std::string nb = mpix::auto_neighbor_rule(nodes, sends)->name;
                MPIX_EXPECT(nb == (nodes > 1 && sends >= 16 ? "locality" : "standard"),
                            "neighbor nodes " + std::to_string(nodes) + " blocks " + std::to_string(sends) + ": " + nb);
            }
    MPIX_EXPECT(checked > 1000, "too few grid points");
    MPIX_CHECK_ALL("the built-in table picks today's rule at every grid point");
}

void test_parse_valid()
{
    const std::string ok = table(
        "\"description\": \"x\", \"generated\": {\"by\": \"hand\"},"
        "\"alltoall\": [{\"when\": {\"ranks\": {\"min\": 8, \"max\": 64}, \"nodes\": 2, \"uneven_nodes\": false,"
        "  \"block_bytes\": {\"max\": 128}, \"ranks_per_node\": {\"min\": 4}, \"max_ranks_per_node\": {\"max\": 32}},"
        "  \"algorithm\": \"bruck_radix\", \"hints\": {\"radix\": 4}, \"measured\": {\"margin\": 1.2}, \"note\": \"n\"},"
        " {\"when\": {\"ranks\": {\"min\": 8, \"max\": 64}}, \"algorithm\": \"scattered\", \"hints\": {\"batch_size\": \"16\"}},"
        " {\"algorithm\": \"multileader\", \"hints\": {\"inner\": \"pairwise\", \"leaders_per_node\": 2}}],"
        "\"alltoallv\": [{\"when\": {\"in_place\": true}, \"algorithm\": \"pairwise\"},"
        "  {\"when\": {\"persistent\": true}, \"algorithm\": \"scattered\"},"
        "  {\"when\": {\"mean_block_bytes\": {\"max\": 100}, \"max_block_bytes\": {\"min\": 1}},"
        "  \"algorithm\": \"parlogna\", \"hints\": {\"radix\": 8, \"batch_size\": 4}}],"
        "\"alltoall_crs\": [{\"when\": {\"recv_nnz_known\": true, \"max_remote_sends\": {\"min\": 3}},"
        "  \"algorithm\": \"personalized_locality\", \"hints\": {\"locality\": \"socket\"}}],"
        "\"alltoallv_crs\": [],"
        "\"neighbor_alltoallv\": [{\"when\": {\"max_offnode_blocks\": {\"min\": 2}}, \"algorithm\": \"locality\"}]");
    MPIX_EXPECT(parse_error(ok).empty(), "a valid table refused: " + parse_error(ok));

    std::unique_ptr<mpix::SelectionTable> t;
    std::string why;
    CU_ASSERT_EQUAL_FATAL(mpix::SelectionTable::parse(ok, "t", mpix::find_algorithm, &t, &why), MPI_SUCCESS);
    const auto &rules = t->rules(Collective::alltoall);
    CU_ASSERT_EQUAL_FATAL(rules.size(), 3u);
    MPIX_EXPECT(std::string(rules[0].algorithm->name) == "bruck_radix" && rules[0].hints.at("radix") == "4",
                "rule 1's row or radix");
    MPIX_EXPECT(rules[1].hints.at("batch_size") == "16", "a string hint value");
    // Conditions: the first rule holds at P=16 on 2 nodes of 8 and 128 B blocks only.
    mpix::SelectionFacts f;
    mpix::shape_facts(16, 2, &f);
    f.set(mpix::Fact::block_bytes, 128);
    MPIX_EXPECT(rules[0].matches(f), "rule 1 should hold at P=16, 2 nodes, 128 B");
    f.set(mpix::Fact::block_bytes, 129);
    MPIX_EXPECT(!rules[0].matches(f) && rules[1].matches(f), "129 B: rule 2, not rule 1");
    mpix::shape_facts(15, 2, &f);  // nodes of 8 and 7: uneven
    f.set(mpix::Fact::block_bytes, 1);
    MPIX_EXPECT(!rules[0].matches(f), "uneven nodes must not match uneven_nodes false");
    // An empty rule list falls through to the built-in table; so does no match.
    MPIX_EXPECT(t->rules(Collective::alltoallv_crs).empty(), "alltoallv_crs: []");
    mpix::TableChain chain;
    chain.site[0] = t.get();
    mpix::SelectionFacts g;
    mpix::shape_facts(64, 1, &g);
    const mpix::TableRule *r = mpix::pick_rule(chain, Collective::alltoallv_crs, g);
    MPIX_EXPECT(r && std::string(r->algorithm->name) == "nonblocking", "an empty list: the built-in pick");
    g.set(mpix::Fact::mean_block_bytes, 500);
    r = mpix::pick_rule(chain, Collective::alltoallv, g);
    MPIX_EXPECT(r && std::string(r->algorithm->name) == "node_bruck", "no site rule matches: the built-in pick");
    g.set(mpix::Fact::mean_block_bytes, 50);
    g.set(mpix::Fact::max_block_bytes, 70);
    r = mpix::pick_rule(chain, Collective::alltoallv, g);
    MPIX_EXPECT(r && std::string(r->algorithm->name) == "parlogna", "the site rule first");
    g.set(mpix::Fact::in_place, 1);
    r = mpix::pick_rule(chain, Collective::alltoallv, g);
    MPIX_EXPECT(r && std::string(r->algorithm->name) == "pairwise", "in_place true: the site's in-place rule");
    g.set(mpix::Fact::in_place, 0);
    g.set(mpix::Fact::persistent, 1);
    r = mpix::pick_rule(chain, Collective::alltoallv, g);
    MPIX_EXPECT(r && std::string(r->algorithm->name) == "scattered", "persistent true: the site's persistent rule");
    g.set(mpix::Fact::persistent, 0);
    // Agreement only where the first statically matching rule tests agreed facts.
    MPIX_EXPECT(mpix::chain_needs_agreed(chain, Collective::alltoallv, g), "site alltoallv rule tests the mean");
    MPIX_EXPECT(!mpix::chain_needs_agreed(chain, Collective::alltoall, g), "alltoall tests no agreed fact");
    // Overlapping rules are allowed; the first that matches wins.
    const std::string overlap = table(
        "\"alltoall\": [{\"when\": {\"ranks\": {\"max\": 100}}, \"algorithm\": \"pairwise\"},"
        "{\"when\": {\"ranks\": {\"min\": 50}}, \"algorithm\": \"linear\"}]");
    CU_ASSERT_EQUAL_FATAL(mpix::SelectionTable::parse(overlap, "t", mpix::find_algorithm, &t, &why), MPI_SUCCESS);
    chain.site[0] = t.get();
    mpix::shape_facts(60, 1, &g);
    r = mpix::pick_rule(chain, Collective::alltoall, g);
    MPIX_EXPECT(r && std::string(r->algorithm->name) == "pairwise", "overlap: the first rule wins");
    mpix::shape_facts(101, 1, &g);
    r = mpix::pick_rule(chain, Collective::alltoall, g);
    MPIX_EXPECT(r && std::string(r->algorithm->name) == "linear", "overlap: the second rule past the first");
    MPIX_CHECK_ALL("valid tables: conditions, hints, order, empty lists, fall-through");
}

void test_parse_errors()
{
    struct Bad {
        std::string json, must_name;
    };
    const std::string r1 = "alltoall rule 1";
    const Bad bad[] = {
        {"{\"mpix_selection_table\": 1, \"alltoall\": [", "not JSON"},
        {"[1, 2]", "not a JSON object"},
        {"{\"alltoall\": []}", "'mpix_selection_table': missing"},
        {"{\"mpix_selection_table\": 2}", "version 2 is not supported"},
        {"{\"mpix_selection_table\": \"1\"}", "mpix_selection_table"},
        {table("\"alltoal\": []"), "field 'alltoal': unknown"},
        {table("\"alltoall\": {}"), "not an array of rules"},
        {table("\"alltoall\": [3]"), r1 + ": not an object"},
        {table("\"alltoall\": [{}]"), r1 + ", field 'algorithm': missing"},
        {table("\"alltoall\": [{\"algorithm\": 7}]"), "field 'algorithm': not a string"},
        {table("\"alltoall\": [{\"algorithm\": \"fastest\"}]"), "'fastest' is not a alltoall algorithm"},
        {table("\"alltoall\": [{\"algorithm\": \"parlogna\"}]"), "'parlogna' is not a alltoall algorithm"},
        {table("\"alltoallv\": [{\"algorithm\": \"pmpi\"}, {\"algorithm\": \"bruck_zero_rotation\"}]"),
         "alltoallv rule 2, field 'algorithm'"},
        {table("\"alltoall\": [{\"algoritm\": \"pmpi\"}]"), r1 + ", field 'algoritm': unknown"},
        {table("\"alltoall\": [{\"when\": [], \"algorithm\": \"pmpi\"}]"), "field 'when': not an object"},
        {table("\"alltoall\": [{\"when\": {\"rank\": 3}, \"algorithm\": \"pmpi\"}]"),
         "field 'when.rank': unknown condition"},
        {table("\"alltoallv\": [{\"when\": {\"block_bytes\": 3}, \"algorithm\": \"pmpi\"}]"),
         "field 'when.block_bytes': not known to alltoallv calls"},
        {table("\"alltoall\": [{\"when\": {\"ranks\": {\"min\": 9, \"max\": 8}}, \"algorithm\": \"pmpi\"}]"),
         "'when.ranks': min is greater than max"},
        {table("\"alltoall\": [{\"when\": {\"ranks\": -1}, \"algorithm\": \"pmpi\"}]"), "'when.ranks': not a non-negative"},
        {table("\"alltoall\": [{\"when\": {\"ranks\": 2.5}, \"algorithm\": \"pmpi\"}]"), "'when.ranks': not a non-negative"},
        {table("\"alltoall\": [{\"when\": {\"ranks\": {}}, \"algorithm\": \"pmpi\"}]"), "'when.ranks': an empty range"},
        {table("\"alltoall\": [{\"when\": {\"ranks\": {\"mn\": 2}}, \"algorithm\": \"pmpi\"}]"),
         "'when.ranks.mn': unknown"},
        {table("\"alltoall\": [{\"when\": {\"uneven_nodes\": 1}, \"algorithm\": \"pmpi\"}]"),
         "'when.uneven_nodes': not true or false"},
        {table("\"alltoallv\": [{\"when\": {\"in_place\": \"yes\"}, \"algorithm\": \"pmpi\"}]"),
         "'when.in_place': not true or false"},
        {table("\"alltoall_crs\": [{\"when\": {\"in_place\": true}, \"algorithm\": \"personalized\"}]"),
         "field 'when.in_place': not known to alltoall_crs calls"},
        {table("\"alltoall\": [{\"when\": {\"persistent\": 1}, \"algorithm\": \"pmpi\"}]"),
         "'when.persistent': not true or false"},
        {table("\"neighbor_alltoallv\": [{\"when\": {\"persistent\": true}, \"algorithm\": \"standard\"}]"),
         "field 'when.persistent': not known to neighbor_alltoallv calls"},
        {table("\"alltoall\": [{\"algorithm\": \"pmpi\", \"hints\": {\"radix\": 4}}]"),
         r1 + ", field 'hints.radix': not read by 'pmpi' (it reads: none)"},
        {table("\"alltoall\": [{\"algorithm\": \"bruck_radix\", \"hints\": {\"radix\": 1}}]"), "field 'hints.radix': '1'"},
        {table("\"alltoall\": [{\"algorithm\": \"bruck_radix\", \"hints\": {\"radx\": 4}}]"),
         "'hints.radx': unknown hint key"},
        {table("\"alltoall\": [{\"algorithm\": \"bruck_radix\", \"hints\": {\"radix\": 4.5}}]"),
         "'hints.radix': not a string, an integer or a boolean"},
        {table("\"alltoall\": [{\"algorithm\": \"bruck_radix\", \"hints\": [4]}]"), "field 'hints': not an object"},
        {table("\"alltoall\": [{\"algorithm\": \"pmpi\", \"hints\": {\"trace\": \"/tmp/x\"}}]"),
         "'hints.trace': not a hint a table may set"},
        {table("\"alltoall_crs\": [{\"algorithm\": \"personalized\", \"hints\": {\"crs_recv_nnz_known\": true}}]"),
         "'hints.crs_recv_nnz_known': not a hint a table may set"},
        {table("\"alltoall\": [{\"algorithm\": \"pmpi\", \"hints\": {\"alltoall_algorithm\": \"linear\"}}]"),
         "'hints.alltoall_algorithm': not a hint a table may set"},
        // Overlapping so that a rule can never be used.
        {table("\"alltoall\": [{\"algorithm\": \"pmpi\"}, {\"when\": {\"ranks\": 4}, \"algorithm\": \"linear\"}]"),
         "alltoall rule 2: never used: rule 1 matches every call it matches"},
        {table("\"alltoall\": [{\"when\": {\"ranks\": {\"max\": 100}}, \"algorithm\": \"pmpi\"},"
               "{\"when\": {\"ranks\": {\"min\": 5, \"max\": 9}, \"block_bytes\": 8}, \"algorithm\": \"linear\"}]"),
         "rule 2: never used: rule 1"},
        {table("\"alltoall\": [{\"when\": {\"nodes\": 1}, \"algorithm\": \"pmpi\"},"
               "{\"when\": {\"nodes\": 1}, \"algorithm\": \"linear\"}]"),
         "rule 2: never used"},
    };
    for (const Bad &b : bad) {
        std::string why = parse_error(b.json);
        MPIX_EXPECT(!why.empty(), "accepted: " + b.json);
        MPIX_EXPECT(why.rfind("(wrong class)", 0) != 0, "not MPI_ERR_INFO_VALUE: " + why);
        MPIX_EXPECT(why.find("tuning file 't.json'") != std::string::npos, "does not name the file: " + why);
        MPIX_EXPECT(why.find(b.must_name) != std::string::npos,
                    "'" + why + "' does not say '" + b.must_name + "' for " + b.json);
    }
    MPIX_CHECK_ALL("malformed, unknown and shadowed rules: MPI_ERR_INFO_VALUE naming file, rule and field");
}

// An alltoallv table of three bands on the agreed statistics: `small` up to a
// 40 B mean block, `medium` up to a 400 B largest block, scattered (batch 3) above.
std::string three_band_table(TableFiles *files, const char *small, const char *medium)
{
    return files->write(table(std::string("\"alltoallv\": [{\"when\": {\"mean_block_bytes\": {\"max\": 40}}, \"algorithm\": \"") +
                              small + "\"}, {\"when\": {\"max_block_bytes\": {\"max\": 400}}, \"algorithm\": \"" +
                              medium + "\"}, {\"algorithm\": \"scattered\", \"hints\": {\"batch_size\": 3}}]"));
}

// One MPIX_Alltoallv call of a sequence: block src -> dst is (src + 1) * scale / p
// bytes (rank p-1 has the largest mean, `scale` bytes, and the largest block),
// and the row every rank must run, picked on the previous call's values (the
// first call's on its own).
struct PickedCall {
    int scale;
    bool nonblocking;
    const char *want;
};

// Runs the calls in order, every byte checked, and each call's row on every rank.
void check_picks(MPIX_Comm *xcomm, const PickedCall *calls, int count)
{
    const int p = mpixtest::size();
    for (int k = 0; k < count; ++k) {
        const PickedCall &call = calls[k];
        const int scale = call.scale;
        std::string what = "call " + std::to_string(k) + " (scale " + std::to_string(scale) +
                           (call.nonblocking ? ", nonblocking)" : ")");
        mpixtest::exchange_and_check(xcomm, false, [&](int src, int) { return (src + 1) * scale / p; }, what,
                                     call.nonblocking);
        MPIX_EXPECT(same_on_every_rank(xcomm, Collective::alltoallv), what + ": ranks ran different rows");
        MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoallv)) == call.want,
                    what + ": ran " + ran(xcomm, Collective::alltoallv) + ", expected " + call.want);
    }
}

// check_picks on a communicator of its own, through the table at `path`.
void check_picks_through(const std::string &path, const PickedCall *calls, int count)
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, path), MPI_SUCCESS);
    check_picks(xcomm, calls, count);
    MPIX_Comm_free(&xcomm);
}

// Every rank's own blocks differ (rank r's blocks grow with r), so only the
// agreed maximum of the per-rank means can make every rank pick alike.
void test_identical_pick_with_local_differences()
{
    const int p = mpixtest::size();
    if (p < 2)
        return;
    TableFiles files;
    const std::string path = three_band_table(&files, "pairwise", "linear");
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, path), MPI_SUCCESS);
    const PickedCall calls[] = {{30, false, "pairwise"}, {300, false, "pairwise"}, {3000, false, "linear"},
                                {20, false, "scattered"}, {30, false, "pairwise"}};  // one call late
    check_picks(xcomm, calls, sizeof calls / sizeof calls[0]);
    // A persistent request agrees on its own call's values at init.
    std::vector<int> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p));
    const int me = mpixtest::rank();
    for (int j = 0; j < p; ++j) {
        counts[static_cast<std::size_t>(j)] = (me + 1) * 3000 / p;
        displs[static_cast<std::size_t>(j)] = j * 3000;
    }
    std::vector<int> rcounts(static_cast<std::size_t>(p));
    for (int j = 0; j < p; ++j)
        rcounts[static_cast<std::size_t>(j)] = (j + 1) * 3000 / p;
    std::vector<char> sb(static_cast<std::size_t>(p) * 3000, 1), rb(static_cast<std::size_t>(p) * 3000, 0);
    MPIX_Request *req = nullptr;
    CU_ASSERT_EQUAL_FATAL(MPIX_Alltoallv_init(sb.data(), counts.data(), displs.data(), MPI_BYTE, rb.data(),
                                              rcounts.data(), displs.data(), MPI_BYTE, xcomm, nullptr, &req),
                          MPI_SUCCESS);
    MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoallv)) == "scattered",
                std::string("persistent init ran ") + ran(xcomm, Collective::alltoallv));
    MPIX_EXPECT(same_on_every_rank(xcomm, Collective::alltoallv), "persistent: ranks picked different rows");
    MPIX_Request_free(&req);
    MPIX_CHECK_ALL("tables: the same row on every rank from agreed statistics");
    MPIX_Comm_free(&xcomm);
}

// auto's agreement schedule (select/registry.cpp, AgreedBlocks) at the default
// agreement_period, 16: an agreement that picks the rule of the one before
// doubles the calls to the next, so steady calls agree ever more rarely and
// pick on older values; one that picks another rule brings back an agreement
// every call. Rank r's blocks grow with r, so only agreed values pick alike.
void test_agreement_schedule()
{
    const int p = mpixtest::size();
    if (p < 2)
        return;
    TableFiles files;
    const std::string path = three_band_table(&files, "pairwise", "linear");
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, path, "agreement_period", "16"), MPI_SUCCESS);
    // Agreements after calls 0 and 2 (periods 1, 2, then 4): calls 4-6 pick on
    // call 2's values though their blocks are larger; call 6's own values come
    // with its turn, call 7 picks on them (another rule: agreed every call
    // again, then after call 9 only, which call 10 picks on).
    const PickedCall calls[] = {{30, false, "pairwise"},    {30, false, "pairwise"},    {30, false, "pairwise"},
                                {30, false, "pairwise"},    {3000, false, "pairwise"},  {3000, false, "pairwise"},
                                {3000, false, "pairwise"},  {3000, false, "scattered"}, {3000, false, "scattered"},
                                {30, false, "scattered"},   {30, false, "pairwise"},    {30, false, "pairwise"}};
    check_picks(xcomm, calls, sizeof calls / sizeof calls[0]);
    // Long steady: then a change is picked on within agreement_period + 1
    // calls, and the pick holds while the blocks do.
    for (int k = 0; k < 40; ++k) {
        const PickedCall steady = {30, false, "pairwise"};
        check_picks(xcomm, &steady, 1);
    }
    int switched_at = -1;
    for (int k = 0; k < 24; ++k) {
        const std::string what = "call " + std::to_string(k) + " after the change";
        mpixtest::exchange_and_check(xcomm, false, [&](int src, int) { return (src + 1) * 3000 / p; }, what);
        MPIX_EXPECT(same_on_every_rank(xcomm, Collective::alltoallv), what + ": ranks ran different rows");
        const std::string row = ran(xcomm, Collective::alltoallv);
        if (switched_at < 0 && row == "scattered")
            switched_at = k;
        MPIX_EXPECT(row == (switched_at >= 0 ? "scattered" : "pairwise"), what + ": ran " + row);
    }
    MPIX_EXPECT(switched_at >= 1 && switched_at <= 17,
                "the change was picked on " + std::to_string(switched_at) + " calls late (1 to 17 expected)");
    // Tables reloaded between calls (as mpix-tune --check does): the schedule
    // starts again, alike everywhere, though a new table's rules may sit where
    // an old one's did on some ranks (rank 0 reads the file) and not others.
    const std::string other = three_band_table(&files, "linear", "pairwise");
    for (int k = 0; k < 48; ++k) {
        CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, k % 3 == 2 ? other : path, "agreement_period", "16"),
                              MPI_SUCCESS);
        const int scale = k % 5 == 4 ? 3000 : 30;
        const std::string what = "reload " + std::to_string(k);
        mpixtest::exchange_and_check(xcomm, false, [&](int src, int) { return (src + 1) * scale / p; }, what);
        MPIX_EXPECT(same_on_every_rank(xcomm, Collective::alltoallv), what + ": ranks ran different rows");
    }
    MPIX_Comm_free(&xcomm);
    MPIX_CHECK_ALL("auto's agreements: rarer while the pick holds, every call after it changes, alike everywhere");
}

// The same agreement where a band's row carries it inside its own messages
// (two_phase_bruck and parlogna, in blocking calls) and the others' reduce it
// (MPI_Iallreduce, completed by the next call), in every order, nonblocking
// calls among them (they never carry it). Rank r's blocks grow with r: a value
// some rank missed makes the ranks pick different rows (calls 13, 15 and 16
// follow values that cross a border between ranks).
void test_agreement_carried_by_the_row()
{
    if (mpixtest::size() < 2)
        return;
    TableFiles files;
    const std::string path = three_band_table(&files, "two_phase_bruck", "parlogna");
    const PickedCall calls[] = {{30, false, "two_phase_bruck"},    // 0: carries 30
                                {3000, false, "two_phase_bruck"},  // carries 3000
                                {300, false, "scattered"},         // reduces 300
                                {3000, false, "parlogna"},         // carries 3000
                                {20, false, "scattered"},          // reduces 20
                                {30, false, "two_phase_bruck"},    // 5: carries 30
                                {300, false, "two_phase_bruck"},   // carries 300
                                {3000, true, "parlogna"},          // reduces 3000
                                {30, false, "scattered"},          // reduces 30
                                {30, false, "two_phase_bruck"},    // carries 30
                                {3000, true, "two_phase_bruck"},   // 10: reduces 3000
                                {20, false, "scattered"},          // reduces 20
                                {60, false, "two_phase_bruck"},    // carries 60: rank 0's own 60 / p <= 40
                                {300, false, "parlogna"},          // carries 300
                                {60, false, "parlogna"},           // carries 60
                                {600, false, "parlogna"},          // 15: carries 600: rank 0's own 600 / p <= 400
                                {30, false, "scattered"}};
    check_picks_through(path, calls, sizeof calls / sizeof calls[0]);
    MPIX_CHECK_ALL("tables: statistics agreed inside two_phase_bruck's and parlogna's messages, or reduced");
}

// parlogna carrying the values where its last digit's messages are large (the
// agreed mean block times that digit's blocks a message from 32 KiB): they go
// apart from the blocks then, 16 bytes a message, and by probe below (blocks
// of up to 160 KB a rank: 80000 is rank p-1's mean). A value some rank missed
// makes the ranks pick different rows; calls 6 and 9 carry values that cross
// the border between ranks.
void test_agreement_carried_apart_from_large_blocks()
{
    if (mpixtest::size() < 2)
        return;
    TableFiles files;
    const std::string path = files.write(table(
        "\"alltoallv\": [{\"when\": {\"mean_block_bytes\": {\"max\": 40}}, \"algorithm\": \"two_phase_bruck\"}, "
        "{\"algorithm\": \"parlogna\"}]"));
    const PickedCall calls[] = {{30, false, "two_phase_bruck"},    // 0: carries 30
                                {80000, false, "two_phase_bruck"}, // carries 80000
                                {80000, false, "parlogna"},        // apart, carries 80000
                                {30, false, "parlogna"},           // apart, carries 30
                                {30, false, "two_phase_bruck"},    // carries 30
                                {600, false, "two_phase_bruck"},   // 5: carries 600
                                {60, false, "parlogna"},           // probed, carries 60: rank 0's own 60 / p <= 40
                                {80000, false, "parlogna"},        // probed, carries 80000
                                {80000, true, "parlogna"},         // reduces 80000
                                {60, false, "parlogna"},           // apart, carries 60
                                {30, false, "parlogna"}};          // 10
    check_picks_through(path, calls, sizeof calls / sizeof calls[0]);
    MPIX_CHECK_ALL("tables: statistics carried apart from parlogna's large last messages");
}

// The direct rows agree the values in rounds while their blocks move
// (nonblocking; scattered in the first of its windows of one step;
// randomized_sendrecv in its first queue of one step, or after its last post;
// nonempty beside its pattern's hash). Rank r's blocks grow with r: a value
// some rank missed makes the ranks pick different rows (calls 5-7 carry
// values that cross a border between ranks; calls 8 and 10 are nonblocking
// and reduce theirs).
void test_agreement_carried_by_direct_rows()
{
    if (mpixtest::size() < 2)
        return;
    TableFiles files;
    const std::string path = files.write(table(
        "\"alltoallv\": [{\"when\": {\"mean_block_bytes\": {\"max\": 40}}, \"algorithm\": \"nonempty\"}, "
        "{\"when\": {\"max_block_bytes\": {\"max\": 400}}, \"algorithm\": \"randomized_sendrecv\", "
        "\"hints\": {\"max_queue\": 1}}, "
        "{\"when\": {\"max_block_bytes\": {\"max\": 4000}}, \"algorithm\": \"nonblocking\"}, "
        "{\"when\": {\"max_block_bytes\": {\"max\": 40000}}, \"algorithm\": \"scattered\", "
        "\"hints\": {\"batch_size\": 1}}, "
        "{\"algorithm\": \"randomized_sendrecv\"}]"));
    const PickedCall calls[] = {{30, false, "nonempty"},               // 0: carries 30
                                {3000, false, "nonempty"},             // carries 3000
                                {300, false, "nonblocking"},           // carries 300
                                {30000, false, "randomized_sendrecv"}, // carries 30000
                                {30, false, "scattered"},              // carries 30
                                {60, false, "nonempty"},               // 5: carries 60: rank 0's own 60 / p <= 40
                                {600, false, "randomized_sendrecv"},   // carries 600: rank 0's 600 / p <= 400
                                {6000, false, "nonblocking"},          // carries 6000: rank 0's 6000 / p <= 4000
                                {30, true, "scattered"},               // reduces 30
                                {60000, false, "nonempty"},            // carries 60000
                                {3000, true, "randomized_sendrecv"},   // 10: reduces 3000
                                {30, false, "nonblocking"},            // carries 30
                                {30, false, "nonempty"}};
    check_picks_through(path, calls, sizeof calls / sizeof calls[0]);
    MPIX_CHECK_ALL("tables: statistics agreed in rounds beside the direct rows' blocks");
}

void test_precedence_and_hints()
{
    TableFiles files;
    const std::string env_path = files.write(table("\"alltoall\": [{\"algorithm\": \"bruck_radix\", \"hints\": {\"radix\": 3}}]"));
    const std::string info_path = files.write(table("\"alltoall\": [{\"when\": {\"block_bytes\": {\"max\": 100}}, \"algorithm\": \"linear\"}]"));
    setenv("MPIX_TUNING_FILE", env_path.c_str(), 1);
    MPIX_Comm *xcomm = nullptr;
    const int rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    unsetenv("MPIX_TUNING_FILE");
    CU_ASSERT_EQUAL_FATAL(rc, MPI_SUCCESS);
    auto small = [](int, int) { return 64; };
    auto big = [](int, int) { return 1000; };
    // The environment's table; its radix applies where nothing set one.
    mpixtest::exchange_and_check(xcomm, true, small, "env table");
    MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoall)) == "bruck_radix", "env table not used");
    const mpix::RuleHints *rh = nullptr;
    const mpix::UserSide send = bytes_side(8);
    const mpix::Algorithm *a = mpix::select_algorithm(Collective::alltoall, xcomm, xcomm->hints, send, false, false, &rh);
    MPIX_EXPECT(a && rh && mpix::comm_hints_with_rule(xcomm, rh).radix == 3, "the table's radix 3 not applied");
    // The comm info's table first; the environment's where it has no match.
    CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, info_path), MPI_SUCCESS);
    mpixtest::exchange_and_check(xcomm, true, small, "info table");
    MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoall)) == "linear", "info table not first");
    mpixtest::exchange_and_check(xcomm, true, big, "info table, no match");
    MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoall)) == "bruck_radix", "env table not next");
    // An explicit radix beats the table's.
    CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, info_path, "radix", "5"), MPI_SUCCESS);
    a = mpix::select_algorithm(Collective::alltoall, xcomm, xcomm->hints, bytes_side(1000), false, false, &rh);
    MPIX_EXPECT(a && std::string(a->name) == "bruck_radix" && rh && mpix::comm_hints_with_rule(xcomm, rh).radix == 5,
                "explicit radix 5 must beat the table's 3");
    mpixtest::exchange_and_check(xcomm, true, big, "explicit radix");
    // An explicit algorithm beats every table.
    CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, info_path, "alltoall_algorithm", "pairwise"), MPI_SUCCESS);
    mpixtest::exchange_and_check(xcomm, true, small, "explicit algorithm");
    MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoall)) == "pairwise", "explicit algorithm lost to a table");
    // Without tuning_file the info table goes; the environment's stays.
    MPIX_Comm_set_info(xcomm, nullptr);
    mpixtest::exchange_and_check(xcomm, true, small, "info cleared");
    MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoall)) == "bruck_radix", "env table lost");
    // An empty tuning_file also means none.
    CU_ASSERT_EQUAL(set_tuning_file(xcomm, ""), MPI_SUCCESS);
    MPIX_EXPECT(!xcomm->info_table, "an empty tuning_file loaded a table");
    MPIX_CHECK_ALL("precedence: explicit hints > comm info table > environment table > built-in");
    MPIX_Comm_free(&xcomm);
}

void test_load_errors()
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    TableFiles files;
    const std::string good = files.write(table("\"alltoall\": [{\"algorithm\": \"linear\"}]"));
    const std::string bad = files.write(table("\"alltoall\": [{\"algorithm\": \"linear\"}, {\"algorithm\": \"bruck_radix\", "
                          "\"hints\": {\"radix\": \"x\"}}]"));
    const std::string missing = files.missing();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, good, "batch_size", "7"), MPI_SUCCESS);
    // A malformed table: MPI_ERR_INFO_VALUE naming file, rule and field; nothing changes.
    int rc = set_tuning_file(xcomm, bad);
    std::string text = error_text(rc);
    MPIX_EXPECT(error_class(rc) == MPI_ERR_INFO_VALUE, "bad table: class " + std::to_string(error_class(rc)));
    MPIX_EXPECT(
                    (text.find("MPIX_Comm_set_info") != std::string::npos && text.find(bad) != std::string::npos &&
                     text.find("alltoall rule 2") != std::string::npos && text.find("hints.radix") != std::string::npos),
                "bad table: '" + text + "'");
    MPIX_EXPECT(xcomm->info_table_path == good && xcomm->hints.batch_size == 7, "a failed set_info changed the comm");
    mpixtest::exchange_and_check(xcomm, true, [](int, int) { return 8; }, "after a refused table");
    MPIX_EXPECT(std::string(ran(xcomm, Collective::alltoall)) == "linear", "the previous table is gone");
    rc = set_tuning_file(xcomm, missing);
    text = error_text(rc);
    MPIX_EXPECT(error_class(rc) == MPI_ERR_INFO_VALUE && text.find("cannot be read") != std::string::npos,
                "missing file: '" + text + "'");
    // Paths that are no table file: a directory, an endless device, a huge file.
    // Each is refused with a reason (rank 0 reads at most 16 MiB + 64 KiB).
    const std::string huge = files.write(std::string((16u << 20) + 10, ' '));
    const std::pair<std::string, const char *> not_tables[] = {
        {files.dir(), "a directory"}, {"/dev/zero", "larger than 16 MiB"}, {huge, "larger than 16 MiB"}};
    for (const auto &nt : not_tables) {
        rc = set_tuning_file(xcomm, nt.first);
        text = error_text(rc);
        MPIX_EXPECT(error_class(rc) == MPI_ERR_INFO_VALUE && text.find(nt.second) != std::string::npos &&
                        text.find(nt.first) != std::string::npos,
                    nt.first + ": '" + text + "'");
    }
    MPIX_EXPECT(xcomm->info_table_path == good, "a refused path replaced the table");
    // tuning_file is not a per-call hint.
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "tuning_file", good.c_str());
    int nnz = 0, src = 0, recv_nnz = 0;
    rc = MPIX_Alltoall_crs(0, &nnz, 1, MPI_INT, nullptr, &recv_nnz, &src, 1, MPI_INT, nullptr, info, xcomm);
    MPIX_EXPECT(error_class(rc) == MPI_ERR_INFO_KEY, "per-call tuning_file: class " + std::to_string(error_class(rc)));
    MPIX_Info_free(&info);
    MPIX_Comm_free(&xcomm);
    // MPIX_Comm_init with a malformed MPIX_TUNING_FILE creates nothing.
    setenv("MPIX_TUNING_FILE", bad.c_str(), 1);
    xcomm = reinterpret_cast<MPIX_Comm *>(&rc);
    rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    MPIX_EXPECT(error_class(rc) == MPI_ERR_INFO_VALUE && xcomm == nullptr,
                "MPIX_TUNING_FILE malformed: class " + std::to_string(error_class(rc)));
    MPIX_EXPECT( error_text(rc).find("MPIX_TUNING_FILE") != std::string::npos,
                "init error does not name MPIX_TUNING_FILE: " + error_text(rc));
    // Set on some ranks only: every rank is told.
    if (mpixtest::size() > 1) {
        if (mpixtest::rank() == 0)
            setenv("MPIX_TUNING_FILE", good.c_str(), 1);
        else
            unsetenv("MPIX_TUNING_FILE");
        rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
        MPIX_EXPECT(error_class(rc) == MPI_ERR_INFO_VALUE && xcomm == nullptr,
                    "MPIX_TUNING_FILE on rank 0 only: class " + std::to_string(error_class(rc)));
    }
    unsetenv("MPIX_TUNING_FILE");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPIX_CHECK_ALL("table errors: MPI_ERR_INFO_VALUE, nothing changes");
}

// Every row a table can name runs right through it (emulated nodes of 2).
void test_every_row_through_a_table()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Comm_update_locality(xcomm, 2);
    TableFiles files;
    for (Collective c : {Collective::alltoall, Collective::alltoallv}) {
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(c, i); ++i) {
            const std::string hints = mpix::find_algorithm(c, a->name) && std::strstr(a->hint_keys, "radix")
                                          ? ", \"hints\": {\"radix\": 3}"
                                          : "";
            const std::string path = files.write(table("\"" + std::string(mpix::collective_name(c)) + "\": [{\"algorithm\": \"" +
                                  a->name + "\"" + hints + "}]"));
            CU_ASSERT_EQUAL_FATAL(set_tuning_file(xcomm, path), MPI_SUCCESS);
            const bool uniform = c == Collective::alltoall;
            const std::string what = std::string(mpix::collective_name(c)) + " " + a->name + " by table";
            mpixtest::exchange_and_check(
                xcomm, uniform, [uniform](int s, int d) { return uniform ? 24 : (s + 2 * d) % 5 * 7; }, what);
            MPIX_EXPECT(std::string(ran(xcomm, c)) == a->name, what + ": ran " + ran(xcomm, c));
        }
    }
    MPIX_CHECK_ALL("every row picked by a table moves the right bytes");
    MPIX_Comm_free(&xcomm);
}

const mpixtest::TestCase kTests[] = {
    {"built-in table = today's rule", test_builtin_is_todays_rule},
    {"table parsing: valid tables", test_parse_valid},
    {"table parsing: errors name file, rule, field", test_parse_errors},
    {"identical pick on every rank with different local statistics", test_identical_pick_with_local_differences},
    {"statistics agreed inside the row's messages or reduced", test_agreement_carried_by_the_row},
    {"auto's agreement schedule (agreement_period)", test_agreement_schedule},
    {"statistics carried apart from parlogna's large last messages", test_agreement_carried_apart_from_large_blocks},
    {"statistics agreed beside the direct rows' blocks", test_agreement_carried_by_direct_rows},
    {"precedence and table hints", test_precedence_and_hints},
    {"load errors change nothing", test_load_errors},
    {"every row through a table", test_every_row_through_a_table},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "table", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
