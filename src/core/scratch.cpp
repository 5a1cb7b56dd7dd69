#include "core/scratch.hpp"

// Plain malloc/realloc/free, not std::: SimGrid's smpicxx replaces these names
// with its own (shared-malloc aware) functions by macro.
#include <stdlib.h>

#include <cstddef>
#include <utility>

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

bool ScratchPool::take(std::size_t n, ScratchBytes *out)
{
    std::size_t pick = kept_.size();
    for (std::size_t i = 0; i < kept_.size(); ++i)
        if (kept_[i].capacity() >= n && (pick == kept_.size() || kept_[i].capacity() < kept_[pick].capacity()))
            pick = i;
    if (pick == kept_.size() && !kept_.empty()) {  // none holds n: grow the largest
        pick = 0;
        for (std::size_t i = 1; i < kept_.size(); ++i)
            if (kept_[i].capacity() > kept_[pick].capacity())
                pick = i;
    }
    if (pick < kept_.size()) {
        ScratchBytes chosen = std::move(kept_[pick]);
        kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(pick));
        if (out->capacity() > 0)
            give(std::move(*out));
        *out = std::move(chosen);
    }
    return out->resize(n > 0 ? n : 1);
}

void ScratchPool::give(ScratchBytes b)
{
    kept_.push_back(std::move(b));
    if (kept_.size() > kKept) {  // drop the smallest
        std::size_t smallest = 0;
        for (std::size_t i = 1; i < kept_.size(); ++i)
            if (kept_[i].capacity() < kept_[smallest].capacity())
                smallest = i;
        kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(smallest));
    }
}

}  // namespace mpix
