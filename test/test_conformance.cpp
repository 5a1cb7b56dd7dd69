// Conformance: every registry algorithm of MPIX_Alltoall and MPIX_Alltoallv against
// independently computed results, with guard bytes, every datatype case,
// MPI_IN_PLACE and emulated node layouts, at every hint value it reads.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "exchange_cases.hpp"
#include "harness.hpp"
#include "select/registry.hpp"

namespace {

using HintList = std::vector<std::pair<std::string, std::string>>;

bool reads(const mpix::Algorithm *a, const char *key)
{
    std::string keys = std::string(",") + a->hint_keys + ",";
    return keys.find(std::string(",") + key + ",") != std::string::npos;
}

// The hint settings an algorithm is tested with: each hint it reads, at values
// chosen to hit edge cases (radix 2, P-1, P; batch 1; ...).
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

void check_collective(mpix::Collective coll)
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    bool uniform = coll == mpix::Collective::alltoall;
    int tested = 0;
    for (int i = 0;; ++i) {
        const mpix::Algorithm *a = mpix::algorithm_at(coll, i);
        if (!a)
            break;
        for (const HintList &hints : hint_variants(a, mpixtest::size())) {
            std::string failure;
            int failures = mpixtest::check_algorithm(xcomm, MPI_COMM_WORLD, uniform, a->name, hints, &failure);
            std::string what = std::string(a->name);
            for (const auto &kv : hints)
                what += " " + kv.first + "=" + kv.second;
            MPIX_EXPECT(failures == 0, what + ": " + std::to_string(failures) + " case(s) failed; first: " + failure);
            MPIX_CHECK_ALL(what.c_str());
        }
        ++tested;
    }
    std::string failure;
    MPIX_EXPECT(mpixtest::check_algorithm(xcomm, MPI_COMM_WORLD, uniform, "auto", {}, &failure) == 0, failure);
    MPIX_CHECK_ALL("auto");
    CU_ASSERT(tested >= 5);
    MPIX_Comm_free(&xcomm);
}

void test_alltoall_every_algorithm() { check_collective(mpix::Collective::alltoall); }
void test_alltoallv_every_algorithm() { check_collective(mpix::Collective::alltoallv); }

// Back-to-back calls with different algorithms and no barrier between them: the
// per-call tags must keep a fast rank's next call apart from this one.
void test_back_to_back_calls()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    std::vector<mpixtest::ExchangeCase> cases = mpixtest::exchange_cases(false);
    MPIX_Info *info;
    MPIX_Info_init(&info);
    for (int round = 0; round < 3; ++round)
        for (int i = 0;; ++i) {
            const mpix::Algorithm *a = mpix::algorithm_at(mpix::Collective::alltoallv, i);
            if (!a)
                break;
            MPIX_Info_set(info, "alltoallv_algorithm", a->name);
            MPIX_Comm_set_info(xcomm, info);
            std::string detail;
            MPIX_EXPECT(mpixtest::run_exchange_case(xcomm, MPI_COMM_WORLD, cases[(i + round) % cases.size()], &detail),
                        std::string(a->name) + ": " + detail);
        }
    MPIX_CHECK_ALL("back-to-back calls of every algorithm");
    MPIX_Info_free(&info);
    MPIX_Comm_free(&xcomm);
}

const mpixtest::TestCase kTests[] = {
    {"MPIX_Alltoall: every algorithm, every case", test_alltoall_every_algorithm},
    {"MPIX_Alltoallv: every algorithm, every case", test_alltoallv_every_algorithm},
    {"back-to-back calls without barriers", test_back_to_back_calls},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "conformance", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
