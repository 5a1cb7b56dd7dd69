// Conformance under SimGrid SMPI (make check-sim): every registry algorithm of
// MPIX_Alltoall and MPIX_Alltoallv through the CUnit-free cases of
// test/exchange_cases.cpp, at the hint values the CUnit suite uses, so index math
// is exercised at P = 64, 100, 256. Prints each failure and exits non-zero.
//
// Usage: check_sim [--stride N] [--algo NAME[,NAME]] [--all-types]
//   --stride N    run every N-th case only (all cases by default)
//   --all-types   also run the cases with a non-contiguous resized vector on the
//                 SEND side. SimGrid 3.32's MPI_Pack ignores a resized extent when
//                 count > 1 (packs elements at the vector's own extent), so those
//                 cases fail under SMPI for every algorithm, MPI's own included,
//                 until the library packs such types element by element there.
//                 They are skipped by default, and the skip is printed.
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

using HintList = std::vector<std::pair<std::string, std::string>>;

bool reads(const mpix::Algorithm *a, const char *key)
{
    std::string keys = std::string(",") + a->hint_keys + ",";
    return keys.find(std::string(",") + key + ",") != std::string::npos;
}

// The same hint variants as test/test_conformance.cpp: each hint an algorithm
// reads, at edge values (radix 2, 3, ceil(sqrt P), P-1, P; batch 1, 3; ...).
std::vector<HintList> hint_variants(const mpix::Algorithm *a, int p)
{
    std::vector<HintList> variants{{}};
    if (reads(a, "radix")) {
        int sq = (int)std::ceil(std::sqrt((double)p));
        for (int r : {2, 3, sq, p - 1, p})
            if (r >= 2)
                variants.push_back({{"radix", std::to_string(r)}});
    }
    if (reads(a, "batch_size"))
        for (int b : {1, 3})
            variants.push_back({{"batch_size", std::to_string(b)}});
    if (reads(a, "inner"))
        variants.push_back({{"inner", "pairwise"}});
    if (reads(a, "leaders_per_node"))
        for (int l : {1, 2})
            variants.push_back({{"leaders_per_node", std::to_string(l)}});
    if (reads(a, "locality"))
        variants.push_back({{"locality", "socket"}});
    return variants;
}

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
    int stride = 1;
    std::string only;
    bool all_types = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--all-types"))
            all_types = true;
        else if (!std::strcmp(argv[i], "--stride") && i + 1 < argc)
            stride = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--algo") && i + 1 < argc)
            only = argv[++i];
    }
    if (me == 0 && !all_types)
        std::printf("check_sim: SKIPPING send-side resized-vector cases (SimGrid MPI_Pack bug, see --all-types)\n");
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    int passed = 0, failed = 0;
    double t0 = MPI_Wtime();
    for (mpix::Collective coll : {mpix::Collective::alltoall, mpix::Collective::alltoallv}) {
        bool uniform = coll == mpix::Collective::alltoall;
        std::vector<mpixtest::ExchangeCase> cases;
        for (const mpixtest::ExchangeCase &c : mpixtest::exchange_cases(uniform))
            if (all_types || c.types != mpixtest::Types::vector_int)
                cases.push_back(c);
        std::vector<const mpix::Algorithm *> algos;
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
            if (wanted(only, a->name))
                algos.push_back(a);
        algos.push_back(nullptr);  // auto
        for (const mpix::Algorithm *a : algos) {
            const char *name = a ? a->name : "auto";
            for (const HintList &hints : a ? hint_variants(a, p) : std::vector<HintList>{{}}) {
                std::string what = std::string(mpix::collective_name(coll)) + " " + name;
                for (const auto &kv : hints)
                    what += " " + kv.first + "=" + kv.second;
                // check_algorithm runs every case; a stride selects a subset here.
                MPIX_Info *info;
                MPIX_Info_init(&info);
                MPIX_Info_set(info, (std::string(mpix::collective_name(coll)) + "_algorithm").c_str(), name);
                for (const auto &kv : hints)
                    MPIX_Info_set(info, kv.first.c_str(), kv.second.c_str());
                MPIX_Comm_set_info(xcomm, info);
                MPIX_Info_free(&info);
                int local_fail = 0;
                std::string first;
                for (std::size_t c = 0; c < cases.size(); c += (std::size_t)stride) {
                    std::string detail;
                    if (!mpixtest::run_exchange_case(xcomm, MPI_COMM_WORLD, cases[c], &detail) && local_fail++ == 0)
                        first = detail;
                }
                MPIX_Comm_set_info(xcomm, nullptr);
                MPIX_Comm_update_locality(xcomm, 0);
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
