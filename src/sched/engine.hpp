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
//    process (drain; under MPI_THREAD_MULTIPLE those of its thread and its
//    communicator): it could otherwise wait for a peer that waits for one of
//    them;
//  - rows agree on values with tagged point-to-point messages (agree_max), never
//    with a collective on the communicator, whose calls would have to be in the
//    same order on every rank;
//  - no thread waits while it holds the engine's lock: a task that blocks inside
//    MPI releases it (enter_blocking), and a collective set-up of a call
//    (regions, agreements, communicators) drains first, which ends the call's
//    Hold. Calls on different MPIX_Comms may come from different threads at
//    once (MPI_THREAD_MULTIPLE): a thread waiting under the lock would stop the
//    others' exchanges, whose peers may be what it waits for.
#ifndef MPIX_SCHED_ENGINE_HPP
#define MPIX_SCHED_ENGINE_HPP

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>

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
    bool blocking_ = false;  // a thread is inside MPI in this task: no other thread resumes it
    bool launched_here() const;  // by the calling thread (what its drain() waits for)
    std::thread::id launched_by_;
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
// Completes every task of the process (before a blocking mpix call on
// `xcomm`, or a collective one such as MPIX_Comm_free); costs one atomic load
// when there is none. Under MPI_THREAD_MULTIPLE only those the calling thread
// started and those of `xcomm` (another thread may have started one on it
// before handing the communicator over), progressing the others meanwhile:
// another thread's tasks are its own to complete, and waiting for them could
// wait for a peer that is itself in a drain, behind a task of that thread's
// peer. (Under the other levels one thread at a time calls MPI, so a thread
// that started an exchange is not in a drain of its own meanwhile, and the
// exchange needs this drain's progress.)
void drain(const MPIX_Comm *xcomm = nullptr);
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

// Holds the engine's lock for a scope while `xcomm` has started exchanges: a
// call that starts one touches its communicator's state (tags, caches,
// counters), which a task of the same communicator may be using on another
// thread (the progress thread, or any thread's progress call). Without such a
// task nobody else touches that state (MPI orders a communicator's collective
// calls), so the lock is not taken. drain() ends the hold: afterwards the
// communicator has no task, and the collective that follows must not block
// other threads. Recursive.
class Hold {
public:
    explicit Hold(MPIX_Comm *xcomm);
    ~Hold();
    Hold(const Hold &) = delete;
    Hold &operator=(const Hold &) = delete;
    void end();
    Hold *outer() const { return outer_; }

private:
    bool locked_ = false;
    bool listed_ = false;  // in the thread's list of holds (only at MPI_THREAD_MULTIPLE)
    Hold *outer_ = nullptr;
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
