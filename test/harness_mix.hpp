// A deterministic hash every rank computes alike (no CUnit dependency: mpix-bench
// and sim/check_sim use it too).
#ifndef MPIX_TEST_HARNESS_MIX_HPP
#define MPIX_TEST_HARNESS_MIX_HPP
#include <cstdint>
namespace mpixtest {
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0)
{
    std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^
                      (c + 0x94D049BB133111EBull) * 0xD6E8FEB86659FD93ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return x;
}
}  // namespace mpixtest
#endif
