// mpix-tune's table building (bench/tune_table.cpp), without MPI: hand-written
// rows with known winners give exact rules (bands, borders, hints, margins),
// the agreement cost turns size bands into one rule, workloads of the same
// statistic share one pick, and real bench/results files give tables whose
// picks are the fastest rows there. Links the bench library (the CSV writer,
// params_text) but calls no MPI.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reporters.hpp"
#include "sweep.hpp"
#include "tune_table.hpp"

namespace {

using Json = nlohmann::ordered_json;
using mpixbench::TuneRow;

int checks = 0, failures = 0;

void expect(bool ok, const std::string &what)
{
    ++checks;
    if (!ok) {
        ++failures;
        std::printf("FAILED: %s\n", what.c_str());
    }
}

bool near(double a, double b) { return std::fabs(a - b) < 1e-3; }

TuneRow row(const std::string &coll, const std::string &algo, const std::string &params, long long p, long long nodes,
            long long size, const std::string &dist, double us, const std::string &verified = "yes")
{
    TuneRow r;
    r.collective = coll;
    r.algorithm = algo;
    r.params = params;
    r.ranks = p;
    r.nodes = nodes;
    r.ppn = (p + nodes - 1) / nodes;
    r.size = size;
    r.dist = dist;
    r.median_us = r.min_us = r.max_us = us;
    r.verified = verified;
    return r;
}

TuneRow row_v(const std::string &algo, const std::string &params, long long p, long long nodes, long long size,
              const std::string &dist, unsigned long long mean, double us)
{
    TuneRow r = row("alltoallv", algo, params, p, nodes, size, dist, us);
    r.has_mean_block = true;
    r.mean_block_bytes = mean;
    return r;
}

mpixbench::BuildOptions fixed_options()
{
    mpixbench::BuildOptions o;
    o.version = "test";
    o.platform = "hand-written";
    o.date = "2026-11-26T00:00:00Z";
    o.agreed_merge_within = 1.0;  // exact bands; test_agreed_merge sets it
    return o;
}

// A "when" value: an exact integer, a {min, max} range or a boolean.
bool holds(const Json &cond, unsigned long long v)
{
    if (cond.is_number_integer())
        return cond.get<unsigned long long>() == v;
    if (cond.contains("min") && v < cond["min"].get<unsigned long long>())
        return false;
    return !(cond.contains("max") && v > cond["max"].get<unsigned long long>());
}

// The first rule of the list whose conditions all hold, as the library tries them.
const Json *first_match(const Json &rules, const std::map<std::string, unsigned long long> &values)
{
    for (const Json &r : rules) {
        bool all = true;
        for (auto it = r["when"].begin(); it != r["when"].end(); ++it)
            all = all && values.count(it.key()) && holds(it.value(), values.at(it.key()));
        if (all)
            return &r;
    }
    return nullptr;
}

// Two ranges that cannot both hold (so neither rule shadows the other).
bool disjoint(const Json &a, const Json &b)
{
    const unsigned long long amin = a.value("min", 0ULL), bmin = b.value("min", 0ULL);
    const unsigned long long amax = a.value("max", ~0ULL), bmax = b.value("max", ~0ULL);
    return amax < bmin || bmax < amin;
}

void expect_no_overlap(const Json &rules, const std::string &what)
{
    for (std::size_t i = 0; i < rules.size(); ++i)
        for (std::size_t j = i + 1; j < rules.size(); ++j) {
            bool apart = false;
            for (auto it = rules[i]["when"].begin(); it != rules[i]["when"].end(); ++it)
                if (rules[j]["when"].contains(it.key()))
                    apart = apart || disjoint(it.value(), rules[j]["when"][it.key()]);
            expect(apart, what + ": rules " + std::to_string(i + 1) + " and " + std::to_string(j + 1) + " overlap");
        }
}

std::string dump(const Json &j) { return j.dump(); }

void test_alltoall_bands()
{
    std::vector<TuneRow> rows;
    // P = 64 and 256 on nodes of 16: radix 2 wins at 16 B, radix 4 at 256 B and
    // 4 KiB, pairwise at 64 KiB.
    const long long sizes[] = {16, 256, 4096, 65536};
    const double r2[] = {10, 20, 50, 500}, r4[] = {12, 18, 45, 480}, pw[] = {30, 40, 60, 300};
    for (long long p : {64LL, 256LL})
        for (int k = 0; k < 4; ++k) {
            rows.push_back(row("alltoall", "node_bruck", "radix=2", p, p / 16, sizes[k], "uniform", r2[k]));
            rows.push_back(row("alltoall", "node_bruck", "radix=4", p, p / 16, sizes[k], "uniform", r4[k]));
            rows.push_back(row("alltoall", "pairwise", "default", p, p / 16, sizes[k], "uniform", pw[k]));
            // Never winners: the MPI library's baseline row, auto, a failed and a persistent row.
            rows.push_back(row("alltoall", "MPI_Alltoall", "(baseline)", p, p / 16, sizes[k], "uniform", 1));
            rows.push_back(row("alltoall", "auto", "picked=pairwise", p, p / 16, sizes[k], "uniform", 1));
            rows.push_back(row("alltoall", "linear", "default", p, p / 16, sizes[k], "uniform", 1, "FAILED"));
            rows.push_back(row("alltoall", "node_bruck", "radix=2;persistent", p, p / 16, sizes[k], "uniform", 1));
        }
    // P = 1024: radix 2 at every size.
    for (int k = 0; k < 4; ++k) {
        rows.push_back(row("alltoall", "node_bruck", "radix=2", 1024, 64, sizes[k], "uniform", 10));
        rows.push_back(row("alltoall", "node_bruck", "radix=4", 1024, 64, sizes[k], "uniform", 15));
    }
    std::string report;
    Json t = mpixbench::build_selection_table(rows, fixed_options(), &report);
    expect(t["mpix_selection_table"] == 1, "version 1");
    expect(!t.contains("alltoallv"), "no alltoallv rows, no alltoallv key");
    const Json &a = t["alltoall"];
    expect(a.size() == 4, "alltoall: 4 rules (P 64 and 256 merge), got " + dump(a));
    if (a.size() != 4)
        return;
    // P 64 and 256 decide alike: one P band from the smallest measured P, 64, up
    // to sqrt(256 * 1024) = 512; 16 ranks per node: 12 (above sqrt(8 * 16)) to 22.
    // Size borders where the picks cross (log time linear in log size): radix 2
    // and 4 at 16 * 16^(0.1823 / 0.2877) = 92 B, radix 4 and pairwise at
    // 4096 * 16^(0.2877 / 0.7577) = 11736 B.
    const std::string rpn16 = R"("ranks_per_node":{"min":12,"max":22},)";
    expect(dump(a[0]["when"]) == "{" + rpn16 + R"("ranks":{"min":64,"max":512},"block_bytes":{"max":92}})",
           "rule 1 when " + dump(a[0]["when"]));
    expect(a[0]["algorithm"] == "node_bruck" && dump(a[0]["hints"]) == R"({"radix":2})", "rule 1 pick " + dump(a[0]));
    expect(dump(a[1]["when"]) == "{" + rpn16 + R"("ranks":{"min":64,"max":512},"block_bytes":{"min":93,"max":11736}})",
           "rule 2 when " + dump(a[1]["when"]));
    expect(dump(a[1]["hints"]) == R"({"radix":4})", "rule 2 hints " + dump(a[1]));
    expect(dump(a[2]["when"]) == "{" + rpn16 + R"("ranks":{"min":64,"max":512},"block_bytes":{"min":11737}})",
           "rule 3 when " + dump(a[2]["when"]));
    expect(a[2]["algorithm"] == "pairwise" && !a[2].contains("hints"), "rule 3 pick " + dump(a[2]));
    expect(dump(a[3]["when"]) == "{" + rpn16 + R"("ranks":{"min":513}})", "rule 4 when " + dump(a[3]["when"]));
    expect(dump(a[3]["hints"]) == R"({"radix":2})", "rule 4 hints " + dump(a[3]));
    // Measured: points over both P, worst ratio 1 (the best everywhere), margins.
    const Json &m1 = a[0]["measured"], &m2 = a[1]["measured"], &m3 = a[2]["measured"], &m4 = a[3]["measured"];
    expect(m1["points"] == 2 && near(m1["worst_ratio"], 1.0), "rule 1 measured " + dump(m1));
    expect(near(m1["margin"], 1.2) && m1["runner_up"] == "node_bruck radix=4", "rule 1 margin " + dump(m1));
    expect(m2["points"] == 4 && near(m2["margin"], 1.1111) && m2["runner_up"] == "node_bruck radix=2",
           "rule 2 margin " + dump(m2));
    expect(dump(m2["sizes"]) == "[256,4096]" && dump(m2["ranks"]) == "[64,256]", "rule 2 sizes, ranks " + dump(m2));
    expect(near(m3["margin"], 1.6) && m3["runner_up"] == "node_bruck radix=4", "rule 3 margin " + dump(m3));
    expect(m4["points"] == 4 && near(m4["margin"], 1.5), "rule 4 margin " + dump(m4));
    expect(dump(m4["ranks_per_node"]) == "[16]", "rule 4 ranks_per_node " + dump(m4));
    expect_no_overlap(a, "alltoall bands");
    expect(report.find("left out: 8 rows, FAILED verification") != std::string::npos &&
               report.find("left out: 8 rows, MPI baseline") != std::string::npos &&
               report.find("left out: 8 rows, auto") != std::string::npos &&
               report.find("left out: 8 rows, persistent") != std::string::npos,
           "report counts what it left out:\n" + report);
    expect(report.find("pairwise default (2 points, worst 1, ahead of node_bruck radix=4 by x1.6)") !=
               std::string::npos,
           "report names pick, margin and runner-up:\n" + report);
    expect(t["generated"]["by"] == "mpix-tune test" && t["generated"]["date"] == "2026-11-26T00:00:00Z",
           "generated " + dump(t["generated"]));
}

// alltoallv rules on mean_block_bytes make every call agree on it: a large
// agreement cost (P = 16) leaves one rule without the statistic, a small one
// (P = 32) keeps the size bands.
void test_agreement()
{
    std::vector<TuneRow> rows;
    const unsigned long long means[] = {8, 64, 512};
    const double x[] = {10, 20, 100}, y[] = {11, 18, 90}, z[] = {12, 21, 95};
    for (long long p : {16LL, 32LL})
        for (int k = 0; k < 3; ++k) {
            rows.push_back(row_v("two_phase_bruck", "default", p, p, (long long)means[k] * 2, "uniform", means[k], x[k]));
            rows.push_back(row_v("parlogna", "radix=2", p, p, (long long)means[k] * 2, "uniform", means[k], y[k]));
            rows.push_back(row_v("pmpi", "default", p, p, (long long)means[k] * 2, "uniform", means[k], z[k]));
        }
    rows.push_back(row("alltoallv", "agreement", "default", 16, 16, 16, "allreduce", 5.0));
    rows.push_back(row("alltoallv", "agreement", "default", 32, 32, 16, "allreduce", 0.5));
    std::string report;
    Json t = mpixbench::build_selection_table(rows, fixed_options(), &report);
    const Json &v = t["alltoallv"];
    expect(v.size() == 3, "alltoallv: 3 rules, got " + dump(v));
    if (v.size() != 3)
        return;
    // P = 16: parlogna without the statistic is no slower than the bands plus 5 us.
    // One rank per node: ranks_per_node at most 1 (sqrt(1 * 2) = 1); P from 16.
    expect(dump(v[0]["when"]) == R"({"ranks_per_node":{"max":1},"ranks":{"min":16,"max":22}})",
           "P 16 when " + dump(v[0]["when"]));
    expect(v[0]["algorithm"] == "parlogna" && dump(v[0]["hints"]) == R"({"radix":2})", "P 16 pick " + dump(v[0]));
    const Json &m = v[0]["measured"];
    expect(m["points"] == 3 && near(m["worst_ratio"], 1.1) && !m.contains("agreement_us"), "P 16 measured " + dump(m));
    expect(m["runner_up"] == "two_phase_bruck default" && near(m["margin"], 0.9091), "P 16 margin " + dump(m));
    // P = 32: two_phase_bruck up to 21, where the two cross with 0.5 us counted
    // (log(10.5 / 11.5) at 8, log(20.5 / 18.5) at 64: 8 * 8^0.4698), parlogna above.
    expect(dump(v[1]["when"]) == R"({"ranks_per_node":{"max":1},"ranks":{"min":23},"mean_block_bytes":{"max":21}})",
           "P 32 band 1 " + dump(v[1]));
    expect(v[1]["algorithm"] == "two_phase_bruck", "P 32 band 1 pick " + dump(v[1]));
    expect(near(v[1]["measured"]["agreement_us"], 0.5) && near(v[1]["measured"]["margin"], 11.5 / 10.5) &&
               v[1]["measured"]["runner_up"] == "parlogna radix=2",
           "P 32 band 1 measured " + dump(v[1]["measured"]));
    expect(dump(v[2]["when"]) == R"({"ranks_per_node":{"max":1},"ranks":{"min":23},"mean_block_bytes":{"min":22}})",
           "P 32 band 2 " + dump(v[2]));
    expect(v[2]["algorithm"] == "parlogna" && dump(v[2]["measured"]["mean_block_bytes"]) == "[64,512]",
           "P 32 band 2 " + dump(v[2]));
    expect(near(v[2]["measured"]["margin"], 20.5 / 18.5) && v[2]["measured"]["runner_up"] == "two_phase_bruck default",
           "P 32 band 2 margin " + dump(v[2]["measured"]));
    expect(near(v[1]["measured"]["worst_ratio"], 10.5 / 10), "P 32 band 1: worst ratio with the agreement " +
                                                                   dump(v[1]["measured"]));
    expect_no_overlap(v, "agreement");
}

// alltoallv rows at P = 64 (one rank per node) at mean blocks 8, 512 and
// 32768 B: each candidate's times at those three points, and an agreement
// costing 100 us a call.
struct ThreePoints {
    const char *algorithm;
    double us[3];
};
std::vector<TuneRow> three_point_rows(std::initializer_list<ThreePoints> candidates)
{
    const unsigned long long means[] = {8, 512, 32768};
    std::vector<TuneRow> rows;
    for (int k = 0; k < 3; ++k)
        for (const ThreePoints &c : candidates)
            rows.push_back(row_v(c.algorithm, "default", 64, 64, (long long)means[k] * 2, "uniform", means[k], c.us[k]));
    rows.push_back(row("alltoallv", "agreement", "default", 64, 64, 16, "allreduce", 100.0));
    return rows;
}

// Bands that win one point by a wide margin but pay a large agreement at every
// other point lose to one rule: the choice compares worst ratios to each point's
// fastest row (no agreement), not dominance point by point.
void test_agreement_worst_ratio()
{
    const std::vector<TuneRow> rows =
        three_point_rows({{"two_phase_bruck", {10, 100, 2000}}, {"pmpi", {20, 150, 1000}}});
    std::string report;
    Json t = mpixbench::build_selection_table(rows, fixed_options(), &report);
    const Json &v = t["alltoallv"];
    // Bands: 110/10 = 11x at 8 B. One rule: two_phase_bruck, 2x at 32 KiB (pmpi
    // ties at 2x with a larger mean ratio).
    expect(v.size() == 1 && v[0]["algorithm"] == "two_phase_bruck" && !v[0]["when"].contains("mean_block_bytes"),
           "one rule without the statistic: " + dump(v));
    if (v.size() == 1)
        expect(near(v[0]["measured"]["worst_ratio"], 2.0) && !v[0]["measured"].contains("agreement_us"),
               "one rule measured " + dump(v[0]["measured"]));
}

// The same points with auto's agreement schedule: one agreement in 16 calls
// (BuildOptions::agreement_period) charges 6.25 us a call, so the bands win
// (worst 16.25 / 10 at 8 B against one rule's 2x), each counting that share.
void test_agreement_share()
{
    const std::vector<TuneRow> rows =
        three_point_rows({{"two_phase_bruck", {10, 100, 2000}}, {"pmpi", {20, 150, 1000}}});
    mpixbench::BuildOptions o = fixed_options();
    o.agreement_period = 16;
    std::string report;
    Json t = mpixbench::build_selection_table(rows, o, &report);
    const Json &v = t["alltoallv"];
    expect(t["generated"]["agreement_period"] == 16, "generated names the period: " + dump(t["generated"]));
    expect(v.size() == 2, "share: two bands, got " + dump(v));
    if (v.size() != 2)
        return;
    expect(v[0]["algorithm"] == "two_phase_bruck" && dump(v[0]["measured"]["mean_block_bytes"]) == "[8,512]" &&
               near(v[0]["measured"]["agreement_us"], 6.25) && near(v[0]["measured"]["worst_ratio"], 1.625),
           "share band 1 " + dump(v[0]));
    expect(v[1]["algorithm"] == "pmpi" && near(v[1]["measured"]["agreement_us"], 6.25) &&
               near(v[1]["measured"]["worst_ratio"], 1.00625),
           "share band 2 " + dump(v[1]));
    expect(report.find("agreement 6.25 us counted (one in 16 calls)") != std::string::npos,
           "report names the share:\n" + report);
    expect_no_overlap(v, "share");
}

// Bands on alltoallv's agreed statistic must win by more than
// BuildOptions::agreed_merge_within (5 %): rows 3 % apart give one rule there;
// alltoall's bands (block_bytes, known without an agreement) stay exact.
void test_agreed_merge()
{
    std::vector<TuneRow> rows = three_point_rows({{"two_phase_bruck", {10, 100, 1030}}, {"pmpi", {10.3, 103, 1000}}});
    const long long sizes[] = {16, 1024, 65536};
    for (int k = 0; k < 3; ++k) {
        rows.push_back(row("alltoall", "bruck_radix", "default", 64, 64, sizes[k], "uniform", k < 2 ? 10 : 1030));
        rows.push_back(row("alltoall", "pmpi", "default", 64, 64, sizes[k], "uniform", k < 2 ? 10.3 : 1000));
    }
    mpixbench::BuildOptions o = fixed_options();
    o.agreement_period = 1000;  // 0.1 us a call: the bands would pay for it
    std::string report;
    Json exact = mpixbench::build_selection_table(rows, o, &report);
    expect(exact["alltoallv"].size() == 2, "exact: two alltoallv bands, got " + dump(exact["alltoallv"]));
    o.agreed_merge_within = 1.05;
    Json t = mpixbench::build_selection_table(rows, o, &report);
    const Json &v = t["alltoallv"];
    expect(v.size() == 1 && !v[0]["when"].contains("mean_block_bytes") && near(v[0]["measured"]["worst_ratio"], 1.03),
           "within 5 %: one alltoallv rule, got " + dump(v));
    expect(t["alltoall"].size() == 2 && t["alltoall"][0]["algorithm"] == "bruck_radix" &&
               t["alltoall"][1]["algorithm"] == "pmpi",
           "alltoall keeps its exact bands: " + dump(t["alltoall"]));
}

// The same points where two_phase_bruck carries the statistic inside its own
// messages (BuildOptions::carries_agreement): its band pays no agreement, so
// the bands win (worst 1.1: pmpi's band pays 100 us on 1000), and only the
// other band's rule counts the cost.
void test_agreement_carried()
{
    std::vector<TuneRow> rows = three_point_rows({{"two_phase_bruck", {10, 100, 2000}}, {"pmpi", {20, 150, 1000}}});
    mpixbench::BuildOptions o = fixed_options();
    o.carries_agreement = [](const std::string &, const std::string &algo) { return algo == "two_phase_bruck"; };
    std::string report;
    Json t = mpixbench::build_selection_table(rows, o, &report);
    const Json &v = t["alltoallv"];
    expect(v.size() == 2, "carried: two bands, got " + dump(v));
    if (v.size() != 2)
        return;
    expect(v[0]["algorithm"] == "two_phase_bruck" && v[0]["when"].contains("mean_block_bytes") &&
               dump(v[0]["measured"]["mean_block_bytes"]) == "[8,512]",
           "carried band 1 " + dump(v[0]));
    expect(!v[0]["measured"].contains("agreement_us") && near(v[0]["measured"]["worst_ratio"], 1.0),
           "carried band 1 pays no agreement: " + dump(v[0]["measured"]));
    expect(v[1]["algorithm"] == "pmpi" && near(v[1]["measured"]["agreement_us"], 100.0) &&
               near(v[1]["measured"]["worst_ratio"], 1.1),
           "band 2 pays it: " + dump(v[1]));
    expect_no_overlap(v, "carried");

    // Two carrying rows, each fastest in its own band: their bands stay apart
    // (a ratio against the fastest row plus the agreement cost that only the
    // others pay would merge them, and pick one row for both at 1.6x).
    rows = three_point_rows(
        {{"two_phase_bruck", {10, 100, 3000}}, {"parlogna", {16, 60, 2500}}, {"pmpi", {50, 400, 1000}}});
    o.carries_agreement = [](const std::string &, const std::string &algo) {
        return algo == "two_phase_bruck" || algo == "parlogna";
    };
    Json t2 = mpixbench::build_selection_table(rows, o, &report);
    const Json &w = t2["alltoallv"];
    expect(w.size() == 3 && w[0]["algorithm"] == "two_phase_bruck" && w[1]["algorithm"] == "parlogna" &&
               w[2]["algorithm"] == "pmpi",
           "two carrying bands and a reduced one: " + dump(w));
}

// Workloads with the same mean block share one pick: the one with the smallest
// worst ratio over them, not either workload's own best.
void test_same_statistic()
{
    std::vector<TuneRow> rows;
    auto add = [&](const std::string &dist, unsigned long long mean, double a, double b, double c) {
        rows.push_back(row_v("parlogna", "radix=2", 8, 2, 200, dist, mean, a));
        rows.push_back(row_v("parlogna", "radix=4", 8, 2, 200, dist, mean, b));
        rows.push_back(row_v("node_bruck", "radix=2", 8, 2, 200, dist, mean, c));
    };
    add("uniform", 100, 10, 11, 14);
    add("normal", 100, 13, 11, 10);
    add("uniform", 1000, 100, 120, 130);
    std::string report;
    Json t = mpixbench::build_selection_table(rows, fixed_options(), &report);
    const Json &v = t["alltoallv"];
    expect(v.size() == 2, "same statistic: 2 rules, got " + dump(v));
    if (v.size() != 2)
        return;
    // 4 ranks per node: 3 (above sqrt(2 * 4) = 2) to sqrt(4 * 8) = 5; P from 8.
    // The border where radix 4 and 2 cross: the mean of log(11 / 10) and
    // log(11 / 13) at 100, log(1.2) at 1000: 100 * 10^(0.0359 / 0.2182) = 146.
    const std::string near4 = R"({"ranks_per_node":{"min":3,"max":5},"ranks":{"min":8},)";
    expect(dump(v[0]["when"]) == near4 + R"("mean_block_bytes":{"max":146}})", "shared band " + dump(v[0]["when"]));
    expect(v[0]["algorithm"] == "parlogna" && dump(v[0]["hints"]) == R"({"radix":4})", "shared pick " + dump(v[0]));
    const Json &m = v[0]["measured"];
    expect(m["points"] == 2 && near(m["worst_ratio"], 1.1) && dump(m["dists"]) == R"(["normal","uniform"])",
           "shared measured " + dump(m));
    expect(m["runner_up"] == "parlogna radix=2" && near(m["margin"], 10.0 / 11), "shared runner-up " + dump(m));
    expect(dump(v[1]["when"]) == near4 + R"("mean_block_bytes":{"min":147}})" && dump(v[1]["hints"]) == R"({"radix":2})",
           "large band " + dump(v[1]));
    expect(report.find("no agreement cost measured at P = 8") != std::string::npos, "report: agreement missing\n" + report);
}

// The border between two bands lies where the two picks' times cross (log time
// linear in log size between the measured points), not midway: a point near
// one end is then on the side of the row that is faster there. Neighbouring P
// whose borders are within 1.2x share one rule, the border their mean in log;
// farther apart they keep rules of their own.
void test_crossover_borders()
{
    std::vector<TuneRow> rows;
    // P = 16: at 1000 B `pairwise` 10 against `linear` 11; at 4000 B 30 against
    // 10. log(10/11) at 1000, log(3) at 4000: they cross 0.0798 of the way, at
    // 1000 * 4^0.0798 = 1117 B (the geometric mean would say 2000).
    auto at = [&rows](long long p, long long size, double pw, double lin) {
        rows.push_back(row("alltoall", "pairwise", "default", p, p, size, "uniform", pw));
        rows.push_back(row("alltoall", "linear", "default", p, p, size, "uniform", lin));
    };
    at(16, 1000, 10, 11);
    at(16, 4000, 30, 10);
    // P = 64: 10 against 20 at 1000 B, 30 against 10 at 4000 B: they cross at
    // 1000 * 4^(0.6931 / 1.7918) = 1709.98 B, more than 1.2x from 1117.
    at(64, 1000, 10, 20);
    at(64, 4000, 30, 10);
    std::string report;
    Json t = mpixbench::build_selection_table(rows, fixed_options(), &report);
    const Json &a = t["alltoall"];
    expect(a.size() == 4, "P 16 and 64 apart: 4 rules, got " + dump(a));
    if (a.size() != 4)
        return;
    const std::string p16 = R"({"ranks_per_node":{"max":1},"ranks":{"min":16,"max":32},)";
    const std::string p64 = R"({"ranks_per_node":{"max":1},"ranks":{"min":33},)";
    expect(dump(a[0]["when"]) == p16 + R"("block_bytes":{"max":1117}})" && a[0]["algorithm"] == "pairwise",
           "P 16 crossover " + dump(a[0]));
    expect(dump(a[1]["when"]) == p16 + R"("block_bytes":{"min":1118}})" && a[1]["algorithm"] == "linear",
           "P 16 above the crossover " + dump(a[1]));
    expect(dump(a[2]["when"]) == p64 + R"("block_bytes":{"max":1709}})" && dump(a[3]["when"]) == p64 + R"("block_bytes":{"min":1710}})",
           "P 64 crossover " + dump(a[2]) + dump(a[3]));
    // P = 64 with 10 against 11 at 1000 B and 20 against 10 at 4000 B: a border
    // within 1.2x of P 16's, so one rule for both P, its border the mean in log.
    rows.clear();
    at(16, 1000, 10, 11);
    at(16, 4000, 30, 10);
    at(64, 1000, 10, 11);
    at(64, 4000, 20, 10);
    t = mpixbench::build_selection_table(rows, fixed_options(), &report);
    const Json &b = t["alltoall"];
    // P 64: log(10/11) = -0.0953, log(2) = 0.6931; 0.1209 of the way: 1182 B.
    // Mean in log of 1117 and 1182: 1149 B.
    expect(b.size() == 2, "P 16 and 64 close: 2 rules, got " + dump(b));
    if (b.size() == 2) {
        const std::string both = R"({"ranks_per_node":{"max":1},"ranks":{"min":16},)";
        expect(dump(b[0]["when"]) == both + R"("block_bytes":{"max":1149}})" &&
                   dump(b[1]["when"]) == both + R"("block_bytes":{"min":1150}})",
               "merged border " + dump(b));
        expect(b[0]["measured"]["points"] == 2 && b[1]["measured"]["points"] == 2, "merged points " + dump(b));
    }
    // A band won by a row that loses at its own edge (merged within 5 %):
    // `pairwise` wins 1000 B and is 4 % behind at 2000 B, where `nonblocking`
    // already beats it; they do not cross between 2000 and 4000 B, so the border
    // is the geometric mean.
    rows.clear();
    auto three = [&rows](long long size, double pw, double lin, double nb) {
        rows.push_back(row("alltoall", "pairwise", "default", 16, 16, size, "uniform", pw));
        rows.push_back(row("alltoall", "linear", "default", 16, 16, size, "uniform", lin));
        rows.push_back(row("alltoall", "nonblocking", "default", 16, 16, size, "uniform", nb));
    };
    three(1000, 10, 20, 20);
    three(2000, 10.4, 10, 10.2);
    three(4000, 30, 30, 10);
    mpixbench::BuildOptions o = fixed_options();
    o.merge_within = 1.05;
    t = mpixbench::build_selection_table(rows, o, &report);
    const Json &c = t["alltoall"];
    expect(c.size() == 2 && c[0]["algorithm"] == "pairwise" && c[1]["algorithm"] == "nonblocking" &&
               dump(c[0]["when"]) == R"({"ranks_per_node":{"max":1},"ranks":{"min":16},"block_bytes":{"max":2828}})",
           "no crossing between 2000 and 4000: geometric border " + dump(c));
}

void test_borders_and_hints()
{
    // A size 0 point: the border between 0 and 16 is 0. Hints the row does not
    // read are left out; unknown algorithms are dropped.
    std::vector<TuneRow> rows;
    rows.push_back(row("alltoall", "pairwise", "inner=pairwise", 4, 1, 0, "uniform", 1));
    rows.push_back(row("alltoall", "linear", "default", 4, 1, 0, "uniform", 2));
    rows.push_back(row("alltoall", "pairwise", "inner=pairwise", 4, 1, 16, "uniform", 3));
    rows.push_back(row("alltoall", "linear", "default", 4, 1, 16, "uniform", 2));
    rows.push_back(row("alltoall", "nosuch", "default", 4, 1, 16, "uniform", 0.5));
    mpixbench::BuildOptions o = fixed_options();
    o.known_algorithm = [](const std::string &, const std::string &a) { return a != "nosuch"; };
    o.reads_hint = [](const std::string &, const std::string &, const std::string &) { return false; };
    std::string report;
    Json t = mpixbench::build_selection_table(rows, o, &report);
    const Json &a = t["alltoall"];
    const std::string at4 = R"({"ranks_per_node":{"min":3,"max":5},"ranks":{"min":4},)";
    expect(a.size() == 2 && dump(a[0]["when"]) == at4 + R"("block_bytes":{"max":0}})" &&
               dump(a[1]["when"]) == at4 + R"("block_bytes":{"min":1}})",
           "border at 0: " + dump(a));
    expect(a.size() == 2 && a[0]["algorithm"] == "pairwise" && !a[0].contains("hints"), "unread hint dropped " + dump(a));
    expect(report.find("unknown algorithm alltoall nosuch") != std::string::npos &&
               report.find("inner (pairwise)") != std::string::npos,
           "report: unknown algorithm and dropped hint\n" + report);
    // Two measured node sizes (1 at P = 16 and 4 at P = 4): the border between
    // them as between sizes (sqrt(1 * 4) = 2), each band its own P range.
    rows.push_back(row("alltoall", "pairwise", "default", 16, 16, 16, "uniform", 1));
    rows.push_back(row("alltoall", "linear", "default", 16, 16, 16, "uniform", 2));
    t = mpixbench::build_selection_table(rows, o, &report);
    const Json &b = t["alltoall"];
    expect(b.size() == 3 && dump(b[0]["when"]) == R"({"ranks_per_node":{"max":2},"ranks":{"min":16}})" &&
               dump(b[1]["when"]) == R"({"ranks_per_node":{"min":3,"max":5},"ranks":{"min":4},"block_bytes":{"max":0}})" &&
               dump(b[2]["when"]) == R"({"ranks_per_node":{"min":3,"max":5},"ranks":{"min":4},"block_bytes":{"min":1}})",
           "ranks_per_node bands: " + dump(b));
    expect_no_overlap(b, "ranks_per_node");
}

void test_csv_io()
{
    const std::string path = "tune_table_test.csv";
    {
        std::ofstream f(path);
        // Columns in another order, an old file's (no nodes, ppn or statistics).
        f << "algorithm,collective,size,P,params,dist,verified,median_us\n"
          << "parlogna,alltoallv,16,8,\"radix=2;trace=a,b\",uniform,yes,12.5\n"
          << "linear,alltoallv,16,8,default,uniform,FAILED,1\n"
          << "pairwise,alltoallv,16,8\n"  // a run killed mid-line
          << "collective,algorithm,params,P,nodes,ppn,size,dist,median_us,min_us,max_us,speedup_vs_mpi,verified,"
             "bound_us,x_bound,mean_block_bytes,max_block_bytes\n"
          << "alltoallv,pmpi,default,8,2,4,16,normal,3.000,2.000,4.000,0.0000,yes,,,8,16\n";
    }
    std::string why;
    std::vector<std::string> warnings;
    std::vector<TuneRow> rows = mpixbench::read_tune_csv(path, &why, &warnings);
    expect(why.empty() && rows.size() == 3, "read 3 rows: " + why);
    expect(warnings.size() == 1 && warnings[0].find(":4: 4 fields") != std::string::npos,
           "one warning for the cut line: " + (warnings.empty() ? std::string("none") : warnings[0]));
    if (rows.size() == 3) {
        expect(rows[0].params == "radix=2;trace=a,b" && rows[0].ranks == 8 && rows[0].nodes == 0 &&
                   near(rows[0].median_us, 12.5) && !rows[0].has_mean_block,
               "quoted params, missing columns");
        expect(rows[2].nodes == 2 && rows[2].ppn == 4 && rows[2].has_mean_block && rows[2].mean_block_bytes == 8 &&
                   rows[2].max_block_bytes == 16 && near(rows[2].min_us, 2),
               "new columns");
        const std::set<std::string> keys = mpixbench::done_keys(rows);
        expect(keys.size() == 2 && keys.count("alltoallv,pmpi,default,8,4,16,normal") &&
                   !keys.count(mpixbench::tune_key("alltoallv", "linear", "default", 8, 0, 16, "uniform")),
               "done keys skip FAILED rows");
        // What mpix-bench and mpix-tune write (reporters.hpp), read back.
        std::remove(path.c_str());
        mpixbench::RunDescription run;
        run.coll = mpix::Collective::alltoallv;
        run.ranks = 8;
        run.nodes = 2;
        run.ppn = 4;
        run.dist = "normal";
        mpixbench::ResultRow written;
        written.algorithm = "parlogna";
        written.params = "radix=2;trace=a,b";
        written.size = 16;
        written.measured.median_us = 3;
        written.measured.verified = "yes";
        written.measured.mean_block_bytes = 8;
        written.measured.max_block_bytes = 16;
        expect(mpixbench::append_csv(path, run, {written, written}).empty(), "append_csv");
        std::vector<TuneRow> again = mpixbench::read_tune_csv(path, &why);
        expect(again.size() == 2 && again[1].mean_block_bytes == 8 && again[1].params == written.params &&
                   again[1].has_max_block && again[1].max_block_bytes == 16 && again[1].nodes == 2 &&
                   again[1].source == path + ":3",
               "what the reporters write reads back");
    }
    std::remove(path.c_str());
    expect(mpixbench::read_tune_csv("/nonexistent/x.csv", &why).empty() && why.find("cannot open") == 0,
           "missing file: " + why);
    {
        std::ofstream f(path);
        f << "collective,algorithm,size\nalltoall,linear,16\n";
    }
    expect(mpixbench::read_tune_csv(path, &why).empty() && why.find("no column 'params'") != std::string::npos,
           "missing column: " + why);
    std::remove(path.c_str());
    std::vector<std::pair<std::string, std::string>> hints;
    expect(mpixbench::parse_params("radix=4;batch_size=32", &hints) && hints.size() == 2 && hints[1].second == "32" &&
               mpixbench::params_text(hints) == "radix=4;batch_size=32",
           "params round trip");
    expect(!mpixbench::parse_params("radix", &hints), "params without '=' refused");
}

// The statistic of synthetic workloads, computed like the library: every block
// S bytes (equal) gives S; fft2's last rank sends S/4.
void test_synthetic_mean()
{
    unsigned long long m = 0;
    expect(mpixbench::synthetic_mean_block_bytes("equal", 8, 100, 1, &m) && m == 100, "equal: S");
    expect(mpixbench::synthetic_mean_block_bytes("fft2", 8, 100, 1, &m) && m == 100, "fft2: S");
    expect(mpixbench::synthetic_mean_block_bytes("uniform", 64, 1000, 1, &m) && m > 400 && m < 600,
           "uniform: about S/2, got " + std::to_string(m));
    expect(!mpixbench::synthetic_mean_block_bytes("matrix:x.mtx", 8, 8, 1, &m), "matrix: not synthetic");
}

// A real sweep: every size's rule picks that size's fastest row of the file.
void check_real_file(const std::string &name, const char *coll, const char *stat_key)
{
    const std::string path = std::string(MPIX_BENCH_RESULTS) + "/" + name;
    std::string why;
    std::vector<TuneRow> rows = mpixbench::read_tune_csv(path, &why);
    expect(!rows.empty(), name + ": " + why);
    mpixbench::BuildOptions o = fixed_options();
    o.csv_files = {name};
    std::string report;
    Json t = mpixbench::build_selection_table(rows, o, &report);
    expect(t.contains(coll) && !t[coll].empty(), name + ": no rules\n" + report);
    if (!t.contains(coll))
        return;
    expect_no_overlap(t[coll], name);
    std::map<long long, const TuneRow *> fastest;
    for (const TuneRow &r : rows) {
        if (r.algorithm == "auto" || r.params.find("(baseline)") != std::string::npos || r.verified == "FAILED" ||
            r.algorithm.rfind("MPI_", 0) == 0)
            continue;
        const TuneRow *&f = fastest[r.size];
        if (!f || r.median_us < f->median_us)
            f = &r;
    }
    for (const auto &kv : fastest) {
        const TuneRow &r = *kv.second;
        unsigned long long stat = (unsigned long long)r.size;
        if (std::string(coll) == "alltoallv")
            mpixbench::synthetic_mean_block_bytes(r.dist, r.ranks, r.size, 1, &stat);
        const Json *rule = first_match(
            t[coll], {{"ranks", r.ranks}, {"ranks_per_node", r.ranks / r.nodes}, {stat_key, stat}});
        std::vector<std::pair<std::string, std::string>> hints;
        mpixbench::parse_params(r.params, &hints);
        Json want = Json::object();
        for (const auto &h : hints)
            want[h.first] = std::stoll(h.second);
        expect(rule && (*rule)["algorithm"] == r.algorithm && rule->value("hints", Json::object()) == want,
               name + " S=" + std::to_string(r.size) + ": rule " + (rule ? dump(*rule) : "none") + ", fastest " +
                   r.algorithm + " " + r.params);
    }
}

}  // namespace

int main()
{
    test_alltoall_bands();
    test_agreement();
    test_agreement_worst_ratio();
    test_agreement_share();
    test_agreed_merge();
    test_agreement_carried();
    test_same_statistic();
    test_borders_and_hints();
    test_crossover_borders();
    test_csv_io();
    test_synthetic_mean();
    check_real_file("smpi-alltoall-P256.csv", "alltoall", "block_bytes");
    check_real_file("smpi-normal-P1024.csv", "alltoallv", "mean_block_bytes");
    check_real_file("smpi-powerlaw-P256.csv", "alltoallv", "mean_block_bytes");
    std::printf("tune_table: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
