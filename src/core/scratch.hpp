// Scratch bytes of an algorithm (forwarding slots, working buffers): malloc'd,
// uninitialised, grown geometrically. Not std::vector<char>, for two reasons:
//  - a failed allocation is a return value the algorithm turns into
//    MPI_ERR_NO_MEM before it starts communicating, not an exception that
//    would leave the library through a C function;
//  - under SimGrid SMPI, malloc is SimGrid's, so `smpi/auto-shared-malloc-thresh`
//    can share large scratch buffers between simulated ranks (timing-only runs
//    at P=1024 and 16 KiB blocks need that to fit in memory; see sim/README.md).
#ifndef MPIX_CORE_SCRATCH_HPP
#define MPIX_CORE_SCRATCH_HPP

#include <cstddef>

namespace mpix {

class ScratchBytes {
public:
    ScratchBytes() = default;
    ~ScratchBytes();
    ScratchBytes(const ScratchBytes &) = delete;
    ScratchBytes &operator=(const ScratchBytes &) = delete;
    // Moving keeps data() where it was (a vector of them may grow).
    ScratchBytes(ScratchBytes &&other) noexcept;
    ScratchBytes &operator=(ScratchBytes &&other) noexcept;

    // Size n; the first min(old size, n) bytes are kept, the rest is
    // uninitialised. Returns false (and changes nothing) when out of memory.
    bool resize(std::size_t n);
    char *data() { return data_; }
    std::size_t size() const { return size_; }

private:
    char *data_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace mpix

#endif
