// mpix-bench: verifies and times every registry algorithm of one collective on a
// chosen workload, beside the MPI library's own collective in the same run.
// This file holds the options and main; the measuring is bench/runner.cpp, the
// sweep bench/sweep.cpp, the outputs bench/reporters.cpp.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "config.h"
#include "options.hpp"
#include "reporters.hpp"
#include "runner.hpp"
#include "sweep.hpp"
#include "workloads.hpp"

namespace {

using mpix::Collective;
using mpixbench::BenchOptions;
using mpixbench::refuse;

const char *const kProgram = "mpix-bench";

const char *const kDescription =
    "mpix-bench: verifies and times every registry algorithm of one collective on a\n"
    "chosen workload, beside the MPI library's own collective in the same run.\n"
    "Times: per call the slowest rank's (MPI_Wtime), then median/min/max over the\n"
    "timed calls.";

const char *const kWorkloads =
    "Workloads (--dist), S = --size:\n"
    "  uniform       block bytes uniform in 0..S\n"
    "  equal         every block S bytes (osu_alltoallv's exchange)\n"
    "  normal        mean S/2, sd S/8, clipped to 0..S\n"
    "  powerlaw      S*x^2, x = (i+1)/P over a shuffled order of destinations\n"
    "  fft1          ranks below ceil(0.625P) send S bytes (default 64 = 8 doubles)\n"
    "                to the first ceil(0.78125P) ranks, others nothing\n"
    "  fft2          every rank sends S bytes (default 512 = 64 doubles), the last\n"
    "                rank S/4\n"
    "  matrix:PATH   SpMV halo of a Matrix Market file, row-block partition, S bytes\n"
    "                per vector value (default 8)\n"
    "  traffic:PATH  P x P counts (one row per source rank) times S bytes (default 1)\n"
    "  graph:D       S bytes on each edge of a random graph: every rank sends to D\n"
    "                distinct other ranks (neighbor_alltoallv's default: graph:6)\n"
    "MPIX_Alltoall always sends S bytes per block.\n"
    "\n"
    "Outputs: a table on stdout, progress on stderr; --csv appends rows under one\n"
    "header: collective,algorithm,params,P,nodes,ppn,size,dist,median_us,min_us,\n"
    "max_us,speedup_vs_mpi,verified,bound_us,x_bound,mean_block_bytes,max_block_bytes,\n"
    "copied_bytes,copy_floor_us (--overlap adds overall_us,compute_us,init_us,test_us,\n"
    "wait_us,pure_us,overlap_pct,overlap_slices)\n"
    "(bound_us, x_bound: simulated runs only; mean_block_bytes, max_block_bytes: the\n"
    "workload's largest per-rank mean block to the other ranks and its largest block,\n"
    "what a selection rule agrees on; copied_bytes: the library's own local copies\n"
    "per call, busiest rank; copy_floor_us: their time at the simulated copy model,\n"
    "simulated runs only); --json writes the same columns as keys.";

// The options as given, before the defaults that depend on other options.
struct CommandLine {
    BenchOptions bench;
    bool list = false;
    bool auto_map = false;
    mpixbench::AutoMapGrid grid;
    std::string map_option;  // the first --map-* option given (refused without --auto-map)
    std::string osu_option;  // the first OSU-style option given (refused without --format osu)
    int ppn = 0;
    bool algo_given = false, dist_given = false, iters_given = false, warmup_given = false;
    bool slices_given = false;
};

// --radix / --batch: a list of values >= min, or "sweep".
std::vector<int> sweep_list(const std::string &option, const std::string &value, long long min)
{
    if (value == "sweep")
        return {mpixbench::kSweepValues};
    std::vector<long long> values;
    if (!mpixbench::parse_integer_list(value, min, 1 << 30, &values))
        refuse("bad " + option + " " + value);
    return std::vector<int>(values.begin(), values.end());
}

// OSU's -m [MIN:]MAX (or MIN:): powers of two from MIN to MAX, MIN 0 giving 0 then 1.
bool osu_sizes(const std::string &range, std::vector<long long> *sizes)
{
    long long lo = 1, hi = 1 << 20;
    const std::size_t colon = range.find(':');
    if (colon == std::string::npos) {
        if (!mpixbench::parse_integer(range, &hi))
            return false;
    } else if (!mpixbench::parse_integer(range.substr(0, colon), &lo) ||
               (colon + 1 < range.size() && !mpixbench::parse_integer(range.substr(colon + 1), &hi))) {
        return false;
    }
    if (lo < 0 || hi < lo || hi > (1LL << 30))
        return false;
    sizes->clear();
    long long s = lo;
    if (s == 0) {
        sizes->push_back(0);
        s = 1;
    }
    for (; s <= hi; s *= 2)
        sizes->push_back(s);
    return !sizes->empty();
}

// A --map-* list: integers in [min, max], sorted, duplicates dropped.
void grid_list(const std::string &option, const std::string &value, long long min, long long max, const char *range,
               std::vector<long long> *out)
{
    if (!mpixbench::parse_integer_list(value, min, max, out))
        refuse("bad " + option + " " + value + " (" + range + ")");
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
}

void add_options(CLI::App &app, CommandLine &cl)
{
    BenchOptions &o = cl.bench;
    auto osu_style = [&cl](const char *name) {
        if (cl.osu_option.empty())
            cl.osu_option = name;
    };
    const std::string workload = "Workload", algorithms = "Algorithms and hints", timing = "Timing";
    const std::string output = "Output", osu = "OSU layout (--format osu)", map = "Auto map (--auto-map)";

    app.add_option_function<std::string>(
           "--coll",
           [&o](const std::string &v) {
               if (!mpix::collective_from_name(v.c_str(), &o.coll))
                   refuse("unknown collective " + v);
           },
           "the collective: alltoall, alltoallv (default), alltoall_crs, alltoallv_crs or "
           "neighbor_alltoallv")
        ->type_name("NAME")
        ->group(workload);
    app.add_option_function<std::string>(
           "--size",
           [&o](const std::string &v) {
               std::vector<long long> sizes;
               for (const std::string &item : mpixbench::split_list(v)) {
                   long long n;
                   if (!mpixbench::parse_integer(item, &n) || n < 0 || n > (1LL << 30))
                       refuse("bad --size " + item);
                   sizes.push_back(n);
               }
               o.sizes = sizes;
               o.osu_range = false;
           },
           "S: block size scale in bytes (16,256,4096,65536; see the workloads below)")
        ->type_name("BYTES[,...]")
        ->group(workload);
    app.add_option_function<std::string>(
           "--dist",
           [&](const std::string &v) {
               const std::string problem = mpixbench::workload_problem(v);
               if (problem == "unknown distribution")
                   refuse("unknown --dist " + v);
               if (!problem.empty())
                   refuse("bad --dist " + v + " (" + problem + ")");
               o.dist = v;
               cl.dist_given = true;
           },
           "the workload: uniform (default; neighbor_alltoallv: graph:6), equal, normal, powerlaw, "
           "fft1, fft2, matrix:PATH, traffic:PATH or graph:D (see below)")
        ->type_name("WORKLOAD")
        ->group(workload);
    app.add_option_function<std::string>(
           "--matrix",
           [&](const std::string &v) {
               o.dist = "matrix:" + v;
               cl.dist_given = true;
           },
           "the same as --dist matrix:PATH (neighbor_alltoallv: the halo of an SpMV with a "
           "row-block partition as a neighbour topology)")
        ->type_name("PATH")
        ->group(workload);
    app.add_option_function<std::string>(
           "--degree",
           [&](const std::string &v) {
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 1 || n > 1 << 20)
                   refuse("bad --degree " + v + " (D >= 1)");
               o.dist = "graph:" + v;
               cl.dist_given = true;
           },
           "the same as --dist graph:D (neighbor_alltoallv: a random graph as a neighbour "
           "topology; its baseline mpi = MPI_Neighbor_alltoallv on "
           "MPI_Dist_graph_create_adjacent, not under SimGrid SMPI)")
        ->type_name("D")
        ->group(workload);
    app.add_option_function<std::string>(
           "--seed",
           [&o](const std::string &v) {
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 0)
                   refuse("bad --seed " + v);
               o.seed = (unsigned long long)n;
           },
           "workload seed (1)")
        ->type_name("N")
        ->group(workload);
    app.add_option_function<std::string>(
           "--ppn",
           [&cl](const std::string &v) {
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 0 || n > 1 << 20)
                   refuse("bad --ppn " + v);
               cl.ppn = (int)n;
           },
           "emulate nodes of N consecutive ranks")
        ->type_name("N")
        ->group(workload);

    app.add_option_function<std::string>(
           "--algo",
           [&](const std::string &v) {
               o.algos = mpixbench::split_list(v);
               cl.algo_given = true;
               if (o.algos.empty())
                   refuse("empty --algo");
           },
           "registry algorithms to run (all = every one, then auto; all,-NAME drops one)")
        ->type_name("NAME[,NAME]|all|auto")
        ->group(algorithms);
    app.add_option_function<std::string>(
           "--radix", [&o](const std::string &v) { o.radix = sweep_list("--radix", v, 2); },
           "radix values for algorithms that read `radix`")
        ->type_name("R[,...]|sweep")
        ->group(algorithms);
    app.add_option_function<std::string>(
           "--batch", [&o](const std::string &v) { o.batch = sweep_list("--batch", v, 1); },
           "batch_size values for algorithms that read it")
        ->type_name("B[,...]|sweep")
        ->group(algorithms);
    app.add_option_function<std::string>(
           "--hint",
           [&o](const std::string &v) {
               const std::size_t eq = v.find('=');
               if (eq == std::string::npos || eq == 0)
                   refuse("bad --hint " + v + " (KEY=VALUE)");
               const std::string key = v.substr(0, eq), value = v.substr(eq + 1);
               const bool chooses_row = key.size() > 10 && key.compare(key.size() - 10, 10, "_algorithm") == 0;
               if (chooses_row || key == "radix" || key == "batch_size")
                   refuse("--hint " + key + ": use --algo, --radix or --batch");
               const std::string problem = mpixbench::hint_problem(key, value);
               if (!problem.empty())
                   refuse("bad --hint " + v + " (unknown key or malformed value: " + problem + ")");
               o.hints.emplace_back(key, value);
           },
           "any other hint for every algorithm (docs/tuning.md, Hints), e.g. inner=pairwise; "
           "repeatable; shown in params")
        ->type_name("KEY=VALUE")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->group(algorithms);
    app.add_option_function<std::string>(
           "--baseline", [&o](const std::string &v) { o.baseline = v; },
           "what speedup is relative to (mpi = MPI_Alltoall(v), MPI_Neighbor_alltoallv; "
           "crs collectives: the `personalized` backend)")
        ->type_name("mpi|NAME|none")
        ->group(algorithms);
    app.add_flag_callback(
           "--persistent", [&o] { o.persistent = true; },
           "also time each algorithm as a persistent request (init once, MPIX_Start + "
           "MPIX_Wait per call; alltoall, alltoallv, neighbor_alltoallv): rows with params "
           "...;persistent")
        ->group(algorithms);
    app.add_flag_callback(
           "--overlap", [&o] { o.overlap = true; },
           "OSU's overlap benchmark (osu_ialltoall(v)), alltoall and alltoallv: each row as a nonblocking call "
           "(MPIX_Ialltoall(v); the baseline MPI_Ialltoall(v)), first alone (pure communication: start + wait), then "
           "with computation as long as that between the start and the wait, in slices with an MPIX_Test after "
           "each; reports overall, compute, test and pure times and overlap % = max(0, 100 (1 - (overall - "
           "compute) / pure))")
        ->group(algorithms);
    app.add_option_function<std::string>(
           "--overlap-slices",
           [&](const std::string &v) {
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 0 || n > 1000000)
                   refuse("bad --overlap-slices " + v + " (0 <= N <= 1000000)");
               o.overlap_slices = (int)n;
               cl.slices_given = true;
           },
           "--overlap: the computation in N equal slices, an MPIX_Test (MPI_Test for the MPI library's own) after "
           "each (16; 0: one piece and no test, OSU's default)")
        ->type_name("N")
        ->group(algorithms);
    app.add_flag_callback("--list", [&cl] { cl.list = true; }, "print the registry and exit")->group(algorithms);

    app.add_option_function<std::string>(
           "--iters",
           [&](const std::string &v) {
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 1 || n > 1000000)
                   refuse("bad --iters " + v);
               o.iters = (int)n;
               cl.iters_given = true;
           },
           "timed calls per parameter set (20; SimGrid SMPI: 1)")
        ->type_name("N")
        ->group(timing);
    app.add_option_function<std::string>(
           "--warmup",
           [&](const std::string &v) {
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 0 || n > 1000000)
                   refuse("bad --warmup " + v);
               o.warmup = (int)n;
               cl.warmup_given = true;
           },
           "untimed calls per parameter set (3; SimGrid SMPI: 0, crs collectives 1)")
        ->type_name("N")
        ->group(timing);
    app.add_flag_callback("--no-verify", [&o] { o.verify = false; }, "skip the check against the expected bytes")
        ->group(timing);

    app.add_option_function<std::string>(
           "--csv", [&o](const std::string &v) { o.csv = v; },
           "results appended as CSV (one header; columns below)")
        ->type_name("FILE")
        ->group(output);
    app.add_option_function<std::string>(
           "--json", [&o](const std::string &v) { o.json = v; }, "results as JSON (the CSV's columns as keys)")
        ->type_name("FILE")
        ->group(output);
    app.add_option_function<std::string>(
           "--workload-out",
           [&o](const std::string &v) {
               if (v.empty())
                   refuse("empty --workload-out");
               o.workload_out = v;
           },
           "after the run, rank 0 writes the exact bytes of every block the run moved as "
           "JSON: {\"collective\", \"P\", \"ppn\" (ranks on the largest node), \"nodes\", \"dist\", "
           "\"size\", \"seed\", \"node_of\": [node of each rank as the library sees it], "
           "\"bytes\": [[bytes src sends to dst] for each src]}; sparse collectives: each "
           "message's bytes, 0 where none. Needs exactly one size (--size S); not written "
           "when the run could not start; a file that cannot be written exits 2")
        ->type_name("FILE")
        ->group(output);
    app.add_option_function<std::string>(
           "--format",
           [&o](const std::string &v) {
               if (v != "table" && v != "osu")
                   refuse("unknown --format " + v + " (table or osu)");
               o.osu = v == "osu";
           },
           "table (default), or the OSU micro-benchmarks' layout (osu_alltoall / "
           "osu_alltoallv) for exactly one --algo: a registry name, auto (the default there) "
           "or mpi (the MPI library's own collective); alltoallv's default --dist: equal")
        ->type_name("table|osu")
        ->group(output);

    app.add_option_function<std::string>(
           "-m,--message-size",
           [&o, osu_style](const std::string &v) {
               osu_style("-m");
               if (!osu_sizes(v, &o.sizes))
                   refuse("bad -m " + v + " ([MIN:]MAX, 0 <= MIN <= MAX <= 2^30)");
               o.osu_range = true;
           },
           "message sizes: powers of two from MIN to MAX (1:1048576)")
        ->type_name("[MIN:]MAX")
        ->group(osu);
    app.add_option_function<std::string>(
           "-i,--iterations",
           [&, osu_style](const std::string &v) {
               osu_style("-i");
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 1 || n > 1000000)
                   refuse("bad -i " + v);
               o.iters = (int)n;
               cl.iters_given = true;
           },
           "timed calls per size (1000, above 8 KiB 100)")
        ->type_name("N")
        ->group(osu);
    app.add_option_function<std::string>(
           "-x",
           [&, osu_style](const std::string &v) {
               osu_style("-x");
               long long n;
               if (!mpixbench::parse_integer(v, &n) || n < 0 || n > 1000000)
                   refuse("bad -x " + v);
               o.warmup = (int)n;
               cl.warmup_given = true;
           },
           "warm-up calls per size (100, above 8 KiB 10)")
        ->type_name("N")
        ->group(osu);
    app.add_flag_callback(
           "-f,--full",
           [&o, osu_style] {
               osu_style("-f");
               o.osu_full = true;
           },
           "full: min, max and iterations columns")
        ->group(osu);
    app.add_flag_callback(
           "-c,--validation",
           [&o, osu_style] {
               osu_style("-c");
               o.osu_validation = true;
           },
           "validation column (Pass/Fail; any Fail exits 1)")
        ->group(osu);

    app.add_flag_callback("--auto-map", [&cl] { cl.auto_map = true; },
                          "print, as JSON on stdout, what `auto` picks for alltoall and alltoallv over "
                          "a grid (the library's own rule functions), and exit; runs no exchange, "
                          "needs no mpiexec: {\"rule\":\"auto\",\"collectives\":{COLL:{\"algorithms\":[names "
                          "that appear],\"ppn\":{PPN:{\"P\":[...],\"bytes\":[...],\"pick\":[[name per bytes] "
                          "per P]}}}},\"note\":...}; nodes = ceil(P/ppn); alltoallv's bytes: the agreed "
                          "largest per-rank mean block. Grid lists are sorted, duplicates dropped")
        ->group(map);
    auto map_list = [&cl](const char *option, std::vector<long long> *list, long long min, long long max,
                          const char *range) {
        return [&cl, option, list, min, max, range](const std::string &v) {
            grid_list(option, v, min, max, range, list);
            if (cl.map_option.empty())
                cl.map_option = option;
        };
    };
    app.add_option_function<std::string>("--map-ranks",
                                         map_list("--map-ranks", &cl.grid.ranks, 1, 1 << 30, "values >= 1, <= 2^30"),
                                         "P values (2,4,8,...,4096)")
        ->type_name("LIST")
        ->group(map);
    app.add_option_function<std::string>(
           "--map-sizes", map_list("--map-sizes", &cl.grid.sizes, 0, 1LL << 40, "bytes, 0 <= B <= 2^40"),
           "bytes (powers of two from 1 to 1048576)")
        ->type_name("LIST")
        ->group(map);
    app.add_option_function<std::string>("--map-ppn",
                                         map_list("--map-ppn", &cl.grid.ppn, 1, 1 << 30, "values >= 1, <= 2^30"),
                                         "ranks per node (1,4,16)")
        ->type_name("LIST")
        ->group(map);
}

// The options that only make sense together, and the defaults that depend on
// other options. Returns an error text, empty when the command line holds.
std::string finish(CommandLine &cl)
{
    BenchOptions &o = cl.bench;
    if (!cl.osu_option.empty() && !o.osu)
        return cl.osu_option + " is an OSU-style option: use it with --format osu (or see --help)";
    if (!cl.map_option.empty() && !cl.auto_map)
        return cl.map_option + " sets the grid of --auto-map: use it with --auto-map";
    if (cl.auto_map) {
        if (!o.workload_out.empty())
            return "--auto-map runs no exchange: --workload-out would have nothing to write";
        if (cl.grid.ranks.empty())
            for (long long r = 2; r <= 4096; r *= 2)
                cl.grid.ranks.push_back(r);
        if (cl.grid.sizes.empty())
            for (long long b = 1; b <= 1048576; b *= 2)
                cl.grid.sizes.push_back(b);
        if (cl.grid.ppn.empty())
            cl.grid.ppn = {1, 4, 16};
        return "";
    }
    const bool crs = o.coll == Collective::alltoall_crs || o.coll == Collective::alltoallv_crs;
    if (cl.slices_given && !o.overlap)
        return "--overlap-slices sets the computation of --overlap: use it with --overlap";
    if (o.overlap && o.coll != Collective::alltoall && o.coll != Collective::alltoallv)
        return "--overlap: --coll alltoall or alltoallv (the nonblocking calls MPIX_Ialltoall(v))";
    if (o.overlap && o.persistent)
        return "--overlap times nonblocking calls: not with --persistent";
    if (o.persistent && crs)
        return "--persistent: alltoall, alltoallv or neighbor_alltoallv (the crs collectives have no persistent form)";
    if (o.persistent && o.osu)
        return "--persistent needs the table format (--format osu measures one call form)";
    if (o.coll == Collective::neighbor_alltoallv && !cl.dist_given)
        o.dist = "graph:6";
    if (o.osu) {
        if (o.coll != Collective::alltoall && o.coll != Collective::alltoallv)
            return "--format osu: --coll alltoall or alltoallv (OSU has no crs or neighbour benchmark here)";
        if (!cl.algo_given)
            o.algos = {"auto"};
        if (o.algos.size() != 1 || o.algos[0] == "all" || o.algos[0][0] == '-')
            return "--format osu measures one algorithm per run: --algo NAME, auto or mpi (not all or a list)";
        const bool sweeps_radix = o.radix.size() > 1 || (!o.radix.empty() && o.radix[0] == mpixbench::kSweepValues);
        const bool sweeps_batch = o.batch.size() > 1 || (!o.batch.empty() && o.batch[0] == mpixbench::kSweepValues);
        if (sweeps_radix || sweeps_batch)
            return "--format osu measures one parameter set per run: one --radix and one --batch value";
        if (!o.csv.empty() || !o.json.empty())
            return "--format osu writes OSU's layout only: --csv and --json need the table format";
        if (o.osu_validation && !o.verify)
            return "-c (validation) needs the verification that --no-verify turns off";
        if (o.sizes.empty()) {
            osu_sizes("1:1048576", &o.sizes);
            o.osu_range = true;
        }
        if (o.coll == Collective::alltoallv && !cl.dist_given)
            o.dist = "equal";  // osu_alltoallv: every block the same size
        // Without -i / -x: OSU's defaults by size (the sweep's iters_for /
        // warmup_for), natively; under SMPI, where simulated time is
        // deterministic, 1 and 0.
        if (!cl.iters_given)
            o.iters = MPIX_SMPI ? 1 : -1;
        if (!cl.warmup_given)
            o.warmup = MPIX_SMPI ? 0 : -1;
    } else {
        if (o.sizes.empty())
            o.sizes = mpixbench::default_scales(o.dist);
        if (!cl.iters_given)
            o.iters = MPIX_SMPI ? 1 : 20;  // simulated time is deterministic
        // Under SMPI no warm-up for the dense collectives (their cached node
        // communicators are set up before timing), one for the sparse ones (the
        // rma backend creates its window on first use).
        if (!cl.warmup_given)
            o.warmup = MPIX_SMPI ? (crs ? 1 : 0) : 3;
    }
    // --workload-out describes one exchange: exactly one size.
    if (!o.workload_out.empty() && o.sizes.size() != 1)
        return "--workload-out writes one size's workload: give exactly one size (--size S), not " +
               std::to_string(o.sizes.size());
    return "";
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CommandLine cl;
    CLI::App app(kDescription, kProgram);
    mpixbench::configure_app(app);
    add_options(app, cl);
    app.footer(kWorkloads);
    int status = mpixbench::parse_command_line(app, argc, argv, me == 0);
    if (status < 0) {
        const std::string problem = finish(cl);
        if (!problem.empty()) {
            if (me == 0)
                mpixbench::print_usage_error(kProgram, problem);
            status = 2;
        } else if (cl.list || cl.auto_map) {
            if (me == 0 && cl.auto_map)
                mpixbench::print_auto_map(stdout, cl.grid);
            else if (me == 0)
                mpixbench::print_registry(stdout);
            status = 0;
        }
    }
    if (status >= 0) {
        MPI_Finalize();
        return status;
    }
    mpixbench::RunnerOptions runner_options{cl.bench.iters, cl.bench.warmup};
    runner_options.verify = cl.bench.verify;
    runner_options.ppn = cl.ppn;
    runner_options.rank_means = cl.bench.osu;
    {
        mpixbench::Runner runner(MPI_COMM_WORLD, runner_options);
        mpixbench::warn_oversubscribed(MPI_COMM_WORLD, kProgram);
        status = mpixbench::run_bench(cl.bench, runner);
    }
    MPI_Finalize();
    return status;
}
