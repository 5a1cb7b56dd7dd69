#include "core/error.hpp"

#include "mpix.h"

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "config.h"
#include "core/per_thread.hpp"

namespace mpix {

#if MPIX_HAVE_ADD_ERROR_STRING
namespace {

// True if a code added to a predefined class reports the string set for it.
int error_strings_round_trip()
{
    int code;
    static const char probe[] = "mpix: error string probe";
    if (MPI_Add_error_code(MPI_ERR_OTHER, &code) != MPI_SUCCESS ||
        MPI_Add_error_string(code, probe) != MPI_SUCCESS)
        return 0;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    return PMPI_Error_string(code, text, &len) == MPI_SUCCESS && std::string(text, len) == probe;
}

}  // namespace
#endif

bool error_strings_supported()
{
    return error_code(MPI_ERR_OTHER, "mpix", "error string probe") != MPI_ERR_OTHER;
}

int error_code(int errclass, const char *func, const char *problem)
{
#if MPIX_HAVE_ADD_ERROR_STRING
    // Codes are memoised per (class, message): messages are fixed texts, so the
    // table stays small and MPI's pool of dynamic error codes is never exhausted.
    // This idempotent cache is the only process-wide mutable state besides the
    // lazily read environment defaults.
    static std::mutex lock;
    static std::map<std::pair<int, std::string>, int> codes;
    static int strings_work = -1;  // MPICH 4.0 returns garbage for codes of predefined classes
    std::string message = std::string(func) + ": " + problem;
    std::lock_guard<std::mutex> guard(lock);
    if (strings_work < 0)
        strings_work = error_strings_round_trip();
    if (!strings_work)
        return errclass;
    auto key = std::make_pair(errclass, message);
    auto it = codes.find(key);
    if (it != codes.end())
        return it->second;
    int code;
    if (MPI_Add_error_code(errclass, &code) != MPI_SUCCESS)
        return errclass;
    if (MPI_Add_error_string(code, message.c_str()) != MPI_SUCCESS)
        return errclass;
    codes.emplace(key, code);
    return code;
#else
    (void)func;
    (void)problem;
    return errclass;
#endif
}

namespace {

// The last error raised on this thread, for MPIX_Error_string: MPICH 4.0 keeps
// no string for a code of a predefined class, so the class alone cannot carry
// the text. Per thread like errno (calls on different threads never see each
// other's), set before the handler runs so a handler can ask for it too.
struct LastError {
    int code = MPI_SUCCESS;
    std::string text;
};

LastError &last_error()
{
    thread_local LastError last;
    return last;
}

}  // namespace

int error_string(int code, char *string, int *resultlen)
{
    const LastError &last = last_error();
    if (code != MPI_SUCCESS && code == last.code) {
        std::size_t n = last.text.size() < MPI_MAX_ERROR_STRING - 1 ? last.text.size() : MPI_MAX_ERROR_STRING - 1;
        last.text.copy(string, n);
        string[n] = '\0';
        *resultlen = static_cast<int>(n);
        return MPI_SUCCESS;
    }
    // PMPI_: the drop-in's MPI_Error_string comes here (pmpi/interpose.cpp).
    return PMPI_Error_string(code, string, resultlen);
}

int raise(MPI_Comm comm, int errclass, const char *func, const char *problem)
{
    int code = error_code(errclass, func, problem);
    last_error().code = code;
    last_error().text = std::string(func) + ": " + problem;
    MPI_Comm target = comm == MPI_COMM_NULL ? MPI_COMM_SELF : comm;
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_get_errhandler(target, &handler) != MPI_SUCCESS)
        handler = MPI_ERRHANDLER_NULL;
    // The MPI library cannot carry our text: print it where the handler is going
    // to abort, so the user still learns what went wrong.
    if (code == errclass && handler == MPI_ERRORS_ARE_FATAL)
        std::fprintf(stderr, "mpix error: %s: %s\n", func, problem);
    // With MPI_ERRORS_RETURN calling the handler would only return; SimGrid
    // 3.32 crashes in that case, so it is skipped.
    bool returns = handler == MPI_ERRORS_RETURN;
    if (handler != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&handler);
    if (!returns)
        MPI_Comm_call_errhandler(target, code);
    return code;
}

namespace {

// The class of an MPI error code and the class's text: codes may carry
// run-specific details, which would grow the memo table without bound.
int class_and_text(int mpi_errcode, std::string *text)
{
    int errclass = MPI_ERR_INTERN;
    MPI_Error_class(mpi_errcode, &errclass);
    char buf[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(errclass, buf, &len);
    text->assign(buf, len);
    return errclass;
}

}  // namespace

namespace {

// Shared by every WorldErrorsReturn of the process (see error.hpp).
struct WorldHandlerOverride {
    ThreadsMutex lock;
    int depth = 0;
    MPI_Errhandler saved = MPI_ERRHANDLER_NULL;
    // Below MPI_THREAD_MULTIPLE the guards skip the lock (2 x 7 ns a call, natively).
    std::unique_lock<ThreadsMutex> hold() { return std::unique_lock<ThreadsMutex>(lock); }
};

// MPI_Query_thread's answer (-1: not asked yet), shared by every thread.
std::atomic<int> &queried_thread_level()
{
    static std::atomic<int> level{-1};
    return level;
}

WorldHandlerOverride &world_override()
{
    static WorldHandlerOverride state;
    return state;
}

}  // namespace

bool threads_concurrent()
{
    std::atomic<int> &cached = queried_thread_level();
    int level = cached.load(std::memory_order_relaxed);
    if (level < 0) {
        if (MPI_Query_thread(&level) != MPI_SUCCESS)
            level = MPI_THREAD_MULTIPLE;
        // The first answer stays: a lock taken on it is released on it.
        int unknown = -1;
        if (!cached.compare_exchange_strong(unknown, level, std::memory_order_relaxed))
            level = unknown;
    }
    return level == MPI_THREAD_MULTIPLE;
}

WorldErrorsReturn::WorldErrorsReturn(bool world_available)
{
    if (!world_available)  // the Sessions model alone has no MPI_COMM_WORLD
        return;
    WorldHandlerOverride &w = world_override();
    const std::unique_lock<ThreadsMutex> guard = w.hold();
    if (w.depth == 0) {
        if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &w.saved) != MPI_SUCCESS)
            return;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    ++w.depth;
    active_ = true;
}

WorldErrorsReturn::~WorldErrorsReturn()
{
    if (!active_)
        return;
    WorldHandlerOverride &w = world_override();
    const std::unique_lock<ThreadsMutex> guard = w.hold();
    if (--w.depth == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, w.saved);
        MPI_Errhandler_free(&w.saved);
    }
}

int raise_internal(MPI_Comm comm, int mpi_errcode, const char *func, const char *algorithm)
{
    std::string text;
    int errclass = class_and_text(mpi_errcode, &text);
    std::string problem = std::string("algorithm '") + algorithm + "' failed: " + text;
    return raise(comm, errclass, func, problem.c_str());
}

int raise_staging(MPI_Comm comm, int mpi_errcode, const char *func, const char *what)
{
    if (mpi_errcode == MPI_ERR_NO_MEM)
        return raise(comm, MPI_ERR_NO_MEM, func, (std::string("out of memory for ") + what).c_str());
    std::string text;
    int errclass = class_and_text(mpi_errcode, &text);
    std::string problem = std::string("packing ") + what + " failed: " + text;
    return raise(comm, errclass, func, problem.c_str());
}

int &library_depth() { return per_thread<struct LibraryDepthTag, int>(); }

}  // namespace mpix
