#include "sched/engine.hpp"
#include "select/neighbor_dispatch.hpp"

#include <memory>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/request.hpp"
#include "core/trace.hpp"
#include "neighbor/neighbor.hpp"
#include "select/dispatch.hpp"
#include "select/registry.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

// Validates one side; fills `user` (counts and displacements copied into
// `counts`/`displs`, so a persistent request keeps them) and its type's description.
int check_side(MPIX_Comm *xcomm, const char *fn, const char *which, const void *buf, const int *counts,
               const int *displs, MPI_Datatype type, std::size_t degree, std::vector<int> *kept_counts,
               std::vector<int> *kept_displs, UserSide *user)
{
    const std::string side(which);
    if (degree > 0 && (!counts || !displs))
        return raise(xcomm->user, MPI_ERR_ARG, fn, (side + " counts or displacements are NULL").c_str());
    if (type == MPI_DATATYPE_NULL)
        return raise(xcomm->user, MPI_ERR_TYPE, fn, (side + " datatype is MPI_DATATYPE_NULL").c_str());
    kept_counts->assign(counts, counts + degree);
    kept_displs->assign(displs, displs + degree);
    bool has_data = false;
    for (int c : *kept_counts) {
        if (c < 0)
            return raise(xcomm->user, MPI_ERR_COUNT, fn, (side + " count is negative").c_str());
        has_data = has_data || c > 0;
    }
    *user = UserSide::per_peer(buf, kept_counts->data(), kept_displs->data(), type);
    const char *why = nullptr;
    if (describe_type(type, xcomm->comm, &user->info, &why) != MPI_SUCCESS)
        return raise(xcomm->user, MPI_ERR_TYPE, fn, (side + " datatype: " + why).c_str());
    if (null_buffer_for(buf, user->info) && has_data && user->info.size > 0)
        return raise(xcomm->user, MPI_ERR_BUFFER, fn, (side + " buffer is NULL").c_str());
    return MPI_SUCCESS;
}

// A wrong-length block is reported after the exchange completed everywhere;
// a neighbour exchange still delivers the other blocks.
const char *const kOtherBlocksArrived = "the other blocks arrived, the other ranks completed";

// The backend: the resolved hint, or `auto` on values every rank agrees on.
// This rank's blocks to ranks of other nodes (a rule may test their agreed maximum).
long long count_offnode_blocks(const Regions &nodes, const void *topo)
{
    long long mine = 0;
    for (int d : static_cast<const MPIX_Topo *>(topo)->destinations)
        mine += nodes.region_of[d] != nodes.my_region;
    return mine;
}

// The backend: the resolved hint, or the selection tables' pick on values every
// rank agrees on.
int select_neighbor(MPIX_Comm *xcomm, const Hints &hints, const MPIX_Topo *topo, const Algorithm **out)
{
    if ((*out = hints.row[static_cast<int>(Collective::neighbor_alltoallv)]))
        return MPI_SUCCESS;
    return select_neighbor_rule(xcomm, count_offnode_blocks, topo, out);
}

// One exchange's byte views and plan; lives for one call or for a request.
class NeighborCall {
public:
    // Checks, describes and plans (collective). Returns a raised error.
    int init(const char *fn, const NeighborArgs &a, const Hints &hints, int tag)
    {
        MPIX_Comm *xcomm = a.xcomm;
        if (!a.topo)
            return raise(xcomm->user, MPI_ERR_ARG, fn, "topo is NULL");
        if (a.topo->xcomm != xcomm)
            return raise(xcomm->user, MPI_ERR_TOPOLOGY, fn, "topo was made on another MPIX_Comm");
        if (a.sendbuf == MPI_IN_PLACE || a.recvbuf == MPI_IN_PLACE)
            return raise(xcomm->user, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed in neighbour exchanges");
        const std::size_t outdegree = a.topo->destinations.size(), indegree = a.topo->sources.size();
        MPIX_CHECK(check_side(xcomm, fn, "send", a.sendbuf, a.sendcounts, a.sdispls, a.sendtype, outdegree,
                              &scounts_, &sdispls_, &send_));
        MPIX_CHECK(check_side(xcomm, fn, "receive", a.recvbuf, a.recvcounts, a.rdispls, a.recvtype, indegree,
                              &rcounts_, &rdispls_, &recv_));
        if (a.indexed) {
            long long send_elements = 0, recv_elements = 0;
            for (int c : scounts_)
                send_elements += c;
            for (int c : rcounts_)
                recv_elements += c;
            if ((send_elements > 0 && !a.sindices) || (recv_elements > 0 && !a.rindices))
                return raise(xcomm->user, MPI_ERR_ARG, fn, "global_sindices or global_rindices is NULL");
        }
        int rc = select_neighbor(xcomm, hints, a.topo, &algorithm_);
        if (rc != MPI_SUCCESS)
            return raise_internal(xcomm->user, rc, fn, "auto");
        xcomm->last_algorithm[static_cast<int>(Collective::neighbor_alltoallv)] = algorithm_->name;
        const int out = static_cast<int>(outdegree), in = static_cast<int>(indegree);
        rc = make_send_side(send_, out, false, xcomm->comm, &xcomm->work, &sb_);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, fn, "the send staging buffer");
        rc = make_recv_side(recv_, in, &xcomm->work, &rb_);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm->user, rc, fn, "the receive staging buffer");
        NeighborExchange x{};
        x.xcomm = xcomm;
        x.comm = xcomm->comm;
        x.rank = xcomm->rank;
        x.tag = tag;
        x.topo = a.topo;
        x.sendbuf = sb_.base;
        x.sendbytes = sb_.bytes.data();
        x.sdispls = sb_.displs.data();
        x.recvbuf = rb_.base;
        x.recvbytes = rb_.bytes.data();
        x.rdispls = rb_.displs.data();
        if (a.indexed && send_.info.size > 0) {
            x.sindices = a.sindices;
            x.send_elem_bytes = send_.info.size;
        }
        x.traced = !hints.trace.empty();
        trace_prefix_ = hints.trace;
        rc = algorithm_->plan_neighbor(x, &plan_);
        if (rc != MPI_SUCCESS)
            return report(xcomm, fn, algorithm_, rc, kOtherBlocksArrived);
        xcomm_ = xcomm;
        return MPI_SUCCESS;
    }
    // Posts one exchange of the send buffer's current contents.
    int start(const char *fn)
    {
        copied_at_start_ = xcomm_->work.bytes();
        xcomm_->work.set_working_set(sb_.total_bytes + rb_.total_bytes);
        int rc = pack_send_side(send_, static_cast<int>(scounts_.size()), xcomm_->comm, &xcomm_->work, &sb_);
        if (rc != MPI_SUCCESS)
            return raise_staging(xcomm_->user, rc, fn, "the send staging buffer");
        rc = plan_->start();
        return rc == MPI_SUCCESS ? MPI_SUCCESS : report(xcomm_, fn, algorithm_, rc, kOtherBlocksArrived);
    }
    int progress(const char *fn, bool blocking, bool *done)
    {
        int rc;
        {
            WorldErrorsReturn world_returns(xcomm_->world_available);  // a truncated receive must come back here
            if (blocking) {
                rc = plan_->wait();
                *done = true;
            } else {
                rc = plan_->test(done);
            }
        }
        if (rc == MPI_SUCCESS && !*done)
            return MPI_SUCCESS;
        *done = true;
        rc = finish_exchange(rc, plan_->mismatch, recv_, static_cast<int>(rcounts_.size()), rb_, xcomm_->comm,
                             &xcomm_->work);
        write_trace();
        return report(xcomm_, fn, algorithm_, rc, kOtherBlocksArrived);
    }
    const NeighborPlan *plan() const { return plan_.get(); }

private:
    // One completed exchange's messages, as the plan listed them, to the trace.
    void write_trace() const
    {
        std::unique_ptr<Trace> trace = open_trace(trace_prefix_, xcomm_->trace_group, xcomm_->rank,
                                                  collective_name(Collective::neighbor_alltoallv), algorithm_->name,
                                                  &xcomm_->work);
        if (!trace)
            return;
        trace->count_copies(&xcomm_->work, copied_at_start_);  // since the start, not since now
        for (const NeighborTraceRow &r : plan_->trace_rows)
            trace->round(r.round, r.send_peer, r.recv_peer, r.blocks, r.bytes_sent, r.bytes_recv);
    }

    MPIX_Comm *xcomm_ = nullptr;
    std::uint64_t copied_at_start_ = 0;  // the comm's copied bytes when this exchange started
    std::string trace_prefix_;
    std::vector<int> scounts_, sdispls_, rcounts_, rdispls_;
    UserSide send_, recv_;
    BlockSide sb_, rb_;
    const Algorithm *algorithm_ = nullptr;
    std::unique_ptr<NeighborPlan> plan_;
};

// The posted kind of MPIX_Request: start posts the plan's first messages, test
// and wait move it through its phases.
class NeighborRequest : public MPIX_Request {
public:
    NeighborRequest(MPIX_Comm *xcomm_, const char *init_fn_) : MPIX_Request(xcomm_, init_fn_) {}
    int start(const char *fn) override { return call.start(fn); }
    int test(const char *fn, bool *done) override { return call.progress(fn, false, done); }
    int wait(const char *fn) override
    {
        bool done = false;
        return call.progress(fn, true, &done);
    }
    NeighborCall call;
};

}  // namespace

int run_neighbor(const char *fn, const NeighborArgs &args)
{
    MPIX_Comm *xcomm = args.xcomm;
    sched::drain(xcomm);  // started exchanges complete first (sched/engine.hpp)
    NeighborCall call;
    MPIX_CHECK(call.init(fn, args, xcomm->hints, allocate_tags(xcomm)));
    MPIX_CHECK(call.start(fn));
    bool done = false;
    return call.progress(fn, true, &done);
}

int init_neighbor(const char *fn, const NeighborArgs &args, const MPIX_Info *xinfo, MPIX_Request **request)
{
    MPIX_Comm *xcomm = args.xcomm;
    if (!request)
        return raise(xcomm->user, MPI_ERR_ARG, fn, "request is NULL (pass the address of an MPIX_Request *)");
    sched::drain(xcomm);  // started exchanges complete first (sched/engine.hpp)
    const char *why = nullptr;
    if (int rc = check_call_info(xinfo, &why))
        return raise(xcomm->user, rc, fn, why);
    const Hints hints = resolve_hints(xcomm, xinfo);
    std::unique_ptr<NeighborRequest> r(new NeighborRequest(xcomm, fn));
    MPIX_CHECK(r->call.init(fn, args, hints, allocate_persistent_tags(xcomm)));
    *request = r.release();
    return MPI_SUCCESS;
}

std::size_t neighbor_internode_bytes(const MPIX_Request *request)
{
    const auto *r = dynamic_cast<const NeighborRequest *>(request);
    return r && r->call.plan() ? r->call.plan()->internode_bytes : 0;
}

}  // namespace mpix
