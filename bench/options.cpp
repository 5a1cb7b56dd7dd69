// Command-line conventions of the bench programs and their options
// (bench/options.hpp): the only translation unit that compiles CLI11.
#include "options.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>

#include "select/registry.hpp"
#include "workloads.hpp"

// SimGrid SMPI's mpi.h defines exit(x) as a macro, which would rewrite CLI11's
// App::exit; CLI11 is read without it, whatever was included before.
#pragma push_macro("exit")
#undef exit
#include <CLI/CLI.hpp>
#pragma pop_macro("exit")

namespace mpixbench {

namespace {

// The help's option column; descriptions are wrapped to the rest of 80 columns.
constexpr std::size_t kOptionColumn = 34, kHelpWidth = 80;

// One paragraph (line breaks become spaces) wrapped at `width` columns.
std::string wrapped(const std::string &text, std::size_t width)
{
    std::istringstream words(text);
    std::string out, line, word;
    while (words >> word) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + line;
}

// Refuses a value from inside an option callback: the message is what the user reads.
[[noreturn]] void refuse(const std::string &message) { throw CLI::ValidationError(message); }


// Before adding options: each may be repeated (the last wins), help columns fit
// the option names; parse_command_line wraps every description to 80 columns.
void configure_app(CLI::App &app)
{
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.get_formatter()->column_width(kOptionColumn);
}

int parse_command_line(CLI::App &app, int argc, char **argv, bool print)
{
    for (CLI::Option *option : app.get_options()) {
        option->trigger_on_parse();
        option->description(wrapped(option->get_description(), kHelpWidth - kOptionColumn));
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success &) {  // --help
        if (print) {
            std::fputs(app.help().c_str(), stdout);
            std::fflush(stdout);
        }
        return 0;
    } catch (const CLI::ParseError &e) {
        if (print)
            print_usage_error(app.get_name(), e.what());
        return 2;
    }
    return -1;
}

// mpix-bench

const char *const kBenchDescription =
    "mpix-bench: verifies and times every registry algorithm of one collective on a\n"
    "chosen workload, beside the MPI library's own collective in the same run.\n"
    "Times: per call the slowest rank's (MPI_Wtime), then median/min/max over the\n"
    "timed calls.";

const char *const kBenchWorkloads =
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
    "  hotspot:K[,M] uniform's blocks, M times (default 8) to K receivers chosen\n"
    "                by the seed\n"
    "  moe:E,K[,A]   expert-parallel MoE dispatch: ceil(P/K) tokens per rank, each\n"
    "                to its top K of E experts of Zipf popularity (exponent A,\n"
    "                default 1) in a seeded order; expert e on rank floor(e*P/E);\n"
    "                S bytes per token routed to an expert on the destination\n"
    "  moe-combine:E,K[,A]  its reverse (the transpose): outputs back to the tokens\n"
    "MPIX_Alltoall always sends S bytes per block.\n"
    "\n"
    "Outputs: a table on stdout, progress on stderr; --csv appends rows under one\n"
    "header: collective,algorithm,params,P,nodes,ppn,size,dist,median_us,min_us,\n"
    "max_us,speedup_vs_mpi,verified,bound_us,x_bound,mean_block_bytes,max_block_bytes,\n"
    "copied_bytes,copy_floor_us,start,start_spread_us (--overlap adds overall_us,\n"
    "compute_us,init_us,test_us,wait_us,pure_us,overlap_pct,overlap_slices)\n"
    "(bound_us, x_bound: simulated runs only; mean_block_bytes, max_block_bytes: the\n"
    "workload's largest per-rank mean block to the other ranks and its largest block,\n"
    "what a selection rule agrees on; copied_bytes: the library's own local copies\n"
    "per call, busiest rank; copy_floor_us: their time at the simulated copy model,\n"
    "simulated runs only; start: --start's method; start_spread_us: the median over\n"
    "the timed calls of the latest rank's start minus the earliest's, which every\n"
    "time includes, empty where the ranks' clocks do not compare); --json writes the\n"
    "same columns as keys.";


// --radix / --batch: a list of values >= min, or "sweep".
std::vector<int> sweep_list(const std::string &option, const std::string &value, long long min)
{
    if (value == "sweep")
        return {kSweepValues};
    std::vector<long long> values;
    if (!parse_integer_list(value, min, 1 << 30, &values))
        refuse("bad " + option + " " + value);
    return std::vector<int>(values.begin(), values.end());
}

// A --map-* list: integers in [min, max], sorted, duplicates dropped.
void grid_list(const std::string &option, const std::string &value, long long min, long long max, const char *range,
               std::vector<long long> *out)
{
    if (!parse_integer_list(value, min, max, out))
        refuse("bad " + option + " " + value + " (" + range + ")");
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
}

void add_bench_options(CLI::App &app, BenchCommandLine &cl)
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
               for (const std::string &item : split_list(v)) {
                   long long n;
                   if (!parse_integer(item, &n) || n < 0 || n > (1LL << 30))
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
               const std::string problem = workload_problem(v);
               if (problem == "unknown distribution")
                   refuse("unknown --dist " + v);
               if (!problem.empty())
                   refuse("bad --dist " + v + " (" + problem + ")");
               o.dist = v;
               cl.dist_given = true;
           },
           "the workload: uniform (default; neighbor_alltoallv: graph:6), equal, normal, powerlaw, "
           "fft1, fft2, matrix:PATH, traffic:PATH, graph:D, hotspot:K[,M], moe:E,K[,A] or moe-combine:E,K[,A] "
           "(see below)")
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
               if (!parse_integer(v, &n) || n < 1 || n > 1 << 20)
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
               if (!parse_integer(v, &n) || n < 0)
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
               if (!parse_integer(v, &n) || n < 0 || n > 1 << 20)
                   refuse("bad --ppn " + v);
               cl.ppn = (int)n;
           },
           "emulate nodes of N consecutive ranks")
        ->type_name("N")
        ->group(workload);

    app.add_option_function<std::string>(
           "--algo",
           [&](const std::string &v) {
               o.algos = split_list(v);
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
               const std::string problem = hint_problem(key, value);
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
               if (!parse_integer(v, &n) || n < 0 || n > 1000000)
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
               if (!parse_integer(v, &n) || n < 1 || n > 1000000)
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
               if (!parse_integer(v, &n) || n < 0 || n > 1000000)
                   refuse("bad --warmup " + v);
               o.warmup = (int)n;
               cl.warmup_given = true;
           },
           "untimed calls per parameter set (200 up to 64 KiB, 20 above; SimGrid SMPI: 0, crs collectives 1)")
        ->type_name("N")
        ->group(timing);
    app.add_flag_callback("--no-verify", [&o] { o.verify = false; }, "skip the check against the expected bytes")
        ->group(timing);
    app.add_flag_callback("--write-send", [&o] { o.write_send = true; },
                          "write the send buffer again before every call, outside the timing (copied from a kept "
                          "copy), as an application produces its data before each exchange; without it every call "
                          "sends bytes no one wrote since the previous call, which natively favours rows that send "
                          "straight from the caller's buffer over rows that pack it")
        ->group(timing);
    app.add_option_function<std::string>(
           "--start",
           [&](const std::string &v) {
               if (v != "barrier" && v != "clock")
                   refuse("bad --start " + v + " (barrier or clock)");
               o.start_clock = v == "clock";
           },
           "how the ranks start each timed call: barrier (default: as they leave an MPI_Barrier, over a few us at "
           "scale, which every time includes) or clock (at one agreed instant of MPI_Wtime, the latest rank's "
           "arrival plus a margin: the start spread leaves the times; needs clocks that compare, "
           "MPI_WTIME_IS_GLOBAL or one host, as under SimGrid SMPI)")
        ->type_name("barrier|clock")
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
               if (!parse_integer(v, &n) || n < 1 || n > 1000000)
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
               if (!parse_integer(v, &n) || n < 0 || n > 1000000)
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

// mpix-tune

// The command line; every option may be repeated (the last wins).
void add_tune_options(CLI::App &app, TuneOptions &o)
{
    auto integers = [&app](const char *name, std::vector<int> *out, long long min, long long max,
                           const std::string &help) {
        return app.add_option_function<std::string>(
            name,
            [=](const std::string &v) {
                std::vector<long long> values;
                if (!parse_integer_list(v, min, max, &values))
                    refuse(std::string("bad ") + name + " " + v + ": integers from " +
                                      std::to_string(min) + " to " + std::to_string(max));
                out->assign(values.begin(), values.end());
            },
            help);
    };
    auto integer = [&app](const char *name, long long *out, long long min, long long max, const std::string &help) {
        return app.add_option_function<std::string>(
            name,
            [=](const std::string &v) {
                if (!parse_integer(v, out) || *out < min || *out > max)
                    refuse(std::string("bad ") + name + " " + v + ": an integer from " +
                                      std::to_string(min) + " to " + std::to_string(max));
            },
            help);
    };
    // A number in [min, max]; `range` says which, in the user's words.
    auto real = [&app](const char *name, double *out, double min, double max, const std::string &range,
                       const std::string &help) {
        return app.add_option_function<std::string>(
            name,
            [=](const std::string &v) {
                if (!parse_real(v, out) || *out < min || *out > max)
                    refuse(std::string("bad ") + name + " " + v + ": " + range);
            },
            help);
    };
    // Names from a fixed set (empty: any non-empty names).
    auto names = [&app](const char *name, std::vector<std::string> *out, const std::vector<std::string> &allowed,
                        const std::string &help) {
        return app.add_option_function<std::string>(
            name,
            [=](const std::string &v) {
                std::vector<std::string> items = split_list(v);
                if (items.empty())
                    refuse(std::string("empty ") + name);
                for (const std::string &item : items)
                    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), item) == allowed.end())
                        refuse(std::string("bad ") + name + " value " + item);
                *out = items;
            },
            help);
    };
    names("--coll", &o.colls, {"alltoall", "alltoallv"}, "collectives to tune (alltoall,alltoallv)");
    app.add_option_function<std::string>(
        "--sizes",
        [&o](const std::string &v) {
            if (!parse_integer_list(v, 0, 1LL << 30, &o.sizes))
                refuse("bad --sizes " + v + ": bytes from 0 to 2^30");
        },
        "block size scales S in bytes: alltoall's block, alltoallv's distribution scale as mpix-bench --size "
        "(16,64,256,1024,4096,16384,65536)");
    names("--dists", &o.dists, {}, "alltoallv workloads, mpix-bench --dist names (uniform,normal,powerlaw)");
    integers("--ranks", &o.ranks, 1, 1 << 30,
             "measure on the first P ranks for each P listed: one launch, several P (the launched P)");
    app.add_option_function<std::string>(
        "--ppn",
        [&o](const std::string &v) {
            long long n;
            if (!parse_integer(v, &n) || n < 0 || n > (1 << 20))
                refuse("bad --ppn " + v);
            o.ppn = (int)n;
        },
        "emulate nodes of N consecutive ranks (0: the real nodes)");
    integers("--radix", &o.radix, 2, 1 << 30, "radix values for rows that read radix, clamped to P (2,4,8,16)");
    integers("--batch", &o.batch, 1, 1 << 30, "batch_size values for rows that read it (8,32,128)");
    integers("--leaders", &o.leaders, 1, 1 << 20,
             "leaders_per_node values for rows that read it, clamped to the largest node (1,2,4)");
    names("--inner", &o.inner, {"pairwise", "nonblocking"}, "inner exchanges for rows that read inner "
                                                            "(pairwise,nonblocking)");
    names("--algo", &o.algos, {}, "registry rows: all, NAME, -NAME drops one (all)");
    names("--exclude", &o.exclude, {}, "registry rows not to measure");
    app.add_option_function<std::string>(
        "--iters",
        [&o](const std::string &v) {
            long long n;
            if (!parse_integer(v, &n) || n < 1 || n > 1000000)
                refuse("bad --iters " + v);
            o.iters = (int)n;
        },
        "timed calls per measurement (20; SimGrid 1)");
    app.add_option_function<std::string>(
        "--warmup",
        [&o](const std::string &v) {
            long long n;
            if (!parse_integer(v, &n) || n < 0 || n > 1000000)
                refuse("bad --warmup " + v);
            o.warmup = (int)n;
        },
        "untimed calls before them (200; SimGrid 0): natively the MPI library's first calls at a new size can be "
        "several times slower, and the first row measured there would pay for them");
    integer("--seed", &o.seed, 0, 1LL << 62, "workload seed (1)");
    names("--csv", &o.csv, {}, "CSV files: rows are appended to the first, which a new run resumes from; the "
                               "table is built from all (mpix-tune.csv)");
    app.add_option("--out", o.out, "the selection table to write (mpix-tune.json)");
    app.add_option("--platform", o.platform, "free text naming the machine, kept in the table");
    app.add_option("--check-table", o.check_table,
                   "measure every candidate, then auto with this table (made elsewhere, e.g. from other sizes: "
                   "held-back points) at every point (rows auto, params table;picked=NAME), and print its worst ratio to the best "
                   "row; writes no table. auto is timed in a steady run: 2 warm-up calls or more, then twice "
                   "--agreement-period more (its agreements are that many calls apart again), then at least "
                   "--agreement-period timed calls (their median agrees nothing, their largest agrees)");
    real("--merge-within", &o.merge_within, 1.0, 100.0, "a ratio from 1 to 100",
         "merge neighbouring size bands where one pick stays within this ratio of the best (1: exact ties)");
    real("--agreement-us", &o.agreement_us, 0.0, 1e9, "microseconds, 0 or more",
         "the agreement's cost per call, given instead of measured (rows agreement,given), where measuring it costs "
         "more simulation time than it is worth");
    integer("--agreement-period", &o.agreement_period, 1, INT_MAX,
            "charge each candidate one agreement in N calls, as auto's schedule pays in a steady run (the hint "
            "agreement_period's default; 1: every call, as an exchange whose blocks change every call pays)");
    app.add_flag("--from-csv", o.from_csv, "build the table from the CSV files only; measure nothing");
    app.add_flag("--check", o.check, "then measure auto with the table loaded at every point (rows auto, params table;picked=NAME) "
                                     "and print the worst auto/best ratio");
    app.add_flag("--dry-run", o.dry_run, "print the plan and exit");
    app.add_flag_function(
        "--no-verify", [&o](std::int64_t) { o.verify = false; }, "skip the check of the received bytes");
    // What each value is, for --help.
    const std::map<std::string, std::string> value_names = {
        {"--coll", "LIST"},  {"--sizes", "BYTES,..."}, {"--dists", "LIST"},  {"--ranks", "P,..."},
        {"--ppn", "N"},      {"--radix", "R,..."},     {"--batch", "B,..."}, {"--leaders", "L,..."},
        {"--inner", "LIST"}, {"--algo", "LIST"},       {"--exclude", "LIST"}, {"--iters", "N"},
        {"--warmup", "N"},   {"--seed", "N"},          {"--csv", "FILE,..."}, {"--out", "FILE"},
        {"--platform", "TEXT"}, {"--merge-within", "RATIO"}, {"--agreement-us", "US"},
        {"--agreement-period", "N"}};
    for (CLI::Option *option : app.get_options()) {
        auto name = value_names.find(option->get_name());
        if (name != value_names.end())
            option->type_name(name->second);
    }
}


// sim/check_sim

void add_check_sim_options(CLI::App &app, CheckOptions &o)
{
    app.add_option_function<std::string>(
           "--stride",
           [&o](const std::string &v) {
               long long n;
               if (!parse_integer(v, &n) || n < 1 || n > 1 << 20)
                   refuse("bad --stride " + v + " (N >= 1)");
               o.stride = (int)n;
           },
           "run every N-th case only (all cases by default); every 3rd still covers every dimension")
        ->type_name("N");
    app.add_option_function<std::string>(
           "--algo",
           [&o](const std::string &v) {
               for (const std::string &name : split_list(v))
                   if (!mpix::find_algorithm(mpix::Collective::alltoall, name.c_str()) &&
                       !mpix::find_algorithm(mpix::Collective::alltoallv, name.c_str()))
                       refuse("no alltoall or alltoallv algorithm named " + name);
               o.only = v;
           },
           "these registry algorithms only (auto always runs)")
        ->type_name("NAME[,NAME]");
    app.add_option_function<std::string>(
           "--persistent",
           [&o](const std::string &v) {
               long long n;
               if (!parse_integer(v, &n) || n < 0 || n > 1 << 20)
                   refuse("bad --persistent " + v + " (N >= 0)");
               o.starts = (int)n;
           },
           "every case through MPIX_Alltoall(v)_init, the request started N times")
        ->type_name("N");
    app.add_option_function<std::string>(
           "--nonblocking",
           [&o](const std::string &v) {
               long long n;
               if (!parse_integer(v, &n) || n < 0 || n > 16)
                   refuse("bad --nonblocking " + v + " (0 <= N <= 16)");
               o.in_flight = (int)n;
           },
           "every case through MPIX_Ialltoall(v), 1 to N calls in flight on the comm (the engine, sched/)")
        ->type_name("N");
    app.add_option_function<std::string>(
           "--bench-sizes",
           [&o](const std::string &v) {
               if (!parse_integer_list(v, 0, 1 << 20, &o.bench_sizes))
                   refuse("bad --bench-sizes " + v + " (bytes, 0 <= S <= 2^20)");
           },
           "also every algorithm (default hints) and auto through mpix-bench's runner on its "
           "uniform workload at these block size scales, verified")
        ->type_name("S[,S]");
}

}  // namespace

// OSU's -m [MIN:]MAX (or MIN:): powers of two from MIN to MAX, MIN 0 giving 0 then 1.
bool osu_sizes(const std::string &range, std::vector<long long> *sizes)
{
    long long lo = 1, hi = 1 << 20;
    const std::size_t colon = range.find(':');
    if (colon == std::string::npos) {
        if (!parse_integer(range, &hi))
            return false;
    } else if (!parse_integer(range.substr(0, colon), &lo) ||
               (colon + 1 < range.size() && !parse_integer(range.substr(colon + 1), &hi))) {
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

int parse_bench_command_line(int argc, char **argv, bool print, BenchCommandLine *out)
{
    CLI::App app(kBenchDescription, "mpix-bench");
    configure_app(app);
    add_bench_options(app, *out);
    app.footer(kBenchWorkloads);
    return parse_command_line(app, argc, argv, print);
}

int parse_tune_command_line(int argc, char **argv, bool print, TuneOptions *out)
{
    CLI::App app{"mpix-tune: measures every registry algorithm and parameter grid on this machine (mpiexec, or "
                 "SimGrid's sim/run), verifies each result, and writes a selection table for the library's "
                 "tuning_file hint (MPIX_TUNING_FILE). Progress on stderr; rows go to the CSV as they are measured, "
                 "and a run started again with the same CSV measures only what is missing. Lists are "
                 "comma-separated.",
                 "mpix-tune"};
    configure_app(app);
    add_tune_options(app, *out);
    return parse_command_line(app, argc, argv, print);
}

int parse_check_sim_command_line(int argc, char **argv, bool print, CheckOptions *out)
{
    CLI::App app("check_sim: the conformance cases of every MPIX_Alltoall(v) algorithm (make check-sim)", "check_sim");
    configure_app(app);
    add_check_sim_options(app, *out);
    return parse_command_line(app, argc, argv, print);
}

void print_usage_error(const std::string &program, const std::string &message)
{
    std::fprintf(stderr, "%s: %s\n%s --help lists the options\n", program.c_str(), message.c_str(), program.c_str());
    std::fflush(stderr);
}

}  // namespace mpixbench
