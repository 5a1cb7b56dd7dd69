#include "core/scratch.hpp"

// Plain malloc/realloc/free, not std::: SimGrid's smpicxx replaces these names
// with its own (shared-malloc aware) functions by macro.
#include <stdlib.h>

namespace mpix {

ScratchBytes::~ScratchBytes()
{
    free(data_);
}

ScratchBytes::ScratchBytes(ScratchBytes &&other) noexcept
    : data_(other.data_), size_(other.size_), capacity_(other.capacity_)
{
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
}

ScratchBytes &ScratchBytes::operator=(ScratchBytes &&other) noexcept
{
    if (this != &other) {
        free(data_);
        data_ = other.data_;
        size_ = other.size_;
        capacity_ = other.capacity_;
        other.data_ = nullptr;
        other.size_ = other.capacity_ = 0;
    }
    return *this;
}

bool ScratchBytes::resize(std::size_t n)
{
    if (n > capacity_) {
        std::size_t want = capacity_ * 2 > n ? capacity_ * 2 : n;
        void *p = realloc(data_, want);
        if (!p && want > n) {  // the doubled size failed: try the exact one
            want = n;
            p = realloc(data_, want);
        }
        if (!p)
            return false;
        data_ = static_cast<char *>(p);
        capacity_ = want;
    }
    size_ = n;
    return true;
}

}  // namespace mpix
