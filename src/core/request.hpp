// MPIX_Request: a started exchange the caller completes with MPIX_Wait*/MPIX_Test*.
// Persistent requests (*_init, then MPIX_Start many times) stay allocated and
// become inactive at completion; nonblocking ones (MPIX_Ialltoall(v)) are freed
// by the call that completes them. Each family derives from it; api/request.cpp
// drives it. MPIX_Alltoall(v) requests run as tasks of the engine
// (sched/engine.hpp); neighbour requests post MPI requests at start.
#ifndef MPIX_CORE_REQUEST_HPP
#define MPIX_CORE_REQUEST_HPP

#include <mpi.h>

struct MPIX_Comm;

struct MPIX_Request {
    MPIX_Request(MPIX_Comm *xcomm_, const char *init_fn_, bool persistent_ = true);
    virtual ~MPIX_Request();
    MPIX_Request(const MPIX_Request &) = delete;
    MPIX_Request &operator=(const MPIX_Request &) = delete;

    // Begins one exchange of the buffers' current contents. Errors are raised
    // by the family, naming `fn`.
    virtual int start(const char *fn) = 0;
    // Progresses the started exchange; *done once it has completed on this rank.
    virtual int test(const char *fn, bool *done) = 0;
    // Completes the started exchange.
    virtual int wait(const char *fn) = 0;
    // Whether the request may be freed now (its task is not running).
    virtual bool can_free() { return true; }
    // Whether its exchange runs as a task of the engine (its wait() then
    // progresses the others itself).
    virtual bool on_engine() const { return false; }
    // Ends the request's life (completion of a nonblocking one,
    // MPIX_Request_free): a family may keep its memory for the next.
    virtual void destroy() { delete this; }

    MPIX_Comm *xcomm;
    const char *init_fn;  // "MPIX_Alltoallv_init": names the request in error texts
    bool persistent;      // false: nonblocking, freed at completion
    bool active = false;  // started and not yet completed
    // Completed by an MPIX_Testall that returned flag 0: the next completion
    // call reports `outcome` (the error, if any, was raised already).
    bool completed_unreported = false;
    int outcome = MPI_SUCCESS;
};

namespace mpix {

// Tags for the persistent point-to-point requests of one MPIX_Request, apart
// from those of calls: a persistent request keeps its tags for its lifetime.
int allocate_persistent_tags(MPIX_Comm *xcomm);

}  // namespace mpix

#endif
