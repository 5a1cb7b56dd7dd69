// mpix-bench's outputs (bench/reporters.hpp).
#include "reporters.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "config.h"
#include "select/registry.hpp"
#include "text_fields.hpp"  // drop_carriage_return

namespace mpixbench {

namespace {

using mpix::Collective;
using ordered_json = nlohmann::ordered_json;

std::string csv_field(const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string printed(const char *format, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

// A figure as the CSV prints it (decimals digits), for JSON: nlohmann prints the
// shortest text that reads back as the same double.
double rounded(double value, int decimals)
{
    const double scale = std::pow(10.0, decimals);
    return std::round(value * scale) / scale;
}

// Writes text to path (truncating); error text or empty.
std::string write_file(const std::string &path, const std::string &text)
{
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return "cannot write " + path + ": " + std::strerror(errno);
    std::fputs(text.c_str(), f);
    const bool failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || failed)
        return "error writing " + path + ": " + std::strerror(errno);
    return "";
}

}  // namespace

void print_table(std::FILE *out, const RunDescription &run, const TableNotes &notes,
                 const std::vector<ResultRow> &rows)
{
    // A negative warm-up: the native default by size (runner.hpp, kTableWarmup).
    const std::string by_size = std::to_string(kTableWarmup) + " (" + std::to_string(kTableWarmupLarge) + " above " +
                                std::to_string(kTableWarmupAbove) + " B)";
    const std::string warmup = run.warmup >= 0 ? std::to_string(run.warmup) : by_size;
    std::fprintf(out, "# mpix-bench %s  P=%d  nodes=%d  ppn=%d  dist=%s  iters=%d  warmup=%s  seed=%llu%s\n",
                 mpix::collective_name(run.coll), run.ranks, run.nodes, run.ppn, run.dist.c_str(), run.iters,
                 warmup.c_str(), run.seed, MPIX_SMPI ? "  (SimGrid SMPI)" : "");
    if (notes.mpi_row_unavailable)
        std::fprintf(out, "# no %s row: SimGrid SMPI does not implement it (no speedup column)\n",
                     mpi_collective_name(run.coll));
    else if (notes.speedup_versus == "none")
        std::fprintf(out, "# times: microseconds, slowest rank per iteration, median/min/max over iterations;"
                          " no speedup column (--baseline none)\n");
    else
        std::fprintf(out,
                     "# times: microseconds, slowest rank per iteration, median/min/max over iterations;"
                     " speedup = %s's median / the row's median, in the same run (above 1: the row is faster)\n",
                     notes.speedup_versus.c_str());
    if (notes.persistent)
        std::fprintf(out, "# params ...persistent: a persistent request made once outside the timing, each call"
                          " MPIX_Start + MPIX_Wait (MPI_Start + MPI_Wait for the MPI library's *_init)\n");
    if (notes.overlap) {
        char slicing[96];
        if (notes.overlap_slices > 0)
            std::snprintf(slicing, sizeof slicing, "in %d slices, a test after each", notes.overlap_slices);
        else
            std::snprintf(slicing, sizeof slicing, "in one piece, no test");
        std::fprintf(out,
                     "# --overlap: pure_us (min_us, max_us) = the nonblocking call alone (start + wait), which speedup"
                     " compares; overall_us = start + compute_us of computation (pure_us long, %s) + test_us of"
                     " tests + wait; overlap_%% = max(0, 100 (1 - (overall - compute) / pure)) (OSU); each a median"
                     " of the slowest rank's\n",
                     slicing);
    }
    for (const auto &kv : notes.bounds) {
        const mpix::sim::Bound &b = kv.second;
        std::fprintf(out, "# bound S=%lld: %.2f us = max(path %.2f us, busiest link %.2f us: %s); node link %.2f us\n",
                     kv.first, b.seconds() * 1e6, b.path * 1e6, b.link.seconds * 1e6, b.link.name.c_str(),
                     b.nic.seconds * 1e6);
    }
    const bool bounded = !notes.bounds.empty();
    // Columns as wide as the longest name (randomized_segmented, long parameter lists).
    int algorithm_width = 16, params_width = 28;
    for (const ResultRow &r : rows) {
        algorithm_width = std::max(algorithm_width, static_cast<int>(r.algorithm.size()));
        params_width = std::max(params_width, static_cast<int>(r.params.size()));
    }
    const char *overlap_columns = notes.overlap ? "  overall_us   compute_us      test_us overlap_% " : "";
    std::fprintf(out, "%-*s %-*s %9s %12s %12s %12s %8s %s%s%s\n", algorithm_width, "algorithm", params_width,
                 "params", "size", notes.overlap ? "pure_us" : "median_us", "min_us", "max_us", "speedup",
                 bounded ? "x_bound " : "", overlap_columns, "verified");
    for (const ResultRow &r : rows) {
        const std::string x_bound =
            bounded ? printed("%7.2f ", r.bound_us > 0 ? r.measured.median_us / r.bound_us : 0.0) : "";
        // No baseline (--baseline none, or none that could run): '-', not a speedup of 0.
        const std::string speedup = r.speedup > 0 ? printed("%8.2f", r.speedup) : std::string(7, ' ') + "-";
        const Measurement &m = r.measured;
        char overlap[80] = "";
        if (notes.overlap)
            std::snprintf(overlap, sizeof overlap, "%12.2f %12.2f %12.2f %9.1f ", m.overall_us, m.compute_us,
                          m.test_us, m.overlap_pct);
        std::fprintf(out, "%-*s %-*s %9lld %12.2f %12.2f %12.2f %s %s%s%s\n", algorithm_width, r.algorithm.c_str(),
                     params_width, r.params.c_str(), r.size, m.median_us, m.min_us, m.max_us, speedup.c_str(),
                     x_bound.c_str(), overlap, m.verified.c_str());
    }
    std::fflush(out);
}

std::string csv_header(bool overlap)
{
    return std::string("collective,algorithm,params,P,nodes,ppn,size,dist,median_us,min_us,max_us,speedup_vs_mpi,"
                       "verified,bound_us,x_bound,mean_block_bytes,max_block_bytes,copied_bytes,copy_floor_us,start,"
                       "start_spread_us") +
           (overlap ? ",overall_us,compute_us,init_us,test_us,wait_us,pure_us,overlap_pct,overlap_slices" : "");
}

bool is_csv_header(std::string line, bool overlap)
{
    drop_carriage_return(&line);
    return line == csv_header(overlap);
}

std::string csv_line(const RunDescription &run, const ResultRow &r)
{
    const Measurement &m = r.measured;
    char figures[160];
    // No baseline (--baseline none): an empty field, as for the bound, not a speedup of 0.
    if (r.speedup > 0)
        std::snprintf(figures, sizeof figures, "%.3f,%.3f,%.3f,%.4f", m.median_us, m.min_us, m.max_us, r.speedup);
    else
        std::snprintf(figures, sizeof figures, "%.3f,%.3f,%.3f,", m.median_us, m.min_us, m.max_us);
    std::string line = std::string(mpix::collective_name(run.coll)) + "," + csv_field(r.algorithm) + "," +
                       csv_field(r.params) + "," + std::to_string(run.ranks) + "," + std::to_string(run.nodes) +
                       "," + std::to_string(run.ppn) + "," + std::to_string(r.size) + "," + csv_field(run.dist) +
                       "," + figures + "," + m.verified + ",";
    if (r.bound_us > 0)
        line += printed("%.3f", r.bound_us) + "," + printed("%.3f", m.median_us / r.bound_us);
    else
        line += ",";
    line += "," + std::to_string(m.mean_block_bytes) + "," + std::to_string(m.max_block_bytes) + "," +
            printed("%.0f", m.copied_bytes) + ",";
    if (m.copy_floor_us > 0)
        line += printed("%.3f", m.copy_floor_us);
    line += m.start_clock ? ",clock," : ",barrier,";
    if (m.start_spread_us >= 0)
        line += printed("%.3f", m.start_spread_us);
    if (run.overlap) {
        char figures_overlap[200];
        std::snprintf(figures_overlap, sizeof figures_overlap, ",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%d", m.overall_us,
                      m.compute_us, m.init_us, m.test_us, m.wait_us, m.pure_us, m.overlap_pct, m.overlap_slices);
        line += figures_overlap;
    }
    return line;
}

std::string append_csv(const std::string &path, const RunDescription &run, const std::vector<ResultRow> &rows)
{
    std::string first_line;
    bool fresh = true;
    {
        std::ifstream existing(path);
        if (existing && std::getline(existing, first_line))
            fresh = false;
    }
    // Rows under another header would be misread column by column.
    if (!fresh && !is_csv_header(first_line, run.overlap))
        return path + " has another header (an older mpix-bench's, or " +
               (run.overlap ? "one without" : "one with") + " --overlap's columns?): rows not appended; write to a new file";
    std::FILE *f = std::fopen(path.c_str(), "a");
    if (!f)
        return "cannot write " + path;
    if (fresh)
        std::fprintf(f, "%s\n", csv_header(run.overlap).c_str());
    for (const ResultRow &r : rows)
        std::fprintf(f, "%s\n", csv_line(run, r).c_str());
    const bool failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || failed)
        return "error writing " + path;
    return "";
}

std::string write_json(const std::string &path, const RunDescription &run, const std::vector<ResultRow> &rows)
{
    // One row per line, so the file reads (and greps) like the CSV.
    std::string text = "[\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const ResultRow &r = rows[i];
        const Measurement &m = r.measured;
        const bool bounded = r.bound_us > 0;
        ordered_json row = {
            {"collective", mpix::collective_name(run.coll)},
            {"algorithm", r.algorithm},
            {"params", r.params},
            {"P", run.ranks},
            {"nodes", run.nodes},
            {"ppn", run.ppn},
            {"size", r.size},
            {"dist", run.dist},
            {"median_us", rounded(m.median_us, 3)},
            {"min_us", rounded(m.min_us, 3)},
            {"max_us", rounded(m.max_us, 3)},
            {"speedup_vs_mpi", r.speedup > 0 ? ordered_json(rounded(r.speedup, 4)) : ordered_json(nullptr)},
            {"verified", m.verified},
            {"bound_us", bounded ? ordered_json(rounded(r.bound_us, 6)) : ordered_json(nullptr)},
            {"x_bound", bounded ? ordered_json(rounded(m.median_us / r.bound_us, 6)) : ordered_json(nullptr)},
            {"mean_block_bytes", m.mean_block_bytes},
            {"max_block_bytes", m.max_block_bytes},
            {"copied_bytes", rounded(m.copied_bytes, 0)},
            {"copy_floor_us", m.copy_floor_us > 0 ? ordered_json(rounded(m.copy_floor_us, 6)) : ordered_json(nullptr)},
            {"start", m.start_clock ? "clock" : "barrier"},
            {"start_spread_us",
             m.start_spread_us >= 0 ? ordered_json(rounded(m.start_spread_us, 3)) : ordered_json(nullptr)},
        };
        if (run.overlap) {
            row["overall_us"] = rounded(m.overall_us, 3);
            row["compute_us"] = rounded(m.compute_us, 3);
            row["init_us"] = rounded(m.init_us, 3);
            row["test_us"] = rounded(m.test_us, 3);
            row["wait_us"] = rounded(m.wait_us, 3);
            row["pure_us"] = rounded(m.pure_us, 3);
            row["overlap_pct"] = rounded(m.overlap_pct, 2);
            row["overlap_slices"] = m.overlap_slices;
        }
        text += "  " + row.dump() + (i + 1 < rows.size() ? ",\n" : "\n");
    }
    return write_file(path, text + "]\n");
}

void print_osu_header(std::FILE *out, const OsuHeader &h)
{
    std::fprintf(out, "\n# OSU MPI %s%s Personalized Exchange Latency Test\n", h.overlap ? "Non-blocking " : "",
                 h.alltoall ? "All-to-All" : "All-to-Allv");
    if (h.algorithm == "mpi")
        std::fprintf(out, "# mpix algorithm: mpi (%s%s itself on a duplicate of MPI_COMM_WORLD, no mpix)\n",
                     h.overlap ? "MPI_Ia" : "MPI_A", h.alltoall ? "lltoall" : "lltoallv");
    else if (h.algorithm == "auto")
        std::fprintf(out, "# mpix algorithm: auto (the library's pick per size, listed below the table)%s%s\n",
                     h.params.empty() ? "" : "  params: ", h.params.c_str());
    else
        std::fprintf(out, "# mpix algorithm: %s  params: %s\n", h.algorithm.c_str(),
                     h.params.empty() ? "default" : h.params.c_str());
    if (h.overlap) {
        char slicing[96];
        if (h.overlap_slices > 0)
            std::snprintf(slicing, sizeof slicing, "in %d slices, %s after each", h.overlap_slices,
                          h.algorithm == "mpi" ? "MPI_Test" : "MPIX_Test");
        else
            std::snprintf(slicing, sizeof slicing, "in one piece, no test");
        std::fprintf(out,
                     "# mpix-bench --format osu --overlap: P=%d nodes=%d ppn=%d dist=%s seed=%llu%s; each figure: each"
                     " rank's mean over the timed calls, averaged over ranks; computation: the median of the slowest"
                     " rank's pure communication time, %s\n",
                     h.ranks, h.nodes, h.ppn, h.alltoall ? "equal" : h.dist.c_str(), h.seed,
                     MPIX_SMPI ? " (SimGrid SMPI)" : "", slicing);
        std::fprintf(out, "# Datatype: MPI_BYTE.\n");
        std::fprintf(out, "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n");
        std::fprintf(out, "%-*s%*s%*s", 10, "# Size", 18, "Overall(us)", 18, "Compute(us)");
        if (h.full)
            std::fprintf(out, "%*s%*s%*s", 18, "Coll. Init(us)", 18, "MPI_Test(us)", 18, "MPI_Wait(us)");
        std::fprintf(out, "%*s%*s", 18, "Pure Comm.(us)", 18, "Overlap(%)");
        if (h.validation)
            std::fprintf(out, "%*s", 18, "Validation");
        std::fprintf(out, "\n");
        std::fflush(out);
        return;
    }
    std::fprintf(out,
                 "# mpix-bench --format osu: P=%d nodes=%d ppn=%d dist=%s seed=%llu%s; latency: each rank's"
                 " mean over the timed calls, averaged (min, max) over ranks\n",
                 h.ranks, h.nodes, h.ppn, h.alltoall ? "equal" : h.dist.c_str(), h.seed,
                 MPIX_SMPI ? " (SimGrid SMPI)" : "");
    std::fprintf(out, "# Datatype: MPI_BYTE.\n");
    std::fprintf(out, "%-*s%*s", 10, "# Size", 18, "Avg Latency(us)");
    if (h.full)
        std::fprintf(out, "%*s%*s%*s", 18, "Min Latency(us)", 18, "Max Latency(us)", 12, "Iterations");
    if (h.validation)
        std::fprintf(out, "%*s", 18, "Validation");
    std::fprintf(out, "\n");
    std::fflush(out);
}

void print_osu_row(std::FILE *out, const OsuHeader &h, long long size, const Measurement &m)
{
    if (h.overlap) {
        std::fprintf(out, "%-*lld%*.*f%*.*f", 10, size, 18, 2, m.osu_overall_us, 18, 2, m.osu_compute_us);
        if (h.full)
            std::fprintf(out, "%*.*f%*.*f%*.*f", 18, 2, m.osu_init_us, 18, 2, m.osu_test_us, 18, 2, m.osu_wait_us);
        std::fprintf(out, "%*.*f%*.*f", 18, 2, m.rank_mean_avg_us, 18, 2, m.osu_overlap_pct);
        if (h.validation)
            std::fprintf(out, "%*s", 18, m.verified == "yes" ? "Pass" : m.verified == "FAILED" ? "Fail" : "Skipped");
        std::fprintf(out, "\n");
        std::fflush(out);
        return;
    }
    std::fprintf(out, "%-*lld%*.*f", 10, size, 18, 2, m.rank_mean_avg_us);
    if (h.full)
        std::fprintf(out, "%*.*f%*.*f%*d", 18, 2, m.rank_mean_min_us, 18, 2, m.rank_mean_max_us, 12, m.iters);
    if (h.validation)
        std::fprintf(out, "%*s", 18, m.verified == "yes" ? "Pass" : m.verified == "FAILED" ? "Fail" : "Skipped");
    std::fprintf(out, "\n");
    std::fflush(out);
}

void print_osu_picks(std::FILE *out, const std::vector<std::pair<long long, std::string>> &picks)
{
    if (picks.empty())
        return;
    std::string text;
    for (std::size_t i = 0, j; i < picks.size(); i = j) {
        for (j = i + 1; j < picks.size() && picks[j].second == picks[i].second;)
            ++j;
        text += (text.empty() ? "" : ", ") + std::to_string(picks[i].first) +
                (j - 1 > i ? "-" + std::to_string(picks[j - 1].first) : "") + " " + picks[i].second;
    }
    std::fprintf(out, "# mpix auto picked: %s\n", text.c_str());
    std::fflush(out);
}

std::string write_workload_json(const std::string &path, const WorkloadRecord &w)
{
    ordered_json head = {
        {"collective", mpix::collective_name(w.coll)},
        {"P", w.ranks},
        {"ppn", w.ranks_per_node_max},
        {"nodes", w.nodes},
        {"dist", w.dist},
        {"size", w.size},
        {"seed", w.seed},
        {"node_of", w.node_of},
    };
    // The P x P bytes are written a source row per line, one row in memory at a
    // time (P = 4096 is 16 M numbers): the head's closing brace makes way for them.
    std::string text = head.dump();
    text.pop_back();
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return "cannot write " + path + ": " + std::strerror(errno);
    std::fputs(text.c_str(), f);
    std::fputs(",\"bytes\":[", f);
    const std::size_t p = (std::size_t)w.ranks;
    for (std::size_t src = 0; src < p; ++src) {
        const auto first = w.bytes.begin() + (std::ptrdiff_t)(src * p);
        const ordered_json row(std::vector<unsigned long long>(first, first + (std::ptrdiff_t)p));
        std::fprintf(f, "%s\n%s", src ? "," : "", row.dump().c_str());
    }
    std::fputs("\n]}\n", f);
    const bool failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || failed)
        return "error writing " + path + ": " + std::strerror(errno);
    return "";
}

void print_auto_map(std::FILE *out, const AutoMapGrid &grid)
{
    ordered_json collectives = ordered_json::object();
    for (Collective coll : {Collective::alltoall, Collective::alltoallv}) {
        auto rule = [&](long long p, long long ppn, long long bytes) {
            const int nodes = (int)((p + ppn - 1) / ppn);
            return coll == Collective::alltoall ? mpix::auto_alltoall_rule((int)p, nodes, (std::size_t)bytes)
                                                : mpix::auto_alltoallv_rule((int)p, nodes, (unsigned long long)bytes);
        };
        std::set<const mpix::Algorithm *> seen;
        ordered_json by_ppn = ordered_json::object();
        for (long long ppn : grid.ppn) {
            ordered_json pick = ordered_json::array();
            for (long long p : grid.ranks) {
                ordered_json row = ordered_json::array();
                for (long long b : grid.sizes) {
                    const mpix::Algorithm *a = rule(p, ppn, b);
                    seen.insert(a);
                    row.push_back(a->name);
                }
                pick.push_back(row);
            }
            by_ppn[std::to_string(ppn)] = {{"P", grid.ranks}, {"bytes", grid.sizes}, {"pick", pick}};
        }
        ordered_json names = ordered_json::array();  // in registry order
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
            if (seen.count(a))
                names.push_back(a->name);
        collectives[mpix::collective_name(coll)] = {{"algorithms", names}, {"ppn", by_ppn}};
    }
    const ordered_json map = {
        {"rule", "auto"},
        {"collectives", collectives},
        {"note", "alltoallv: bytes = the agreed largest per-rank mean block"},
    };
    std::fprintf(out, "%s\n", map.dump().c_str());
    std::fflush(out);
}

void print_registry(std::FILE *out)
{
    for (int c = 0; c < mpix::kCollectives; ++c) {
        const Collective coll = (Collective)c;
        std::fprintf(out, "%s:\n", mpix::collective_name(coll));
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
            std::fprintf(out, "  %-16s hints: %-28s %s\n", a->name, *a->hint_keys ? a->hint_keys : "-", a->summary);
    }
}

}  // namespace mpixbench
