// Conformance under SimGrid SMPI (make check-sim): every registry algorithm of
// MPIX_Alltoall and MPIX_Alltoallv through the CUnit-free cases of
// test/exchange_cases.cpp, at the hint values the CUnit suite uses, so index math
// is exercised at P = 64, 100, 256. Prints each failure and exits non-zero.
//
// Usage: check_sim [--stride N] [--algo NAME[,NAME]] [--persistent N]
//   --stride N       run every N-th case only (all cases by default)
//   --persistent N   every case through MPIX_Alltoall(v)_init, started N times
// Every datatype case runs: SimGrid 3.32's MPI_Pack ignores a resized extent when
// count > 1, and the library packs element by element under SMPI to avoid it
// (src/core/blocks.cpp), which the send-side resized-vector cases check.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "exchange_cases.hpp"
#include "select/registry.hpp"

namespace {

using mpixtest::HintList;

bool wanted(const std::string &list, const char *name)
{
    if (list.empty())
        return true;
    std::string l = "," + list + ",";
    return l.find(std::string(",") + name + ",") != std::string::npos;
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int stride = 1, starts = 0;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--stride") && i + 1 < argc)
            stride = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--algo") && i + 1 < argc)
            only = argv[++i];
        else if (!std::strcmp(argv[i], "--persistent") && i + 1 < argc)
            starts = std::max(0, std::atoi(argv[++i]));  // every case through MPIX_*_init, started N times
    }
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    int passed = 0, failed = 0;
    double t0 = MPI_Wtime();
    for (mpix::Collective coll : {mpix::Collective::alltoall, mpix::Collective::alltoallv}) {
        bool uniform = coll == mpix::Collective::alltoall;
        std::vector<const mpix::Algorithm *> algos;
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
            if (wanted(only, a->name))
                algos.push_back(a);
        algos.push_back(nullptr);  // auto
        for (const mpix::Algorithm *a : algos) {
            const char *name = a ? a->name : "auto";
            for (const HintList &hints : a ? mpixtest::hint_variants(a->hint_keys, p) : std::vector<HintList>{{}}) {
                std::string what = std::string(mpix::collective_name(coll)) + " " + name;
                for (const auto &kv : hints)
                    what += " " + kv.first + "=" + kv.second;
                std::string first;
                int local_fail = mpixtest::check_algorithm(xcomm, MPI_COMM_WORLD, uniform, name, hints, &first,
                                                           stride, starts);
                int any_fail;
                MPI_Allreduce(&local_fail, &any_fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                if (local_fail)
                    std::fprintf(stderr, "FAIL: P=%d rank %d: %s: %d case(s); first: %s\n", p, me, what.c_str(),
                                 local_fail, first.c_str());
                if (any_fail)
                    ++failed;
                else
                    ++passed;
                if (me == 0)
                    std::fprintf(stderr, "%s %s (P=%d)\n", any_fail ? "FAILED" : "ok    ", what.c_str(), p);
            }
        }
    }
    MPIX_Comm_free(&xcomm);
    if (me == 0) {
        std::printf("check_sim P=%d: simulated %.3f s\n", p, MPI_Wtime() - t0);
        std::printf("check_sim P=%d: %d passed, %d failed\n", p, passed, failed);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
