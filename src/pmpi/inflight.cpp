// Generalized requests around started mpix exchanges (pmpi/inflight.hpp).
#include "pmpi/inflight.hpp"

#if MPIX_HAVE_GREQUEST_POLL

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/per_thread.hpp"

namespace mpix {
namespace pmpi {

namespace {

// One started exchange behind an application's MPI_Request.
struct InFlight {
    MPIX_Request *request = nullptr;  // a nonblocking call's is NULL once complete (MPIX_Test frees it)
    Afterwards afterwards = Afterwards::nothing;
    MPI_Request handle = MPI_REQUEST_NULL;
    int outcome = MPI_SUCCESS;
    bool done = false;
    bool freed = false;    // MPI freed its generalized request before it completed
    bool counted = true;   // still in dropin_activity
};

// The drop-in stays active (its completion calls take their own path) until
// MPI has freed a completed exchange's generalized request: that is when the
// application's completion call receives the exchange's error
// (exchange_failures_delivered).
void stop_counting(InFlight *f)
{
    if (f->counted) {
        f->counted = false;
        dropin_activity().fetch_sub(1, std::memory_order_relaxed);
    }
}

// The failed exchanges MPI's completion calls on this thread have been handed
// (query_exchange): how many so far, and the generalized requests and
// outcomes of those since the last forget_delivered_outcomes.
struct DeliveredFailures {
    unsigned long count = 0;
    std::vector<std::pair<MPI_Request, int>> outcomes;
};
struct DeliveredFailuresTag;
DeliveredFailures &delivered_failures() { return per_thread<DeliveredFailuresTag, DeliveredFailures>(); }

// The process's exchanges started by intercepted calls and not yet complete:
// MPI_Request_get_status, which MPICH does not let poll a generalized request,
// polls them itself. Process-wide like the engine's own list (MPI requests
// are); the lock also serialises polls of one request from several threads
// (taken at MPI_THREAD_MULTIPLE only).
class InFlightList {
public:
    static InFlightList &get()
    {
        static InFlightList list;
        return list;
    }
    void add(InFlight *f)
    {
        std::lock_guard<ThreadsMutex> hold(lock_);
        items_.push_back(f);
        in_flight_count().store(items_.size(), std::memory_order_relaxed);
        dropin_activity().fetch_add(1, std::memory_order_relaxed);
    }
    // Polls `f` (every started exchange progresses); once it is done, removes
    // it and completes its generalized request.
    int poll(InFlight *f)
    {
        bool completed = false;
        int rc;
        {
            std::lock_guard<ThreadsMutex> hold(lock_);
            rc = poll_locked(f, &completed);
        }
        if (completed)
            release_idle_routes();
        return rc;
    }
    int poll_all()
    {
        bool completed = false;
        int rc = MPI_SUCCESS;
        {
            std::lock_guard<ThreadsMutex> hold(lock_);
            // poll_locked removes finished entries: walk a copy.
            const std::vector<InFlight *> now = items_;
            for (InFlight *f : now) {
                const int r = poll_locked(f, &completed);
                if (rc == MPI_SUCCESS)
                    rc = r;
            }
        }
        if (completed)
            release_idle_routes();
        return rc;
    }

private:
    int poll_locked(InFlight *f, bool *completed)
    {
        if (f->done)
            return MPI_SUCCESS;
        int flag = 0;
        const int rc = MPIX_Test(&f->request, &flag, MPI_STATUS_IGNORE);
        if (!flag && rc == MPI_SUCCESS)
            return MPI_SUCCESS;
        *completed = true;
        f->done = true;
        f->outcome = rc;
        if (f->afterwards == Afterwards::free_it && f->request)
            MPIX_Request_free(&f->request);
        items_.erase(std::find(items_.begin(), items_.end(), f));
        in_flight_count().store(items_.size(), std::memory_order_relaxed);
        if (f->freed)  // nobody will complete it
            stop_counting(f);
        return MPI_Grequest_complete(f->handle);
    }

    ThreadsMutex lock_;
    std::vector<InFlight *> items_;
};

// MPI's completion calls ask for the status once the request is complete: an
// empty one (a collective has no source, tag or count), with the exchange's
// outcome as the error the completion call returns (returned, not only put
// in the status: MPICH reports nothing otherwise). MPICH hands MPI_Wait and
// MPI_Test the status's error as it is, but puts one of its own, of class
// MPI_ERR_OTHER, in the statuses of MPI_Waitall, MPI_Testall, MPI_Waitsome
// and MPI_Testsome: pmpi/completion.cpp puts the outcome back there.
int query_exchange(void *state, MPI_Status *status)
{
    const InFlight *f = static_cast<const InFlight *>(state);
    if (f->outcome != MPI_SUCCESS) {
        DeliveredFailures &d = delivered_failures();
        ++d.count;
        if (d.outcomes.size() >= 256)  // completion calls that bypass the drop-in's (mpi_f08's) never forget them
            d.outcomes.clear();
        d.outcomes.emplace_back(f->handle, f->outcome);
    }
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = MPI_ANY_SOURCE;
        status->MPI_TAG = MPI_ANY_TAG;
        status->MPI_ERROR = f->outcome;
        MPI_Status_set_elements(status, MPI_BYTE, 0);
        MPI_Status_set_cancelled(status, 0);
    }
    return f->outcome;
}

int free_exchange(void *state)
{
    InFlight *f = static_cast<InFlight *>(state);
    // MPI frees a generalized request once it is complete, so the mpix request
    // is gone; one freed by MPI_Request_free while active (erroneous for
    // collectives) stays listed and progresses on the engine until it is done.
    if (f->done) {
        stop_counting(f);
        delete f;
    } else {
        f->freed = true;
    }
    return MPI_SUCCESS;
}

int cancel_exchange(void *, int)
{
    return mpix::error_code(MPI_ERR_REQUEST, "MPI_Cancel",
                            "an all-to-all or neighbourhood exchange cannot be cancelled (MPI forbids it for "
                            "collectives); complete it with MPI_Wait or MPI_Test");
}

// Called by MPI's test calls (outside MPICH's lock): progresses every started
// exchange; completes the generalized request once this one is done.
int poll_exchange(void *state, MPI_Status *)
{
    return InFlightList::get().poll(static_cast<InFlight *>(state));
}

// Called by MPI's wait calls on requests of this class: polls until each is
// complete (MPICH's own wait on a request with a poll function also spins).
int wait_exchanges(int count, void **states, double, MPI_Status *)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count; ++i) {
        InFlight *f = static_cast<InFlight *>(states[i]);
        while (!f->done && rc == MPI_SUCCESS)
            rc = poll_exchange(f, MPI_STATUS_IGNORE);
    }
    return rc;
}

int exchange_class(MPIX_Grequest_class *out)
{
    static int rc = MPI_SUCCESS;
    static const MPIX_Grequest_class cls = [] {
        MPIX_Grequest_class c{};
        rc = MPIX_Grequest_class_create(query_exchange, free_exchange, cancel_exchange, poll_exchange,
                                        wait_exchanges, &c);
        return c;
    }();
    *out = cls;
    return rc;
}

// Completes an exchange nobody will wait for (its request could not be made).
void complete_unwrapped(MPIX_Request *started, Afterwards afterwards)
{
    MPIX_Request *r = started;
    MPIX_Wait(&r, MPI_STATUS_IGNORE);
    if (afterwards == Afterwards::free_it && r)
        MPIX_Request_free(&r);
}

}  // namespace

int wrap_started(MPIX_Request *started, Afterwards afterwards, MPI_Request *handle)
{
    MPIX_Grequest_class cls;
    int rc = exchange_class(&cls);
    InFlight *f = rc == MPI_SUCCESS ? new (std::nothrow) InFlight : nullptr;
    if (rc == MPI_SUCCESS && !f)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        f->request = started;
        f->afterwards = afterwards;
        rc = MPIX_Grequest_class_allocate(cls, f, &f->handle);
    }
    if (rc != MPI_SUCCESS) {
        complete_unwrapped(started, afterwards);
        delete f;
        return rc;
    }
    InFlightList::get().add(f);
    *handle = f->handle;
    return MPI_SUCCESS;
}

namespace {

// Routes whose communicator was freed while they had requests.
class IdleWaiters {
public:
    static IdleWaiters &get()
    {
        static IdleWaiters waiters;
        return waiters;
    }
    void add(void *route, bool (*busy)(void *), int (*release)(void *))
    {
        std::lock_guard<std::mutex> hold(lock_);
        items_.push_back({route, busy, release});
        count_.store(items_.size(), std::memory_order_relaxed);
    }
    void release_idle()
    {
        if (count_.load(std::memory_order_relaxed) == 0)
            return;
        std::vector<Item> idle;
        {
            std::lock_guard<std::mutex> hold(lock_);
            for (std::size_t i = 0; i < items_.size();)
                if (!items_[i].busy(items_[i].route)) {
                    idle.push_back(items_[i]);
                    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(i));
                } else {
                    ++i;
                }
            count_.store(items_.size(), std::memory_order_relaxed);
        }
        for (const Item &item : idle)
            item.release(item.route);
    }

private:
    struct Item {
        void *route;
        bool (*busy)(void *);
        int (*release)(void *);
    };
    std::mutex lock_;
    std::vector<Item> items_;
    std::atomic<std::size_t> count_{0};
};

}  // namespace

int release_or_defer(void *route, bool (*busy)(void *), int (*release)(void *))
{
    if (!busy(route))
        return release(route);
    IdleWaiters::get().add(route, busy, release);
    return MPI_SUCCESS;
}

void release_idle_routes() { IdleWaiters::get().release_idle(); }

int poll_exchanges() { return InFlightList::get().poll_all(); }

unsigned long exchange_failures_delivered() { return delivered_failures().count; }

int delivered_outcome(MPI_Request handle)
{
    for (const auto &o : delivered_failures().outcomes)
        if (o.first == handle)
            return o.second;
    return MPI_SUCCESS;
}

void forget_delivered_outcomes() { delivered_failures().outcomes.clear(); }

}  // namespace pmpi
}  // namespace mpix

#endif  // MPIX_HAVE_GREQUEST_POLL
