// The skewed workloads' formulas (bench/skewed_workloads.hpp).
#include "skewed_workloads.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>

#include "harness_mix.hpp"

namespace mpixbench {

namespace {

using mpixtest::mix;

constexpr long kMaxParam = 1L << 24;
// Salts keep the draws of different purposes apart for one seed.
constexpr std::uint64_t kHotSalt = 0x407500, kExpertOrderSalt = 0x30E000, kCountSalt = 0x30E100000000ull;

double unit_interval(std::uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

// Comma-separated fields; false when one is empty.
bool split_fields(const std::string &text, std::vector<std::string> *out)
{
    out->clear();
    std::size_t start = 0;
    for (;;) {
        std::size_t comma = text.find(',', start);
        out->push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (out->back().empty())
            return false;
        if (comma == std::string::npos)
            return true;
        start = comma + 1;
    }
}

bool whole_number(const std::string &s, long lo, long hi, int *out)
{
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(s.c_str(), &end, 10);
    if (errno || end == s.c_str() || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

// An affine permutation of 0..n-1 from the seed: position of i is (a*i + b) mod n,
// a coprime to n, so one entry costs O(1) and every rank agrees.
long long seeded_position(long long i, long long n, unsigned long long seed, std::uint64_t salt)
{
    long long a = 1 + (long long)(mix(seed, salt, 1) % (std::uint64_t)n);
    while (std::gcd(a, n) != 1)
        a = a % n + 1;
    long long b = (long long)(mix(seed, salt, 2) % (std::uint64_t)n);
    return (long long)(((__int128)a * i + b) % n);
}

// A binomial (n, q) draw from one hash: the inverse of its distribution function
// while the mean is small, a normal approximation (Box-Muller) beyond.
long long binomial(std::uint64_t h, long long n, double q)
{
    if (n <= 0 || q <= 0)
        return 0;
    if (q >= 1)
        return n;
    if (q > 0.5)  // the tail side keeps the inverse search short
        return n - binomial(~h, n, 1 - q);
    const double mean = (double)n * q;
    if (mean < 32) {
        const double u = unit_interval(h), ratio = q / (1 - q);
        double p = std::exp((double)n * std::log1p(-q)), cdf = p;
        long long k = 0;
        while (u > cdf && k < n) {
            p *= (double)(n - k) / (double)(k + 1) * ratio;
            ++k;
            cdf += p;
        }
        return k;
    }
    const double u1 = unit_interval(h) + 1e-12, u2 = unit_interval(mix(h, 17, 3));
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const double k = std::round(mean + z * std::sqrt(mean * (1 - q)));
    return (long long)std::min<double>((double)n, std::max(0.0, k));
}

}  // namespace

std::string Hotspot::parse(const std::string &params)
{
    std::vector<std::string> f;
    if (!split_fields(params, &f) || f.size() > 2)
        return "hotspot:K or hotspot:K,M";
    if (!whole_number(f[0], 1, kMaxParam, &receivers_))
        return "hotspot:K needs 1 <= K <= 2^24 receivers";
    factor_ = kDefaultFactor;
    if (f.size() == 2 && !whole_number(f[1], 1, 1 << 16, &factor_))
        return "hotspot:K,M needs a factor 1 <= M <= 65536";
    return "";
}

bool Hotspot::hot(int dst, int ranks, unsigned long long seed) const
{
    return seeded_position(dst, ranks, seed, kHotSalt) < receivers_;
}

std::string MoeRouting::parse(const std::string &params)
{
    std::vector<std::string> f;
    if (!split_fields(params, &f) || f.size() < 2 || f.size() > 3)
        return "moe:E,K or moe:E,K,A";
    if (!whole_number(f[0], 1, kMaxParam, &experts_))
        return "moe:E,K needs 1 <= E <= 2^24 experts";
    if (!whole_number(f[1], 1, experts_, &top_k_))
        return "moe:E,K needs 1 <= K <= E";
    zipf_ = kDefaultZipf;
    if (f.size() == 3) {
        char *end = nullptr;
        zipf_ = std::strtod(f[2].c_str(), &end);
        if (end == f[2].c_str() || *end || !(zipf_ >= 0 && zipf_ <= 8))
            return "moe:E,K,A needs a Zipf exponent 0 <= A <= 8";
    }
    return "";
}

void MoeRouting::prepare(int ranks)
{
    ranks_ = ranks;
    tokens_ = (ranks + top_k_ - 1) / top_k_;
    // Zipf weights by popularity rank, then K times each, the largest capped at 1
    // and the rest rescaled so that they sum to K. Which expert has which rank
    // comes from the seed (popularity_rank).
    const int e = experts_;
    std::vector<double> w((std::size_t)e);
    for (int r = 0; r < e; ++r)
        w[(std::size_t)r] = std::pow((double)(r + 1), -zipf_);
    std::vector<double> tail((std::size_t)e + 1, 0.0);
    for (int r = e - 1; r >= 0; --r)
        tail[(std::size_t)r] = tail[(std::size_t)r + 1] + w[(std::size_t)r];
    int capped = 0;
    while (capped < top_k_ && (double)(top_k_ - capped) * w[(std::size_t)capped] >= tail[(std::size_t)capped])
        ++capped;
    const double scale = capped < e ? (double)(top_k_ - capped) / tail[(std::size_t)capped] : 0.0;
    q_.assign((std::size_t)e, 0.0);
    for (int r = 0; r < e; ++r)
        q_[(std::size_t)r] = r < capped ? 1.0 : std::min(1.0, scale * w[(std::size_t)r]);
}

int MoeRouting::popularity_rank(int expert, unsigned long long seed) const
{
    return (int)seeded_position(expert, experts_, seed, kExpertOrderSalt);
}

int MoeRouting::owner(int expert) const { return (int)((long long)expert * ranks_ / experts_); }

int MoeRouting::first_expert(int rank) const
{
    return (int)(((long long)rank * experts_ + ranks_ - 1) / ranks_);
}

long long MoeRouting::count(int src, int expert, unsigned long long seed) const
{
    return binomial(mix(seed, (std::uint64_t)src, kCountSalt + (std::uint64_t)expert), tokens_,
                    q_[(std::size_t)popularity_rank(expert, seed)]);
}

std::size_t MoeRouting::dispatch_bytes(int src, int dst, long long scale, unsigned long long seed) const
{
    long long tokens = 0;
    for (int x = first_expert(dst); x < first_expert(dst + 1); ++x)
        tokens += count(src, x, seed);
    return (std::size_t)(tokens * scale);
}

}  // namespace mpixbench
