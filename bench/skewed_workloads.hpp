// Skewed workloads of mpix-bench's --dist (issue 32): hotspot:K[,M] and the
// expert-parallel MoE exchanges moe:E,K[,A] / moe-combine:E,K[,A]. Like the other
// synthetic workloads they are formulas of (seed, src, dst): every rank derives
// its own row and column alone, and the bytes i -> j it sends are the bytes j
// expects from i.
#ifndef MPIX_BENCH_SKEWED_WORKLOADS_HPP
#define MPIX_BENCH_SKEWED_WORKLOADS_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace mpixbench {

// hotspot:K[,M]: blocks uniform in 0..S (as `uniform`), times M (default 8) for
// the blocks to K receivers chosen from the seed.
class Hotspot {
public:
    static constexpr int kDefaultFactor = 8;

    // Parses the text after "hotspot:"; returns what is wrong, empty when valid.
    std::string parse(const std::string &params);
    bool hot(int dst, int ranks, unsigned long long seed) const;
    int receivers() const { return receivers_; }
    int factor() const { return factor_; }

private:
    int receivers_ = 0, factor_ = kDefaultFactor;
};

// moe:E,K[,A]: the dispatch of an expert-parallel MoE layer. Each rank holds
// T = ceil(P/K) tokens, each routed to its top K of E experts, whose popularity
// follows Zipf's law with exponent A (default 1) over a seeded order of the
// experts; expert e lives on rank floor(e*P/E) (E < P: spread evenly; E >= P:
// consecutive experts per rank). Block src -> dst = S bytes per token of src
// routed to an expert on dst, so a rank sends about T*K*S ~ P*S bytes, as much
// as `equal`'s rank. The count of src's tokens on expert e is drawn from the
// binomial (T, q_e), q_e the expert's top-K inclusion probability (K times its
// popularity, capped at 1 and the excess spread so that the q_e sum to K): a
// rank's total is T*K in expectation, not exactly, and each count is a formula
// of (seed, src, e). moe-combine:E,K[,A] is the reverse (block src -> dst =
// dispatch's dst -> src): the experts' outputs return to the tokens' ranks.
class MoeRouting {
public:
    static constexpr double kDefaultZipf = 1.0;

    // Parses the text after "moe:" or "moe-combine:"; returns what is wrong.
    std::string parse(const std::string &params);
    // The tokens per rank and inclusion probabilities for P ranks (after parse).
    void prepare(int ranks);
    std::size_t dispatch_bytes(int src, int dst, long long scale, unsigned long long seed) const;

    int experts() const { return experts_; }
    int top_k() const { return top_k_; }
    long long tokens() const { return tokens_; }
    // Expert e's rank, and the first expert of rank r (rank r holds
    // first_expert(r) .. first_expert(r + 1) - 1).
    int owner(int expert) const;
    int first_expert(int rank) const;
    // Tokens of src routed to expert e.
    long long count(int src, int expert, unsigned long long seed) const;
    // Expert e's place in the seeded popularity order (0: the most popular), and
    // its probability of being among a token's top K.
    int popularity_rank(int expert, unsigned long long seed) const;
    double inclusion(int expert, unsigned long long seed) const
    {
        return q_[(std::size_t)popularity_rank(expert, seed)];
    }

private:
    int experts_ = 0, top_k_ = 0, ranks_ = 0;
    double zipf_ = kDefaultZipf;
    long long tokens_ = 0;
    std::vector<double> q_;  // by popularity rank, summing to top_k_
};

}  // namespace mpixbench

#endif
