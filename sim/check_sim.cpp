// Conformance under SimGrid SMPI (make check-sim): every registry algorithm of
// MPIX_Alltoall and MPIX_Alltoallv through the CUnit-free cases of
// test/exchange_cases.cpp, at the hint values the CUnit suite uses, so index math
// is exercised at P = 64, 100, 256. Prints each failure and exits non-zero.
// Optionally (--bench-sizes) every algorithm also through the benchmark's own
// path (bench/runner.hpp), so mpix-bench's and mpix-tune's verification runs at
// those P too.
//
// Usage: check_sim [--stride N] [--algo NAME[,NAME]] [--persistent N] [--bench-sizes S[,S]]
// Every datatype case runs: SimGrid 3.32's MPI_Pack ignores a resized extent when
// count > 1, and the library packs element by element under SMPI to avoid it
// (src/core/blocks.cpp), which the send-side resized-vector cases check.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "exchange_cases.hpp"
#include "options.hpp"
#include "runner.hpp"
#include "select/registry.hpp"

namespace {

using mpixtest::HintList;

using mpixbench::CheckOptions;

// Rank 0 says how a check went; every rank agrees whether it failed.
struct Tally {
    int passed = 0, failed = 0;
    void count(bool failed_here, const std::string &what, int p, int me)
    {
        int any = failed_here, any_failed = 0;
        MPI_Allreduce(&any, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        ++(any_failed ? failed : passed);
        if (me == 0)
            std::fprintf(stderr, "%s %s (P=%d)\n", any_failed ? "FAILED" : "ok    ", what.c_str(), p);
    }
};

// The registry's rows of coll that the user asked for, then auto (nullptr).
std::vector<const mpix::Algorithm *> algorithms(mpix::Collective coll, const std::string &only)
{
    std::vector<const mpix::Algorithm *> algos;
    for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
        if (mpixbench::list_holds(only, a->name))
            algos.push_back(a);
    algos.push_back(nullptr);
    return algos;
}

// The exchange cases of every algorithm at its hint variants.
void check_cases(const CheckOptions &o, MPIX_Comm *xcomm, int p, int me, Tally *tally)
{
    for (mpix::Collective coll : {mpix::Collective::alltoall, mpix::Collective::alltoallv}) {
        const bool uniform = coll == mpix::Collective::alltoall;
        for (const mpix::Algorithm *a : algorithms(coll, o.only)) {
            const char *name = a ? a->name : "auto";
            for (const HintList &hints : a ? mpixtest::hint_variants(a->hint_keys, p) : std::vector<HintList>{{}}) {
                std::string what = std::string(mpix::collective_name(coll)) + " " + name;
                for (const auto &kv : hints)
                    what += " " + kv.first + "=" + kv.second;
                std::string first;
                int local_fail = mpixtest::check_algorithm(xcomm, MPI_COMM_WORLD, uniform, name, hints, &first,
                                                           o.stride, o.starts, o.in_flight);
                if (local_fail)
                    std::fprintf(stderr, "FAIL: P=%d rank %d: %s: %d case(s); first: %s\n", p, me, what.c_str(),
                                 local_fail, first.c_str());
                tally->count(local_fail != 0, what, p, me);
            }
        }
    }
}

// The benchmark's path: prepare, warm-up, timed calls, verification of the first.
void check_bench_path(const CheckOptions &o, int p, int me, Tally *tally)
{
    mpixbench::RunnerOptions runner_options{1, 0};
    mpixbench::Runner runner(MPI_COMM_WORLD, runner_options);
    for (mpix::Collective coll : {mpix::Collective::alltoall, mpix::Collective::alltoallv})
        for (long long size : o.bench_sizes) {
            std::string why;
            const std::string where = std::string(mpix::collective_name(coll)) + " S=" + std::to_string(size);
            if (runner.prepare(mpixbench::Point{coll, size, "uniform", 1}, &why)) {
                tally->count(true, "bench " + where + ": " + why, p, me);
                continue;
            }
            for (const mpix::Algorithm *a : algorithms(coll, o.only)) {
                const mpixbench::Measurement m = runner.measure(mpixbench::Candidate{a ? a->name : "auto", {}});
                if (m.verified == "FAILED" && !m.error.empty())
                    std::fprintf(stderr, "FAIL: P=%d rank %d: bench %s %s: %s\n", p, me, where.c_str(),
                                 a ? a->name : "auto", m.error.c_str());
                const std::string what = "bench " + where + " " + (a ? a->name : "auto") +
                                         (m.picked.empty() ? "" : " (picked " + m.picked + ")") +
                                         (m.verified == "skipped" ? " (shared buffers: not verified)" : "");
                tally->count(m.verified == "FAILED", what, p, me);
            }
        }
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CheckOptions o;
    const int status = mpixbench::parse_check_sim_command_line(argc, argv, me == 0, &o);
    if (status >= 0) {
        MPI_Finalize();
        return status;
    }
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    Tally tally;
    double t0 = MPI_Wtime();
    check_cases(o, xcomm, p, me, &tally);
    MPIX_Comm_free(&xcomm);
    if (!o.bench_sizes.empty())
        check_bench_path(o, p, me, &tally);
    if (me == 0) {
        std::printf("check_sim P=%d: simulated %.3f s\n", p, MPI_Wtime() - t0);
        std::printf("check_sim P=%d: %d passed, %d failed\n", p, tally.passed, tally.failed);
    }
    MPI_Finalize();
    return tally.failed ? 1 : 0;
}
