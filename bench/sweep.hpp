// mpix-bench's sweep: which candidates run at each size, in which order, the
// baseline and the speedups, as a table or in OSU's layout, through the Runner.
// The candidate helpers (algorithm lists, radix/batch sweeps, params text) are
// shared with mpix-tune.
#ifndef MPIX_BENCH_SWEEP_HPP
#define MPIX_BENCH_SWEEP_HPP

#include <string>
#include <utility>
#include <vector>

#include "core/hints.hpp"
#include "runner.hpp"

namespace mpix {
struct Algorithm;
}

namespace mpixbench {

using HintList = std::vector<std::pair<std::string, std::string>>;

// --radix sweep / --batch sweep.
constexpr int kSweepValues = -1;

// What mpix-bench measures (its options, defaults resolved).
struct BenchOptions {
    mpix::Collective coll = mpix::Collective::alltoallv;
    std::vector<std::string> algos{"all"};  // names, all, auto, -NAME; --format osu: one name, auto or mpi
    std::vector<long long> sizes;
    std::string dist = "uniform";
    unsigned long long seed = 1;
    std::vector<int> radix, batch;  // empty: the algorithm's default; {kSweepValues}: a sweep
    HintList hints;                 // --hint KEY=VALUE, for every algorithm
    int iters = 20, warmup = 3;     // -1 with --format osu: OSU's defaults by size; natively
                                    // in the table: kTableWarmup by size (runner.hpp)
    bool verify = true;
    bool start_clock = false;  // --start clock: every rank starts a call at one agreed MPI_Wtime
    bool write_send = false;   // --write-send: the send buffer written again before every call
    bool persistent = false;  // persistent-request rows beside the blocking ones
    bool overlap = false;     // --overlap: nonblocking calls, pure and with computation (OSU's overlap)
    int overlap_slices = 16;  // --overlap-slices: compute slices, an MPIX_Test after each (0: one, no test)
    std::string baseline = "mpi";
    std::string csv, json, workload_out;
    bool osu = false, osu_full = false, osu_validation = false;
    bool osu_range = false;  // sizes from -m: OSU's 512 MiB limit per buffer applies
};

// Runs the sweep on the runner's communicator and writes the reports (rank 0).
// Collective. 0: every row verified; 1: some row failed; 2: could not run or
// could not write --workload-out.
int run_bench(const BenchOptions &o, Runner &runner);

// The registry rows named by `names` (all = every one and auto, auto, NAME,
// -NAME drops one again), in the order given; error text (an unknown name) or empty.
std::string resolve_algorithms(mpix::Collective coll, const std::vector<std::string> &names,
                               std::vector<const mpix::Algorithm *> *out, bool *with_auto);
// The values of a swept hint: {0} (the algorithm's default) when none given;
// with kSweepValues, radix 2, 3, 4, 6, 8, 12, ... up to P and P itself, batch
// the powers of two up to P.
std::vector<int> sweep_values(const std::vector<int> &given, bool radix, int ranks);
// Whether the algorithm reads the hint key (its registry hint_keys).
bool reads_hint(const mpix::Algorithm *a, const char *key);
// The params column: "key=value;key=value", or "default" for none.
std::string params_text(const HintList &hints);

}  // namespace mpixbench

#endif
