// Command lines of mpix-bench, mpix-tune and sim/check_sim: CLI11 with the
// programs' conventions. --help prints on stdout and exits 0; a bad option or
// value prints one message on stderr and exits 2. Under MPI every rank parses
// and only the rank that prints (rank 0) says anything.
//
// CLI11 is the build's heaviest header (13-15 s a translation unit): only
// options.cpp includes it, and this header declares plain structs the parsers
// fill, so the programs compile without it.
#ifndef MPIX_BENCH_OPTIONS_HPP
#define MPIX_BENCH_OPTIONS_HPP

#include <string>
#include <vector>

#include "config.h"  // MPIX_SMPI: mpix-tune's defaults
#include "reporters.hpp"  // AutoMapGrid
#include "sweep.hpp"  // BenchOptions
#include "text_fields.hpp"  // the parsers option callbacks use

namespace mpixbench {

// mpix-bench's options as given, before the defaults that depend on other options.
struct BenchCommandLine {
    BenchOptions bench;
    bool list = false;
    bool auto_map = false;
    AutoMapGrid grid;
    std::string map_option;  // the first --map-* option given (refused without --auto-map)
    std::string osu_option;  // the first OSU-style option given (refused without --format osu)
    int ppn = 0;
    bool algo_given = false, dist_given = false, iters_given = false, warmup_given = false;
    bool slices_given = false;
};

// mpix-tune's options.
struct TuneOptions {
    std::vector<std::string> colls{"alltoall", "alltoallv"};
    std::vector<long long> sizes{16, 64, 256, 1024, 4096, 16384, 65536};
    std::vector<std::string> dists{"uniform", "normal", "powerlaw"};
    std::vector<int> ranks;  // P values; empty: the launched P
    int ppn = 0;
    std::vector<int> radix{2, 4, 8, 16}, batch{8, 32, 128}, leaders{1, 2, 4};
    std::vector<std::string> inner{"pairwise", "nonblocking"};
    std::vector<std::string> algos{"all"}, exclude;
    int iters = MPIX_SMPI ? 1 : 20;  // simulated time is deterministic
    int warmup = MPIX_SMPI ? 0 : kTableWarmup;  // natively as mpix-bench's table (runner.hpp)
    long long seed = 1;
    std::vector<std::string> csv;  // the first is appended to
    std::string out = "mpix-tune.json";
    std::string platform;
    double merge_within = 1.0;
    // --agreement-us: the agreement's cost given, not measured (< 0: measure it).
    double agreement_us = -1;
    // --agreement-period: auto agrees once in this many calls while its pick
    // holds; the table charges that share (the library's default hint).
    long long agreement_period = mpix::Hints().agreement_period;
    bool from_csv = false, check = false, dry_run = false, verify = true;
    // --check-table FILE: auto with a table made elsewhere (e.g. from other
    // sizes: held-back points) instead of the table this run writes.
    std::string check_table;
};

// sim/check_sim's options.
struct CheckOptions {
    int stride = 1;  // every stride-th case
    int starts = 0;  // > 0: every case through MPIX_*_init, started this many times
    int in_flight = 0;  // > 0: every case through MPIX_Ialltoall(v), 1 to this many in flight
    std::string only;  // comma-separated algorithm names; empty: all
    std::vector<long long> bench_sizes;  // --bench-sizes: the runner's uniform workload at these S
};

// Each parses argv into *out: -1 to go on, otherwise the exit status (0 after
// --help, 2 after an error), the help or the error already printed when
// `print`. Every option's callback runs as it is parsed, in command-line order
// (so a later --size replaces an earlier -m, as in the hand-written parsers
// this replaced); each option may be repeated (the last wins) unless it says
// otherwise. Help columns fit the option names; every description is wrapped
// to 80 columns.
int parse_bench_command_line(int argc, char **argv, bool print, BenchCommandLine *out);
int parse_tune_command_line(int argc, char **argv, bool print, TuneOptions *out);
int parse_check_sim_command_line(int argc, char **argv, bool print, CheckOptions *out);

// OSU's -m [MIN:]MAX (or MIN:): powers of two from MIN to MAX, MIN 0 giving 0 then 1.
bool osu_sizes(const std::string &range, std::vector<long long> *sizes);

// A command-line error found after parsing (options that only make sense
// together): "PROGRAM: MESSAGE" and where the options are listed, on stderr.
void print_usage_error(const std::string &program, const std::string &message);

}  // namespace mpixbench

#endif
