// mpix-bench's skewed workloads (bench/skewed_workloads.cpp) without MPI: what
// each rank derives alone agrees with every other rank (the bytes i -> j in i's
// row are those in j's column), the same seed gives the same matrix, the hot
// receivers and MoE experts are where and as heavy as documented, and bad
// parameters are refused.
#include <cmath>
#include <string>
#include <vector>

#include "harness.hpp"
#include "workloads.hpp"

namespace {

using mpixbench::Workload;

const unsigned long long kSeed = 1;

// The P x P matrix as the ranks see it: entry (i, j) from rank i's row, checked
// against rank j's column.
bool matrix_of(const std::string &dist, int p, long long s, unsigned long long seed, std::vector<long long> *m)
{
    std::vector<Workload> rank((std::size_t)p);
    for (int r = 0; r < p; ++r)
        if (!rank[(std::size_t)r].load(dist, p, r).empty())
            return false;
    m->assign((std::size_t)p * p, 0);
    bool agree = true;
    for (int i = 0; i < p; ++i)
        for (int j = 0; j < p; ++j) {
            long long sent = (long long)rank[(std::size_t)i].bytes(i, j, s, seed, i);
            long long expected = (long long)rank[(std::size_t)j].bytes(i, j, s, seed, j);
            agree = agree && sent == expected;
            (*m)[(std::size_t)i * p + j] = sent;
        }
    return agree;
}

void test_consistent_and_deterministic()
{
    const char *dists[] = {"hotspot:3", "hotspot:2,4", "moe:8,2", "moe:64,2", "moe:200,3,1.2", "moe:5,5",
                           "moe-combine:8,2", "moe-combine:64,1,0"};
    for (const char *dist : dists)
        for (int p : {7, 64, 100}) {
            std::vector<long long> a, b, c;
            const std::string what = std::string(dist) + " at P=" + std::to_string(p);
            MPIX_EXPECT(matrix_of(dist, p, 16, kSeed, &a), what + ": a row disagrees with a column");
            MPIX_EXPECT(matrix_of(dist, p, 16, kSeed, &b) && a == b, what + ": not deterministic");
            matrix_of(dist, p, 16, kSeed + 1, &c);
            long long total = 0;
            for (long long x : a)
                total += x;
            MPIX_EXPECT(total > 0, what + ": no bytes at all");
            if (std::string(dist) != "moe:5,5")  // K = E: every token goes to every expert
                MPIX_EXPECT(a != c, what + ": the seed changes nothing");
        }
    MPIX_CHECK_ALL("rows agree with columns, per seed");
}

void test_hotspot()
{
    const int p = 64;
    std::vector<long long> plain, uniform;
    MPIX_EXPECT(matrix_of("hotspot:5,1", p, 100, kSeed, &plain) && matrix_of("uniform", p, 100, kSeed, &uniform) &&
                    plain == uniform,
                "hotspot:K,1 is uniform");
    for (int k : {1, 5, 64}) {
        for (int m : {8, 3}) {
            const std::string dist = "hotspot:" + std::to_string(k) + (m == 8 ? "" : "," + std::to_string(m));
            std::vector<long long> hot;
            MPIX_EXPECT(matrix_of(dist, p, 100, kSeed, &hot), dist + ": matrix");
            // Every column is uniform's, or M times it; exactly K columns are hot.
            int hot_columns = 0;
            for (int j = 0; j < p; ++j) {
                bool same = true, times = true;
                for (int i = 0; i < p; ++i) {
                    same = same && hot[(std::size_t)i * p + j] == uniform[(std::size_t)i * p + j];
                    times = times && hot[(std::size_t)i * p + j] == m * uniform[(std::size_t)i * p + j];
                }
                MPIX_EXPECT(same || times, dist + ": column " + std::to_string(j) + " neither uniform nor M times");
                hot_columns += times;
            }
            MPIX_EXPECT(hot_columns == k, dist + ": " + std::to_string(hot_columns) + " hot receivers");
        }
    }
    MPIX_CHECK_ALL("hotspot: K receivers get M times uniform's blocks");
}

void test_moe()
{
    const int p = 256;
    const unsigned long long seed = 7;
    for (const char *params : {"64,2", "1024,4", "64,2,0", "16,16"}) {
        mpixbench::MoeRouting moe;
        MPIX_EXPECT(moe.parse(params).empty(), std::string("parse ") + params);
        moe.prepare(p);
        const int e = moe.experts(), k = moe.top_k();
        // Inclusion probabilities: at most 1, summing to K, falling with popularity.
        double sum = 0;
        std::vector<double> by_rank((std::size_t)e, -1);
        for (int x = 0; x < e; ++x) {
            const double q = moe.inclusion(x, seed);
            MPIX_EXPECT(q >= 0 && q <= 1, std::string(params) + ": q out of [0, 1]");
            sum += q;
            by_rank[(std::size_t)moe.popularity_rank(x, seed)] = q;
        }
        MPIX_EXPECT(std::fabs(sum - k) < 1e-9, std::string(params) + ": q sums to " + std::to_string(sum));
        for (int r = 1; r < e; ++r)
            MPIX_EXPECT(by_rank[(std::size_t)r] <= by_rank[(std::size_t)r - 1] && by_rank[(std::size_t)r] >= 0,
                        std::string(params) + ": popularity order");
        // Placement: expert x on rank floor(x*P/E), each expert on one rank.
        int placed = 0;
        for (int r = 0; r < p; ++r)
            for (int x = moe.first_expert(r); x < moe.first_expert(r + 1); ++x) {
                MPIX_EXPECT(moe.owner(x) == r && (int)((long long)x * p / e) == r, std::string(params) + ": owner");
                ++placed;
            }
        MPIX_EXPECT(placed == e, std::string(params) + ": experts placed " + std::to_string(placed));
        // A rank sends T*K tokens in expectation: over all ranks within 2 %; each
        // expert's tokens near T*P*q.
        long long tokens = 0;
        for (int src = 0; src < p; ++src)
            for (int x = 0; x < e; ++x)
                tokens += moe.count(src, x, seed);
        const double want = (double)moe.tokens() * k * p;
        MPIX_EXPECT(std::fabs(tokens - want) <= 0.02 * want,
                    std::string(params) + ": " + std::to_string(tokens) + " tokens, want about " +
                        std::to_string(want));
    }
    // Dispatch blocks and the combine's transpose; ranks without experts receive nothing.
    std::vector<long long> dispatch, combine;
    MPIX_EXPECT(matrix_of("moe:64,2", p, 16, seed, &dispatch) && matrix_of("moe-combine:64,2", p, 16, seed, &combine),
                "moe matrices");
    mpixbench::MoeRouting moe;
    moe.parse("64,2");
    moe.prepare(p);
    for (int i = 0; i < p; ++i)
        for (int j = 0; j < p; ++j) {
            MPIX_EXPECT(combine[(std::size_t)i * p + j] == dispatch[(std::size_t)j * p + i], "combine is the transpose");
            long long tokens = 0;
            for (int x = moe.first_expert(j); x < moe.first_expert(j + 1); ++x)
                tokens += moe.count(i, x, seed);
            MPIX_EXPECT(dispatch[(std::size_t)i * p + j] == 16 * tokens, "block = S x tokens to the experts on dst");
            if (j % 4 != 0)  // 64 experts on 256 ranks: on ranks 0, 4, 8, ...
                MPIX_EXPECT(dispatch[(std::size_t)i * p + j] == 0, "a rank without experts receives");
        }
    MPIX_CHECK_ALL("moe: top-K inclusion, placement, token totals, combine");
}

void test_refused()
{
    for (const char *bad : {"hotspot", "hotspot:", "hotspot:0", "hotspot:2,0", "hotspot:2,", "hotspot:2,3,4",
                            "hotspot:x", "moe:", "moe:8", "moe:8,9", "moe:0,1", "moe:8,0", "moe:8,2,-1", "moe:8,2,1,3",
                            "moe:8,,2", "moe-combine:x,2", "moe-combine", "moe"})
        MPIX_EXPECT(!mpixbench::workload_problem(bad).empty(), std::string("accepted ") + bad);
    for (const char *good : {"hotspot:4", "hotspot:4,16", "moe:64,2", "moe:64,2,0.8", "moe-combine:64,2", "moe:1,1"})
        MPIX_EXPECT(mpixbench::workload_problem(good).empty(), std::string("refused ") + good);
    MPIX_CHECK_ALL("bad parameters refused");
}

const mpixtest::TestCase kTests[] = {
    {"workloads: rows agree with columns, deterministic", test_consistent_and_deterministic},
    {"workloads: hotspot", test_hotspot},
    {"workloads: moe and moe-combine", test_moe},
    {"workloads: bad parameters", test_refused},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "workloads", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
