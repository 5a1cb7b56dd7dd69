#include "core/scratch.hpp"

// Plain malloc/realloc/free, not std::: SimGrid's smpicxx replaces these names
// with its own (shared-malloc aware) functions by macro.
#include <stdlib.h>

namespace mpix {

ScratchBytes::~ScratchBytes()
{
    free(data_);
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
