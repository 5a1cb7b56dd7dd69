// MPIX_Request: one exchange prepared once by a collective *_init call and then
// started many times. Each family (persistent alltoall(v), neighbour exchanges)
// derives from it; api/persistent.cpp drives it through MPIX_Start, MPIX_Wait,
// MPIX_Test and MPIX_Request_free.
//
// Two kinds of start:
//  - posted: every message is known at init (persistent point-to-point requests,
//    the MPI library's own persistent collective); start() posts them and the
//    exchange progresses like any MPI request.
//  - deferred: rounds depend on earlier rounds (Bruck, ParLogNa, node-aware...);
//    start() queues the request on its MPIX_Comm and the exchange runs whole when
//    the caller waits for or tests it, or makes any later blocking mpix call on
//    that comm. The queue runs in start order, the order every rank shares, so
//    waiting for requests in different orders on different ranks cannot deadlock.
#ifndef MPIX_CORE_REQUEST_HPP
#define MPIX_CORE_REQUEST_HPP

#include <mpi.h>

struct MPIX_Comm;

struct MPIX_Request {
    MPIX_Request(MPIX_Comm *xcomm_, const char *init_fn_);
    virtual ~MPIX_Request();
    MPIX_Request(const MPIX_Request &) = delete;
    MPIX_Request &operator=(const MPIX_Request &) = delete;

    // Begins one exchange of the buffers' current contents (posts, or calls
    // mpix::defer). Errors are raised by the family, naming `fn`.
    virtual int start(const char *fn) = 0;
    // Progresses the started exchange; *done once it has completed on this rank.
    virtual int test(const char *fn, bool *done) = 0;
    // Completes the started exchange.
    virtual int wait(const char *fn) = 0;
    // Deferred kind: runs the whole exchange now; returns an MPI error code (not
    // raised: the family's wait() raises it).
    virtual int run_deferred() { return MPI_SUCCESS; }

    MPIX_Comm *xcomm;
    const char *init_fn;  // "MPIX_Alltoallv_init": names the request in error texts
    bool active = false;  // started and not yet completed
    bool queued = false;  // deferred: started, not yet run
    int deferred_rc = MPI_SUCCESS;  // deferred: the outcome of the run
};

namespace mpix {

// Deferred kind: queues a started request on its comm (no communication).
void defer(MPIX_Request *request);
// Runs queued requests in start order up to and including `upto` (every one
// when `upto` is nullptr). Every blocking mpix call on a comm calls it first.
void run_deferred(MPIX_Comm *xcomm, const MPIX_Request *upto = nullptr);
// Tags for the persistent point-to-point requests of one MPIX_Request, apart
// from those of calls: a persistent request keeps its tags for its lifetime.
int allocate_persistent_tags(MPIX_Comm *xcomm);

}  // namespace mpix

#endif
