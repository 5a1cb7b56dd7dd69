// What mpix-bench (and mpix-tune) write: the table, CSV, JSON, the OSU
// micro-benchmarks' layout, the --workload-out JSON, the --auto-map JSON and the
// registry list. Output only: every function is called on one rank.
#ifndef MPIX_BENCH_REPORTERS_HPP
#define MPIX_BENCH_REPORTERS_HPP

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bound.hpp"
#include "core/hints.hpp"
#include "runner.hpp"

namespace mpixbench {

// What every row of a run shares.
struct RunDescription {
    mpix::Collective coll = mpix::Collective::alltoallv;
    int ranks = 0, nodes = 0;
    int ppn = 0;  // ceil(P / nodes)
    std::string dist;
    unsigned long long seed = 1;
    int iters = 0, warmup = 0;
    bool overlap = false;  // --overlap: the CSV and JSON have its columns
};

// One row of the table, CSV and JSON.
struct ResultRow {
    std::string algorithm, params;
    long long size = 0;
    Measurement measured;
    double speedup = 0;   // the baseline's median over this row's; 0: no baseline
    double bound_us = 0;  // the exchange's lower bound (simulated runs only); 0: none
};

// The table's comment lines: what the speedup is relative to ("MPI_Alltoallv",
// "the personalized backend", a registry name or "none"), whether the MPI
// library's own row could not run (SMPI), persistent rows, bounds per size.
struct TableNotes {
    std::string speedup_versus;
    bool mpi_row_unavailable = false;
    bool persistent = false;
    bool overlap = false;  // --overlap: median/min/max are the pure communication; its columns
    int overlap_slices = 0;
    std::map<long long, mpix::sim::Bound> bounds;
};

void print_table(std::FILE *out, const RunDescription &run, const TableNotes &notes,
                 const std::vector<ResultRow> &rows);

// The CSV (bench/README.md): the header line and one row, without the newline.
// With --overlap (run.overlap) the header ends in the overlap columns
// (overall_us,compute_us,init_us,test_us,wait_us,pure_us,overlap_pct,overlap_slices).
std::string csv_header(bool overlap = false);
// Whether `line`, a CSV file's first line, is that header. A trailing carriage
// return is ignored: a file saved with CRLF line ends (Python's csv module, an
// editor) is the same file, and the readers take both line ends.
bool is_csv_header(std::string line, bool overlap = false);
std::string csv_line(const RunDescription &run, const ResultRow &row);
// Appends rows to path, writing the header first into an empty or new file;
// refuses a file whose header differs. Returns an error text, empty on success.
std::string append_csv(const std::string &path, const RunDescription &run, const std::vector<ResultRow> &rows);
// The rows as a JSON array (the CSV's columns as keys). Error text or empty.
std::string write_json(const std::string &path, const RunDescription &run, const std::vector<ResultRow> &rows);

// --format osu: what OSU 7.x's osu_alltoall / osu_alltoallv print. Columns:
// size left-aligned in 10, numbers right-aligned in 18 with 2 decimals,
// Iterations in 12, Validation in 18.
struct OsuHeader {
    bool alltoall = false;  // osu_alltoall, else osu_alltoallv
    std::string algorithm;  // a registry name, "auto" or "mpi"
    std::string params;     // the hints shown ("" for none)
    int ranks = 0, nodes = 0, ppn = 0;
    std::string dist;
    unsigned long long seed = 1;
    bool full = false, validation = false;  // -f, -c
    // --overlap: osu_ialltoall(v)'s layout (Overall, Compute, Pure Comm., Overlap;
    // -f adds Coll. Init, MPI_Test, MPI_Wait).
    bool overlap = false;
    int overlap_slices = 0;
};
void print_osu_header(std::FILE *out, const OsuHeader &h);
void print_osu_row(std::FILE *out, const OsuHeader &h, long long size, const Measurement &m);
// auto's pick per size, as runs of sizes: "# mpix auto picked: 1-64 nonblocking, 128-1048576 scattered".
void print_osu_picks(std::FILE *out, const std::vector<std::pair<long long, std::string>> &picks);

// --workload-out: the exact bytes of every block a run moved.
struct WorkloadRecord {
    mpix::Collective coll = mpix::Collective::alltoallv;
    int ranks = 0;
    int ranks_per_node_max = 0;  // "ppn": ranks on the library's largest node
    int nodes = 0;
    std::string dist;
    long long size = 0;
    unsigned long long seed = 1;
    std::vector<int> node_of;                // rank -> node as the library sees it
    std::vector<unsigned long long> bytes;   // [src * P + dst]
};
// Error text ("cannot write PATH: reason"), empty on success.
std::string write_workload_json(const std::string &path, const WorkloadRecord &w);

// --auto-map: what `auto` picks for alltoall and alltoallv over a grid of P,
// bytes and ranks per node (nodes = ceil(P/ppn)), from the library's own rule
// functions, so the map cannot drift from the library. Lists sorted, no duplicates.
struct AutoMapGrid {
    std::vector<long long> ranks, sizes, ppn;
};
void print_auto_map(std::FILE *out, const AutoMapGrid &grid);

// --list: every registry row with the hints it reads.
void print_registry(std::FILE *out);

}  // namespace mpixbench

#endif
