// MPIX_Alltoall(v) requests, persistent and nonblocking. How a start moves data:
//  - the MPI library's own collective on the caller's arguments, for the
//    pass-through row: MPI_Alltoall(v)_init where the MPI library has it
//    (persistent), MPI_Ialltoall(v) (nonblocking), progressed by MPI itself;
//    a non-contiguous side is staged and handed over as bytes, so every rank
//    takes this path whatever its datatypes' layout;
//  - every other row as a task of the engine (sched/engine.hpp): the row's
//    `run` (or, where `prepare` made a plan whose messages are all known at
//    init, the plan's post and completion) with the checks, selection, byte
//    views and staging done once. The task runs at the start until it first
//    waits for a message; MPIX_Test*, MPIX_Wait* and the progress thread do
//    the rest.
#include "select/exchange_request.hpp"

#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "config.h"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/exchange.hpp"
#include "core/request.hpp"
#include "core/trace.hpp"
#include "sched/engine.hpp"
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

class ExchangeRequest : public MPIX_Request {
public:
    ExchangeRequest(MPIX_Comm *xcomm_, const char *fn, Collective c, const Hints &hints, const Algorithm *algorithm,
                    bool persistent_)
        : MPIX_Request(xcomm_, fn, persistent_), collective_(c), hints_(hints), algorithm_(algorithm), task_(this)
    {
    }
    ~ExchangeRequest() override
    {
        if (mpi_request_ != MPI_REQUEST_NULL)
            MPI_Request_free(&mpi_request_);
    }

    // Persistent: keeps the count arrays, stages, prepares. Nonblocking: the
    // caller's arrays are used as they are (valid until completion).
    int init(const UserSide &send, const UserSide &recv, bool in_place, const LocalMismatch &local)
    {
        const int p = xcomm->size;
        local_ = local;
        if (persistent) {
            send_.keep(send, p);
            recv_.keep(recv, p);
        } else {
            send_.side = send;
            recv_.side = recv;
        }
        if (local.error_class != MPI_SUCCESS) {  // the request runs the fitted side
            local_fit_.reset(new LocalFit{send_.side, {}});
            const int rc = local_fit_->fitted.fit(local, local_fit_->user_send, xcomm->rank, p, xcomm->comm,
                                                  &xcomm->work, &send_.side);
            if (rc != MPI_SUCCESS)
                return raise_staging(xcomm->user, rc, init_fn, "the send staging buffer");
        }
        in_place_ = in_place;
        nothing_moves_ = nothing_moves(xcomm, in_place, hints_) && local.error_class == MPI_SUCCESS;
        if (nothing_moves_)  // no byte views, staging or MPI request: no start uses them
            return MPI_SUCCESS;
        // The MPI library's own request whatever the datatypes' layout: the
        // choice must be the same on every rank (a rank on the engine would
        // never match the others' MPI requests), and the ranks' types may
        // differ in layout. A non-contiguous side is staged (MPI_ERR_NO_MEM
        // before anything moves when it cannot be) and handed over as bytes.
        if (algorithm_->pass_through && hints_.trace.empty() && mpi_request_fits()) {
            if (!recv.info.contiguous || !(in_place || send_.side.info.contiguous)) {
                int rc = stage_for_mpi();
                if (rc != MPI_SUCCESS)
                    return rc;
            }
#if MPIX_HAVE_PERSISTENT_COLLECTIVES
            if (persistent)
                return init_mpi_request();
#endif
            if (!persistent) {
                mpi_nonblocking_ = true;  // MPI_Ialltoall(v) at start
                return MPI_SUCCESS;
            }
        }
        int rc = warm_collective_state(xcomm, algorithm_, hints_);
        if (rc != MPI_SUCCESS)
            return raise_internal(xcomm->user, rc, init_fn, algorithm_->name);
        const int kept = kept_block(xcomm, collective_, in_place, algorithm_);
        rc = make_send_side(send_.side, p, in_place, xcomm->comm, &xcomm->work, &sb_, kept);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, init_fn, "the send staging buffer");
        rc = make_recv_side(recv_.side, p, &xcomm->work, &rb_, kept);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, init_fn, "the receive staging buffer");
        x_ = byte_exchange(xcomm, collective_, sb_, rb_, &hints_, &mismatch_);
        x_.mpi_in_place = in_place && algorithm_->pass_through;
        packed_ = !persistent;  // a nonblocking call's current contents, packed by make_send_side
        if (!persistent || !algorithm_->prepare)
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
        done_at_start_ = false;
        if (nothing_moves_) {
            done_at_start_ = true;
            start_rc_ = MPI_SUCCESS;
            return MPI_SUCCESS;
        }
        if (persistent && local_fit_) {  // this start's send data, fitted again (then packed, below)
            const int rc = local_fit_->fitted.fit(local_, local_fit_->user_send, xcomm->rank, xcomm->size, xcomm->comm,
                                                  &xcomm->work, &send_.side);
            if (rc != MPI_SUCCESS)
                return raise_staging(xcomm->user, rc, fn, "the send staging buffer");
        }
        if (persistent && sb_.staged && (mpi_request_ != MPI_REQUEST_NULL || mpi_nonblocking_)) {
            // this start's send data for the MPI library's persistent request
            const int rc = pack_send_side(send_.side, xcomm->size, xcomm->comm, &xcomm->work, &sb_);
            if (rc != MPI_SUCCESS)
                return raise_staging(xcomm->user, rc, fn, "the send staging buffer");
        }
        if (in_place_ && mpi_staged_ && (mpi_request_ != MPI_REQUEST_NULL || mpi_nonblocking_)) {
            // in place through the staging (stage_for_mpi): the receive blocks' data
            const int rc = pack_send_side(send_.side, xcomm->size, xcomm->comm, &xcomm->work, &rb_);
            if (rc != MPI_SUCCESS)
                return raise_staging(xcomm->user, rc, fn, "the receive staging buffer");
        }
        if (mpi_request_ != MPI_REQUEST_NULL) {  // persistent MPI collective
            int rc = MPI_Start(&mpi_request_);
            return rc == MPI_SUCCESS ? rc : report(xcomm, fn, algorithm_, rc);
        }
        if (mpi_nonblocking_) {  // the MPI library's nonblocking collective
            int rc = start_mpi_nonblocking();
            return rc == MPI_SUCCESS ? rc : report(xcomm, fn, algorithm_, rc);
        }
        // Tags now, in the order every rank shares (the task may run later);
        // a plan that posts at start keeps the persistent tags it was made with.
        if (!(plan_ && plan_->posts_at_start()))
            x_.tag = call_tags(xcomm, algorithm_);
        if (xcomm->size == 1 && sched::active_tasks() == 0) {
            // One rank, nothing else started: every block is its own, so the
            // row runs here at once, as a blocking call runs it (its messages,
            // if any, are to itself), without a task and its switches.
            WorldErrorsReturn world_returns(xcomm->world_available);
            start_rc_ = run_once();
            done_at_start_ = true;
            return MPI_SUCCESS;
        }
        int rc = sched::launch(&task_);
        if (rc != MPI_SUCCESS)
            return raise(xcomm->user, rc, fn, "no stack for the exchange's task (out of memory)");
        return MPI_SUCCESS;
    }

    int test(const char *fn, bool *done) override
    {
        if (done_at_start_) {
            *done = true;
            return outcome(fn, start_rc_);
        }
        sched::progress();
        if (mpi_request_ != MPI_REQUEST_NULL) {
            int flag = 0;
            int rc;
            {
                WorldErrorsReturn world_returns(xcomm->world_available);  // a truncated receive must come back here
                rc = MPI_Test(&mpi_request_, &flag, MPI_STATUS_IGNORE);
            }
            *done = flag != 0 || rc != MPI_SUCCESS;
            return *done ? outcome(fn, unstage_from_mpi(rc)) : MPI_SUCCESS;
        }
        if (mpi_nonblocking_) {  // completed and freed by MPI
            *done = true;
            return outcome(fn, unstage_from_mpi(MPI_SUCCESS));
        }
        *done = task_.finished();
        if (!*done)
            return MPI_SUCCESS;
        return outcome(fn, task_.result());
    }

    int wait(const char *fn) override
    {
        if (done_at_start_)
            return outcome(fn, start_rc_);
        if (mpi_request_ != MPI_REQUEST_NULL || mpi_nonblocking_) {
            int rc = MPI_SUCCESS;
            bool done = mpi_request_ == MPI_REQUEST_NULL;  // a nonblocking one MPI_Test completed
            if (!done && sched::active_tasks() == 0) {  // nothing else to progress: MPI_Wait at once
                WorldErrorsReturn world_returns(xcomm->world_available);
                rc = MPI_Wait(&mpi_request_, MPI_STATUS_IGNORE);
                return outcome(fn, unstage_from_mpi(rc));
            }
            // Other started exchanges progress meanwhile; with none left to
            // run, MPI_Wait blocks (MPI progresses its own requests).
            sched::progress_until(
                [&] {
                    if (done)
                        return true;
                    int flag = 0;
                    WorldErrorsReturn world_returns(xcomm->world_available);
                    rc = MPI_Test(&mpi_request_, &flag, MPI_STATUS_IGNORE);
                    return done = flag != 0 || rc != MPI_SUCCESS;
                },
                [&] {
                    WorldErrorsReturn world_returns(xcomm->world_available);
                    rc = MPI_Wait(&mpi_request_, MPI_STATUS_IGNORE);
                    done = true;
                });
            return outcome(fn, unstage_from_mpi(rc));
        }
        sched::progress_until([&] { return task_.finished(); });
        return outcome(fn, task_.result());
    }

    bool can_free() override { return sched::forget(&task_); }
    bool on_engine() const override { return true; }

    // A nonblocking request: made in the memory a completed one of its comm
    // left (MPIX_Comm::spare_request), taking its per-peer vectors, so that a
    // call allocates nothing once its comm has completed one.
    static ExchangeRequest *make_nonblocking(MPIX_Comm *xcomm, const char *fn, Collective c, const Hints &hints,
                                             const Algorithm *algorithm)
    {
        MPIX_Comm::SpareRequest *spare = xcomm->spare_request.exchange(nullptr, std::memory_order_acq_rel);
        void *memory = spare ? spare->memory : nullptr;
        if (!memory) {
            try {
                memory = ::operator new(sizeof(ExchangeRequest));
            } catch (...) {
                delete spare;
                throw;
            }
        }
        if (spare)
            spare->memory = nullptr;
        ExchangeRequest *r;
        try {
            r = new (memory) ExchangeRequest(xcomm, fn, c, hints, algorithm, false);
        } catch (...) {
            ::operator delete(memory);
            delete spare;
            throw;
        }
        r->spare_ = spare;
        if (spare)
            spare->swap_views(&r->sb_, &r->rb_);
        return r;
    }

    void destroy() override
    {
        if (persistent) {  // made by new
            delete this;
            return;
        }
        MPIX_Comm *comm = xcomm;
        MPIX_Comm::SpareRequest *spare = spare_;
        if (!spare)
            spare = new (std::nothrow) MPIX_Comm::SpareRequest;
        if (spare)
            spare->swap_views(&sb_, &rb_);
        this->~ExchangeRequest();
        if (!spare) {
            ::operator delete(static_cast<void *>(this));
            return;
        }
        spare->memory = this;
        delete comm->spare_request.exchange(spare, std::memory_order_acq_rel);  // another one left before: freed
    }

private:
    // A completed start's error as the caller sees it: a LocalMismatch's, else
    // the exchange's.
    int outcome(const char *fn, int rc)
    {
        if (local_.error_class != MPI_SUCCESS)
            return rc == MPI_SUCCESS ? report_local_mismatch(xcomm, fn, local_) : report(xcomm, fn, algorithm_, rc);
        return rc == MPI_SUCCESS ? rc : report(xcomm, fn, algorithm_, rc);
    }

    // The engine's view of one start.
    class Run : public sched::Task {
    public:
        explicit Run(ExchangeRequest *owner) : sched::Task(owner->xcomm, owner->xcomm->world_available), owner_(owner)
        {
        }

        int body() override { return owner_->run_once(); }

    private:
        ExchangeRequest *owner_;
    };

    // One start, inside the task.
    int run_once()
    {
        int rc = begin();
        if (rc != MPI_SUCCESS)
            return rc;
        if (plan_ && plan_->posts_at_start()) {
            rc = plan_->post(x_);
            if (rc == MPI_SUCCESS)
                rc = plan_->complete(x_);
        } else {
            rc = algorithm_->run(x_);
        }
        return end(rc);
    }

    // The MPI library has a request for the call: its persistent collectives
    // take int counts, as MPIX_Alltoall(v)_init do, and its nonblocking ones
    // large counts where it has them. (Counts, not the datatypes' layout: a
    // staged side's byte counts are checked by stage_for_mpi.)
    bool mpi_request_fits() const
    {
        const UserSide &s = send_.side, &r = recv_.side;
        if (persistent)
            return MPIX_HAVE_PERSISTENT_COLLECTIVES;
        if (MPIX_HAVE_LARGE_COUNT)
            return true;
        if (r.form == UserSide::Form::uniform)
            return s.uniform_count <= INT_MAX && r.uniform_count <= INT_MAX;
        return r.form == UserSide::Form::per_peer;
    }

    // A non-contiguous side for the MPI library: staged (the send side packed
    // now; a persistent request packs again at every start), handed over as
    // MPI_BYTE blocks at their staging offsets. MPI_IN_PLACE stays
    // (Exchange::mpi_in_place: every rank's call must be in place or none):
    // the receive staging gets the receive blocks' data at every start, and
    // there is no send staging.
    int stage_for_mpi()
    {
        const int p = xcomm->size;
        int rc = in_place_ ? MPI_SUCCESS : make_send_side(send_.side, p, true, xcomm->comm, &xcomm->work, &sb_);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, init_fn, "the send staging buffer");
        rc = make_recv_side(recv_.side, p, &xcomm->work, &rb_);
        if (rc == MPI_SUCCESS && !rb_.staged && !rb_.stage())  // both staged: their blocks lie alike
            rc = MPI_ERR_NO_MEM;
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, init_fn, "the receive staging buffer");
        const bool uniform = recv_.side.form == UserSide::Form::uniform;
        mpi_staged_.reset(new MpiStaging);
        MpiStaging &m = *mpi_staged_;
        // Both sides in int counts, or both in large ones (the call takes one kind).
        bool fits = true;
        const BlockSide &send_blocks = in_place_ ? rb_ : sb_;
        for (const BlockSide *b : {&send_blocks, static_cast<const BlockSide *>(&rb_)})
            for (int q = 0; q < p; ++q)
                fits = fits && b->bytes[q] <= INT_MAX && b->displs[q] <= INT_MAX;
        if (!fits && !(persistent ? MPIX_HAVE_PERSISTENT_LARGE_COUNT : MPIX_HAVE_LARGE_COUNT))
            return raise(xcomm->user, MPI_ERR_COUNT, init_fn,
                         "a staged block's bytes exceed an int count of the MPI library's collective");
        for (int side = 0; side < 2; ++side) {
            const BlockSide &b = side == 0 ? send_blocks : rb_;
            const void *base = b.base;
            if (uniform) {  // packed: block q at q times the block
                m.views[side] = UserSide::bytes(UserSide::uniform(base, static_cast<MPI_Count>(b.bytes[0]), MPI_BYTE));
            } else if (fits) {
                m.int_counts[side].assign(b.bytes.begin(), b.bytes.end());
                m.int_displs[side].assign(b.displs.begin(), b.displs.end());
                m.views[side] =
                    UserSide::bytes(UserSide::per_peer(base, m.int_counts[side].data(), m.int_displs[side].data(), MPI_BYTE));
            } else {
                m.byte_counts[side].assign(b.bytes.begin(), b.bytes.end());
                m.byte_displs[side].assign(b.displs.begin(), b.displs.end());
                m.views[side] = UserSide::bytes(
                    UserSide::per_peer(base, m.byte_counts[side].data(), m.byte_displs[side].data(), MPI_BYTE));
            }
        }
        return MPI_SUCCESS;
    }

    // After the MPI library's request: a staged receive side unpacked (also
    // when a block had the wrong length, as finish_exchange does).
    int unstage_from_mpi(int rc)
    {
        return finish_exchange(rc, MPI_SUCCESS, recv_.side, xcomm->size, rb_, xcomm->comm, &xcomm->work);
    }

    // The communicator of the MPI library's own requests (MPIX_Comm's
    // mpi_requests), made at the first: at a call, on every rank in order.
    int mpi_requests_comm(MPI_Comm *out)
    {
        if (xcomm->mpi_requests == MPI_COMM_NULL) {
            sched::drain(xcomm);  // a collective call: as warm_collective_state (select/registry.hpp)
            const int rc = MPI_Comm_dup(xcomm->user, &xcomm->mpi_requests);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        *out = xcomm->mpi_requests;
        return MPI_SUCCESS;
    }

    int start_mpi_nonblocking()
    {
        MPI_Comm comm = MPI_COMM_NULL;
        MPIX_CHECK(mpi_requests_comm(&comm));
        UserSide s = mpi_staged_ ? mpi_staged_->views[0] : send_.side;
        const void *sbuf = in_place_ ? MPI_IN_PLACE : static_cast<const void *>(s.buf);
        UserSide r = separate_counts_.receive_side(
            sbuf, s, mpi_staged_ ? mpi_staged_->views[1] : recv_.side, xcomm->size);
        void *rbuf = const_cast<char *>(r.buf);
        // MPI_Ialltoallv: the own block copied now and empty for MPI (OwnBlockApart).
        const bool own_apart = own_apart_.take(sbuf, &s, &r, xcomm->rank, xcomm->size, &xcomm->work);
        if (!own_apart && xcomm->work.charged()) {  // SMPI: what the MPI library does with the own block
            const std::size_t own = r.count(xcomm->rank) * r.info.size;
            xcomm->work.charge_mpi_own_block(
                own, mpi_library_sends_own_block(r.form != UserSide::Form::uniform, true, in_place_, own, xcomm->size));
        }
        switch (r.form) {
        case UserSide::Form::uniform:
            if (s.uniform_count <= INT_MAX && r.uniform_count <= INT_MAX)
                return PMPI_Ialltoall(sbuf, static_cast<int>(s.uniform_count), s.type, rbuf,
                                      static_cast<int>(r.uniform_count), r.type, comm, &mpi_request_);
#if MPIX_HAVE_LARGE_COUNT
            return PMPI_Ialltoall_c(sbuf, s.uniform_count, s.type, rbuf, r.uniform_count, r.type, comm,
                                    &mpi_request_);
#else
            return MPI_ERR_INTERN;
#endif
        case UserSide::Form::per_peer:
            return PMPI_Ialltoallv(sbuf, s.counts, s.displs, s.type, rbuf, r.counts, r.displs, r.type, comm,
                                   &mpi_request_);
        case UserSide::Form::per_peer_large:
#if MPIX_HAVE_LARGE_COUNT
            return PMPI_Ialltoallv_c(sbuf, s.counts_c, s.displs_c, s.type, rbuf, r.counts_c, r.displs_c, r.type,
                                     comm, &mpi_request_);
#else
            return MPI_ERR_INTERN;
#endif
        }
        return MPI_ERR_INTERN;
    }

#if MPIX_HAVE_PERSISTENT_COLLECTIVES
    // The MPI library's persistent collective on the caller's own arguments.
    int init_mpi_request()
    {
        const UserSide &s = mpi_staged_ ? mpi_staged_->views[0] : send_.side;
        const void *sbuf = in_place_ ? MPI_IN_PLACE : static_cast<const void *>(s.buf);
        const UserSide r = separate_counts_.receive_side(
            sbuf, s, mpi_staged_ ? mpi_staged_->views[1] : recv_.side, xcomm->size);
        void *rbuf = const_cast<char *>(r.buf);
        MPI_Comm comm = MPI_COMM_NULL;
        int rc = mpi_requests_comm(&comm);
        if (rc != MPI_SUCCESS)
            return report(xcomm, init_fn, algorithm_, rc);
        // MPIX_Alltoall(v)_init take int counts; a staged side's bytes may
        // exceed them (stage_for_mpi allows that only with the _c forms).
        if (r.form == UserSide::Form::uniform && s.uniform_count <= INT_MAX && r.uniform_count <= INT_MAX)
            rc = PMPI_Alltoall_init(sbuf, static_cast<int>(s.uniform_count), s.type, rbuf,
                                    static_cast<int>(r.uniform_count), r.type, comm, MPI_INFO_NULL,
                                    &mpi_request_);
        else if (r.form == UserSide::Form::per_peer)
            rc = PMPI_Alltoallv_init(sbuf, s.counts, s.displs, s.type, rbuf, r.counts, r.displs, r.type,
                                     comm, MPI_INFO_NULL, &mpi_request_);
#if MPIX_HAVE_PERSISTENT_LARGE_COUNT
        else if (r.form == UserSide::Form::uniform)
            rc = PMPI_Alltoall_init_c(sbuf, s.uniform_count, s.type, rbuf, r.uniform_count, r.type, comm,
                                      MPI_INFO_NULL, &mpi_request_);
        else
            rc = PMPI_Alltoallv_init_c(sbuf, s.counts_c, s.displs_c, s.type, rbuf, r.counts_c, r.displs_c, r.type,
                                       comm, MPI_INFO_NULL, &mpi_request_);
#else
        else
            rc = MPI_ERR_INTERN;  // stage_for_mpi refused such sides
#endif
        return rc == MPI_SUCCESS ? rc : report(xcomm, init_fn, algorithm_, rc);
    }
#endif

    // What every start does before its messages: this start's send data packed
    // (staged sides; a nonblocking call's was packed at the call), a staged
    // receive side cleared, a fresh trace.
    int begin()
    {
        mismatch_ = MPI_SUCCESS;
        xcomm->work.set_working_set(sb_.total_bytes + rb_.total_bytes);
        trace_ = open_trace(hints_.trace, xcomm->trace_group, xcomm->rank, collective_name(collective_),
                            algorithm_->name, &xcomm->work);
        if (!packed_) {
            int rc = pack_send_side(send_.side, xcomm->size, xcomm->comm, &xcomm->work, &sb_);
            if (rc != MPI_SUCCESS) {
                trace_.reset();
                return rc;
            }
            if (rb_.staged)
                xcomm->work.fill(rb_.base, 0, rb_.total_bytes);
        }
        packed_ = false;  // a persistent request's next start packs again
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
    bool nothing_moves_ = false;  // one rank in place: a start has nothing to do
    bool done_at_start_ = false;  // this start completed inside start() (one rank), with start_rc_
    int start_rc_ = MPI_SUCCESS;
    // What the MPI library's own request gets when a side is staged
    // (stage_for_mpi): byte views of the staging, send and receive, with their
    // counts and displacements. Null: the sides as they are.
    struct MpiStaging {
        UserSide views[2];
        std::vector<int> int_counts[2], int_displs[2];
        std::vector<MPI_Count> byte_counts[2];
        std::vector<MPI_Aint> byte_displs[2];
    };
    std::unique_ptr<MpiStaging> mpi_staged_;
    bool packed_ = false;
    bool mpi_nonblocking_ = false;
    BlockSide sb_, rb_;
    Exchange x_{};
    int mismatch_ = MPI_SUCCESS;
    LocalMismatch local_;
    // With a LocalMismatch: the caller's send side and its fitted copy (send_).
    struct LocalFit {
        UserSide user_send;
        FittedSend fitted;
    };
    std::unique_ptr<LocalFit> local_fit_;
    std::unique_ptr<ExchangePlan> plan_;
    std::unique_ptr<Trace> trace_;
    MPI_Request mpi_request_ = MPI_REQUEST_NULL;
    SeparateCounts separate_counts_;  // read by mpi_request_ until it completes or is freed
    OwnBlockApart own_apart_;         // the same
    Run task_;
    MPIX_Comm::SpareRequest *spare_ = nullptr;  // a nonblocking one's, from its comm, given back at destroy()
};

// Ends a request that was never handed to the caller.
struct DestroyRequest {
    void operator()(ExchangeRequest *r) const { r->destroy(); }
};

}  // namespace

const char *persistent_form(const Algorithm &a)
{
    if (a.prepared)
        return a.prepared;
    if (a.pass_through)  // the same text on every MPI: the table in docs/persistent-neighbour.md is checked against it
        return "the MPI library's own persistent MPI_Alltoall(v)_init on the caller's arguments, a non-contiguous "
               "side staged and handed over as bytes (MPI-4; where the MPI library lacks it, or with tracing, run as "
               "a task as below)";
    return "checks, selection, byte views and staging: each start runs the row as a task of the engine, posting "
           "what needs no input at once and progressed by MPIX_Test/MPIX_Wait";
}

namespace {

// `auto`'s pick for a nonblocking or persistent exchange: where the tables
// pick the MPI library's own collective, a row of mpix's own instead. MPICH
// 4.0's MPI_Ialltoall(v) and MPI_Alltoall(v)_init report no block of the wrong
// length (its blocking MPI_Alltoallv does; docs/errors.md). Which row, from
// native runs (bench/results/calibration-P16/device2-*):
//  - persistent, and nonblocking below 8 ranks: the spread-out row (all
//    posted at once; a persistent one as MPI requests made at init). On 2
//    ranks it took 1.2-1.4x MPICH's MPI_Ialltoallv up to 1 KiB (the engine's
//    fixed cost per call, since cut: docs/errors.md) and 0.73-0.76x its time
//    from 16 KiB; randomized_sendrecv is 1-10 % slower there. (The built-in
//    table now picks pairwise on 2 ranks, which this keeps.)
//  - nonblocking from 8 ranks: randomized_sendrecv (random peer order, one
//    sendrecv per round). On one node of 8, 12 and 16 ranks it is faster than
//    the spread-out row at nearly every size (16 ranks, MPIX_Ialltoall: 282
//    against 319 us at 64 KiB, 841 against 943 at 256 KiB); SimGrid gives
//    both the same times at 64 ranks on 64 nodes.
//  - nonblocking on 1 and 2 ranks: pairwise (one exchange, or the memcpy of
//    the one block). On 2 ranks against MPICH's MPI_Ialltoall(v), 2026-12-01:
//    MPIX_Ialltoallv in place 1.00-1.06x up to 4 KiB where the spread-out row
//    took 1.09-1.10x; MPIX_Ialltoall in place 1.06-1.21x against 1.13-1.27x,
//    and from 64 KiB 1.01-1.02x against 1.00-1.03x (one run each).
// A row the hints name is kept, `pmpi` included.
const Algorithm *reporting_row(Collective c, const Hints &hints, const Algorithm *picked, int ranks, bool persistent)
{
    if (!picked->pass_through || hints.row[static_cast<int>(c)])
        return picked;
    const char *name = persistent ? "nonblocking" : ranks <= 2 ? "pairwise" : ranks >= 8 ? "randomized_sendrecv"
                                                                                          : "nonblocking";
    const Algorithm *row = find_algorithm(c, name);
    return row ? row : picked;
}

// Persistent: whether every block this rank receives has the length its
// sender sends, on every rank (collective; the answer is the same everywhere).
// A persistent request's counts are fixed at init, so where this holds no start
// can deliver a block of the wrong length, and the MPI library's own
// persistent collective, which would report none, is as safe as a row of
// mpix's own. One MPI_Alltoall of the block lengths and an allreduce, once.
int block_lengths_agree(MPIX_Comm *xcomm, const UserSide &send, const UserSide &recv, bool in_place, bool *agree)
{
    const int p = xcomm->size;
    const UserSide &sending = in_place ? recv : send;
    std::vector<unsigned long long> sends(static_cast<std::size_t>(p)), senders(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q)
        sends[q] = static_cast<unsigned long long>(sending.count(q)) * sending.info.size;
    int rc = MPI_Alltoall(sends.data(), 1, MPI_UNSIGNED_LONG_LONG, senders.data(), 1, MPI_UNSIGNED_LONG_LONG,
                          xcomm->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int mine = 1;
    for (int q = 0; q < p; ++q)
        if (senders[q] != static_cast<unsigned long long>(recv.count(q)) * recv.info.size)
            mine = 0;
    int all = 0;
    rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, xcomm->comm);
    *agree = rc == MPI_SUCCESS && all != 0;
    return rc;
}

}  // namespace

int init_persistent_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv,
                             bool in_place, const MPIX_Info *xinfo, MPIX_Request **request)
{
    if (!request)
        return raise(xcomm->user, MPI_ERR_ARG, fn, "request is NULL (pass the address of an MPIX_Request *)");
    *request = nullptr;
    // Init is a collective call: earlier starts complete first. The comm then
    // has no task, so its state needs no Hold (sched/engine.hpp), and the
    // collectives of init (regions, agreement, plan) block no other thread.
    sched::drain(xcomm);
    LocalMismatch local;
    int rc = check_exchange(xcomm, c, fn, send, recv, in_place, &local, nullptr);  // (a negative count, a NULL buffer: at once)
    if (rc != MPI_SUCCESS)
        return rc;
    const char *why = nullptr;
    if ((rc = check_call_info(xinfo, &why)) != MPI_SUCCESS)
        return raise(xcomm->user, rc, fn, why);
    Hints hints = resolve_hints(xcomm, xinfo);
    const RuleHints *rule_hints = nullptr;
    const Algorithm *algorithm =
        select_algorithm(c, xcomm, hints, selection_side(local, send, recv), in_place, true, &rule_hints);
    // `auto`'s pick of the MPI library's own collective stays where the block
    // lengths agree (block_lengths_agree); otherwise a row that reports them.
    bool keep_pass_through = false;
    // (Conditions equal on every rank: the check is collective. A rank's own
    // mismatch, LocalMismatch, is one of the lengths it checks.)
    if (MPIX_HAVE_PERSISTENT_COLLECTIVES && algorithm->pass_through && !hints.row[static_cast<int>(c)] &&
        hints.trace.empty()) {
        if ((rc = block_lengths_agree(xcomm, send, recv, in_place, &keep_pass_through)) != MPI_SUCCESS)
            return raise_internal(xcomm->user, rc, fn, "the check of the block lengths at init");
    }
    if (!keep_pass_through)
        algorithm = reporting_row(c, hints, algorithm, xcomm->size, true);
    if (rule_hints) {  // the table's values for every key no level set
        const std::map<std::string, std::string> *given[3] = {&xcomm->env_values, &xcomm->info_values,
                                                              xinfo ? &xinfo->values : nullptr};
        apply_rule_hints(*rule_hints, xcomm->lookup, given, 3, &hints);
    }
    xcomm->last_algorithm[static_cast<int>(c)] = algorithm->name;
    std::unique_ptr<ExchangeRequest> r(new ExchangeRequest(xcomm, fn, c, hints, algorithm, true));
    rc = r->init(send, recv, in_place, local);
    if (rc != MPI_SUCCESS)
        return rc;
    *request = r.release();
    return MPI_SUCCESS;
}

}  // namespace mpix

namespace mpix {

int start_nonblocking_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv,
                               bool in_place, MPIX_Request **request)
{
    if (!request)
        return raise(xcomm->user, MPI_ERR_ARG, fn, "request is NULL (pass the address of an MPIX_Request *)");
    *request = nullptr;
    sched::Hold hold(xcomm);  // the comm's state, against its tasks on other threads
    const Algorithm *algorithm = nullptr;
    const RuleHints *rule_hints = nullptr;
    LocalMismatch local;
    int rc = check_and_select(xcomm, c, fn, send, recv, in_place, &local, nullptr, &algorithm, &rule_hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (xcomm->agreement_awaiting)  // auto's statistics: reduced beside the task, never in its messages
        hand_over_agreement(xcomm, algorithm, false);
    algorithm = reporting_row(c, xcomm->hints, algorithm, xcomm->size, false);
    xcomm->last_algorithm[static_cast<int>(c)] = algorithm->name;
    std::unique_ptr<ExchangeRequest, DestroyRequest> r(
        ExchangeRequest::make_nonblocking(xcomm, fn, c, comm_hints_with_rule(xcomm, rule_hints), algorithm));
    if ((rc = r->init(send, recv, in_place, local)) != MPI_SUCCESS)
        return rc;
    if ((rc = r->start(fn)) != MPI_SUCCESS)
        return rc;
    r->active = true;
    *request = r.release();
    return MPI_SUCCESS;
}

}  // namespace mpix
