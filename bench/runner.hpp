// Measures one collective call form on one workload: buffers and layouts, one
// call of a registry algorithm (or of the MPI library's own collective),
// verification against the bytes every correct exchange delivers, and timing
// (per call the slowest rank's time, then median/min/max over the timed calls).
// Shared by mpix-bench, mpix-tune and sim/check_sim; works on any communicator.
// Times are MPI_Wtime only (the one clock SimGrid SMPI simulates).
#ifndef MPIX_BENCH_RUNNER_HPP
#define MPIX_BENCH_RUNNER_HPP

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bound.hpp"
#include "core/hints.hpp"
#include "mpix.h"

namespace mpixbench {

// One exchange to measure: collective, block size scale S (bytes; MPIX_Alltoall's
// and the crs alltoall's block), workload (--dist) and its seed.
struct Point {
    mpix::Collective coll;
    long long size;
    std::string dist;
    unsigned long long seed = 1;
};

// One registry row with its hint values; algorithm "" = the MPI library's own
// collective (its hints are then unused).
struct Candidate {
    std::string algorithm;
    std::vector<std::pair<std::string, std::string>> hints;  // e.g. {{"radix","4"},{"batch_size","32"}}
};

struct Measurement {
    double median_us = 0, min_us = 0, max_us = 0;  // over timed calls of the slowest rank's time
    std::string verified;                          // "yes", "FAILED" or "skipped"
    unsigned long long mean_block_bytes = 0, max_block_bytes = 0;  // agreed statistics of the point's workload
    std::string picked;                                            // auto: the row that ran
    // Added for mpix-bench: OSU's statistics (each rank's mean over the timed
    // calls, then their mean, min and max over ranks; rank 0, with
    // RunnerOptions::rank_means), the timed calls, and this rank's first error
    // (a refused hint, an error code), empty when none.
    double rank_mean_avg_us = 0, rank_mean_min_us = 0, rank_mean_max_us = 0;
    int iters = 0;
    std::string error;
    // The library's own local copies per call (core/local_work.hpp: copies,
    // packs, unpacks), the busiest rank's mean over the timed calls; and the
    // time those copies take at the simulated copy model's rate (the copy
    // floor; 0 when copies are not charged: native runs, --copy-bw 0).
    double copied_bytes = 0;
    double copy_floor_us = 0;
    // How the ranks started each timed call (RunnerOptions::start_clock) and the
    // median over the timed calls of the latest rank's start minus the
    // earliest's, which every time includes; -1 where the ranks' clocks do not
    // compare (several hosts without MPI_WTIME_IS_GLOBAL).
    bool start_clock = false;
    double start_spread_us = -1;
    // Runner::measure_overlap (mpix-bench --overlap): the timed calls once more,
    // with computation between the start and the wait. Per timed call and rank:
    // overall = start + compute slices + a test after each + wait; compute = the
    // slices alone; init, test, wait = the start, the tests, the wait. Each the
    // median over the timed calls of the slowest rank's; pure = median_us (the
    // nonblocking call alone, start + wait); overlap_pct = overlap_percent().
    bool overlap = false;
    int overlap_slices = 0;
    double overall_us = 0, compute_us = 0, init_us = 0, test_us = 0, wait_us = 0, pure_us = 0, overlap_pct = 0;
    // ... and OSU's statistics of the same (rank 0, with RunnerOptions::rank_means;
    // OSU's pure communication time is rank_mean_avg_us).
    double osu_overall_us = 0, osu_compute_us = 0, osu_init_us = 0, osu_test_us = 0, osu_wait_us = 0;
    double osu_overlap_pct = 0;
};

// OSU's overlap (osu_util.c, print_stats_nbc): the share of the pure
// communication time hidden behind the computation,
// max(0, 100 * (1 - (overall - compute) / pure)); 0 when pure is 0.
double overlap_percent(double overall_us, double compute_us, double pure_us);

struct RunnerOptions {
    int iters;
    int warmup;
    bool verify = true;
    int ppn = 0;  // emulated nodes of ppn consecutive ranks; 0: real nodes
    bool rank_means = false;  // also OSU's per-rank means (three reductions more per measurement)
    // Each timed call starts on every rank at one agreed instant of MPI_Wtime
    // (the latest rank's arrival plus a margin) instead of as the ranks leave a
    // barrier, which they do over several µs at scale (ReproMPI's window-based
    // start). Needs clocks that compare across the ranks (clocks_compare()).
    bool start_clock = false;
    // Before every call (outside its timing) the send buffer is written again
    // from a copy, as an application produces its data before each exchange.
    // Natively the rows that send straight from the caller's buffer then read
    // memory just written, as they do in an application (on this project's
    // machine a 54 KB MPICH/UCX rendezvous send took 9.0 us instead of 4.9).
    bool write_send = false;
};

// The table's untimed calls per parameter set natively, without --warmup: up to
// kTableWarmupAbove bytes kTableWarmup, above kTableWarmupLarge. MPICH 4.0.2 on
// this project's machine (2 ranks) ran its first 60-100 calls at a new size
// 5-20x slower (12-35 us at 1-16 KiB instead of 1-2 and 9); with 3 warm-up
// calls the row that ran first at a size, the MPI library's own, paid for it,
// and the speedup column said 8x at 1 KiB where the rows were even (the same
// MPI call through the `pmpi` row, right after it: 1.6 us against 14.4).
// With 200 every row, the baseline included, agreed with `pmpi` within 10 %
// at 16 B-64 KiB in 6 runs of 3-5 sizes. Above 64 KiB a call takes 13 us or
// more and no such gap was seen with 5 warm-up calls.
constexpr int kTableWarmup = 200;
constexpr long long kTableWarmupAbove = 65536;
constexpr int kTableWarmupLarge = kTableWarmup / 10;  // above kTableWarmupAbove
// The table's untimed calls for blocks of `size` bytes: `option` where it is
// 0 or more (--warmup, or SMPI's 0), else by size as above.
inline int table_warmup(int option, long long size)
{
    return option >= 0 ? option : size > kTableWarmupAbove ? kTableWarmupLarge : kTableWarmup;
}

// How the candidate is called: one blocking call per timed call, a persistent
// request made once outside the timing and started (Start + Wait) per call, or
// a nonblocking call (MPIX_Ialltoall(v), the MPI library's MPI_Ialltoall(v)) and
// its wait per call (alltoall and alltoallv only).
enum class CallForm { blocking, persistent, nonblocking };

// The MPI library's own collective of `coll` (MPI_Alltoall, MPI_Alltoallv,
// MPI_Neighbor_alltoallv; the crs collectives have none: nullptr).
const char *mpi_collective_name(mpix::Collective coll);
// Whether the runner can call it: MPI_Neighbor_alltoallv needs
// MPI_Dist_graph_create_adjacent, which SimGrid SMPI does not implement.
bool mpi_collective_available(mpix::Collective coll);

class Runner {  // every method is collective over `comm`
public:
    // Makes an MPIX_Comm on comm (with ppn emulation) and its own duplicate of
    // comm (MPI_ERRORS_RETURN) for the MPI library's collective, and sets up the
    // node communicators the library caches, so no measurement pays for their
    // first use. The library raises its errors through comm's handler: give comm
    // MPI_ERRORS_RETURN and a failing call fails its measurement (Measurement::
    // error says why) instead of ending the program.
    Runner(MPI_Comm comm, const RunnerOptions &o);
    ~Runner();
    Runner(const Runner &) = delete;
    Runner &operator=(const Runner &) = delete;

    // Layout + buffers for this point (and its neighbour topology), and the
    // workload's agreed statistics. 0 ok; otherwise non-zero on every rank, and
    // `why` (may be null) names the first failing rank and its problem.
    int prepare(const Point &pt, std::string *why);
    // Warm-up, timed calls, verification of the first call; every hint of the
    // candidate goes into the info given to MPIX_Comm_set_info before the calls
    // (cleared after). Every rank passes the same candidate and gets the same
    // Measurement, but for `error` and the OSU statistics (rank 0).
    Measurement measure(const Candidate &c);
    // persistent: the last call is verified too (a request that works only once
    // is caught); the MPI library's own persistent form where it has one (MPI-4).
    Measurement measure(const Candidate &c, CallForm form);
    // OSU's overlap benchmark (osu_ialltoall(v)), alltoall and alltoallv: first
    // measure(c, CallForm::nonblocking), the pure communication time t_pure (the
    // median of the slowest rank's); then warm-up and timed calls again, each
    // with t_pure of computation (bench/compute.hpp; simulated under SMPI)
    // between the start and the wait, in `slices` equal slices each followed by
    // one MPIX_Test (MPI_Test for the MPI library's own); slices 0: one slice and
    // no test. The first call of both loops is verified.
    Measurement measure_overlap(const Candidate &c, int slices);
    MPIX_Comm *xcomm();  // e.g. to MPIX_Comm_set_info(tuning_file=...) for auto checks
    int nodes() const;
    int ranks_per_node_max() const;

    // Added for mpix-bench.
    int ranks() const;
    int rank() const;
    MPI_Comm comm() const;  // the runner's duplicate of comm (MPI_ERRORS_RETURN)
    const std::vector<int> &node_of() const;  // rank -> node as the library sees it
    // Timed and untimed calls of the next measurements (OSU's defaults vary by size).
    void set_iterations(int iters, int warmup);
    // Every block of the prepared point as sent: on rank 0 the P x P bytes
    // (row = source; sparse collectives: only the messages, 0 elsewhere), empty
    // elsewhere.
    std::vector<unsigned long long> gather_sent_bytes() const;
    // The prepared point's lower bound on the simulated platform (sim/bound.hpp):
    // true on rank 0 of an SMPI build; false natively (no model to bound).
    bool lower_bound(mpix::sim::Bound *out);

private:
    struct State;  // buffers, layout, topology, workload (and SimGrid's platform)
    std::unique_ptr<State> state_;
};

// What MPIX_Info_set says of key=value: empty when it accepts them, else its
// error text. Local (no communication); never aborts.
std::string hint_problem(const std::string &key, const std::string &value);

// Natively, more ranks than cores on a host make timings measure the
// scheduler's tick: rank 0 of comm warns once on stderr ("PROGRAM: warning: ...").
// Collective. Does nothing under SMPI, whose time does not depend on the host.
void warn_oversubscribed(MPI_Comm comm, const char *program);

}  // namespace mpixbench

#endif
