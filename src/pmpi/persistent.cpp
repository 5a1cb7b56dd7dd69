// The drop-in's persistent exchanges: the placeholders the application holds,
// and the MPI calls that must recognise them (pmpi/persistent.hpp): MPI_Start,
// MPI_Startall, MPI_Request_free and MPI_Cancel. The *_init calls themselves
// live beside their nonblocking forms (pmpi/nonblocking.cpp, pmpi/neighbor.cpp).
#include "pmpi/persistent.hpp"

#if MPIX_HAVE_GREQUEST_POLL

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <unordered_map>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/request.hpp"
#include "pmpi/inflight.hpp"

namespace mpix {
namespace pmpi {

namespace {

// One persistent exchange of the application.
struct Persistent {
    MPIX_Request *request = nullptr;         // the persistent mpix request
    MPI_Request placeholder = MPI_REQUEST_NULL;
    MPI_Request started = MPI_REQUEST_NULL;  // the current start's generalized request; NULL: inactive
    MPI_Comm comm = MPI_COMM_NULL;           // whose error handler reports misuse
};

// The process's persistent exchanges by placeholder; the filter
// (placeholder_filter) keeps almost every other request away from the lock.
class PersistentList {
public:
    static PersistentList &get()
    {
        static PersistentList list;
        return list;
    }
    Persistent *find(MPI_Request handle)
    {
        if (!maybe_placeholder(handle))
            return nullptr;
        std::lock_guard<std::mutex> hold(lock_);
        const auto it = by_placeholder_.find(handle);
        return it == by_placeholder_.end() ? nullptr : it->second;
    }
    void add(Persistent *p)
    {
        std::lock_guard<std::mutex> hold(lock_);
        by_placeholder_[p->placeholder] = p;
        const std::size_t bit = placeholder_bit(p->placeholder);
        placeholder_filter()[bit / 64].fetch_or(std::uint64_t{1} << (bit % 64), std::memory_order_relaxed);
        dropin_activity().fetch_add(1, std::memory_order_relaxed);
    }
    void remove(Persistent *p)
    {
        std::lock_guard<std::mutex> hold(lock_);
        by_placeholder_.erase(p->placeholder);
        // The filter rebuilt aside, then stored word by word: each word goes
        // from a superset of the remaining placeholders' bits to exactly them,
        // so a lookup on another thread never misses a live placeholder.
        std::uint64_t rebuilt[kPlaceholderFilterWords] = {};
        for (const auto &entry : by_placeholder_) {
            const std::size_t bit = placeholder_bit(entry.first);
            rebuilt[bit / 64] |= std::uint64_t{1} << (bit % 64);
        }
        for (std::size_t w = 0; w < kPlaceholderFilterWords; ++w)
            placeholder_filter()[w].store(rebuilt[w], std::memory_order_relaxed);
        dropin_activity().fetch_sub(1, std::memory_order_relaxed);
    }

private:

    std::mutex lock_;
    std::unordered_map<MPI_Request, Persistent *> by_placeholder_;
};

int start_persistent(Persistent *p)
{
    if (p->started != MPI_REQUEST_NULL)
        return raise(p->comm, MPI_ERR_REQUEST, "MPI_Start",
                     "the persistent request is active (started and not completed by MPI_Wait or MPI_Test)");
    int rc = MPIX_Start(p->request);
    if (rc == MPI_SUCCESS)
        rc = wrap_started(p->request, Afterwards::nothing, &p->started);
    return rc;
}

}  // namespace

bool called_from_f08_binding(void *return_address)
{
    Dl_info where;
    if (!return_address || !dladdr(return_address, &where) || !where.dli_sname)
        return false;
    // MPICH names them mpi_<call>_f08_ / mpi_<call>_f08ts_.
    return std::strstr(where.dli_sname, "_f08") != nullptr;
}

int register_persistent(MPIX_Request *request, MPI_Request *handle)
{
    Persistent *p = new (std::nothrow) Persistent;
    int rc = p ? MPI_SUCCESS : static_cast<int>(MPI_ERR_NO_MEM);
    if (rc == MPI_SUCCESS)
        // Never started, so it never matches a message. Not a receive from
        // MPI_PROC_NULL: MPICH 4.0.2 reuses such a request's slot for the next
        // request, and a persistent collective made there never completes.
        rc = PMPI_Recv_init(nullptr, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, &p->placeholder);
    if (rc != MPI_SUCCESS) {
        MPIX_Request_free(&request);
        delete p;
        return rc;
    }
    p->request = request;
    p->comm = request->xcomm->user;
    PersistentList::get().add(p);
    *handle = p->placeholder;
    return MPI_SUCCESS;
}

Substitution::Substitution(int count, MPI_Request *requests) : count_(count), user_(requests)
{
    PersistentList &list = PersistentList::get();
    if (!any_maybe_placeholder(count, requests))
        return;
    for (int i = 0; i < count; ++i) {
        Persistent *p = list.find(requests[i]);
        if (!p)
            continue;
        if (swapped_.empty()) {
            swapped_.assign(requests, requests + count);
            owners_.assign(count, nullptr);
        }
        swapped_[i] = p->started;
        owners_[i] = p;
    }
}

void Substitution::restore()
{
    if (swapped_.empty())
        return;
    for (int i = 0; i < count_; ++i) {
        Persistent *p = static_cast<Persistent *>(owners_[i]);
        if (!p)
            user_[i] = swapped_[i];
        else if (swapped_[i] == MPI_REQUEST_NULL)
            p->started = MPI_REQUEST_NULL;  // this start completed (MPI freed its generalized request)
    }
}

}  // namespace pmpi
}  // namespace mpix

using mpix::pmpi::Persistent;
using mpix::pmpi::PersistentList;

extern "C" int MPI_Start(MPI_Request *request)
{
    Persistent *p = request ? PersistentList::get().find(*request) : nullptr;
    return p ? mpix::pmpi::start_persistent(p) : PMPI_Start(request);
}

extern "C" int MPI_Startall(int count, MPI_Request requests[])
{
    if (!mpix::pmpi::any_maybe_placeholder(count, requests))
        return PMPI_Startall(count, requests);
    PersistentList &list = PersistentList::get();
    // One by one in the application's order (MPI lets Startall start them in any).
    for (int i = 0; i < count; ++i) {
        Persistent *p = list.find(requests[i]);
        const int rc = p ? mpix::pmpi::start_persistent(p) : PMPI_Start(&requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

extern "C" int MPI_Request_free(MPI_Request *request)
{
    Persistent *p = request ? PersistentList::get().find(*request) : nullptr;
    if (!p)
        return PMPI_Request_free(request);
    if (p->started != MPI_REQUEST_NULL)
        return mpix::raise(p->comm, MPI_ERR_REQUEST, "MPI_Request_free",
                           "the persistent all-to-all request is active: complete it (MPI_Wait, MPI_Test) first");
    PersistentList::get().remove(p);
    int rc = MPIX_Request_free(&p->request);
    const int freed = PMPI_Request_free(&p->placeholder);
    if (rc == MPI_SUCCESS)
        rc = freed;
    delete p;
    *request = MPI_REQUEST_NULL;
    mpix::pmpi::release_idle_routes();  // its communicator may have been freed already
    return rc;
}

extern "C" int MPI_Cancel(MPI_Request *request)
{
    Persistent *p = request ? PersistentList::get().find(*request) : nullptr;
    if (!p)
        return PMPI_Cancel(request);
    return mpix::raise(p->comm, MPI_ERR_REQUEST, "MPI_Cancel",
                       "an all-to-all or neighbourhood exchange cannot be cancelled (MPI forbids it for "
                       "collectives); complete it with MPI_Wait or MPI_Test");
}

#endif  // MPIX_HAVE_GREQUEST_POLL
