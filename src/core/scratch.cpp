#include "core/scratch.hpp"

// Plain malloc/realloc/free, not std::: SimGrid's smpicxx replaces these names
// with its own (shared-malloc aware) functions by macro.
#include <stdlib.h>

#include <cstddef>
#include <iterator>
#include <mutex>
#include <utility>

namespace mpix {

ScratchBytes::~ScratchBytes()
{
    release();
}

void ScratchBytes::release() noexcept
{
    if (pool_ && capacity_ >= kPooledFrom)
        pool_->give(std::move(*this));  // leaves this empty
    else
        free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
}

ScratchBytes::ScratchBytes(ScratchBytes &&other) noexcept
    : data_(other.data_), size_(other.size_), capacity_(other.capacity_), pool_(other.pool_)
{
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
}

ScratchBytes &ScratchBytes::operator=(ScratchBytes &&other) noexcept
{
    if (this != &other) {
        release();
        data_ = other.data_;
        size_ = other.size_;
        capacity_ = other.capacity_;
        pool_ = other.pool_;
        other.data_ = nullptr;
        other.size_ = other.capacity_ = 0;
    }
    return *this;
}

bool ScratchBytes::resize(std::size_t n)
{
    if (n > capacity_ && capacity_ == 0 && pool_ && n >= kPooledFrom)
        pool_->lend(n, this);
    if (n > capacity_ && !grow(n))
        return false;
    size_ = n;
    return true;
}

bool ScratchBytes::grow(std::size_t n)
{
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
    return true;
}

bool ScratchPool::lend(std::size_t n, ScratchBytes *out)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.empty())
        return false;
    auto pick = kept_.lower_bound(n);
    if (pick == kept_.end())  // none holds n: the largest, to be grown
        pick = std::prev(kept_.end());
    ScratchPool *bound = out->pool_;
    auto node = kept_.extract(pick);
    *out = std::move(node.mapped());
    out->pool_ = bound;
    // The emptied node is kept for the next give (no allocation a buffer lent
    // and given back: every call on every row did one per pooled buffer).
    try {
        spare_nodes_.push_back(std::move(node));
    } catch (...) {
        // the node is freed here; give() makes a new one
    }
    return true;
}

std::size_t ScratchPool::kept_count()
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t count = kept_.size();
    for (const SmallKept &slot : small_)
        count += slot.data ? 1 : 0;
    return count;
}

std::size_t ScratchPool::kept_bytes()
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t bytes = 0;
    for (const auto &kept : kept_)
        bytes += kept.first;
    for (const SmallKept &slot : small_)
        bytes += slot.capacity;
    return bytes;
}

ScratchPool::~ScratchPool()
{
    for (SmallKept &slot : small_)
        free(slot.data);
}

bool ScratchPool::lend_small(std::size_t n, ScratchBytes *out)
{
    SmallKept *pick = nullptr;
    for (SmallKept &slot : small_) {
        if (!slot.data)
            continue;
        if (!pick)
            pick = &slot;
        else if (pick->capacity < n ? slot.capacity > pick->capacity  // the largest, while none holds n
                                    : slot.capacity >= n && slot.capacity < pick->capacity)
            pick = &slot;
    }
    if (!pick)
        return false;
    out->data_ = pick->data;
    out->capacity_ = pick->capacity;
    out->size_ = 0;
    *pick = SmallKept();
    return true;
}

bool ScratchPool::take(std::size_t n, ScratchBytes *out)
{
    if (out->capacity() > 0)
        give_back(out);
    if (n < ScratchBytes::kPooledFrom) {
        std::lock_guard<std::mutex> lock(mutex_);
        lend_small(n, out);
    } else {
        lend(n, out);
    }
    return out->resize(n > 0 ? n : 1);
}

void ScratchPool::give_back(ScratchBytes *b) noexcept
{
    if (b->capacity_ == 0)
        return;
    if (b->capacity_ >= ScratchBytes::kPooledFrom) {
        ScratchPool *bound = b->pool_;
        b->pool_ = nullptr;  // so that the move below leaves it empty, not pooled
        give(std::move(*b));
        b->pool_ = bound;
        return;
    }
    char *freed = b->data_;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        SmallKept *slot = nullptr;
        for (SmallKept &s : small_) {
            if (!s.data) {
                slot = &s;
                break;
            }
            if (!slot || s.capacity < slot->capacity)
                slot = &s;
        }
        if (!slot->data || slot->capacity < b->capacity_) {
            freed = slot->data;  // an empty slot, or the smallest kept one: evicted
            slot->data = b->data_;
            slot->capacity = b->capacity_;
        }
    }
    free(freed);
    b->data_ = nullptr;
    b->size_ = b->capacity_ = 0;
}

void ScratchPool::give(ScratchBytes b) noexcept
{
    b.pool_ = nullptr;  // kept here, freed with the pool
    const std::size_t capacity = b.capacity();
    if (capacity < ScratchBytes::kPooledFrom) {
        give_back(&b);
        return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() >= kKept) {
        if (kept_.begin()->first >= capacity)
            return;  // b is the smallest: freed
        kept_.erase(kept_.begin());
    }
    if (!spare_nodes_.empty()) {
        auto node = std::move(spare_nodes_.back());
        spare_nodes_.pop_back();
        node.key() = capacity;
        node.mapped() = std::move(b);
        kept_.insert(std::move(node));
        return;
    }
    try {
        kept_.emplace(capacity, std::move(b));
    } catch (...) {
        return;  // b (moved only once the node exists) is freed
    }
}

}  // namespace mpix
