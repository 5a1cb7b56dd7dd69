// The drop-in's persistent exchanges (MPI_Alltoall(v)_init,
// MPI_Neighbor_alltoallv_init). The application's MPI_Request for one is a
// placeholder of the MPI library's (an inactive persistent receive on
// MPI_COMM_SELF, never started: a handle MPI never gives twice and knows how
// to convert); the drop-in's MPI_Start, MPI_Startall, MPI_Request_free, MPI_Cancel and
// completion calls recognise it. A start wraps the started mpix exchange in a
// generalized request (pmpi/inflight.hpp) that the completion calls complete
// in the placeholder's stead: Substitution swaps it in for one call.
#ifndef MPIX_PMPI_PERSISTENT_HPP
#define MPIX_PMPI_PERSISTENT_HPP

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "config.h"
#include "mpix.h"

#if MPIX_HAVE_GREQUEST_POLL

namespace mpix {
namespace pmpi {

// A filter of the registered placeholders' hashes (4096 bits), process-wide as
// MPI requests are: a request whose bit is clear is not a placeholder, so every
// other request of a completion call costs a few instructions, without a lock.
constexpr std::size_t kPlaceholderFilterWords = 64;
inline std::atomic<std::uint64_t> *placeholder_filter()
{
    static std::atomic<std::uint64_t> words[kPlaceholderFilterWords] = {};
    return words;
}
inline std::size_t placeholder_bit(MPI_Request handle)
{
    // MPICH's handles differ in their low bits, Open MPI's (pointers) in their
    // middle ones: mix, then take the top twelve bits.
    const std::uint64_t h = static_cast<std::uint64_t>(std::hash<MPI_Request>{}(handle));
    return static_cast<std::size_t>((h * 0x9E3779B97F4A7C15ull) >> 52);
}
inline bool maybe_placeholder(MPI_Request handle)
{
    if (handle == MPI_REQUEST_NULL)
        return false;
    const std::size_t bit = placeholder_bit(handle);
    return (placeholder_filter()[bit / 64].load(std::memory_order_relaxed) >> (bit % 64)) & 1u;
}
inline bool any_maybe_placeholder(int count, const MPI_Request *requests)
{
    for (int i = 0; requests && i < count; ++i)
        if (maybe_placeholder(requests[i]))
            return true;
    return false;
}

// Whether the code at `return_address` (an intercepted *_init call's caller)
// is an MPI Fortran 2008 binding: MPICH's mpi_f08 wrappers call MPI_Start,
// MPI_Wait and the others as PMPI_*, so they would never recognise a
// placeholder; persistent exchanges made there stay with the MPI library.
bool called_from_f08_binding(void *return_address);

// Hands the application a placeholder for the inactive persistent mpix
// request `request` (made by a *_init call; owned from here on).
int register_persistent(MPIX_Request *request, MPI_Request *handle);

// The requests a completion call passes to the MPI library: the application's
// own, with each placeholder replaced by its current start's generalized
// request (an inactive one by MPI_REQUEST_NULL, which MPI treats alike). Made
// only where any_maybe_placeholder says a request may be one.
class Substitution {
public:
    Substitution(int count, MPI_Request *requests);
    // The array to hand to the MPI library.
    MPI_Request *requests() { return swapped_.empty() ? user_ : swapped_.data(); }
    // After the call: the MPI library's changes copied back, except that a
    // placeholder whose start completed stays (inactive, as MPI leaves a
    // persistent request).
    void restore();

private:
    int count_;
    MPI_Request *user_;
    std::vector<MPI_Request> swapped_;  // empty: nothing was replaced
    std::vector<void *> owners_;
};

}  // namespace pmpi
}  // namespace mpix

#endif  // MPIX_HAVE_GREQUEST_POLL
#endif
