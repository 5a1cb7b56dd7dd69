// The drop-in's MPI completion calls: MPI_Wait, MPI_Waitall, MPI_Waitany,
// MPI_Waitsome, the Test forms and MPI_Request_get_status.
//
// MPI's progress rule: while intercepted exchanges are in flight, every MPI
// completion call of the application progresses them, whatever requests it
// completes (a rank waiting for a point-to-point message that its peer sends
// only after completing its own all-to-all must not stop the all-to-all). The
// wait forms then test and poll in turn instead of blocking inside MPI. MPICH's
// MPI_Request_get_status does not call a generalized request's poll function
// at all, so it polls here too.
//
// Persistent exchanges: the application's placeholders are swapped for their
// current starts' generalized requests for the call (pmpi/persistent.hpp).
//
// Errors: MPICH raises a completion call's error through MPI_COMM_WORLD's
// handler, an exchange's too (a generalized request has no communicator), so
// with MPI_COMM_WORLD fatal an exchange on a communicator that returns errors
// would abort. MPIX_Test has already raised the exchange's error through its
// own communicator's handler when the poll completed it. So while the drop-in
// is active MPI_COMM_WORLD returns errors inside these calls, and its own
// handler is called afterwards for another request's error, as MPICH would
// (raised_as_mpich_would).
//
// With no intercepted exchange in flight or awaiting completion and no
// persistent one registered, each call costs one relaxed load more than the
// MPI library's own (dropin_idle).
#include <mpi.h>

#include <vector>

#include "config.h"

#if MPIX_HAVE_GREQUEST_POLL

#include "core/error.hpp"
#include "pmpi/inflight.hpp"
#include "pmpi/persistent.hpp"

namespace {

using mpix::pmpi::dropin_idle;
using mpix::pmpi::delivered_outcome;
using mpix::pmpi::exchange_failures_delivered;
using mpix::pmpi::exchanges_in_flight;
using mpix::pmpi::poll_exchanges;
using mpix::pmpi::Substitution;

// Runs `call` (the drop-in's work for one completion call) with
// MPI_COMM_WORLD returning errors; an error that is not a failed exchange's
// (exchange_failures_delivered) then goes to MPI_COMM_WORLD's own handler.
// A call that completes a failed exchange and another failed request at once
// raises the exchange's alone.
template <class Call>
int raised_as_mpich_would(Call call)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    const bool world = initialized && !finalized;  // not the Sessions model alone
    const unsigned long failures = exchange_failures_delivered();
    mpix::pmpi::forget_delivered_outcomes();
    int rc;
    {
        mpix::WorldErrorsReturn world_returns(world);
        rc = call();
    }
    if (rc != MPI_SUCCESS && world && exchange_failures_delivered() == failures)
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, rc);
    return rc;
}

// MPICH puts an error of its own, of class MPI_ERR_OTHER, in the status of a
// failed exchange in MPI_Waitall, MPI_Testall, MPI_Waitsome and MPI_Testsome;
// the exchange's outcome goes there instead. Made before the MPI call (which
// sets the requests it frees to MPI_REQUEST_NULL) on the requests it is given;
// with MPI_STATUSES_IGNORE there is nothing to mend and nothing is copied.
class ExchangeStatuses {
public:
    ExchangeStatuses(int count, const MPI_Request *requests, const MPI_Status *statuses)
        : failures_(exchange_failures_delivered())
    {
        if (statuses != MPI_STATUSES_IGNORE)
            requests_.assign(requests, requests + count);
    }
    // statuses[k] is request indices[k]'s (k's without indices).
    void restore(int n, MPI_Status *statuses, const int *indices = nullptr) const
    {
        if (statuses == MPI_STATUSES_IGNORE || n == MPI_UNDEFINED || exchange_failures_delivered() == failures_)
            return;
        for (int k = 0; k < n; ++k) {
            const int outcome = delivered_outcome(requests_[static_cast<std::size_t>(indices ? indices[k] : k)]);
            if (outcome != MPI_SUCCESS && statuses[k].MPI_ERROR != MPI_SUCCESS)
                statuses[k].MPI_ERROR = outcome;
        }
    }

private:
    std::vector<MPI_Request> requests_;
    unsigned long failures_;
};

// Runs `test` (a PMPI test call) until it reports completion, polling the
// exchanges in flight in between; returns its error code.
template <class Test>
int test_and_poll(Test test)
{
    for (;;) {
        bool done = false;
        const int rc = test(&done);
        if (rc != MPI_SUCCESS || done)
            return rc;
        const int polled = poll_exchanges();
        if (polled != MPI_SUCCESS)
            return polled;
    }
}

// Polls before a test call, where exchanges are in flight.
int poll_if_in_flight() { return exchanges_in_flight() ? poll_exchanges() : MPI_SUCCESS; }

// Runs `call` on the swapped requests and copies the results back.
template <class Call>
int with_substitution(int count, MPI_Request *requests, Call call)
{
    if (!mpix::pmpi::any_maybe_placeholder(count, requests))
        return call(requests);
    Substitution s(count, requests);
    const int rc = call(s.requests());
    s.restore();
    return rc;
}

}  // namespace

extern "C" int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (dropin_idle())
        return PMPI_Wait(request, status);
    return raised_as_mpich_would([&] {
        return with_substitution(1, request, [&](MPI_Request *r) {
            if (!exchanges_in_flight())
                return PMPI_Wait(r, status);
            return test_and_poll([&](bool *done) {
                int flag = 0;
                const int rc = PMPI_Test(r, &flag, status);
                *done = flag != 0;
                return rc;
            });
        });
    });
}

namespace {

// MPI_Waitall while exchanges are in flight: each request tested in turn,
// polling in between. Not Testall: MPICH 4.0.2's MPI_Testall fails on its own
// persistent collectives (MPI_Testany leaves them active: "already active" at
// the next start); nor Testsome, which never reported them all inactive here.
int wait_all_polling(int count, MPI_Request *requests, MPI_Status *statuses)
{
    int result = MPI_SUCCESS;
    for (int i = 0; i < count; ++i) {
        MPI_Status own;
        MPI_Status *status = statuses == MPI_STATUSES_IGNORE ? &own : &statuses[i];
        int flag = 0, rc = MPI_SUCCESS;
        while ((rc = PMPI_Test(&requests[i], &flag, status)) == MPI_SUCCESS && !flag) {
            const int polled = poll_exchanges();
            if (polled != MPI_SUCCESS)
                return polled;
        }
        if (rc != MPI_SUCCESS) {  // as MPI_Waitall reports a failed request
            status->MPI_ERROR = rc;
            if (result == MPI_SUCCESS)
                result = statuses == MPI_STATUSES_IGNORE ? rc : static_cast<int>(MPI_ERR_IN_STATUS);
        } else if (statuses != MPI_STATUSES_IGNORE) {
            status->MPI_ERROR = MPI_SUCCESS;
        }
    }
    return result;
}

}  // namespace

extern "C" int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (dropin_idle())
        return PMPI_Waitall(count, requests, statuses);
    return raised_as_mpich_would([&] {
        return with_substitution(count, requests, [&](MPI_Request *r) {
            if (!exchanges_in_flight()) {
                const ExchangeStatuses exchanges(count, r, statuses);
                const int rc = PMPI_Waitall(count, r, statuses);
                exchanges.restore(count, statuses);
                return rc;
            }
            return wait_all_polling(count, r, statuses);
        });
    });
}

extern "C" int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (dropin_idle())
        return PMPI_Waitany(count, requests, index, status);
    return raised_as_mpich_would([&] {
        return with_substitution(count, requests, [&](MPI_Request *r) {
            if (!exchanges_in_flight())
                return PMPI_Waitany(count, r, index, status);
            return test_and_poll([&](bool *done) {
                int flag = 0;
                const int rc = PMPI_Testany(count, r, index, &flag, status);
                *done = flag != 0;  // also when every request is inactive (*index MPI_UNDEFINED)
                return rc;
            });
        });
    });
}

extern "C" int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    if (dropin_idle())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return raised_as_mpich_would([&] {
        return with_substitution(incount, requests, [&](MPI_Request *r) {
            const ExchangeStatuses exchanges(incount, r, statuses);
            int rc;
            if (!exchanges_in_flight()) {
                rc = PMPI_Waitsome(incount, r, outcount, indices, statuses);
            } else {
                rc = test_and_poll([&](bool *done) {
                    const int tested = PMPI_Testsome(incount, r, outcount, indices, statuses);
                    *done = *outcount != 0;  // MPI_UNDEFINED: every request inactive
                    return tested;
                });
            }
            exchanges.restore(*outcount, statuses, indices);
            return rc;
        });
    });
}

extern "C" int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (dropin_idle())
        return PMPI_Test(request, flag, status);
    const int rc = poll_if_in_flight();
    if (rc != MPI_SUCCESS)
        return rc;
    return raised_as_mpich_would(
        [&] { return with_substitution(1, request, [&](MPI_Request *r) { return PMPI_Test(r, flag, status); }); });
}

extern "C" int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (dropin_idle())
        return PMPI_Testall(count, requests, flag, statuses);
    const int rc = poll_if_in_flight();
    if (rc != MPI_SUCCESS)
        return rc;
    return raised_as_mpich_would([&] {
        return with_substitution(count, requests, [&](MPI_Request *r) {
            const ExchangeStatuses exchanges(count, r, statuses);
            const int rc = PMPI_Testall(count, r, flag, statuses);
            exchanges.restore(*flag ? count : 0, statuses);
            return rc;
        });
    });
}

extern "C" int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (dropin_idle())
        return PMPI_Testany(count, requests, index, flag, status);
    const int rc = poll_if_in_flight();
    if (rc != MPI_SUCCESS)
        return rc;
    return raised_as_mpich_would([&] {
        return with_substitution(count, requests,
                                 [&](MPI_Request *r) { return PMPI_Testany(count, r, index, flag, status); });
    });
}

extern "C" int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    if (dropin_idle())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    const int rc = poll_if_in_flight();
    if (rc != MPI_SUCCESS)
        return rc;
    return raised_as_mpich_would([&] {
        return with_substitution(incount, requests, [&](MPI_Request *r) {
            const ExchangeStatuses exchanges(incount, r, statuses);
            const int rc = PMPI_Testsome(incount, r, outcount, indices, statuses);
            exchanges.restore(*outcount, statuses, indices);
            return rc;
        });
    });
}

extern "C" int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (dropin_idle())
        return PMPI_Request_get_status(request, flag, status);
    return raised_as_mpich_would([&] {
        return with_substitution(1, &request, [&](MPI_Request *r) {
            int rc = PMPI_Request_get_status(*r, flag, status);
            if (rc != MPI_SUCCESS || *flag || !exchanges_in_flight())
                return rc;
            if ((rc = poll_exchanges()) != MPI_SUCCESS)
                return rc;
            return PMPI_Request_get_status(*r, flag, status);
        });
    });
}

#endif  // MPIX_HAVE_GREQUEST_POLL
