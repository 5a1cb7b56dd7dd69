// The engine that runs every started exchange: blocking calls, nonblocking
// calls (MPIX_Ialltoall(v)) and persistent starts are the same algorithm code,
// run to completion at once or progressed by MPIX_Test*/MPIX_Wait* and the
// optional progress thread.
//
// A started exchange is a Task: the row's code on a stack of its own. Where it
// would wait for a message (every wait of the library goes through
// core/wait.hpp) it returns control to the engine instead, and the
// engine resumes it on a later progress call once the message has come. So a
// row keeps its code as written, and every operation it posts before it waits
// is in flight at once (its dataflow: each round's sends start as soon as that
// round's inputs have arrived); a nonblocking call returns as soon as the row
// first waits, and a persistent start posts what needs no input and returns.
//
// Ordering rules (why it is deadlock-free and never mixes two calls' messages):
//  - every call has its own tags (allocate_tags) on the library's duplicate
//    communicator, so concurrent exchanges never match each other's messages;
//  - the exchanges of one MPIX_Comm run one after the other in start order (the
//    order every rank shares): per-communicator caches (scratch, plans, the
//    previous call's agreed sizes) are then used by one exchange at a time,
//    exactly as by blocking calls; exchanges on different communicators and
//    the MPI library's own nonblocking collectives progress concurrently;
//  - a blocking mpix call first completes every started exchange of the
//    process (drain): it could otherwise wait for a peer that waits for one of
//    them;
//  - rows agree on values with tagged point-to-point messages (agree_max), never
//    with a collective on the communicator, whose calls would have to be in the
//    same order on every rank.
#ifndef MPIX_SCHED_ENGINE_HPP
#define MPIX_SCHED_ENGINE_HPP

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <memory>

#include "core/wait.hpp"

struct MPIX_Comm;

namespace mpix {
namespace sched {

struct Fiber;

// One started exchange on its own stack. Owned by its request; the engine only
// runs it. A task is restartable (persistent requests): launch() again once it
// has finished.
class Task {
public:
    // Runs after the earlier tasks of `xcomm` (see the ordering rules above).
    // `world_available`: MPI_COMM_WORLD's handler is set to return
    // errors while the task runs (a truncated receive must come back to mpix).
    Task(MPIX_Comm *xcomm, bool world_available);
    virtual ~Task();
    Task(const Task &) = delete;
    Task &operator=(const Task &) = delete;

    bool finished() const { return state_ == State::finished; }
    bool started() const { return state_ != State::idle; }
    // The body's return code, once finished.
    int result() const { return rc_; }
    MPIX_Comm *comm() const { return xcomm_; }

    // The exchange; runs on the task's stack. Returns an MPI error code.
    virtual int body() = 0;

public:
    // The engine's own (sched/engine.cpp), not the owner's.
    enum class State { idle, running, finished };
    MPIX_Comm *xcomm_;
    bool world_available_;
    std::atomic<State> state_{State::idle};
    int rc_ = MPI_SUCCESS;
    std::unique_ptr<Fiber> fiber_;
};

// Starts `task` (idle or finished): queues it and, where no earlier exchange of
// its communicator is still running, runs it at once until it first waits.
// Returns MPI_ERR_NO_MEM when no stack could be made (nothing started).
int launch(Task *task);

// Progresses every started task once without blocking (MPIX_Test*).
void progress();
// Progresses until `done()` holds. While only one task can run, it may block
// inside MPI (no busy loop).
template <class Done>
void progress_until(Done done);
// The same, calling `block()` instead of spinning whenever no task needs
// running (it may block in MPI, e.g. MPI_Wait on the MPI library's request).
template <class Done, class Block>
void progress_until(Done done, Block block);
// Completes every started task of the process (before a blocking mpix call);
// costs one atomic load when there is none.
void drain();
// Tasks started and not finished, in the whole process.
std::size_t active_tasks();
// Removes a finished or never started task from the engine's lists (its owner
// is freeing it). A running task cannot be removed: returns false.
bool forget(Task *task);

// The optional progress thread (environment MPIX_ASYNC_PROGRESS=1 or the
// async_progress hint): one per process, started by the first MPIX_Comm that
// asks for it and stopped when the last one is freed. Needs
// MPI_THREAD_MULTIPLE; returns MPI_ERR_OTHER with *why set otherwise.
int progress_thread_acquire(const char **why);
void progress_thread_release();

// Holds the engine's lock for a scope: a call that starts an exchange touches
// its communicator's state (tags, caches, counters), which a task of the same
// communicator may be using on the progress thread. Recursive.
class Hold {
public:
    Hold();
    ~Hold();
    Hold(const Hold &) = delete;
    Hold &operator=(const Hold &) = delete;
};

namespace detail {
// One pass of progress_until: resumes the runnable tasks; returns whether any
// task is runnable (false: nothing to do but wait for the MPI library).
bool step(bool may_block);
void lock();
void unlock();
}  // namespace detail

template <class Done, class Block>
void progress_until(Done done, Block block)
{
    while (!done()) {
        detail::lock();
        const bool any = detail::step(true);
        detail::unlock();
        if (!any && !done())
            block();
    }
}

template <class Done>
void progress_until(Done done)
{
    progress_until(done, [] { yield_now(); });
}

}  // namespace sched
}  // namespace mpix

#endif
