// mpix-tune's tables: reads benchmark CSVs (mpix-bench / mpix-tune rows) and
// turns the measured times into a selection table the library loads (the
// `tuning_file` hint). Pure C++: no MPI, so the table building is tested
// without mpiexec and `mpix-tune --from-csv` runs anywhere.
#ifndef MPIX_BENCH_TUNE_TABLE_HPP
#define MPIX_BENCH_TUNE_TABLE_HPP

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>  // the whole of it only where tables are built

namespace mpixbench {

// One CSV row. Columns an older file lacks keep their "unknown" values.
struct TuneRow {
    std::string collective, algorithm, params, dist, verified;
    long long ranks = 0;   // P (0: unknown)
    long long nodes = 0;   // 0: unknown
    long long ppn = 0;     // the CSV's ppn column: ceil(P / nodes) (0: unknown)
    long long size = 0;    // S, the workload's block size scale in bytes
    double median_us = 0, min_us = 0, max_us = 0;
    bool has_mean_block = false, has_max_block = false;
    unsigned long long mean_block_bytes = 0, max_block_bytes = 0;
    std::string source;    // "file:line", for messages
};

// Reads one CSV (mpix-bench's and mpix-tune's, reporters.hpp; header-driven: columns are found by name, in any order; a
// repeated header line, as from concatenated files, is read again). Needs the
// columns collective, algorithm, params, size, dist, median_us and verified.
// On failure returns no rows and sets *why; lines that cannot be read are
// skipped with a message in *warnings (a run killed mid-line leaves one).
std::vector<TuneRow> read_tune_csv(const std::string &path, std::string *why,
                                   std::vector<std::string> *warnings = nullptr);

// What identifies a measurement for resuming: collective, algorithm, params,
// P, ppn, size, dist. done_keys skips FAILED rows, so a resumed run measures
// them again.
std::string tune_key(const std::string &collective, const std::string &algorithm, const std::string &params,
                     long long ranks, long long ppn, long long size, const std::string &dist);
std::set<std::string> done_keys(const std::vector<TuneRow> &rows);

// params text -> hints: "default" (or "") gives none; "radix=4;batch_size=32"
// gives {{"radix","4"},{"batch_size","32"}}. False on text that is not
// key=value pairs. (The inverse is params_text, sweep.hpp.)
bool parse_params(const std::string &params, std::vector<std::pair<std::string, std::string>> *hints);

struct BuildOptions {
    std::string version;    // "generated.by": "mpix-tune VERSION"
    std::string platform;   // free text from the user
    std::string date;       // ISO 8601; empty: now (UTC)
    std::string command;    // the command line, optional
    std::vector<std::string> csv_files;  // "generated.csv"
    // Neighbouring size bands merge when one candidate stays within this ratio
    // of the best at every point of both (1.0: only an exact tie merges).
    double merge_within = 1.0;
    // The seed of the synthetic workloads, for rows without mean_block_bytes.
    unsigned long long seed = 1;
    // Registry checks (mpix-tune passes the registry's): rows of an unknown
    // algorithm are dropped, hints a row does not read are left out of its rule
    // (the library refuses them). Unset: everything is kept.
    std::function<bool(const std::string &collective, const std::string &algorithm)> known_algorithm;
    std::function<bool(const std::string &collective, const std::string &algorithm, const std::string &key)>
        reads_hint;
    // Rows that agree `auto`'s statistic inside their own messages in a
    // blocking call (the registry's carries_block_stats): a size band they win
    // is not charged the agreement's cost. Unset: every row pays it.
    std::function<bool(const std::string &collective, const std::string &algorithm)> carries_agreement;
    // `auto` agrees once in this many calls while its pick holds (the hint
    // agreement_period): a candidate is charged this share of the measured
    // agreement, what a steady exchange pays a call. 1: every call pays it all.
    unsigned long long agreement_period = 1;
    // Neighbouring bands of a rule that tests alltoallv's agreed statistic merge
    // where one candidate stays within this ratio of the best at every point of
    // both (at least merge_within): such a border is worth keeping only if it
    // wins more than its risks cost, a pick up to agreement_period + 1 calls late
    // after a change and a border placed between training sizes 4x apart
    // (flat-16x16, 2026-12-02: bands within 2.6 % of one rule at the training
    // sizes were 1.16x off at the held-back 8 KiB points).
    double agreed_merge_within = 1.05;
};

// The selection table (format version 1) for the alltoall and alltoallv rows;
// *report gets a human summary: every region's pick, margin and runner-up, and
// what was left out and why. An empty table (no usable rows) has no collective
// keys; the caller decides whether that is an error.
nlohmann::ordered_json build_selection_table(const std::vector<TuneRow> &rows, const BuildOptions &options,
                                             std::string *report);
// The same table as the text mpix-tune writes (JSON, 2-space indent, a final
// newline), or "" when it has no collective keys.
std::string selection_table_text(const std::vector<TuneRow> &rows, const BuildOptions &options, std::string *report);

// The statistic an alltoallv rule agrees on for a synthetic workload: the
// largest over ranks of the rank's mean block to the other ranks (integer
// division, as the library computes it). False for workloads read from files
// (matrix:, traffic:) or unknown names.
bool synthetic_mean_block_bytes(const std::string &dist, long long ranks, long long size, unsigned long long seed,
                                unsigned long long *mean);

}  // namespace mpixbench

#endif
