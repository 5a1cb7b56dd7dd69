#include "sched/engine.hpp"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "config.h"
#include "core/error.hpp"
#include "core/per_thread.hpp"
#include "core/wait.hpp"

#if HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

// Switching between a task's stack and its resumer's. swapcontext also saves
// and restores the signal mask, a system call each way, and a nonblocking call
// switches about four times: on x86-64 Linux mpix swaps the registers the ABI
// keeps across calls itself (a 16-byte MPIX_Ialltoallv + MPIX_Wait of the
// nonblocking row on 2 ranks: 1.98 us before, 1.19-1.25 us after;
// bench/mpix-passthrough --nonblocking). Elsewhere, and under the sanitizers
// (which follow swapcontext's stacks, not this swap), ucontext.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MPIX_SANITIZED_STACKS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MPIX_SANITIZED_STACKS 1
#endif
#if defined(__x86_64__) && defined(__linux__) && !defined(MPIX_SANITIZED_STACKS)
#define MPIX_OWN_STACK_SWITCH 1
#else
#define MPIX_OWN_STACK_SWITCH 0
#endif

#if MPIX_OWN_STACK_SWITCH
// Saves the callee-saved registers, MXCSR and the x87 control word on the
// current stack, stores the stack pointer in *save_sp, and continues on
// load_sp's stack as saved there (or as launch prepared it).
extern "C" void mpix_switch_stack(void **save_sp, void *load_sp);
asm(".text\n"
    ".globl mpix_switch_stack\n"
    ".hidden mpix_switch_stack\n"
    ".type mpix_switch_stack, @function\n"
    "mpix_switch_stack:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    subq $8, %rsp\n"
    "    stmxcsr (%rsp)\n"
    "    fnstcw 4(%rsp)\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    ldmxcsr (%rsp)\n"
    "    fldcw 4(%rsp)\n"
    "    addq $8, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size mpix_switch_stack, .-mpix_switch_stack\n"
    ".section .note.GNU-stack,\"\",@progbits\n"
    ".text\n");
#endif

namespace mpix {
namespace sched {

namespace {

// 1 MiB of address space per task stack, committed only as it is touched (the
// rows use a few KiB: their buffers are on the heap), below it one page that
// faults on overflow instead of corrupting memory.
constexpr std::size_t kStackBytes = std::size_t(1) << 20;

struct Stack {
    char *base = nullptr;  // the guard page; the stack is [base + page, base + page + kStackBytes)
    std::size_t page = 0;
    unsigned valgrind_id = 0;
    char *low() const { return base + page; }
};

bool make_stack(Stack *s)
{
    const long page = sysconf(_SC_PAGESIZE);
    s->page = page > 0 ? static_cast<std::size_t>(page) : 4096;
    void *m = mmap(nullptr, s->page + kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
        return false;
    s->base = static_cast<char *>(m);
    mprotect(s->base, s->page, PROT_NONE);
#if HAVE_VALGRIND_VALGRIND_H
    s->valgrind_id = VALGRIND_STACK_REGISTER(s->low(), s->low() + kStackBytes);
#endif
    return true;
}

void drop_stack(Stack *s)
{
#if HAVE_VALGRIND_VALGRIND_H
    VALGRIND_STACK_DEREGISTER(s->valgrind_id);
#endif
    munmap(s->base, s->page + kStackBytes);
    s->base = nullptr;
}

// How deep the calling thread holds the engine's lock, and its innermost Hold.
int &held_depth() { return per_thread<struct HeldDepthTag, int>(); }
Hold *&innermost_hold() { return per_thread<struct InnermostHoldTag, Hold *>(); }

// The engine's lock: recursive, and counting how deep this thread holds it,
// so that a task about to block inside MPI can release it entirely. Below
// MPI_THREAD_MULTIPLE one thread at a time is inside mpix (the progress thread
// needs MPI_THREAD_MULTIPLE), and it is not taken: two lock/unlock pairs and
// their thread-local counts per nonblocking call.
class EngineMutex {
public:
    void lock()
    {
        if (!concurrent_())
            return;
        mutex_.lock();
        ++held_depth();
    }
    void unlock()
    {
        if (!concurrent_())
            return;
        --held_depth();
        mutex_.unlock();
    }
    // Releases every level this thread holds; returns how many.
    int release_all()
    {
        if (!concurrent_())
            return 0;
        const int depth = held_depth();
        for (int i = 0; i < depth; ++i)
            unlock();
        return depth;
    }
    void reacquire(int depth)
    {
        for (int i = 0; i < depth; ++i)
            lock();
    }

    bool concurrent() { return concurrent_(); }

private:
    std::recursive_mutex mutex_;
    ThreadsConcurrent concurrent_;
};

// The process's tasks. One per process natively; under SimGrid SMPI one per
// simulated rank (the library is linked statically and its data privatized
// per rank, sim/README.md), which is what a process is there.
struct EngineState {
    EngineMutex mutex;
    std::vector<Task *> tasks;   // launched, not finished, in launch order
    std::atomic<std::size_t> count{0};  // tasks.size(), read without the lock
    std::vector<Fiber *> spare;  // fibers, with their stacks, of finished tasks, for the next ones
    // Progress thread.
    int thread_users = 0;
    bool thread_stop = false;
    std::thread thread;
    std::condition_variable_any wake;

    ~EngineState();
};

EngineState &state()
{
    static EngineState s;
    return s;
}

}  // namespace

struct Fiber : WaitContext {
    explicit Fiber(Task *t) : task(t) {}
    Task *task;
#if MPIX_OWN_STACK_SWITCH
    void *sp = nullptr;        // the task's stack pointer while it is not running
    void **back = nullptr;     // where its resumer's is, which the task returns to when it waits or ends
    void to_resumer() { mpix_switch_stack(&sp, *back); }
#else
    ucontext_t context;
    ucontext_t *back = nullptr;  // where the task returns to when it waits or ends
    void to_resumer() { swapcontext(&context, back); }
#endif
    Stack stack;
    bool blocking_ok = false;    // the only task that needs running: MPI may block in it
    // The body has returned. The task is reported finished only once the
    // engine, under its lock, is done with the stack (resume): another thread
    // that sees it finished may free the task at once.
    bool body_done = false;

    bool may_block() const override { return blocking_ok; }
    void suspend() override { to_resumer(); }
    // Blocking inside MPI without the engine's lock: the task is marked so
    // that no other thread resumes it, and every other task may run meanwhile.
    void enter_blocking() override
    {
        task->blocking_ = true;
        released = state().mutex.release_all();
    }
    void leave_blocking() override
    {
        state().mutex.reacquire(released);
        task->blocking_ = false;
    }
    int released = 0;

    static void entry()
    {
        Task *t = static_cast<Fiber *>(wait_context())->task;
        int rc;
        try {
            rc = t->body();
        } catch (const std::bad_alloc &) {
            rc = MPI_ERR_NO_MEM;
        } catch (...) {
            rc = MPI_ERR_INTERN;
        }
        t->rc_ = rc;
        t->fiber_->body_done = true;
        t->fiber_->to_resumer();  // never resumed
    }
};

namespace {

EngineState::~EngineState()
{
    for (Fiber *f : spare) {
        drop_stack(&f->stack);
        delete f;
    }
}

}  // namespace

Task::Task(MPIX_Comm *xcomm, bool world_available) : xcomm_(xcomm), world_available_(world_available) {}

bool Task::launched_here() const { return launched_by_ == std::this_thread::get_id(); }

Task::~Task()
{
    if (fiber_ && fiber_->stack.base) {
        if (state_ == State::running)  // freed while running: cannot happen (forget refuses); keep the stack
            return;
        drop_stack(&fiber_->stack);
    }
}

namespace {

// Runs `t` until it waits or ends; the engine's lock is held.
void resume(EngineState &e, Task *t, bool may_block)
{
    Fiber &f = *t->fiber_;
    f.blocking_ok = may_block;
#if MPIX_OWN_STACK_SWITCH
    void *here = nullptr;
#else
    ucontext_t here;
#endif
    f.back = &here;
    WaitContext *outer = set_wait_context(&f);
    {
        WorldErrorsReturn world_returns(t->world_available_);
#if MPIX_OWN_STACK_SWITCH
        mpix_switch_stack(&here, f.sp);
#else
        swapcontext(&here, &f.context);
#endif
    }
    set_wait_context(outer);
    if (f.body_done) {
        e.tasks.erase(std::find(e.tasks.begin(), e.tasks.end(), t));
        e.count.store(e.tasks.size(), std::memory_order_release);
        f.body_done = false;
        if (e.spare.size() < 8) {  // the next task takes it as it is (no allocation, no mmap)
            e.spare.push_back(t->fiber_.release());
        } else {
            drop_stack(&f.stack);
            f.stack = Stack();
        }
        t->state_.store(Task::State::finished, std::memory_order_release);  // last: t may be freed now
    }
}

// Tasks to resume in one pass: a few in place, more on the heap (a pass is
// made at every progress call, and rarely finds more than one).
class TaskList {
public:
    void push_back(Task *t)
    {
        if (n_ < kInline)
            inline_[n_] = t;
        else
            more_.push_back(t);
        ++n_;
    }
    std::size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    Task *operator[](std::size_t i) const { return i < kInline ? inline_[i] : more_[i - kInline]; }

private:
    static constexpr std::size_t kInline = 8;
    Task *inline_[kInline];
    std::vector<Task *> more_;
    std::size_t n_ = 0;
};

// The tasks that may run now: the first unfinished task of each communicator.
void runnable(const EngineState &e, TaskList *out)
{
    for (Task *t : e.tasks) {
        bool first = true;
        for (std::size_t i = 0; i < out->size(); ++i)
            if ((*out)[i]->comm() == t->comm()) {
                first = false;
                break;
            }
        // A later task of a communicator already listed waits for the earlier one.
        if (first)
            for (Task *earlier : e.tasks) {
                if (earlier == t)
                    break;
                if (earlier->comm() == t->comm()) {
                    first = false;
                    break;
                }
            }
        if (first && !t->blocking_)  // one blocking inside MPI on another thread keeps its comm's place
            out->push_back(t);
    }
}

}  // namespace

int launch(Task *task)
{
    EngineState &e = state();
    std::unique_lock<EngineMutex> hold(e.mutex);
    if (!task->fiber_) {
        if (!e.spare.empty()) {
            task->fiber_.reset(e.spare.back());
            e.spare.pop_back();
            task->fiber_->task = task;
        } else {
            task->fiber_.reset(new Fiber(task));
        }
    }
    Fiber &f = *task->fiber_;
    if (!f.stack.base && !make_stack(&f.stack))
        return MPI_ERR_NO_MEM;
#if MPIX_OWN_STACK_SWITCH
    // The new stack as mpix_switch_stack leaves one: from its 16-byte aligned
    // top down, a zero return address for Fiber::entry (which never returns),
    // the address of Fiber::entry that the switch returns to (so that entry
    // starts, as after a call, with the stack pointer 8 past a multiple of 16),
    // six zero registers and the launching thread's MXCSR and x87 control word.
    {
        auto top = reinterpret_cast<std::uintptr_t>(f.stack.low() + kStackBytes) & ~std::uintptr_t(15);
        void **slot = reinterpret_cast<void **>(top);
        slot[-1] = nullptr;
        slot[-2] = reinterpret_cast<void *>(&Fiber::entry);
        for (int r = 3; r <= 8; ++r)
            slot[-r] = nullptr;
        std::uint32_t mxcsr = 0;
        std::uint16_t x87 = 0;
        asm volatile("stmxcsr %0" : "=m"(mxcsr));
        asm volatile("fnstcw %0" : "=m"(x87));
        char *words = reinterpret_cast<char *>(&slot[-9]);
        std::memcpy(words, &mxcsr, sizeof mxcsr);
        std::memcpy(words + 4, &x87, sizeof x87);
        f.sp = &slot[-9];
    }
#else
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.low();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, &Fiber::entry, 0);
#endif
    task->state_ = Task::State::running;
    task->rc_ = MPI_SUCCESS;
    task->launched_by_ = std::this_thread::get_id();
    bool first = true;
    for (Task *t : e.tasks)
        if (t->comm() == task->comm())
            first = false;
    e.tasks.push_back(task);
    e.count.store(e.tasks.size(), std::memory_order_release);
    if (first)
        resume(e, task, false);
    if (e.thread_users > 0)
        e.wake.notify_one();
    return MPI_SUCCESS;
}

namespace detail {

void lock() { state().mutex.lock(); }
void unlock() { state().mutex.unlock(); }

bool step(bool may_block)
{
    EngineState &e = state();
    TaskList run;
    runnable(e, &run);
    if (run.empty())
        return false;
    // The only task that can run now may block inside MPI (no busy loop):
    // the others wait behind it on its comm, block on other threads, or are the
    // MPI library's, progressed there. It releases the lock while it blocks.
    // With other threads calling MPI at once, only the last task of the process,
    // the caller's own: blocked inside another thread's task, a thread could
    // not return from its own wait, which a peer may need first.
    const bool alone = may_block && run.size() == 1 &&
                       (!e.mutex.concurrent() || (e.tasks.size() == 1 && run[0]->launched_here()));
    for (std::size_t i = 0; i < run.size(); ++i)
        resume(e, run[i], alone);
    return true;
}

}  // namespace detail

void progress()
{
    EngineState &e = state();
    std::lock_guard<EngineMutex> hold(e.mutex);
    if (!e.tasks.empty())
        detail::step(false);
}

void drain(const MPIX_Comm *xcomm)
{
    for (Hold *h = innermost_hold(); h; h = h->outer())
        h->end();  // waiting for other tasks under the lock would stop other threads' calls
    if (state().count.load(std::memory_order_acquire) != 0)  // active_tasks(), without a call
        progress_until([xcomm] {
            EngineState &e = state();
            std::lock_guard<EngineMutex> hold(e.mutex);
            if (!e.mutex.concurrent())  // one thread in MPI at a time: every task
                return e.tasks.empty();
            for (const Task *t : e.tasks)
                if (t->launched_here() || t->comm() == xcomm)
                    return false;
            return true;
        });
}

std::size_t active_tasks() { return state().count.load(std::memory_order_acquire); }

Hold::Hold(MPIX_Comm *xcomm)
{
    EngineState &e = state();
    if (!e.mutex.concurrent())  // one thread inside mpix at a time: nothing to hold against
        return;
    outer_ = innermost_hold();
    listed_ = true;
    e.mutex.lock();
    for (const Task *t : e.tasks)
        if (t->comm() == xcomm) {
            locked_ = true;  // kept: a task of this comm may run on another thread
            break;
        }
    if (!locked_)
        e.mutex.unlock();
    innermost_hold() = this;
}

Hold::~Hold()
{
    end();
    if (listed_)
        innermost_hold() = outer_;
}

void Hold::end()
{
    if (locked_) {
        locked_ = false;
        state().mutex.unlock();
    }
}

bool forget(Task *task)
{
    EngineState &e = state();
    std::lock_guard<EngineMutex> hold(e.mutex);
    if (task->state_ == Task::State::running)
        return false;
    return true;
}

// --- The progress thread (not in a SimGrid SMPI build) ---
#if !MPIX_SMPI
namespace {

void progress_loop(EngineState *e)
{
    LibraryScope inside;  // its MPI calls are the library's own (core/error.hpp)
    std::unique_lock<EngineMutex> hold(e->mutex);
    while (!e->thread_stop) {
        if (e->tasks.empty()) {
            e->wake.wait(hold);
            continue;
        }
        detail::step(false);
        // Let the user's threads in between passes.
        hold.unlock();
        std::this_thread::yield();
        hold.lock();
    }
}

}  // namespace
#endif

int progress_thread_acquire(const char **why)
{
#if MPIX_SMPI
    *why = "the progress thread is not available in a SimGrid SMPI build (simulated ranks are not threads)";
    return MPI_ERR_OTHER;
#else
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        *why = "the progress thread (MPIX_ASYNC_PROGRESS=1 or hint async_progress) needs MPI_THREAD_MULTIPLE: "
               "initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)";
        return MPI_ERR_OTHER;
    }
    EngineState &e = state();
    std::lock_guard<EngineMutex> hold(e.mutex);
    if (e.thread_users++ == 0) {
        e.thread_stop = false;
        try {
            e.thread = std::thread(progress_loop, &e);
        } catch (...) {
            --e.thread_users;
            *why = "the progress thread could not be started";
            return MPI_ERR_OTHER;
        }
    }
    return MPI_SUCCESS;
#endif
}

void progress_thread_release()
{
#if !MPIX_SMPI
    EngineState &e = state();
    std::thread stopping;
    {
        std::lock_guard<EngineMutex> hold(e.mutex);
        if (e.thread_users == 0 || --e.thread_users > 0)
            return;
        e.thread_stop = true;
        e.wake.notify_all();
        stopping = std::move(e.thread);
    }
    if (stopping.joinable())
        stopping.join();
#endif
}

}  // namespace sched
}  // namespace mpix
