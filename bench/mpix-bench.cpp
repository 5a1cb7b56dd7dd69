// mpix-bench: verifies and times every registry algorithm of one collective on a
// chosen workload, beside the MPI library's own collective in the same run.
// This file holds main and the checks of options that only make sense together;
// the options are bench/options.cpp, the measuring bench/runner.cpp, the sweep
// bench/sweep.cpp, the outputs bench/reporters.cpp.
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
using CommandLine = mpixbench::BenchCommandLine;

const char *const kProgram = "mpix-bench";

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
            mpixbench::osu_sizes("1:1048576", &o.sizes);
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
            o.warmup = MPIX_SMPI ? (crs ? 1 : 0) : -1;  // natively by size (kTableWarmup)
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
    int status = mpixbench::parse_bench_command_line(argc, argv, me == 0, &cl);
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
    runner_options.start_clock = cl.bench.start_clock;
    runner_options.write_send = cl.bench.write_send;
    {
        mpixbench::Runner runner(MPI_COMM_WORLD, runner_options);
        mpixbench::warn_oversubscribed(MPI_COMM_WORLD, kProgram);
        status = mpixbench::run_bench(cl.bench, runner);
    }
    MPI_Finalize();
    return status;
}
