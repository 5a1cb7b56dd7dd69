// The public MPIX_Comm, MPIX_Info, error-string and registry functions.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "mpix.h"
#include "sched/engine.hpp"
#include "select/registry.hpp"

using namespace mpix;

// Starts or stops this comm's hold on the progress thread as its hints say.
static int sync_progress_thread(MPIX_Comm *x, const char **why)
{
    if (x->hints.async_progress && !x->holds_progress_thread) {
        MPIX_CHECK(sched::progress_thread_acquire(why));
        x->holds_progress_thread = true;
    } else if (!x->hints.async_progress && x->holds_progress_thread) {
        sched::progress_thread_release();
        x->holds_progress_thread = false;
    }
    return MPI_SUCCESS;
}

static int comm_init_unguarded(MPIX_Comm **xcomm, MPI_Comm comm)
{
    static const char *fn = "MPIX_Comm_init";
    if (!xcomm)
        return raise(comm, MPI_ERR_ARG, fn, "xcomm is NULL");
    // A collective call: started exchanges complete first, as before a blocking
    // exchange (sched/engine.hpp; the drop-in makes comms at a nonblocking call).
    sched::drain();
    *xcomm = nullptr;
    if (comm == MPI_COMM_NULL)
        return raise(MPI_COMM_NULL, MPI_ERR_COMM, fn, "comm is MPI_COMM_NULL");
    int inter = 0;
    int rc = MPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS)
        return raise(MPI_COMM_NULL, MPI_ERR_COMM, fn, "comm is not a valid communicator");
    if (inter)
        return raise(comm, MPI_ERR_COMM, fn, "intercommunicators are not supported");

    std::unique_ptr<MPIX_Comm> x(new (std::nothrow) MPIX_Comm());
    if (!x)
        return raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    std::string bad;
    int ppn = 0;
    x->lookup = find_algorithm;
    int env_rc = read_environment(find_algorithm, &x->env_values, &ppn, &bad);
    CopyModel copy_model;
    const char *copy_why = nullptr;
    if (env_rc == MPI_SUCCESS && !read_copy_model(&copy_model, &copy_why)) {
        env_rc = MPI_ERR_INFO_VALUE;
        bad = copy_why;
    }
    // Collective from here on: every rank duplicates even if its environment is bad,
    // and the error is agreed so no rank is left waiting.
    rc = MPI_Comm_dup(comm, &x->comm);
    if (rc != MPI_SUCCESS)
        return raise_internal(comm, rc, fn, "MPI_Comm_dup");
    MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN);
    // One reduction agrees on both: any rank's environment malformed, and MPIX_PPN
    // equal everywhere (ranks with different node maps would wait on each other).
    // The same reduction checks that MPIX_TUNING_FILE is set everywhere or nowhere
    // (rank 0 reads it for all, so it must be there to be read).
    auto tuning = x->env_values.find("tuning_file");
    const int has_table = env_rc == MPI_SUCCESS && tuning != x->env_values.end() && !tuning->second.empty();
    int local[5] = {env_rc != MPI_SUCCESS, ppn, -ppn, has_table, -has_table}, agreed[5] = {0, 0, 0, 0, 0};
    rc = MPI_Allreduce(local, agreed, 5, MPI_INT, MPI_MAX, x->comm);
    const bool any_bad = rc == MPI_SUCCESS && agreed[0];
    const bool ppn_differs = rc == MPI_SUCCESS && !any_bad && agreed[1] != -agreed[2];
    const bool table_differs = rc == MPI_SUCCESS && !any_bad && agreed[3] != -agreed[4];
    if (rc != MPI_SUCCESS || any_bad || ppn_differs || table_differs) {
        MPI_Comm_free(&x->comm);
        if (rc != MPI_SUCCESS)
            return raise_internal(comm, rc, fn, "MPI_Allreduce");
        if (local[0])
            return raise(comm, env_rc, fn, bad.c_str());
        if (any_bad)
            return raise(comm, MPI_ERR_INFO_VALUE, fn, "a malformed MPIX_ environment variable on another rank");
        if (ppn_differs)
            return raise(comm, MPI_ERR_INFO_VALUE, fn, "environment variable MPIX_PPN differs between ranks");
        return raise(comm, MPI_ERR_INFO_VALUE, fn, "environment variable MPIX_TUNING_FILE is set on some ranks only");
    }
    if (has_table) {  // rank 0's path: read there, broadcast, parsed alike everywhere
        std::string why;
        rc = load_table_file(x->comm, tuning->second, find_algorithm, &x->env_table, &why);
        if (rc != MPI_SUCCESS) {
            MPI_Comm_free(&x->comm);
            if (rc != MPI_ERR_INFO_VALUE)
                return raise_internal(comm, rc, fn, "reading MPIX_TUNING_FILE");
            return raise(comm, rc, fn, ("environment variable MPIX_TUNING_FILE: " + why).c_str());
        }
    }
    x->emulated_ppn = ppn;
    x->work.set_model(copy_model);
    x->user = comm;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    x->world_available = initialized && !finalized;
    MPI_Comm_size(x->comm, &x->size);
    MPI_Comm_rank(x->comm, &x->rank);
    x->trace_group = mpix::trace_group_tag(x->comm, x->world_available);
    void *ub = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(x->comm, MPI_TAG_UB, &ub, &flag);
    if (flag && ub)
        x->tag_ub = *static_cast<int *>(ub);
    refresh_hints(x.get());
    const char *why = nullptr;
    if (sync_progress_thread(x.get(), &why) != MPI_SUCCESS) {
        MPI_Comm_free(&x->comm);
        return raise(comm, MPI_ERR_OTHER, fn, why);
    }
    *xcomm = x.release();
    return MPI_SUCCESS;
}

extern "C" int MPIX_Comm_init(MPIX_Comm **xcomm, MPI_Comm comm)
{
    return guard_entry(comm, "MPIX_Comm_init", [&] { return comm_init_unguarded(xcomm, comm); });
}

extern "C" int MPIX_Comm_free(MPIX_Comm **xcomm)
{
    LibraryScope inside;  // its MPI calls are the library's own (core/error.hpp)
    if (!xcomm || !*xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPIX_Comm_free", "xcomm is NULL");
    MPIX_Comm *x = *xcomm;
    if (x->live_objects > 0)
        return raise(x->user, MPI_ERR_COMM, "MPIX_Comm_free",
                     "requests (persistent, or nonblocking not yet completed) or neighbour topologies made on this comm are not freed yet");
    sched::drain(x);  // a collective call (frees communicators): as MPIX_Comm_init
    if (x->holds_progress_thread)
        sched::progress_thread_release();
    // Caches (windows, sub-communicators) are freed collectively, in key order.
    x->cache.clear();
    for (auto &r : x->regions)
        r.reset();
    int rc = MPI_Comm_free(&x->comm);
    if (x->mpi_requests != MPI_COMM_NULL) {
        const int freed = MPI_Comm_free(&x->mpi_requests);
        if (rc == MPI_SUCCESS)
            rc = freed;
    }
    delete x;
    *xcomm = nullptr;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : raise_internal(MPI_COMM_NULL, rc, "MPIX_Comm_free", "MPI_Comm_free");
}

static int comm_topo_init_unguarded(MPIX_Comm *xcomm)
{
    static const char *fn = "MPIX_Comm_topo_init";
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
    sched::drain(xcomm);  // a collective call: as MPIX_Comm_init
    const Regions *r = nullptr;
    int rc = get_regions(xcomm, Locality::node, &r);
    if (rc == MPI_SUCCESS)
        rc = get_regions(xcomm, Locality::socket, &r);
    return rc == MPI_SUCCESS ? rc : raise_internal(xcomm->user, rc, fn, "topology discovery");
}

extern "C" int MPIX_Comm_topo_init(MPIX_Comm *xcomm)
{
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, "MPIX_Comm_topo_init",
                       [&] { return comm_topo_init_unguarded(xcomm); });
}

extern "C" int MPIX_Comm_update_locality(MPIX_Comm *xcomm, int ppn)
{
    static const char *fn = "MPIX_Comm_update_locality";
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "xcomm is NULL");
    if (ppn < 0)
        return raise(xcomm->user, MPI_ERR_ARG, fn, "ppn is negative");
    if (ppn == xcomm->emulated_ppn)
        return MPI_SUCCESS;
    drop_topology(xcomm);
    xcomm->emulated_ppn = ppn;
    return MPI_SUCCESS;
}

static int comm_set_info_unguarded(MPIX_Comm *xcomm, const MPIX_Info *info)
{
    if (!xcomm)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPIX_Comm_set_info", "xcomm is NULL");
    sched::drain(xcomm);  // a collective call: as MPIX_Comm_init
    // A tuning_file is read here, collectively (rank 0 reads, every rank parses
    // the same text); a path already read is kept. On any error nothing changes.
    std::shared_ptr<const SelectionTable> table;
    std::string path;
    auto tuning = info ? info->values.find("tuning_file") : std::map<std::string, std::string>::const_iterator();
    if (info && tuning != info->values.end() && !tuning->second.empty()) {
        path = tuning->second;
        if (path == xcomm->info_table_path && xcomm->info_table) {
            table = xcomm->info_table;
        } else {
            std::string why;
            int rc = load_table_file(xcomm->comm, path, find_algorithm, &table, &why);
            if (rc == MPI_ERR_INFO_VALUE)
                return raise(xcomm->user, rc, "MPIX_Comm_set_info", ("hint tuning_file: " + why).c_str());
            if (rc != MPI_SUCCESS)
                return raise_internal(xcomm->user, rc, "MPIX_Comm_set_info", "reading tuning_file");
        }
    }
    xcomm->info_table = std::move(table);
    xcomm->info_table_path = path;
    if (info)
        xcomm->info_values = info->values;
    else
        xcomm->info_values.clear();
    refresh_hints(xcomm);
    const char *why = nullptr;
    if (sync_progress_thread(xcomm, &why) != MPI_SUCCESS)
        return raise(xcomm->user, MPI_ERR_OTHER, "MPIX_Comm_set_info", why);
    return MPI_SUCCESS;
}

extern "C" int MPIX_Comm_set_info(MPIX_Comm *xcomm, const MPIX_Info *info)
{
    return guard_entry(xcomm ? xcomm->user : MPI_COMM_NULL, "MPIX_Comm_set_info",
                       [&] { return comm_set_info_unguarded(xcomm, info); });
}

extern "C" int MPIX_Info_init(MPIX_Info **info)
{
    if (!info)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPIX_Info_init", "info is NULL");
    *info = new (std::nothrow) MPIX_Info();
    if (!*info)
        return raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPIX_Info_init", "out of memory");
    return MPI_SUCCESS;
}

extern "C" int MPIX_Info_free(MPIX_Info **info)
{
    if (!info || !*info)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPIX_Info_free", "info is NULL");
    delete *info;
    *info = nullptr;
    return MPI_SUCCESS;
}

static int info_set_unguarded(MPIX_Info *info, const char *key, const char *value)
{
    static const char *fn = "MPIX_Info_set";
    if (!info)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "info is NULL");
    if (!key)
        return raise(MPI_COMM_NULL, MPI_ERR_INFO_KEY, fn, "key is NULL");
    const char *why = nullptr;
    int rc = validate_hint(key, value, find_algorithm, &why);
    if (rc != MPI_SUCCESS) {
        // Only valid key names go into the text: error strings are memoised.
        std::string problem = rc == MPI_ERR_INFO_KEY ? std::string(why)
                                                     : std::string("key '") + key + "': " + why;
        return raise(MPI_COMM_NULL, rc, fn, problem.c_str());
    }
    info->values[key] = value;
    return MPI_SUCCESS;
}

extern "C" int MPIX_Info_set(MPIX_Info *info, const char *key, const char *value)
{
    return guard_entry(MPI_COMM_NULL, "MPIX_Info_set", [&] { return info_set_unguarded(info, key, value); });
}

extern "C" int MPIX_Info_get(const MPIX_Info *info, const char *key, int valuelen, char *value,
                             int *flag)
{
    static const char *fn = "MPIX_Info_get";
    if (!info || !flag)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "info or flag is NULL");
    if (!key || !find_hint_key(key))
        return raise(MPI_COMM_NULL, MPI_ERR_INFO_KEY, fn, "unknown hint key");
    if (valuelen < 0 || (valuelen > 0 && !value))
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "value buffer is NULL or valuelen negative");
    auto it = info->values.find(key);
    *flag = it != info->values.end();
    if (*flag && valuelen > 0) {
        size_t n = std::min(static_cast<size_t>(valuelen - 1), it->second.size());
        std::memcpy(value, it->second.data(), n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

extern "C" int MPIX_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPIX_Error_string", "string or resultlen is NULL");
    return error_string(errorcode, string, resultlen);
}

extern "C" const char *MPIX_Algorithm_name(const char *collective, int index)
{
    Collective c;
    if (!collective_from_name(collective, &c))
        return nullptr;
    const Algorithm *a = algorithm_at(c, index);
    return a ? a->name : nullptr;
}
