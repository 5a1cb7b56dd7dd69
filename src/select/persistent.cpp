// Persistent MPIX_Alltoall(v) requests. Three ways a start moves data:
//  - pmpi where the MPI library has MPI_Alltoall(v)_init: its own persistent
//    collective on the caller's arguments (posted);
//  - rows whose `prepare` makes a plan that posts at start (every message known
//    at init, e.g. the direct rows' persistent point-to-point requests);
//  - every other row: deferred (core/request.hpp), the row's `run` replayed
//    with the checks, selection, byte views, staging and whatever `prepare`
//    computed (sizes) done once at init.
#include "select/persistent.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/exchange.hpp"
#include "core/request.hpp"
#include "core/trace.hpp"
#include "select/dispatch.hpp"
#include "select/registry.hpp"

namespace mpix {

namespace {

// A side's count and displacement arrays, owned by the request (MPI lets the
// caller reuse its arrays once init returns). The init calls take int counts.
struct OwnedSide {
    std::vector<int> counts, displs;
    UserSide side;

    void keep(const UserSide &u, int size)
    {
        side = u;
        const std::size_t n = static_cast<std::size_t>(size);
        if (u.form == UserSide::Form::per_peer) {
            counts.assign(u.counts, u.counts + n);
            displs.assign(u.displs, u.displs + n);
            side.counts = counts.data();
            side.displs = displs.data();
        }
    }
};

class PersistentExchange : public MPIX_Request {
public:
    PersistentExchange(MPIX_Comm *xcomm_, const char *fn, Collective c, const Hints &hints,
                       const Algorithm *algorithm)
        : MPIX_Request(xcomm_, fn), collective_(c), hints_(hints), algorithm_(algorithm)
    {
    }
    ~PersistentExchange() override
    {
        if (mpi_request_ != MPI_REQUEST_NULL)
            MPI_Request_free(&mpi_request_);
    }

    int init(const UserSide &send, const UserSide &recv, bool in_place)
    {
        const int p = xcomm->size;
        send_.keep(send, p);
        recv_.keep(recv, p);
        in_place_ = in_place;
#if MPIX_HAVE_PERSISTENT_COLLECTIVES
        if (algorithm_->pass_through && hints_.trace.empty())
            return init_mpi_request();
#endif
        int rc = make_send_side(send_.side, p, in_place, xcomm->comm, &xcomm->work, &sb_);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, init_fn, "the send staging buffer");
        rc = make_recv_side(recv_.side, p, &xcomm->work, &rb_);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, init_fn, "the receive staging buffer");
        x_ = byte_exchange(xcomm, collective_, sb_, rb_, &hints_, &mismatch_);
        if (!algorithm_->prepare)
            return MPI_SUCCESS;
        x_.tag = allocate_tags(xcomm);
        {
            WorldErrorsReturn world_returns(xcomm->world_available);
            rc = algorithm_->prepare(x_, &plan_);
        }
        if (rc != MPI_SUCCESS)
            return raise_internal(xcomm->user, rc, init_fn, algorithm_->name);
        x_.plan = plan_.get();
        return MPI_SUCCESS;
    }

    int start(const char *fn) override
    {
        if (mpi_request_ != MPI_REQUEST_NULL) {
            int rc = MPI_Start(&mpi_request_);
            return rc == MPI_SUCCESS ? rc : report(xcomm, fn, algorithm_, rc);
        }
        if (plan_ && plan_->posts_at_start()) {
            int rc = begin();
            if (rc == MPI_SUCCESS)
                rc = plan_->post(x_);
            return rc == MPI_SUCCESS ? rc : report(xcomm, fn, algorithm_, rc);
        }
        defer(this);
        return MPI_SUCCESS;
    }

    int test(const char *fn, bool *done) override
    {
        int rc = MPI_SUCCESS;
        if (mpi_request_ != MPI_REQUEST_NULL) {
            int flag = 0;
            WorldErrorsReturn world_returns(xcomm->world_available);  // a truncated receive must come back here
            rc = MPI_Test(&mpi_request_, &flag, MPI_STATUS_IGNORE);
            *done = flag != 0;
        } else if (plan_ && plan_->posts_at_start()) {
            {
                WorldErrorsReturn world_returns(xcomm->world_available);
                rc = plan_->test(x_, done);
            }
            if (rc == MPI_SUCCESS && *done)
                rc = end(MPI_SUCCESS);
        } else {
            mpix::run_deferred(xcomm, this);  // the exchange runs whole, in start order
            *done = true;
            rc = deferred_rc;
        }
        return rc == MPI_SUCCESS ? rc : report(xcomm, fn, algorithm_, rc);
    }

    int wait(const char *fn) override
    {
        int rc;
        if (mpi_request_ != MPI_REQUEST_NULL) {
            WorldErrorsReturn world_returns(xcomm->world_available);  // a truncated receive must come back here
            rc = MPI_Wait(&mpi_request_, MPI_STATUS_IGNORE);
        } else if (plan_ && plan_->posts_at_start()) {
            {
                WorldErrorsReturn world_returns(xcomm->world_available);
                rc = plan_->complete(x_);
            }
            rc = end(rc);
        } else {
            mpix::run_deferred(xcomm, this);
            rc = deferred_rc;
        }
        return rc == MPI_SUCCESS ? rc : report(xcomm, fn, algorithm_, rc);
    }

    int run_deferred() override
    {
        int rc = begin();
        if (rc != MPI_SUCCESS)
            return rc;
        x_.tag = allocate_tags(xcomm);  // runs are in start order on every rank
        {
            WorldErrorsReturn world_returns(xcomm->world_available);
            rc = algorithm_->run(x_);
        }
        return end(rc);
    }

private:
#if MPIX_HAVE_PERSISTENT_COLLECTIVES
    // The MPI library's persistent collective on the caller's own arguments.
    int init_mpi_request()
    {
        const UserSide &s = send_.side, &r = recv_.side;
        const void *sbuf = in_place_ ? MPI_IN_PLACE : static_cast<const void *>(s.buf);
        void *rbuf = const_cast<char *>(r.buf);
        int rc;
        if (r.form == UserSide::Form::uniform)  // int counts: MPIX_Alltoall_init takes them
            rc = PMPI_Alltoall_init(sbuf, static_cast<int>(s.uniform_count), s.type, rbuf,
                                    static_cast<int>(r.uniform_count), r.type, xcomm->comm, MPI_INFO_NULL,
                                    &mpi_request_);
        else
            rc = PMPI_Alltoallv_init(sbuf, s.counts, s.displs, s.type, rbuf, r.counts, r.displs, r.type,
                                     xcomm->comm, MPI_INFO_NULL, &mpi_request_);
        return rc == MPI_SUCCESS ? rc : report(xcomm, init_fn, algorithm_, rc);
    }
#endif

    // What every start does before its messages: this start's send data packed
    // (staged sides), a staged receive side cleared, a fresh trace.
    int begin()
    {
        mismatch_ = MPI_SUCCESS;
        xcomm->work.set_working_set(sb_.total_bytes + rb_.total_bytes);
        trace_ = open_trace(hints_.trace, xcomm->rank, collective_name(collective_), algorithm_->name, &xcomm->work);
        int rc = pack_send_side(send_.side, xcomm->size, xcomm->comm, &xcomm->work, &sb_);
        if (rc != MPI_SUCCESS) {
            trace_.reset();
            return rc;
        }
        if (rb_.staged)
            xcomm->work.fill(rb_.base, 0, rb_.total_bytes);
        x_.trace = trace_.get();
        return MPI_SUCCESS;
    }

    // After the messages: the blocks that arrived unpacked (also when some
    // block had the wrong length), the trace written.
    int end(int rc)
    {
        rc = finish_exchange(rc, mismatch_, recv_.side, xcomm->size, rb_, xcomm->comm, &xcomm->work);
        x_.trace = nullptr;
        trace_.reset();
        return rc;
    }

    Collective collective_;
    Hints hints_;
    const Algorithm *algorithm_;
    OwnedSide send_, recv_;
    bool in_place_ = false;
    BlockSide sb_, rb_;
    Exchange x_{};
    int mismatch_ = MPI_SUCCESS;
    std::unique_ptr<ExchangePlan> plan_;
    std::unique_ptr<Trace> trace_;
    MPI_Request mpi_request_ = MPI_REQUEST_NULL;
};

}  // namespace

const char *persistent_form(const Algorithm &a)
{
    if (a.prepared)
        return a.prepared;
    if (a.pass_through)  // the same text on every MPI: the table in docs/persistent-neighbour.md is checked against it
        return "the MPI library's own persistent MPI_Alltoall(v)_init on the caller's arguments (MPI-4; where the "
               "MPI library lacks it, or with tracing, replayed as below)";
    return "checks, selection, byte views and staging: each start replays the row, run whole in MPIX_Wait/MPIX_Test";
}

int init_persistent_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv,
                             bool in_place, const MPIX_Info *xinfo, MPIX_Request **request)
{
    if (!request)
        return raise(xcomm->user, MPI_ERR_ARG, fn, "request is NULL");
    *request = nullptr;
    if (!xcomm->deferred.empty())
        run_deferred(xcomm);  // init is a collective call: earlier starts run first
    int rc = check_exchange(xcomm, c, fn, send, recv, in_place);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *why = nullptr;
    if ((rc = check_call_info(xinfo, &why)) != MPI_SUCCESS)
        return raise(xcomm->user, rc, fn, why);
    Hints hints = resolve_hints(xcomm, xinfo);
    const RuleHints *rule_hints = nullptr;
    const Algorithm *algorithm = select_algorithm(c, xcomm, hints, send, true, &rule_hints);
    if (rule_hints) {  // the table's values for every key no level set
        const std::map<std::string, std::string> *given[3] = {&xcomm->env_values, &xcomm->info_values,
                                                              xinfo ? &xinfo->values : nullptr};
        apply_rule_hints(*rule_hints, xcomm->lookup, given, 3, &hints);
    }
    xcomm->last_algorithm[static_cast<int>(c)] = algorithm->name;
    std::unique_ptr<PersistentExchange> r(new PersistentExchange(xcomm, fn, c, hints, algorithm));
    rc = r->init(send, recv, in_place);
    if (rc != MPI_SUCCESS)
        return rc;
    *request = r.release();
    return MPI_SUCCESS;
}

}  // namespace mpix
