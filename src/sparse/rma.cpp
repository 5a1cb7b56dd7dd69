// `rma` (MPIX_Alltoall_crs only): every rank owns one slot per possible source in
// a window cached on the MPIX_Comm; senders put a header word (bytes + 1, so an
// all-zero payload still marks arrival) and the payload into their slot inside
// one fence epoch; receivers scan their slots in rank order afterwards, which
// also yields the sources ascending. Discovery costs two fences and one small
// allreduce (the slot size, so every rank agrees on the layout and on when the
// window must grow) instead of a reduction of P counts.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "sparse/sparse.hpp"

namespace mpix {

namespace {

const char *const kWindowKey = "sparse.rma.window";

struct SlotWindow : CacheEntry {
    MPI_Win win = MPI_WIN_NULL;
    char *base = nullptr;
    std::size_t bytes = 0;
    std::size_t stride = 0;  // slot layout of the last call (headers cleared for it)
    std::vector<char> memory;
    ~SlotWindow() override
    {
        if (win != MPI_WIN_NULL)
            MPI_Win_free(&win);  // collective: the cache is freed collectively
    }
};

constexpr std::size_t kHeader = sizeof(std::uint64_t);

// The cached window, re-created (collectively: `need` is agreed) only when too small.
int window_for(MPIX_Comm *xcomm, MPI_Comm comm, std::size_t need, std::size_t stride, SlotWindow **out)
{
    SlotWindow *w = cached<SlotWindow>(xcomm, kWindowKey);
    if (!w || w->bytes < need) {
        xcomm->cache.erase(kWindowKey);
        std::unique_ptr<SlotWindow> fresh(new SlotWindow());
        // Our own memory + MPI_Win_create: with MPI_Win_allocate (shared-memory
        // windows in MPICH 4.0) puts were seen at wrong offsets once the window had
        // been freed and allocated again (reproduced at P=3, not explained).
        fresh->memory.assign(need, 0);
        fresh->base = fresh->memory.data();
        MPIX_CHECK(MPI_Win_create(fresh->base, static_cast<MPI_Aint>(need), 1, MPI_INFO_NULL, comm, &fresh->win));
        fresh->bytes = need;
        fresh->stride = stride;
        w = cache_keep(xcomm, kWindowKey, std::move(fresh));
    } else if (w->stride != stride) {
        std::memset(w->base, 0, w->bytes);  // headers of another layout: clear all
        w->stride = stride;
    }
    *out = w;
    return MPI_SUCCESS;
}

}  // namespace

int sparse_rma(const SparseExchange &x)
{
    if (!x.uniform)
        return MPI_ERR_INTERN;  // registered for alltoall_crs only
    unsigned long long mine = x.block_bytes, largest = 0;
    MPIX_CHECK(MPI_Allreduce(&mine, &largest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, x.comm));
    std::size_t stride = kHeader + (static_cast<std::size_t>(largest) + kHeader - 1) / kHeader * kHeader;
    if (stride > static_cast<std::size_t>(INT32_MAX))
        return MPI_ERR_COUNT;
    SlotWindow *w = nullptr;
    MPIX_CHECK(window_for(x.xcomm, x.comm, stride * static_cast<std::size_t>(x.size), stride, &w));

    PooledScratch staging_buffer(&x.xcomm->scratch);  // a warm buffer of the calls before
    if (!staging_buffer.take(x.sends.size() * stride))
        return MPI_ERR_NO_MEM;
    char *staging = staging_buffer.data();
    {
        LocalWork::Batch batch(&x.xcomm->work);
        for (std::size_t i = 0; i < x.sends.size(); ++i) {
            std::uint64_t head = static_cast<std::uint64_t>(x.sends[i].bytes) + 1;
            std::memcpy(&staging[i * stride], &head, kHeader);
            x.xcomm->work.copy(&staging[i * stride + kHeader], x.sends[i].data, x.sends[i].bytes);
        }
    }
    // The opening fence also separates my clearing of headers from remote puts.
    MPIX_CHECK(MPI_Win_fence(0, w->win));
    for (std::size_t i = 0; i < x.sends.size(); ++i) {
        MPI_Aint disp = static_cast<MPI_Aint>(x.rank) * static_cast<MPI_Aint>(stride);
        MPIX_CHECK(MPI_Put(&staging[i * stride], static_cast<int>(kHeader + x.sends[i].bytes), MPI_BYTE,
                           x.sends[i].dest, disp, static_cast<int>(kHeader + x.sends[i].bytes), MPI_BYTE, w->win));
    }
    MPIX_CHECK(MPI_Win_fence(0, w->win));

    const std::size_t first = x.inbox->count();
    LocalWork::Batch batch(&x.xcomm->work);
    for (int s = 0; s < x.size; ++s) {
        char *slot = w->base + static_cast<std::size_t>(s) * stride;
        std::uint64_t head = 0;
        std::memcpy(&head, slot, kHeader);
        if (!head)
            continue;
        std::size_t n = static_cast<std::size_t>(head - 1);
        char *dst = nullptr;
        if (!x.inbox->add(s, n, &dst))
            return MPI_ERR_NO_MEM;
        x.xcomm->work.copy(dst, slot + kHeader, n);
        head = 0;
        std::memcpy(slot, &head, kHeader);  // cleared for the next call
    }
    // The puts of the one fence epoch as round 0, header included.
    trace_direct_messages(x, 0, first, kHeader);
    return MPI_SUCCESS;
}

}  // namespace mpix
