// Raising MPI errors with strings that name the function and the problem.
#ifndef MPIX_CORE_ERROR_HPP
#define MPIX_CORE_ERROR_HPP

#include <mpi.h>

#include <atomic>
#include <mutex>
#include <new>

#include "core/cpu_count.hpp"

namespace mpix {

// Returns an MPI error code of class `errclass` whose string is "func: problem"
// (falls back to the bare class where the MPI library cannot add error strings).
int error_code(int errclass, const char *func, const char *problem);

// True if this MPI library keeps the strings mpix attaches to error codes
// (MPICH 4.0 does not for codes of predefined classes; then bare classes are used).
bool error_strings_supported();

// The full text of `code` (see MPIX_Error_string in mpix.h).
int error_string(int code, char *string, int *resultlen);

// Raises the error on `comm`'s error handler (MPI_COMM_SELF when comm is
// MPI_COMM_NULL) and returns the code, for `return raise(...)` at call sites.
int raise(MPI_Comm comm, int errclass, const char *func, const char *problem);

// Raises an error returned by an MPI call made inside an algorithm, keeping its
// class and naming the function and algorithm that failed.
int raise_internal(MPI_Comm comm, int mpi_errcode, const char *func, const char *algorithm);

// Raises a failure to stage or pack `what` (a buffer) before anything is sent:
// MPI_ERR_NO_MEM as "out of memory for <what>", any other code with its class.
int raise_staging(MPI_Comm comm, int mpi_errcode, const char *func, const char *what);

// MPICH 4.0 raises the errors of MPI_Wait, MPI_Test and the other completion
// calls on MPI_COMM_WORLD's handler, not on the request's communicator: one
// truncated receive would abort the job however the user communicator handles
// errors. While an exchange runs inside one of these guards, MPI_COMM_WORLD
// returns errors, so the library sees the code and raises it on the user
// communicator itself; the last guard to end restores the handler the first one
// found. The depth and the saved handler are process-wide (guards on different
// threads overlap), behind a mutex; a user thread must not change
// MPI_COMM_WORLD's handler while an mpix call runs on another thread.
class WorldErrorsReturn {
public:
    // `world_available`: MPI_COMM_WORLD exists (the World model, between MPI_Init
    // and MPI_Finalize), known to the MPIX_Comm since its init.
    explicit WorldErrorsReturn(bool world_available);
    ~WorldErrorsReturn();
    WorldErrorsReturn(const WorldErrorsReturn &) = delete;
    WorldErrorsReturn &operator=(const WorldErrorsReturn &) = delete;

private:
    bool active_ = false;
};

// Whether several threads may be inside MPI at once: MPI_Query_thread's answer
// is MPI_THREAD_MULTIPLE (or the query failed), asked by the first caller and
// kept (a process initializes MPI once). Below that level no two threads are
// inside mpix at once either, and the library's process-wide locks (this
// file's guard, the engine's) are not taken.
bool threads_concurrent();

// threads_concurrent(), asked once by each holder: a call to it from a hot
// loop would go through the PLT (it is exported for the drop-in library).
class ThreadsConcurrent {
public:
    bool operator()()
    {
        int known = known_.load(std::memory_order_relaxed);
        if (known < 0) {
            known = threads_concurrent() ? 1 : 0;
            known_.store(known, std::memory_order_relaxed);
        }
        return known != 0;
    }

private:
    std::atomic<int> known_{-1};
};

// A mutex taken only where threads_concurrent(): the process-wide state of
// the library's hot paths (this file's guard, the drop-in's list of started
// exchanges), which below MPI_THREAD_MULTIPLE one thread at a time touches.
class ThreadsMutex {
public:
    void lock()
    {
        if (needed_())
            mutex_.lock();
    }
    void unlock()
    {
        if (needed_())
            mutex_.unlock();
    }

private:
    std::mutex mutex_;
    ThreadsConcurrent needed_;
};

// How deep this thread is in the library's entry points (and the progress
// thread in its loop). The drop-in library (src/pmpi/) defines MPI completion
// calls of its own; the library's own MPI calls, made at a depth above zero,
// go straight to the MPI library there.
int &library_depth();
inline bool in_library() { return library_depth() > 0; }
class LibraryScope {
public:
    LibraryScope() : depth_(library_depth()) { ++depth_; }  // one thread-local lookup per scope
    ~LibraryScope() { --depth_; }
    LibraryScope(const LibraryScope &) = delete;
    LibraryScope &operator=(const LibraryScope &) = delete;

private:
    int &depth_;
};

// Runs the body of a C entry point. No C++ exception may leave the library
// through a C function (that would terminate the program): std::bad_alloc from
// a container becomes MPI_ERR_NO_MEM, anything else MPI_ERR_INTERN, raised on
// `comm` like every other error.
template <class Body>
int guard_entry(MPI_Comm comm, const char *func, Body &&body) noexcept
{
    LibraryScope inside;
    try {
        const int rc = body();
        cpu_charge();  // the call's last work, before it returns (counting SMPI build only)
        return rc;
    } catch (const std::bad_alloc &) {
        return raise(comm, MPI_ERR_NO_MEM, func, "out of memory");
    } catch (...) {
        return raise(comm, MPI_ERR_INTERN, func, "internal error (a C++ exception)");
    }
}

}  // namespace mpix

// Propagate a failing MPI return code to the caller.
#define MPIX_CHECK(call)                  \
    do {                                  \
        int mpix_rc_ = (call);            \
        if (mpix_rc_ != MPI_SUCCESS)      \
            return mpix_rc_;              \
    } while (0)

#endif
