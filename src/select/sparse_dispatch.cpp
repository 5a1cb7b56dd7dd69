// Sparse dynamic data exchange once the entry point has checked its arguments:
// messages from the send side, backend selection, the backend, and the inbox.
#include "sched/engine.hpp"
#include "select/sparse_dispatch.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/request.hpp"
#include "core/trace.hpp"
#include "select/registry.hpp"
#include "topo/topology.hpp"

using namespace mpix;

// The statistic `auto` agrees on when aggregation by node is an option: the
// largest number of messages one rank sends to other nodes.
int mpix::agreed_max_remote_sends(const int *dests, std::size_t ndests, const Regions *reg, MPI_Comm comm,
                                  long long *max_sends)
{
    long long mine = 0;
    for (std::size_t i = 0; i < ndests; ++i)
        if (reg->region_of[dests[i]] != reg->my_region)
            ++mine;
    return MPI_Allreduce(&mine, max_sends, 1, MPI_LONG_LONG, MPI_MAX, comm);
}

namespace {

// The agreed maximum of messages to other regions, when a rule tests it.
int remote_sends_of(const Regions &reg, const void *exchange, long long *agreed)
{
    const SparseExchange &x = *static_cast<const SparseExchange *>(exchange);
    std::vector<int> dests;
    dests.reserve(x.sends.size());
    for (const SparseMessage &m : x.sends)
        dests.push_back(m.dest);
    return agreed_max_remote_sends(dests.data(), dests.size(), &reg, x.comm, agreed);
}

// Runs the selected backend; fills the inbox sorted by source (`order`).
int run_sparse(MPIX_Comm *xcomm, Collective c, const char *fn, SparseExchange &x, const Hints &hints,
               const std::map<std::string, std::string> *call_values, std::vector<std::size_t> *order)
{
    x.xcomm = xcomm;
    x.comm = xcomm->comm;
    x.size = xcomm->size;
    x.rank = xcomm->rank;
    x.tag = allocate_tags(xcomm);
    x.hints = &hints;
    const Algorithm *a = nullptr;
    const RuleHints *rule_hints = nullptr;
    int rc = select_sparse_rule(xcomm, c, hints, remote_sends_of, &x, &a, &rule_hints);
    if (rc != MPI_SUCCESS)
        return raise_internal(xcomm->user, rc, fn, "auto");
    Hints with_rule;
    if (rule_hints) {  // the table's values for every key no level set
        with_rule = hints;
        const std::map<std::string, std::string> *given[3] = {&xcomm->env_values, &xcomm->info_values, call_values};
        apply_rule_hints(*rule_hints, xcomm->lookup, given, 3, &with_rule);
        x.hints = &with_rule;
    }
    std::unique_ptr<Trace> trace =
        open_trace(hints.trace, xcomm->trace_group, x.rank, collective_name(c), a->name, &xcomm->work);
    x.trace = trace.get();
    rc = a->run_sparse(x);
    trace.reset();  // written now; x must not keep it
    x.trace = nullptr;
    if (rc != MPI_SUCCESS)
        return raise_internal(xcomm->user, rc, fn, a->name);
    const SparseInbox &in = *x.inbox;
    order->resize(in.count());
    std::iota(order->begin(), order->end(), std::size_t(0));
    std::stable_sort(order->begin(), order->end(),
                     [&](std::size_t i, std::size_t j) { return in.source[i] < in.source[j]; });
    return MPI_SUCCESS;
}

// Messages as byte ranges: in place for contiguous types, else packed.
int make_messages(int nnz, const int *dest, const char *vals, const int *counts, const int *displs, int count,
                  MPI_Datatype type, const TypeInfo &ti, MPI_Comm comm, LocalWork *work, ScratchBytes *staging,
                  std::vector<SparseMessage> *out)
{
    out->resize(nnz);
    std::size_t total = 0;
    for (int i = 0; i < nnz; ++i)
        total += static_cast<std::size_t>(counts ? counts[i] : count) * ti.size;
    if (!ti.contiguous && !staging->resize(total))
        return MPI_ERR_NO_MEM;
    std::size_t at = 0;
    for (int i = 0; i < nnz; ++i) {
        std::size_t n = static_cast<std::size_t>(counts ? counts[i] : count);
        MPI_Aint d = static_cast<MPI_Aint>(displs ? displs[i] : static_cast<long long>(i) * count) * ti.extent;
        SparseMessage &m = (*out)[i];
        m.dest = dest[i];
        m.bytes = n * ti.size;
        if (ti.contiguous) {
            m.data = vals + d;
        } else {
            MPIX_CHECK(pack_elements(vals + d, n, type, ti, staging->data() + at, comm, work));
            m.data = staging->data() + at;
            at += m.bytes;
        }
    }
    return MPI_SUCCESS;
}

}  // namespace

// What both entry points do once their arguments are checked: messages from the
// send side (alltoall_crs: every message is `count` elements), the selected
// backend, and what arrived in `inbox`, sorted by source through `order`.
// Errors are raised here.
int mpix::exchange_messages(MPIX_Comm *xcomm, MPIX_Info *xinfo, Collective c, const char *fn, int recv_nnz_cap,
                      int nnz, const int *dest, const void *vals, const int *counts, const int *displs, int count,
                      MPI_Datatype type, const TypeInfo &ti, SparseInbox *inbox, std::vector<std::size_t> *order)
{
    sched::drain(xcomm);  // started exchanges complete first (sched/engine.hpp)
    const char *why = nullptr;
    if (int rc = check_call_info(xinfo, &why))
        return raise(xcomm->user, rc, fn, why);
    Hints hints = resolve_hints(xcomm, xinfo);
    ScratchBytes staging(&xcomm->scratch);  // packed sendvals of a non-contiguous type: a warm buffer
    SparseExchange x{};
    x.uniform = c == Collective::alltoall_crs;
    x.block_bytes = x.uniform ? static_cast<std::size_t>(count) * ti.size : 0;
    x.known_recv_nnz = hints.crs_recv_nnz_known ? recv_nnz_cap : -1;
    x.inbox = inbox;
    if (xcomm->work.charged()) {
        // The received bytes are not known yet: the sent ones, twice, stand for both sides.
        std::size_t sent = 0;
        for (int i = 0; i < nnz; ++i)
            sent += static_cast<std::size_t>(counts ? counts[i] : count) * ti.size;
        xcomm->work.set_working_set(2 * sent);
    }
    int rc = make_messages(nnz, dest, static_cast<const char *>(vals), counts, displs, count, type, ti, xcomm->comm,
                           &xcomm->work, &staging, &x.sends);
    if (rc != MPI_SUCCESS)
        return raise_staging(xcomm->user, rc, fn, "the packed sendvals");
    return run_sparse(xcomm, c, fn, x, hints, xinfo ? &xinfo->values : nullptr, order);
}
