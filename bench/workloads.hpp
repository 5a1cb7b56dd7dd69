// The benchmark's workloads: bytes from source to destination as a formula of
// (seed, src, dst), or read from a Matrix Market / traffic file. Shared by
// mpix-bench, mpix-tune and sim/bound, so the bound is computed for exactly the
// bytes the benchmark moves.
#ifndef MPIX_BENCH_WORKLOADS_HPP
#define MPIX_BENCH_WORKLOADS_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "skewed_workloads.hpp"

namespace mpixbench {

// A workload: bytes from src to dst, for this rank's row and column. Synthetic
// distributions are formulas of (seed, src, dst), so every rank computes its
// own row and column without communication (no P^2 table, no extra collective).
class Workload {
public:
    // Loads the file of matrix:/traffic: once: element counts for this rank's row
    // and column. Returns an error text, empty on success.
    std::string load(const std::string &dist, int ranks, int me);

    // graph:D: the D destinations of src, distinct, self excluded (all other
    // ranks when D >= P - 1), a formula of (seed, src) like the other workloads.
    std::vector<int> graph_destinations(int src, unsigned long long seed) const;

    // Bytes src -> dst for scale s; one of src/dst must be this rank for tables.
    std::size_t bytes(int src, int dst, long long scale, unsigned long long seed, int me) const;

    const std::string &dist() const { return dist_; }
    int ranks() const { return ranks_; }

private:
    std::string load_matrix(const std::string &path, int ranks, int me);
    std::string load_traffic(const std::string &path, int ranks, int me);

    std::string dist_;
    int ranks_ = 0;
    int degree_ = 0;  // graph:D
    Hotspot hotspot_;
    MoeRouting moe_;
    bool moe_combine_ = false;
    std::vector<long long> row_, col_;
};

// What is wrong with a --dist value, empty when it names a workload (files are
// only opened by Workload::load).
std::string workload_problem(const std::string &dist);

// The default block size scales of a workload: fft1 64 B (8 doubles), fft2 512 B
// (64 doubles), matrix 8 B per vector value, traffic 1 B per count, otherwise
// 16, 256, 4096 and 65536 B.
std::vector<long long> default_scales(const std::string &dist);

}  // namespace mpixbench

#endif
