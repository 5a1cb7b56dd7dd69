// The runner (bench/runner.hpp): layouts, buffers, one call of a collective,
// verification and timing.
#include "runner.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <thread>

#include "compute.hpp"
#include "config.h"
#ifdef __linux__
#include <sched.h>
#endif
#include "core/comm.hpp"
#include "select/registry.hpp"
#include "select/sparse_dispatch.hpp"
#include "topo/topology.hpp"
#include "workloads.hpp"
#if MPIX_SMPI
#include <simgrid/s4u.hpp>

#include "bound_simgrid.hpp"
#endif

namespace mpixbench {

namespace {

using mpix::Collective;

bool is_crs(Collective c) { return c == Collective::alltoall_crs || c == Collective::alltoallv_crs; }
// MPIX_Alltoall and alltoall_crs: every block is S bytes.
bool is_uniform(Collective c) { return c == Collective::alltoall || c == Collective::alltoall_crs; }
// crs and neighbour collectives: blocks to and from the peers with data only.
bool uses_sparse_view(Collective c) { return is_crs(c) || c == Collective::neighbor_alltoallv; }

// The byte every block carries at index k: a function of source, destination and
// index, so a misplaced or shifted block is caught.
unsigned char pattern(int src, int dst, std::size_t k)
{
    return (unsigned char)(src * 251u + dst * 241u + k * 239u + (k >> 8) * 13u + 7u);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string error_text(int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        return "MPI error code " + std::to_string(code);
    std::string out(text, (std::size_t)length);
    while (!out.empty() && out.back() == ' ')  // MPICH pads some class texts
        out.pop_back();
    return out;
}

// MPIX_Info_set raises its errors on MPI_COMM_SELF (fatal by default): within
// this scope they return, so a rejected hint fails one measurement only.
class SelfErrorsReturn {
public:
    SelfErrorsReturn()
    {
        MPI_Comm_get_errhandler(MPI_COMM_SELF, &previous_);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    }
    ~SelfErrorsReturn()
    {
        MPI_Comm_set_errhandler(MPI_COMM_SELF, previous_);
        MPI_Errhandler_free(&previous_);
    }
    SelfErrorsReturn(const SelfErrorsReturn &) = delete;
    SelfErrorsReturn &operator=(const SelfErrorsReturn &) = delete;

private:
    MPI_Errhandler previous_ = MPI_ERRHANDLER_NULL;
};

// Ordinary memory, or under SMPI SMPI_SHARED_MALLOC for large buffers (content
// then shared by all simulated ranks, so it cannot be verified).
class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    ~Buffer() { release(); }

    void allocate(std::size_t bytes, bool shared)
    {
        release();
#if MPIX_SMPI
        if (shared) {
            data_ = (char *)SMPI_SHARED_MALLOC(bytes ? bytes : 1);
            shared_ = true;
            bytes_ = bytes;
            return;
        }
#else
        (void)shared;
#endif
        data_ = (char *)std::malloc(bytes ? bytes : 1);
        shared_ = false;
        bytes_ = bytes;
    }
    char *data() const { return data_; }
    std::size_t size() const { return bytes_; }

private:
    void release()
    {
#if MPIX_SMPI
        if (shared_ && data_) {
            SMPI_SHARED_FREE(data_);
            data_ = nullptr;
        }
#endif
        std::free(data_);
        data_ = nullptr;
        bytes_ = 0;
    }

    char *data_ = nullptr;
    std::size_t bytes_ = 0;
    bool shared_ = false;
};

// One exchange's layout for this rank. Counts and displacements are int only
// because the MPI interfaces take them so (with MPI_BYTE); offsets are computed
// in size_t and checked against INT_MAX first.
struct Layout {
    std::vector<int> send_counts, send_displs, recv_counts, recv_displs;  // every rank's block
    // crs and neighbor_alltoallv: peers with a non-empty block, self excluded (the
    // neighbour topology's destinations and sources, in rank order), packed.
    std::vector<int> dest, src;
    std::vector<int> sparse_send_counts, sparse_send_displs, sparse_recv_counts, sparse_recv_displs;
    std::size_t send_bytes = 0, recv_bytes = 0, sparse_send_bytes = 0, sparse_recv_bytes = 0;
};

}  // namespace

const char *mpi_collective_name(Collective coll)
{
    switch (coll) {
    case Collective::alltoall:
        return "MPI_Alltoall";
    case Collective::alltoallv:
        return "MPI_Alltoallv";
    case Collective::neighbor_alltoallv:
        return "MPI_Neighbor_alltoallv";
    default:
        return nullptr;
    }
}

bool mpi_collective_available(Collective coll)
{
    return mpi_collective_name(coll) && !(coll == Collective::neighbor_alltoallv && MPIX_SMPI);
}

struct Runner::State {
    RunnerOptions options;
    MPI_Comm comm = MPI_COMM_NULL;  // our duplicate: the MPI library's collective and agreements
    MPIX_Comm *xcomm = nullptr;
    int ranks = 1, me = 0;
    int nodes = 1, ranks_per_node_max = 1;
    std::vector<int> node_of;  // rank -> node as the library sees it (real or emulated)
    std::string init_error;    // the constructor's failure, reported by every prepare

    Workload workload;
    std::string loaded_dist;  // matrix and traffic files are read once, not per point
    bool workload_loaded = false;
    Point point{Collective::alltoallv, 0, "", 1};
    bool prepared = false;
    Layout layout;
    Buffer send_buffer, recv_buffer;
    std::vector<char> send_kept;  // RunnerOptions::write_send: what the send buffer holds
    bool shared_buffers = false;  // SMPI's shared memory: nothing to verify
    unsigned long long mean_block_bytes = 0, max_block_bytes = 0;
    // The crs collectives' outputs of the last call, checked by verify().
    int crs_recv_nnz = 0, crs_recv_size = 0;
    std::vector<int> crs_src_out, crs_recv_counts_out, crs_recv_displs_out;
    MPIX_Topo *topo = nullptr;        // neighbor_alltoallv: this point's topology
    MPI_Comm graph = MPI_COMM_NULL;   // ... and the MPI library's (natively)
#if MPIX_SMPI
    // The simulated platform, for lower_bound (set up on its first use).
    std::vector<int> host_node_of;  // rank -> simulated host (node), by first appearance
    mpix::sim::Network network;     // rank 0
    double latency_in_node = 0, latency_between_nodes = 0;
    mpix::sim::OverheadModel model;
    std::map<std::pair<long long, long long>, double> path_memo;
#endif

    ~State()
    {
        free_topology();
        if (xcomm)
            MPIX_Comm_free(&xcomm);
        if (comm != MPI_COMM_NULL)
            MPI_Comm_free(&comm);
    }

    Collective coll() const { return point.coll; }
    std::size_t block_bytes(int src, int dst) const
    {
        return workload.bytes(src, dst, point.size, point.seed, me);
    }
    // 0 when every rank's `problem` is empty; otherwise 2, and `why` names the
    // first rank with a problem and its text.
    int agree(const std::string &problem, std::string *why) const;
    std::string make_layout();
    std::vector<unsigned long long> sent_row() const;
    int make_topology();
    void free_topology();
    std::string set_candidate_info(const Candidate &c);
    int call(bool mpi);
    // The nonblocking form (alltoall, alltoallv): start, test, wait. A request
    // that is complete (or never started) is NULL / MPI_REQUEST_NULL, which
    // test and wait take as done.
    int start(bool mpi, MPIX_Request **xreq, MPI_Request *mreq);
    int test(bool mpi, MPIX_Request **xreq, MPI_Request *mreq, int *flag);
    int wait(bool mpi, MPIX_Request **xreq, MPI_Request *mreq);
    std::unique_ptr<Compute> compute;  // --overlap's computation, made on first use
    Compute &computation()
    {
        if (!compute)
            compute.reset(new Compute());
        return *compute;
    }
    // Whether MPI_Wtime readings compare across the ranks (MPI_WTIME_IS_GLOBAL,
    // as under SimGrid SMPI, or every rank on one host); found on first use.
    int clocks = -1;  // -1: not yet known
    bool clocks_compare();
    // RunnerOptions::start_clock's margin: how long after the latest rank's
    // arrival every rank has learnt it (measured on first use).
    double start_margin = -1;
    // Starts one timed call: the barrier, or with start_clock the agreed
    // instant. Returns this rank's start (MPI_Wtime).
    double start_call();
    // The median over the timed calls of the ranks' start spread (the latest
    // rank's start minus the earliest's), in us; -1 where the clocks do not compare.
    double start_spread_us(const std::vector<double> &starts);
    // Under SMPI, what the MPI library does with this rank's own block (a copy,
    // or a message to itself), charged at the library's model as mpix's pmpi
    // row charges it (core/local_work.hpp).
    void charge_mpi_own_block(std::size_t bytes, bool vector, bool nonblocking)
    {
        mpix::LocalWork &work = xcomm->work;
        work.set_working_set(layout.send_bytes + layout.recv_bytes);
        work.charge_mpi_own_block(bytes, mpix::mpi_library_sends_own_block(vector, nonblocking, false, bytes, ranks));
    }
    int init_persistent(bool mpi, MPIX_Request **xreq, MPI_Request *mreq);
    void fill();
    void write_send();
    bool verify() const;
    std::string picked();
};

int Runner::State::agree(const std::string &problem, std::string *why) const
{
    int mine = problem.empty() ? ranks : me, first = ranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == ranks)
        return 0;
    int length = me == first ? (int)problem.size() : 0;
    MPI_Bcast(&length, 1, MPI_INT, first, comm);
    std::string text = me == first ? problem : std::string((std::size_t)length, ' ');
    MPI_Bcast(&text[0], length, MPI_CHAR, first, comm);
    if (why)
        *why = "rank " + std::to_string(first) + ": " + text;
    return 2;
}

std::string Runner::State::make_layout()
{
    Layout &l = layout;
    const bool uniform = is_uniform(coll());
    const std::size_t scale = (std::size_t)point.size;
    l = Layout();
    l.send_counts.assign(ranks, 0);
    l.recv_counts.assign(ranks, 0);
    l.send_displs.assign(ranks, 0);
    l.recv_displs.assign(ranks, 0);
    std::size_t send_offset = 0, recv_offset = 0;
    for (int j = 0; j < ranks; ++j) {
        std::size_t to = uniform ? scale : block_bytes(me, j);
        std::size_t from = uniform ? scale : block_bytes(j, me);
        if (send_offset + to > (std::size_t)INT_MAX || recv_offset + from > (std::size_t)INT_MAX)
            return "a rank's data exceeds 2^31-1 bytes (int displacements)";
        l.send_counts[j] = (int)to;
        l.recv_counts[j] = (int)from;
        l.send_displs[j] = (int)send_offset;
        l.recv_displs[j] = (int)recv_offset;
        send_offset += to;
        recv_offset += from;
    }
    l.send_bytes = send_offset;
    l.recv_bytes = recv_offset;
    if (!uses_sparse_view(coll()))
        return "";
    // The non-empty blocks to and from other ranks, packed in rank order (alltoall_crs:
    // S bytes to the peers the workload has a block for).
    std::size_t sparse_send = 0, sparse_recv = 0;
    for (int j = 0; j < ranks; ++j) {
        if (j == me)
            continue;
        bool to = uniform ? block_bytes(me, j) > 0 : l.send_counts[j] > 0;
        bool from = uniform ? block_bytes(j, me) > 0 : l.recv_counts[j] > 0;
        if (to) {
            l.dest.push_back(j);
            l.sparse_send_counts.push_back(l.send_counts[j]);
            l.sparse_send_displs.push_back((int)sparse_send);
            sparse_send += (std::size_t)l.send_counts[j];
        }
        if (from) {
            l.src.push_back(j);
            l.sparse_recv_counts.push_back(l.recv_counts[j]);
            l.sparse_recv_displs.push_back((int)sparse_recv);
            sparse_recv += (std::size_t)l.recv_counts[j];
        }
    }
    l.sparse_send_bytes = sparse_send;
    l.sparse_recv_bytes = sparse_recv;
    return "";
}

// The bytes this rank sends to each rank in the prepared exchange (sparse
// collectives: their messages only).
std::vector<unsigned long long> Runner::State::sent_row() const
{
    std::vector<unsigned long long> row((std::size_t)ranks, 0);
    if (!prepared)
        return row;
    if (uses_sparse_view(coll())) {
        for (std::size_t i = 0; i < layout.dest.size(); ++i)
            row[(std::size_t)layout.dest[i]] = (unsigned long long)layout.sparse_send_counts[i];
    } else {
        for (int j = 0; j < ranks; ++j)
            row[(std::size_t)j] = (unsigned long long)layout.send_counts[j];
    }
    return row;
}

// neighbor_alltoallv: the topology from the layout's sources and destinations
// (rank order); natively also the MPI library's distributed graph.
int Runner::State::make_topology()
{
    const Layout &l = layout;
    int rc = MPIX_Topo_init((int)l.src.size(), l.src.data(), MPI_UNWEIGHTED, (int)l.dest.size(), l.dest.data(),
                            MPI_UNWEIGHTED, xcomm, &topo);
#if !MPIX_SMPI
    if (rc == MPI_SUCCESS)
        rc = MPI_Dist_graph_create_adjacent(comm, (int)l.src.size(), l.src.data(), MPI_UNWEIGHTED,
                                            (int)l.dest.size(), l.dest.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                            &graph);
#endif
    return rc;
}

void Runner::State::free_topology()
{
    if (topo)
        MPIX_Topo_free(&topo);
    if (graph != MPI_COMM_NULL)
        MPI_Comm_free(&graph);
}

// The candidate's algorithm and hints as this communicator's info; the error
// text of the first hint the library refuses (nothing set then), or empty.
// No agreement: every rank holds the same candidate and MPIX_Info_set judges it
// alike everywhere; MPIX_Comm_set_info agrees itself where it communicates (a
// tuning file is read on rank 0). An extra reduction here would shift the
// simulated times of every row under SMPI.
std::string Runner::State::set_candidate_info(const Candidate &c)
{
    MPIX_Info *info = nullptr;
    std::string problem;
    {
        SelfErrorsReturn quiet;
        MPIX_Info_init(&info);
        const std::string algorithm_key = std::string(mpix::collective_name(coll())) + "_algorithm";
        int rc = MPIX_Info_set(info, algorithm_key.c_str(), c.algorithm.c_str());
        if (rc != MPI_SUCCESS)
            problem = "algorithm " + c.algorithm + ": " + error_text(rc);
        // Every hint as it is: keys the library adds later pass through unchanged.
        for (const auto &kv : c.hints) {
            if (!problem.empty())
                break;
            rc = MPIX_Info_set(info, kv.first.c_str(), kv.second.c_str());
            if (rc != MPI_SUCCESS)
                problem = "hint " + kv.first + "=" + kv.second + ": " + error_text(rc);
        }
    }
    if (problem.empty()) {
        int rc = MPIX_Comm_set_info(xcomm, info);
        if (rc != MPI_SUCCESS) {
            problem = "MPIX_Comm_set_info: " + error_text(rc);
            MPIX_Comm_set_info(xcomm, nullptr);  // no half-set hints for the next candidate
        }
    }
    MPIX_Info_free(&info);
    return problem;
}

// One call of the collective with the algorithm on the communicator's info (or
// the MPI library's own).
int Runner::State::call(bool mpi)
{
    const Layout &l = layout;
    const char *sb = send_buffer.data();
    char *rb = recv_buffer.data();
    const int scale = (int)point.size;
    switch (coll()) {
    case Collective::neighbor_alltoallv:
        if (mpi)
            return MPI_Neighbor_alltoallv(sb, l.sparse_send_counts.data(), l.sparse_send_displs.data(), MPI_BYTE, rb,
                                          l.sparse_recv_counts.data(), l.sparse_recv_displs.data(), MPI_BYTE, graph);
        return MPIX_Neighbor_alltoallv(sb, l.sparse_send_counts.data(), l.sparse_send_displs.data(), MPI_BYTE, rb,
                                       l.sparse_recv_counts.data(), l.sparse_recv_displs.data(), MPI_BYTE, topo,
                                       xcomm);
    case Collective::alltoall:
        if (mpi) {
            charge_mpi_own_block((std::size_t)scale, false, false);
            return MPI_Alltoall(sb, scale, MPI_BYTE, rb, scale, MPI_BYTE, comm);
        }
        return MPIX_Alltoall(sb, scale, MPI_BYTE, rb, scale, MPI_BYTE, xcomm);
    case Collective::alltoallv:
        if (mpi) {
            charge_mpi_own_block((std::size_t)l.recv_counts[me], true, false);
            return MPI_Alltoallv(sb, l.send_counts.data(), l.send_displs.data(), MPI_BYTE, rb, l.recv_counts.data(),
                                 l.recv_displs.data(), MPI_BYTE, comm);
        }
        return MPIX_Alltoallv(sb, l.send_counts.data(), l.send_displs.data(), MPI_BYTE, rb, l.recv_counts.data(),
                              l.recv_displs.data(), MPI_BYTE, xcomm);
    case Collective::alltoall_crs:
        crs_recv_nnz = ranks;
        crs_src_out.assign((std::size_t)ranks, -1);
        return MPIX_Alltoall_crs((int)l.dest.size(), l.dest.data(), scale, MPI_BYTE, sb, &crs_recv_nnz,
                                 crs_src_out.data(), scale, MPI_BYTE, rb, nullptr, xcomm);
    case Collective::alltoallv_crs:
        crs_recv_nnz = ranks;
        crs_recv_size = (int)l.sparse_recv_bytes;
        crs_src_out.assign((std::size_t)ranks, -1);
        crs_recv_counts_out.assign((std::size_t)ranks, -1);
        crs_recv_displs_out.assign((std::size_t)ranks, -1);
        return MPIX_Alltoallv_crs((int)l.dest.size(), (int)l.sparse_send_bytes, l.dest.data(),
                                  l.sparse_send_counts.data(), l.sparse_send_displs.data(), MPI_BYTE, sb,
                                  &crs_recv_nnz, &crs_recv_size, crs_src_out.data(), crs_recv_counts_out.data(),
                                  crs_recv_displs_out.data(), MPI_BYTE, rb, nullptr, xcomm);
    }
    return MPI_ERR_ARG;
}

int Runner::State::start(bool mpi, MPIX_Request **xreq, MPI_Request *mreq)
{
    const Layout &l = layout;
    const char *sb = send_buffer.data();
    char *rb = recv_buffer.data();
    const int scale = (int)point.size;
    switch (coll()) {
    case Collective::alltoall:
        if (mpi) {
            charge_mpi_own_block((std::size_t)scale, false, true);
            return MPI_Ialltoall(sb, scale, MPI_BYTE, rb, scale, MPI_BYTE, comm, mreq);
        }
        return MPIX_Ialltoall(sb, scale, MPI_BYTE, rb, scale, MPI_BYTE, xcomm, xreq);
    case Collective::alltoallv:
        if (mpi) {
            charge_mpi_own_block((std::size_t)l.recv_counts[me], true, true);
            return MPI_Ialltoallv(sb, l.send_counts.data(), l.send_displs.data(), MPI_BYTE, rb, l.recv_counts.data(),
                                  l.recv_displs.data(), MPI_BYTE, comm, mreq);
        }
        return MPIX_Ialltoallv(sb, l.send_counts.data(), l.send_displs.data(), MPI_BYTE, rb, l.recv_counts.data(),
                               l.recv_displs.data(), MPI_BYTE, xcomm, xreq);
    default:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
}

int Runner::State::test(bool mpi, MPIX_Request **xreq, MPI_Request *mreq, int *flag)
{
    return mpi ? MPI_Test(mreq, flag, MPI_STATUS_IGNORE) : MPIX_Test(xreq, flag, MPI_STATUS_IGNORE);
}

int Runner::State::wait(bool mpi, MPIX_Request **xreq, MPI_Request *mreq)
{
    return mpi ? MPI_Wait(mreq, MPI_STATUS_IGNORE) : MPIX_Wait(xreq, MPI_STATUS_IGNORE);
}

// A persistent request (collective): mpix's *_init with the communicator's
// hints, or (mpi) the MPI library's MPI_*_init where it has them (MPI-4; not
// SimGrid SMPI). MPI_ERR_UNSUPPORTED_OPERATION when there is none.
int Runner::State::init_persistent(bool mpi, MPIX_Request **xreq, MPI_Request *mreq)
{
    const Layout &l = layout;
    const char *sb = send_buffer.data();
    char *rb = recv_buffer.data();
    const int scale = (int)point.size;
    if (is_crs(coll()))
        return MPI_ERR_UNSUPPORTED_OPERATION;
    if (mpi) {
#if MPI_VERSION >= 4 && !MPIX_SMPI
        if (coll() == Collective::neighbor_alltoallv)
            return MPI_Neighbor_alltoallv_init(sb, l.sparse_send_counts.data(), l.sparse_send_displs.data(), MPI_BYTE,
                                               rb, l.sparse_recv_counts.data(), l.sparse_recv_displs.data(),
                                               MPI_BYTE, graph, MPI_INFO_NULL, mreq);
        if (coll() == Collective::alltoall)
            return MPI_Alltoall_init(sb, scale, MPI_BYTE, rb, scale, MPI_BYTE, comm, MPI_INFO_NULL, mreq);
        return MPI_Alltoallv_init(sb, l.send_counts.data(), l.send_displs.data(), MPI_BYTE, rb, l.recv_counts.data(),
                                  l.recv_displs.data(), MPI_BYTE, comm, MPI_INFO_NULL, mreq);
#else
        (void)mreq;
        return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
    }
    if (coll() == Collective::neighbor_alltoallv)
        return MPIX_Neighbor_alltoallv_init(sb, l.sparse_send_counts.data(), l.sparse_send_displs.data(), MPI_BYTE,
                                            rb, l.sparse_recv_counts.data(), l.sparse_recv_displs.data(), MPI_BYTE,
                                            topo, xcomm, nullptr, xreq);
    if (coll() == Collective::alltoall)
        return MPIX_Alltoall_init(sb, scale, MPI_BYTE, rb, scale, MPI_BYTE, xcomm, nullptr, xreq);
    return MPIX_Alltoallv_init(sb, l.send_counts.data(), l.send_displs.data(), MPI_BYTE, rb, l.recv_counts.data(),
                               l.recv_displs.data(), MPI_BYTE, xcomm, nullptr, xreq);
}

// The send buffer gets the pattern, the receive buffer its complement (so a
// block never written is caught).
void Runner::State::fill()
{
    const Layout &l = layout;
    char *sb = send_buffer.data();
    char *rb = recv_buffer.data();
    send_kept.clear();  // write_send takes the new contents
    if (uses_sparse_view(coll())) {
        for (std::size_t i = 0; i < l.dest.size(); ++i)
            for (std::size_t k = 0; k < (std::size_t)l.sparse_send_counts[i]; ++k)
                sb[(std::size_t)l.sparse_send_displs[i] + k] = (char)pattern(me, l.dest[i], k);
        for (std::size_t i = 0; i < l.src.size(); ++i)
            for (std::size_t k = 0; k < (std::size_t)l.sparse_recv_counts[i]; ++k)
                rb[(std::size_t)l.sparse_recv_displs[i] + k] = (char)~pattern(l.src[i], me, k);
        return;
    }
    for (int j = 0; j < ranks; ++j) {
        for (std::size_t k = 0; k < (std::size_t)l.send_counts[j]; ++k)
            sb[(std::size_t)l.send_displs[j] + k] = (char)pattern(me, j, k);
        for (std::size_t k = 0; k < (std::size_t)l.recv_counts[j]; ++k)
            rb[(std::size_t)l.recv_displs[j] + k] = (char)~pattern(j, me, k);
    }
}

// RunnerOptions::write_send: the send buffer written again from a copy taken
// the first time (and again after each fill), outside the timing. Nothing to
// do in shared SMPI buffers, whose bytes no one checks.
void Runner::State::write_send()
{
    const std::size_t bytes = send_buffer.size();
    if (!options.write_send || shared_buffers || bytes == 0)
        return;
    char *sb = send_buffer.data();
    if (send_kept.size() != bytes)
        send_kept.assign(sb, sb + bytes);
    std::memcpy(sb, send_kept.data(), bytes);
}

// Element-by-element check of the last call's output against the bytes every
// correct exchange delivers for this layout (crs: also the reported sources,
// counts and sizes).
bool Runner::State::verify() const
{
    const Layout &l = layout;
    const unsigned char *rb = (const unsigned char *)recv_buffer.data();
    auto block_is = [&](std::size_t offset, std::size_t count, int src) {
        for (std::size_t k = 0; k < count; ++k)
            if (rb[offset + k] != pattern(src, me, k))
                return false;
        return true;
    };
    if (coll() == Collective::neighbor_alltoallv) {
        for (std::size_t i = 0; i < l.src.size(); ++i)
            if (!block_is((std::size_t)l.sparse_recv_displs[i], (std::size_t)l.sparse_recv_counts[i], l.src[i]))
                return false;
        return true;
    }
    if (!is_crs(coll())) {
        for (int j = 0; j < ranks; ++j)
            if (!block_is((std::size_t)l.recv_displs[j], (std::size_t)l.recv_counts[j], j))
                return false;
        return true;
    }
    if (crs_recv_nnz != (int)l.src.size())
        return false;
    for (std::size_t i = 0; i < l.src.size(); ++i) {
        if (crs_src_out[i] != l.src[i])
            return false;
        std::size_t offset = (std::size_t)l.sparse_recv_displs[i];
        std::size_t count = is_uniform(coll()) ? (std::size_t)point.size : (std::size_t)l.sparse_recv_counts[i];
        if (coll() == Collective::alltoallv_crs) {
            if (crs_recv_counts_out[i] != l.sparse_recv_counts[i] || crs_recv_displs_out[i] < 0)
                return false;
            offset = (std::size_t)crs_recv_displs_out[i];
        }
        if (!block_is(offset, count, l.src[i]))
            return false;
    }
    return coll() != Collective::alltoallv_crs || crs_recv_size == (int)l.sparse_recv_bytes;
}

// What `auto` ran: the row the library recorded for the last call (agreed by
// the library; asking the rule again would take part in its agreement), or for
// the crs collectives, which record none, their rule on the statistics the
// library agrees on (src/select/sparse_dispatch.cpp). Collective.
std::string Runner::State::picked()
{
    if (!is_crs(coll())) {
        const char *name = xcomm->last_algorithm[static_cast<int>(coll())];
        return name ? name : "?";
    }
    mpix::Hints hints = mpix::resolve_hints(xcomm, nullptr);
    const mpix::Regions *regions = nullptr;
    long long max_remote_sends = 0;
    int count = 0;
    if (hints.algorithm_for(coll()) == "auto" && !hints.crs_recv_nnz_known &&
        mpix::get_regions(xcomm, hints.locality, &regions) == MPI_SUCCESS && regions) {
        count = regions->count;
        if (mpix::sparse_auto_needs_stats(count))
            mpix::agreed_max_remote_sends(layout.dest.data(), layout.dest.size(), regions, comm, &max_remote_sends);
    }
    const mpix::Algorithm *a = mpix::select_sparse_algorithm(coll(), hints, ranks, count, max_remote_sends);
    return a ? a->name : "?";
}

Runner::Runner(MPI_Comm comm, const RunnerOptions &o) : state_(new State())
{
    State &s = *state_;
    s.options = o;
    // The MPIX_Comm on comm itself, so the library raises its errors through
    // comm's handler (MPI_ERRORS_RETURN there: a failing call fails its
    // measurement instead of ending the program). Then our duplicate, for the
    // MPI library's collective, barriers and agreements. Both in the order
    // mpix-bench made them before the split: SimGrid's simulated times depend on
    // the communicators (a duplicate of a duplicate is set up anew).
    int rc = MPIX_Comm_init(&s.xcomm, comm);
    if (rc == MPI_SUCCESS && o.ppn > 0)
        rc = MPIX_Comm_update_locality(s.xcomm, o.ppn);
    MPI_Comm_dup(comm, &s.comm);
    MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(s.comm, &s.ranks);
    MPI_Comm_rank(s.comm, &s.me);
    s.node_of.assign((std::size_t)s.ranks, 0);
    s.ranks_per_node_max = s.ranks;
    // Nodes as the library sees them (real, or emulated by ppn).
    const mpix::Regions *regions = nullptr;
    if (rc == MPI_SUCCESS && mpix::get_regions(s.xcomm, mpix::Locality::node, &regions) == MPI_SUCCESS && regions) {
        s.nodes = regions->count;
        s.node_of = regions->region_of;  // the same on every rank
        s.ranks_per_node_max = regions->max_size;
    }
    // Steady state, not first use: create the node communicators the library
    // caches, and run one collective on each (SimGrid sets a communicator up on
    // its first collective, in simulated time). Otherwise the first measurement
    // that needs them pays for it (measured under SMPI: 449 us instead of 72 us).
    MPI_Comm node_comm = MPI_COMM_NULL, cross_comm = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS &&
        mpix::get_region_comms(s.xcomm, mpix::Locality::node, &node_comm, &cross_comm) == MPI_SUCCESS) {
        MPI_Barrier(node_comm);
        MPI_Barrier(cross_comm);
    }
    s.agree(rc == MPI_SUCCESS ? "" : "MPIX_Comm_init: " + error_text(rc), &s.init_error);
}

Runner::~Runner() = default;

bool Runner::State::clocks_compare()
{
    if (clocks < 0) {
        int *global = nullptr, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
        if (flag && global && *global) {
            clocks = 1;  // no communication: SimGrid's times stay as they were
        } else {
            // One host (as warn_oversubscribed and the library find hosts): one
            // clock (MPICH's MPI_Wtime reads CLOCK_MONOTONIC). Every rank sees
            // the same answer: its host holds all the ranks or none does.
            MPI_Comm host;
            int on_host = 0;
            MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
            MPI_Comm_size(host, &on_host);
            MPI_Comm_free(&host);
            clocks = on_host == ranks;
        }
    }
    return clocks == 1;
}

double Runner::State::start_call()
{
    MPI_Barrier(comm);
    if (!options.start_clock)
        return MPI_Wtime();
    if (start_margin < 0) {
        // The allreduce's own spread: the latest rank learns the latest arrival
        // this long after it; twice the worst of three, plus 1 us.
        double worst = 0;
        for (int trial = 0; trial < 3; ++trial) {
            MPI_Barrier(comm);
            double now = MPI_Wtime(), latest = 0;
            MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
            double lag = MPI_Wtime() - latest, most = 0;
            MPI_Allreduce(&lag, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
            worst = std::max(worst, most);
        }
        start_margin = 2 * worst + 1e-6;
        MPI_Barrier(comm);
    }
    double now = MPI_Wtime(), latest = 0;
    MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
    const double at = latest + start_margin;
    now = MPI_Wtime();
    if (now < at)
        computation().run(at - now);  // simulated time under SMPI, a busy wait natively
    // A rank that learnt the instant too late starts now: the start spread says so.
    return MPI_Wtime();
}

// The median over the timed calls of the ranks' start spread (the latest
// rank's start minus the earliest's), in us; -1 where the clocks do not compare.
double Runner::State::start_spread_us(const std::vector<double> &starts)
{
    if (!clocks_compare())
        return -1;
    std::vector<double> mine(starts), latest(2 * starts.size());
    for (double t : starts)
        mine.push_back(-t);
    MPI_Allreduce(mine.data(), latest.data(), (int)mine.size(), MPI_DOUBLE, MPI_MAX, comm);
    std::vector<double> spread(starts.size());
    for (std::size_t k = 0; k < starts.size(); ++k)
        spread[k] = latest[k] + latest[starts.size() + k];  // max - min
    return spread.empty() ? 0.0 : median(spread) * 1e6;
}

MPIX_Comm *Runner::xcomm() { return state_->xcomm; }
int Runner::nodes() const { return state_->nodes; }
int Runner::ranks_per_node_max() const { return state_->ranks_per_node_max; }
int Runner::ranks() const { return state_->ranks; }
int Runner::rank() const { return state_->me; }
MPI_Comm Runner::comm() const { return state_->comm; }
const std::vector<int> &Runner::node_of() const { return state_->node_of; }

void Runner::set_iterations(int iters, int warmup)
{
    state_->options.iters = iters;
    state_->options.warmup = warmup;
}

int Runner::prepare(const Point &pt, std::string *why)
{
    State &s = *state_;
    s.prepared = false;
    s.free_topology();
    s.point = pt;
    if (!s.init_error.empty()) {
        if (why)
            *why = s.init_error;
        return 2;
    }
    std::string problem;
    if (!s.workload_loaded || s.loaded_dist != pt.dist) {
        problem = s.workload.load(pt.dist, s.ranks, s.me);
        s.workload_loaded = problem.empty();
        s.loaded_dist = pt.dist;
    }
    if (problem.empty())
        problem = s.make_layout();
    if (s.agree(problem, why))
        return 2;

    // One reduction agrees on the workload's statistics (what an alltoallv
    // selection rule agrees on: this rank's mean block to the other ranks and its
    // largest block) and on whether any rank's buffers are large: under SMPI
    // large buffers are shared between simulated ranks (memory of one process
    // holds all P ranks), and their content is then meaningless.
    s.prepared = true;  // sent_row reads the layout
    const std::vector<unsigned long long> row = s.sent_row();
    unsigned long long to_others = 0, largest = 0;
    for (int j = 0; j < s.ranks; ++j) {
        largest = std::max(largest, row[(std::size_t)j]);
        if (j != s.me)
            to_others += row[(std::size_t)j];
    }
    const Layout &l = s.layout;
    const std::size_t send_bytes = std::max(l.send_bytes, l.sparse_send_bytes);
    const std::size_t recv_bytes = std::max(l.recv_bytes, l.sparse_recv_bytes);
    const std::size_t share_above = (std::size_t)(64 << 20) / (std::size_t)std::max(1, s.ranks / 64);
    const unsigned long long mine[3] = {s.ranks > 1 ? to_others / (unsigned long long)(s.ranks - 1) : 0, largest,
                                        send_bytes + recv_bytes > share_above ? 1ULL : 0ULL};
    unsigned long long agreed[3] = {0, 0, 0};
    MPI_Allreduce(mine, agreed, 3, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s.comm);
    s.mean_block_bytes = agreed[0];
    s.max_block_bytes = agreed[1];
    s.shared_buffers = MPIX_SMPI && agreed[2];
    s.send_buffer.allocate(send_bytes, s.shared_buffers);
    s.send_kept.clear();
    s.recv_buffer.allocate(recv_bytes, s.shared_buffers);

    if (pt.coll == Collective::neighbor_alltoallv) {
        int rc = s.make_topology();
        if (s.agree(rc == MPI_SUCCESS ? "" : "cannot create the neighbour topology: " + error_text(rc), why)) {
            s.prepared = false;
            return 2;
        }
    }
    return 0;
}

Measurement Runner::measure(const Candidate &c) { return measure(c, CallForm::blocking); }

Measurement Runner::measure(const Candidate &c, CallForm form)
{
    State &s = *state_;
    Measurement m;
    m.mean_block_bytes = s.mean_block_bytes;
    m.max_block_bytes = s.max_block_bytes;
    m.verified = "FAILED";
    const bool mpi = c.algorithm.empty();
    const bool persistent = form == CallForm::persistent;
    // Refusals every rank makes alike, before any communication.
    if (!s.prepared) {
        m.error = "no point prepared";
        return m;
    }
    if (mpi && !mpi_collective_available(s.coll())) {
        const char *name = mpi_collective_name(s.coll());
        m.error = name ? std::string(name) + " cannot run under SimGrid SMPI"
                       : std::string("the MPI library has no ") + mpix::collective_name(s.coll());
        return m;
    }
    if (!mpi) {
        m.error = s.set_candidate_info(c);
        if (!m.error.empty())
            return m;
    }
    const bool verify = s.options.verify && !s.shared_buffers;
    if (verify)
        s.fill();
    auto note_error = [&](int rc, const char *what) {
        if (m.error.empty())
            m.error = std::string(what) + ": " + error_text(rc);
    };
    int ok = 1;
    MPIX_Request *xreq = nullptr;
    MPI_Request mreq = MPI_REQUEST_NULL;
    if (persistent) {
        // Collective: every rank knows whether every init succeeded before starting.
        int rc = s.init_persistent(mpi, &xreq, &mreq);
        if (rc != MPI_SUCCESS)
            note_error(rc, "persistent init");
        int init_ok = rc == MPI_SUCCESS, all_init = 0;
        MPI_Allreduce(&init_ok, &all_init, 1, MPI_INT, MPI_MIN, s.comm);
        ok = all_init;
    }
    // Natively without --warmup the option is -1 until the table sets it per size.
    const int warmup = table_warmup(s.options.warmup, s.point.size), iters = s.options.iters;
    const int calls = ok ? warmup + iters : 0;  // none when a persistent init failed
    std::vector<double> times, starts;
    const mpix::LocalWork &work = s.xcomm->work;
    std::uint64_t copied_before = 0, copies_before = 0, small_before = 0;
    for (int it = 0; it < calls; ++it) {
        if (it == warmup) {
            copied_before = work.bytes();
            copies_before = work.copies();
            small_before = work.small_copies();
        }
        const bool last = persistent && it > 0 && it == calls - 1;
        if (last && verify)
            s.fill();
        s.write_send();
        const double t0 = s.start_call();
        int rc;
        if (form == CallForm::blocking) {
            rc = s.call(mpi);
        } else if (form == CallForm::nonblocking) {
            rc = s.start(mpi, &xreq, &mreq);
            const int waited = s.wait(mpi, &xreq, &mreq);
            if (rc == MPI_SUCCESS)
                rc = waited;
        } else if (mpi) {
            rc = MPI_Start(&mreq);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&mreq, MPI_STATUS_IGNORE);
        } else {
            rc = MPIX_Start(xreq);
            if (rc == MPI_SUCCESS)
                rc = MPIX_Wait(&xreq, MPI_STATUS_IGNORE);
        }
        double t = MPI_Wtime() - t0;
        if (rc != MPI_SUCCESS) {
            note_error(rc, "call");
            ok = 0;
        }
        if ((it == 0 || last) && verify && ok && !s.verify()) {
            ok = 0;
            if (m.error.empty())
                m.error = "wrong bytes received";
        }
        if (it >= warmup) {
            times.push_back(t);
            starts.push_back(t0);
        }
    }
    if (xreq && MPIX_Request_free(&xreq) != MPI_SUCCESS)
        ok = 0;
    if (mreq != MPI_REQUEST_NULL)
        MPI_Request_free(&mreq);
    if (times.empty())
        times.push_back(0.0);  // the init failed: no timing, the row says FAILED

    // The reductions (and their order) of mpix-bench before the split, so
    // simulated times stay as they were: OSU's per-rank means (rank 0) when
    // asked for, the slowest rank per call, any failure.
    if (s.options.rank_means) {
        const double mean_us = std::accumulate(times.begin(), times.end(), 0.0) / (double)times.size() * 1e6;
        MPI_Reduce(&mean_us, &m.rank_mean_avg_us, 1, MPI_DOUBLE, MPI_SUM, 0, s.comm);
        MPI_Reduce(&mean_us, &m.rank_mean_min_us, 1, MPI_DOUBLE, MPI_MIN, 0, s.comm);
        MPI_Reduce(&mean_us, &m.rank_mean_max_us, 1, MPI_DOUBLE, MPI_MAX, 0, s.comm);
        m.rank_mean_avg_us /= s.ranks;
    }
    std::vector<double> slowest(times.size());
    MPI_Allreduce(times.data(), slowest.data(), (int)times.size(), MPI_DOUBLE, MPI_MAX, s.comm);
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, s.comm);
    // The library's copies per timed call, and their time at the model's rate:
    // the busiest rank's (after the timing, so the times above stay as they were).
    {
        const double n = calls > warmup ? (double)(calls - warmup) : 1.0;
        const double bytes = calls > warmup ? (double)(work.bytes() - copied_before) / n : 0.0;
        const double copies = calls > warmup ? (double)(work.copies() - copies_before) / n : 0.0;
        const double small = calls > warmup ? (double)(work.small_copies() - small_before) / n : 0.0;
        const mpix::CopyModel &model = work.model();
        const double mine[2] = {bytes, model.seconds(bytes, copies, work.working_set(), small) * 1e6};
        double busiest[2] = {0, 0};
        MPI_Allreduce(mine, busiest, 2, MPI_DOUBLE, MPI_MAX, s.comm);
        m.copied_bytes = busiest[0];
        m.copy_floor_us = busiest[1];
    }
    m.start_clock = s.options.start_clock;
    m.start_spread_us = s.start_spread_us(starts);

    if (c.algorithm == "auto")
        m.picked = s.picked();
    if (!mpi)
        MPIX_Comm_set_info(s.xcomm, nullptr);
    m.median_us = median(slowest) * 1e6;
    m.min_us = *std::min_element(slowest.begin(), slowest.end()) * 1e6;
    m.max_us = *std::max_element(slowest.begin(), slowest.end()) * 1e6;
    m.iters = iters;
    m.verified = !all_ok ? "FAILED" : verify ? "yes" : "skipped";
    if (all_ok)
        m.error.clear();
    else if (m.error.empty())
        m.error = "failed on another rank";
    return m;
}

double overlap_percent(double overall_us, double compute_us, double pure_us)
{
    if (!(pure_us > 0))
        return 0.0;
    return std::max(0.0, 100.0 * (1.0 - (overall_us - compute_us) / pure_us));
}

Measurement Runner::measure_overlap(const Candidate &c, int slices)
{
    State &s = *state_;
    // The pure communication time first: its median (the slowest rank's, the
    // same on every rank) is the computation's duration.
    Measurement m = measure(c, CallForm::nonblocking);
    m.overlap = true;
    m.overlap_slices = slices;
    m.pure_us = m.median_us;
    if (m.verified == "FAILED")  // agreed: every rank returns here, or none
        return m;
    const bool mpi = c.algorithm.empty();
    int ok = 1;
    std::string error;
    if (!mpi) {
        error = s.set_candidate_info(c);  // measure() cleared it
        if (!error.empty())
            ok = 0;
    }
    Compute &compute = s.computation();
    const bool verify = s.options.verify && !s.shared_buffers;
    if (verify)
        s.fill();
    const int pieces = slices > 0 ? slices : 1;
    const double slice = m.median_us * 1e-6 / pieces;
    const int warmup = table_warmup(s.options.warmup, s.point.size), iters = s.options.iters;
    const int calls = ok ? warmup + iters : 0;
    // Per timed call: overall, compute, init, test, wait (this rank's seconds).
    enum { overall, computing, init, testing, waiting, kQuantities };
    std::vector<double> times[kQuantities];
    auto note_error = [&](int rc, const char *what) {
        if (error.empty())
            error = std::string(what) + ": " + error_text(rc);
    };
    for (int it = 0; it < calls; ++it) {
        MPIX_Request *xreq = nullptr;
        MPI_Request mreq = MPI_REQUEST_NULL;
        s.write_send();
        const double t0 = s.start_call();
        int rc = s.start(mpi, &xreq, &mreq);
        if (rc != MPI_SUCCESS)
            note_error(rc, "start");
        // One clock reading per boundary: compute slice, test, compute slice, ...
        double mark = MPI_Wtime();
        const double started = mark - t0;
        double computed = 0, tested = 0;
        for (int k = 0; k < pieces; ++k) {
            // Up to k + 1 slices in all: a slice that ran over shortens the next.
            compute.run((k + 1) * slice - computed);
            double now = MPI_Wtime();
            computed += now - mark;
            mark = now;
            if (slices > 0) {
                int flag = 0;
                const int trc = s.test(mpi, &xreq, &mreq, &flag);
                if (trc != MPI_SUCCESS) {
                    note_error(trc, "test");
                    rc = rc == MPI_SUCCESS ? trc : rc;
                }
                now = MPI_Wtime();
                tested += now - mark;
                mark = now;
            }
        }
        const int wrc = s.wait(mpi, &xreq, &mreq);
        const double t1 = MPI_Wtime();
        if (wrc != MPI_SUCCESS) {
            note_error(wrc, "wait");
            rc = rc == MPI_SUCCESS ? wrc : rc;
        }
        if (rc != MPI_SUCCESS)
            ok = 0;
        if (it == 0 && verify && ok && !s.verify()) {
            ok = 0;
            if (error.empty())
                error = "wrong bytes received (with computation)";
        }
        if (it < warmup)
            continue;
        times[overall].push_back(t1 - t0);
        times[computing].push_back(computed);
        times[init].push_back(started);
        times[testing].push_back(tested);
        times[waiting].push_back(t1 - mark);
    }
    const std::size_t n = std::max<std::size_t>(1, times[overall].size());
    for (auto &t : times)
        t.resize(n, 0.0);  // none when the info was refused: the row says FAILED

    // OSU's statistics (rank 0), when asked for: each rank's means, averaged over ranks.
    if (s.options.rank_means) {
        double mean_us[kQuantities], sum_us[kQuantities] = {0, 0, 0, 0, 0};
        for (int q = 0; q < kQuantities; ++q)
            mean_us[q] = std::accumulate(times[q].begin(), times[q].end(), 0.0) / (double)n * 1e6;
        MPI_Reduce(mean_us, sum_us, kQuantities, MPI_DOUBLE, MPI_SUM, 0, s.comm);
        m.osu_overall_us = sum_us[overall] / s.ranks;
        m.osu_compute_us = sum_us[computing] / s.ranks;
        m.osu_init_us = sum_us[init] / s.ranks;
        m.osu_test_us = sum_us[testing] / s.ranks;
        m.osu_wait_us = sum_us[waiting] / s.ranks;
        m.osu_overlap_pct = overlap_percent(m.osu_overall_us, m.osu_compute_us, m.rank_mean_avg_us);
    }
    // The slowest rank per call and quantity, then the medians.
    std::vector<double> mine;
    for (const auto &t : times)
        mine.insert(mine.end(), t.begin(), t.end());
    std::vector<double> slowest(mine.size());
    MPI_Allreduce(mine.data(), slowest.data(), (int)mine.size(), MPI_DOUBLE, MPI_MAX, s.comm);
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, s.comm);
    auto median_us = [&](int q) {
        return median(std::vector<double>(slowest.begin() + (std::ptrdiff_t)(q * n),
                                          slowest.begin() + (std::ptrdiff_t)((q + 1) * n))) *
               1e6;
    };
    m.overall_us = median_us(overall);
    m.compute_us = median_us(computing);
    m.init_us = median_us(init);
    m.test_us = median_us(testing);
    m.wait_us = median_us(waiting);
    m.overlap_pct = overlap_percent(m.overall_us, m.compute_us, m.pure_us);
    if (!mpi)
        MPIX_Comm_set_info(s.xcomm, nullptr);
    if (!all_ok) {
        m.verified = "FAILED";
        m.error = error.empty() ? "failed on another rank (with computation)" : error;
    }
    return m;
}

std::vector<unsigned long long> Runner::gather_sent_bytes() const
{
    const State &s = *state_;
    const std::vector<unsigned long long> row = s.sent_row();
    std::vector<unsigned long long> all(s.me == 0 ? (std::size_t)s.ranks * (std::size_t)s.ranks : 0);
    MPI_Gather(row.data(), s.ranks, MPI_UNSIGNED_LONG_LONG, all.data(), s.ranks, MPI_UNSIGNED_LONG_LONG, 0, s.comm);
    return all;
}

// Under SMPI: the bound of the prepared exchange from its own bytes (every rank
// contributes its row, gathered by node on rank 0) and the simulated platform's
// routes.
bool Runner::lower_bound(mpix::sim::Bound *out)
{
#if MPIX_SMPI
    State &s = *state_;
    if (!s.prepared)
        return false;
    const int p = s.ranks, me = s.me;
    if (s.host_node_of.empty()) {
        std::vector<simgrid::s4u::Host *> hosts = simgrid::s4u::Engine::get_instance()->get_all_hosts();
        int mine = (int)(std::find(hosts.begin(), hosts.end(), simgrid::s4u::this_actor::get_host()) - hosts.begin());
        std::vector<int> host_of((std::size_t)p);
        MPI_Allgather(&mine, 1, MPI_INT, host_of.data(), 1, MPI_INT, s.comm);
        std::map<int, int> node_index;
        std::vector<simgrid::s4u::Host *> node_hosts;
        for (int h : host_of)
            if (node_index.emplace(h, (int)node_hosts.size()).second)
                node_hosts.push_back(hosts[(std::size_t)h]);
        for (int h : host_of)
            s.host_node_of.push_back(node_index[h]);
        double latency[2] = {0, 0};
        if (me == 0) {
            s.network = mpix::sim::network_of(node_hosts);
            mpix::sim::min_latencies(s.network, &latency[0], &latency[1]);
        }
        MPI_Bcast(latency, 2, MPI_DOUBLE, 0, s.comm);
        s.latency_in_node = latency[0];
        s.latency_between_nodes = latency[1];
        s.model = mpix::sim::smpi_overhead_model();
    }
    const std::vector<int> &node_of = s.host_node_of;
    const int nodes = *std::max_element(node_of.begin(), node_of.end()) + 1;
    auto bytes = [&](int src, int dst) {
        return is_uniform(s.coll()) ? (double)s.point.size : (double)s.block_bytes(src, dst);
    };
    std::vector<double> row((std::size_t)nodes, 0);
    long long local = 0, remote = 0;
    for (int j = 0; j < p; ++j) {
        if (j == me)
            continue;
        row[(std::size_t)node_of[j]] += bytes(me, j);
        if (bytes(j, me) > 0)
            ++(node_of[j] == node_of[me] ? local : remote);
    }
    auto memo = s.path_memo.find({local, remote});
    if (memo == s.path_memo.end())
        memo = s.path_memo
                   .emplace(std::make_pair(local, remote),
                            mpix::sim::path_time(local, remote, s.latency_in_node, s.latency_between_nodes, s.model))
                   .first;
    double path = memo->second, worst = 0;
    MPI_Reduce(&path, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, s.comm);
    std::vector<double> rows(me == 0 ? (std::size_t)p * nodes : 0);
    MPI_Gather(row.data(), nodes, MPI_DOUBLE, rows.data(), nodes, MPI_DOUBLE, 0, s.comm);
    if (me != 0)
        return false;
    std::vector<double> pair((std::size_t)nodes * nodes, 0);
    for (int r = 0; r < p; ++r)
        for (int v = 0; v < nodes; ++v)
            pair[(std::size_t)node_of[r] * nodes + v] += rows[(std::size_t)r * nodes + v];
    out->path = worst;
    mpix::sim::link_terms(s.network, pair, &out->link, &out->nic);
    return true;
#else
    (void)out;
    return false;
#endif
}

std::string hint_problem(const std::string &key, const std::string &value)
{
    SelfErrorsReturn quiet;
    MPIX_Info *info = nullptr;
    MPIX_Info_init(&info);
    int rc = MPIX_Info_set(info, key.c_str(), value.c_str());
    MPIX_Info_free(&info);
    return rc == MPI_SUCCESS ? "" : error_text(rc);
}

#if !MPIX_SMPI
namespace {

// Cores the ranks of this host may run on: the union of their affinity masks
// (hardware_concurrency where the mask cannot be read).
int host_cores(MPI_Comm host)
{
    int have = 1, all_have = 0;
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    have = sched_getaffinity(0, sizeof set, &set) == 0 ? 1 : 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, host);
    if (all_have) {
        const int words = (int)(sizeof set / sizeof(unsigned long));
        std::vector<unsigned long> mine((std::size_t)words), any((std::size_t)words);
        std::memcpy(mine.data(), &set, sizeof set);
        MPI_Allreduce(mine.data(), any.data(), words, MPI_UNSIGNED_LONG, MPI_BOR, host);
        std::memcpy(&set, any.data(), sizeof set);
        return CPU_COUNT(&set);
    }
#else
    (void)have;
    (void)all_have;
    (void)host;
#endif
    return (int)std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace
#endif

void warn_oversubscribed(MPI_Comm comm, const char *program)
{
#if MPIX_SMPI
    (void)comm;
    (void)program;
#else
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    MPI_Comm host;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    int mine[3] = {0, 0, 0};  // host leader, its ranks, its cores
    int host_rank;
    MPI_Comm_rank(host, &host_rank);
    MPI_Comm_size(host, &mine[1]);
    mine[2] = host_cores(host);
    mine[0] = host_rank == 0;
    MPI_Comm_free(&host);
    std::vector<int> all(me == 0 ? 3 * (std::size_t)p : 0);
    MPI_Gather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, 0, comm);
    if (me != 0)
        return;
    int hosts = 0, crowded = 0, worst = -1;
    for (int r = 0; r < p; ++r) {
        const int *h = &all[3 * (std::size_t)r];
        if (!h[0])
            continue;
        ++hosts;
        if (h[1] <= h[2])
            continue;
        ++crowded;
        if (worst < 0 || (double)h[1] / h[2] > (double)all[3 * (std::size_t)worst + 1] / all[3 * (std::size_t)worst + 2])
            worst = r;
    }
    if (worst < 0)
        return;
    const int ranks_there = all[3 * (std::size_t)worst + 1], cores_there = all[3 * (std::size_t)worst + 2];
    const char *tail = "native timings measure the scheduler, not the network";
    if (hosts == 1)
        std::fprintf(stderr, "%s: warning: %d ranks share %d %s on this host; %s\n", program, ranks_there,
                     cores_there, cores_there == 1 ? "core" : "cores", tail);
    else
        std::fprintf(stderr,
                     "%s: warning: %d ranks share %d %s on a host (%d of %d hosts have more ranks than cores); %s\n",
                     program, ranks_there, cores_there, cores_there == 1 ? "core" : "cores", crowded, hosts, tail);
    std::fflush(stderr);
#endif
}

}  // namespace mpixbench
