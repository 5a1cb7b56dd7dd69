// The workloads' formulas and file readers (bench/workloads.hpp).
#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>
#include <utility>

#include "harness_mix.hpp"

namespace mpixbench {

namespace {

using mpixtest::mix;  // the tests' hash: both derive sizes and contents alike

double unit_interval(std::uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

constexpr long kMaxGraphDegree = 1L << 20;

// graph:D's degree, or 0 when the text after "graph:" is not 1 <= D <= 2^20.
int graph_degree(const std::string &dist)
{
    const char *digits = dist.c_str() + 6;
    char *end = nullptr;
    long d = std::strtol(digits, &end, 10);
    if (end == digits || *end || d < 1 || d > kMaxGraphDegree)
        return 0;
    return (int)d;
}

bool starts_with(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// The skewed workloads' names and the parameters after them.
constexpr const char *kHotspot = "hotspot:", *kMoe = "moe:", *kMoeCombine = "moe-combine:";
std::string after(const std::string &dist, const char *prefix) { return dist.substr(std::string(prefix).size()); }

}  // namespace

std::string Workload::load(const std::string &dist, int ranks, int me)
{
    dist_ = dist;
    ranks_ = ranks;
    if (starts_with(dist, "matrix:"))
        return load_matrix(dist.substr(7), ranks, me);
    if (starts_with(dist, "traffic:"))
        return load_traffic(dist.substr(8), ranks, me);
    if (starts_with(dist, "graph:")) {
        degree_ = graph_degree(dist);
        if (!degree_)
            return "graph:D needs a degree D >= 1, got " + dist;
    }
    if (starts_with(dist, kHotspot))
        return hotspot_.parse(after(dist, kHotspot));
    moe_combine_ = starts_with(dist, kMoeCombine);
    if (moe_combine_ || starts_with(dist, kMoe)) {
        std::string problem = moe_.parse(after(dist, moe_combine_ ? kMoeCombine : kMoe));
        if (problem.empty())
            moe_.prepare(ranks);
        return problem;
    }
    return "";
}

std::vector<int> Workload::graph_destinations(int src, unsigned long long seed) const
{
    std::vector<int> out;
    const int others = ranks_ - 1;
    if (others <= 0)
        return out;
    if (degree_ >= others) {
        for (int j = 1; j <= others; ++j)
            out.push_back((src + j) % ranks_);
        return out;
    }
    for (std::uint64_t t = 0; (int)out.size() < degree_; ++t) {
        int c = (int)((src + 1 + mix(seed, src, 0x6A0000 + t) % (std::uint64_t)others) % (std::uint64_t)ranks_);
        if (std::find(out.begin(), out.end(), c) == out.end())
            out.push_back(c);
    }
    return out;
}

std::size_t Workload::bytes(int src, int dst, long long s, unsigned long long seed, int me) const
{
    const int p = ranks_;
    if (dist_ == "uniform")
        return (std::size_t)(mix(seed, src, dst) % (unsigned long long)(s + 1));
    if (dist_ == "equal")  // every block S bytes, as osu_alltoallv sends
        return (std::size_t)s;
    if (dist_ == "normal") {
        std::uint64_t h = mix(seed, src, dst);
        double u1 = unit_interval(h) + 1e-12, u2 = unit_interval(mix(h, 17, 3));
        double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
        double b = std::round(s / 2.0 + z * s / 8.0);
        return (std::size_t)std::min<double>((double)s, std::max(0.0, b));
    }
    if (dist_ == "powerlaw") {
        // Position of dst in src's shuffled order: an affine permutation with a
        // multiplier coprime to P (a shuffle computable for one entry in O(1)).
        std::uint64_t h = mix(seed, src, 0xF00D);
        long long a = 1 + (long long)(h % (unsigned long long)p);
        while (std::gcd(a, (long long)p) != 1)
            a = a % p + 1;
        long long pos = (a * dst + (long long)(mix(seed, src, 0xBEEF) % (unsigned long long)p)) % p;
        double x = (double)(pos + 1) / p;
        return (std::size_t)std::floor(s * x * x);
    }
    if (dist_ == "fft1") {
        long long senders = (long long)std::ceil(0.625 * p), targets = (long long)std::ceil(0.78125 * p);
        return (src < senders && dst < targets) ? (std::size_t)s : 0;
    }
    if (dist_ == "fft2")
        return src == p - 1 ? (std::size_t)(s / 4) : (std::size_t)s;
    if (starts_with(dist_, kHotspot)) {  // uniform's blocks, M times larger to the hot receivers
        std::size_t b = (std::size_t)(mix(seed, src, dst) % (unsigned long long)(s + 1));
        return hotspot_.hot(dst, p, seed) ? b * (std::size_t)hotspot_.factor() : b;
    }
    if (starts_with(dist_, kMoe))
        return moe_.dispatch_bytes(src, dst, s, seed);
    if (starts_with(dist_, kMoeCombine))  // the dispatch's transpose
        return moe_.dispatch_bytes(dst, src, s, seed);
    if (starts_with(dist_, "graph:")) {  // S bytes on each edge of a random graph of degree D
        std::vector<int> d = graph_destinations(src, seed);
        return std::find(d.begin(), d.end(), dst) != d.end() ? (std::size_t)s : 0;
    }
    // Tables: counts times s.
    long long c = src == me ? row_[dst] : col_[src];
    return (std::size_t)(c * s);
}

std::string Workload::load_matrix(const std::string &path, int p, int me)
{
    std::ifstream in(path);
    if (!in)
        return "cannot open " + path;
    std::string line;
    if (!std::getline(in, line) || line.rfind("%%MatrixMarket", 0) != 0)
        return path + ": not a Matrix Market file";
    bool symmetric = line.find("symmetric") != std::string::npos || line.find("hermitian") != std::string::npos;
    if (line.find("coordinate") == std::string::npos)
        return path + ": only coordinate Matrix Market files are supported";
    while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
    }
    long long rows = 0, cols = 0, nnz = 0;
    std::istringstream head(line);
    if (!(head >> rows >> cols >> nnz) || rows <= 0 || cols <= 0)
        return path + ": bad size line";
    // Row-block partition of the rows; x is partitioned like the rows (square
    // matrices) or in the same proportion over the columns.
    auto owner = [&](long long i, long long n) { return (int)std::min<long long>(p - 1, i * p / n); };
    row_.assign(p, 0);
    col_.assign(p, 0);
    std::set<std::pair<int, long long>> need_from_me, i_need;  // (peer, column)
    auto entry = [&](long long i, long long j) {
        int ri = owner(i, rows), cj = owner(j, cols);
        if (ri == cj)
            return;
        if (cj == me)
            need_from_me.insert({ri, j});  // rank ri needs x[j] from me
        if (ri == me)
            i_need.insert({cj, j});
    };
    for (long long k = 0; k < nnz && std::getline(in, line);) {
        if (line.empty() || line[0] == '%')
            continue;
        std::istringstream e(line);
        long long i, j;
        if (!(e >> i >> j))
            return path + ": bad entry line";
        entry(i - 1, j - 1);
        if (symmetric && i != j)
            entry(j - 1, i - 1);
        ++k;
    }
    for (const auto &pc : need_from_me)
        ++row_[pc.first];
    for (const auto &pc : i_need)
        ++col_[pc.first];
    return "";
}

std::string Workload::load_traffic(const std::string &path, int p, int me)
{
    std::ifstream in(path);
    if (!in)
        return "cannot open " + path;
    row_.assign(p, 0);
    col_.assign(p, 0);
    std::string line;
    int r = 0;
    while (r < p && std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream e(line);
        for (int c = 0; c < p; ++c) {
            long long v;
            if (!(e >> v) || v < 0)
                return path + ": row " + std::to_string(r) + " needs " + std::to_string(p) +
                       " non-negative counts";
            if (r == me)
                row_[c] = v;
            if (c == me)
                col_[r] = v;
        }
        ++r;
    }
    if (r < p)
        return path + ": has " + std::to_string(r) + " rows, P = " + std::to_string(p);
    return "";
}

std::string workload_problem(const std::string &dist)
{
    static const char *const formulas[] = {"uniform", "equal", "normal", "powerlaw", "fft1", "fft2"};
    for (const char *name : formulas)
        if (dist == name)
            return "";
    if (starts_with(dist, "matrix:") || starts_with(dist, "traffic:"))
        return dist.find(':') + 1 < dist.size() ? "" : "a path is needed after the colon";
    if (starts_with(dist, "graph:"))
        return graph_degree(dist) ? "" : "graph:D, D >= 1";
    if (starts_with(dist, kHotspot))
        return Hotspot().parse(after(dist, kHotspot));
    if (starts_with(dist, kMoe))
        return MoeRouting().parse(after(dist, kMoe));
    if (starts_with(dist, kMoeCombine))
        return MoeRouting().parse(after(dist, kMoeCombine));
    return "unknown distribution";
}

std::vector<long long> default_scales(const std::string &dist)
{
    if (dist == "fft1")
        return {64};
    if (dist == "fft2")
        return {512};
    if (starts_with(dist, "matrix:"))
        return {8};
    if (starts_with(dist, "traffic:"))
        return {1};
    return {16, 256, 4096, 65536};
}

}  // namespace mpixbench
