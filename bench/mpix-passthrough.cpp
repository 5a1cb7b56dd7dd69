// mpix-passthrough: what the drop-in costs where it cannot help. Times, in one
// run and interleaved call by call, the MPI library's own collective called
// directly (PMPI_Alltoall(v)), the same call through mpix (MPIX_Alltoall(v)
// with the `pmpi` row, or `auto` with --auto), and MPI_Alltoall(v) as the
// application calls it: through the interposition library, which this program
// is linked with. Reports the median over calls of the slowest rank per call,
// and each path's time as a multiple of the direct call's (x columns).
//
// --nonblocking times the nonblocking forms instead, each started and waited for
// at once: PMPI_Ialltoall(v) + PMPI_Wait, MPIX_Ialltoall(v) + MPIX_Wait, and the
// interposed MPI_Ialltoall(v) + MPI_Wait (its row set through
// MPIX_IALLTOALL(V)_ALGORITHM, as a user of the drop-in would).
//
// --persistent times the persistent forms (MPI-4): each path's request made
// once per size, then PMPI_Start + PMPI_Wait, MPIX_Start + MPIX_Wait, and the
// interposed MPI_Start + MPI_Wait on MPI_Alltoall(v)_init's request.
//
// --in-place passes MPI_IN_PLACE as every path's send buffer (the receive
// buffer is refilled with the rank's blocks before each call, outside the
// timing). --row NAME times mpix's row NAME instead of `pmpi` (--auto: `auto`),
// through MPIX_ and the drop-in alike, to find where a row's fixed cost ends.
//
// --wait-cost times what the drop-in adds to every other MPI_Wait of the
// application (it must recognise the placeholders of persistent exchanges):
// MPI_Wait on MPI_REQUEST_NULL against PMPI_Wait, per call, with 0, 1 and 64
// persistent exchanges (MPI_Alltoallv_init through the drop-in) registered.
//
//   mpiexec -n 2 bench/mpix-passthrough [--calls 1000] [--sizes 16,1024,65536] [--auto | --row NAME]
//                                       [--alltoall] [--in-place] [--nonblocking | --persistent] [--wait-cost]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpix.h"

namespace {

struct Options {
    int calls = 1000;
    std::vector<long> sizes = {16, 256, 1024, 4096, 16384, 65536};
    std::string row = "pmpi";  // --auto: "auto"
    bool alltoall = false;
    bool in_place = false;
    bool nonblocking = false;
    bool persistent = false;
    bool wait_cost = false;
};

bool parse(int argc, char **argv, Options *o, std::string *err)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--auto") {
            o->row = "auto";
        } else if (a == "--row" && i + 1 < argc) {
            o->row = argv[++i];
        } else if (a == "--in-place") {
            o->in_place = true;
        } else if (a == "--alltoall") {
            o->alltoall = true;
        } else if (a == "--nonblocking") {
            o->nonblocking = true;
        } else if (a == "--persistent") {
#if MPI_VERSION >= 4
            o->persistent = true;
#else
            *err = "--persistent needs an MPI-4 library (MPI_Alltoall(v)_init)";
            return false;
#endif
        } else if (a == "--wait-cost") {
            o->wait_cost = true;
        } else if ((a == "--calls" || a == "--sizes") && i + 1 < argc) {
            std::string v = argv[++i];
            if (a == "--calls") {
                o->calls = std::atoi(v.c_str());
                if (o->calls < 1) {
                    *err = "bad --calls " + v;
                    return false;
                }
            } else {
                o->sizes.clear();
                for (std::size_t at = 0; at <= v.size();) {
                    std::size_t comma = v.find(',', at);
                    std::string item = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
                    char *end = nullptr;
                    long s = std::strtol(item.c_str(), &end, 10);
                    if (item.empty() || *end || s < 0) {
                        *err = "bad --sizes item '" + item + "'";
                        return false;
                    }
                    o->sizes.push_back(s);
                    if (comma == std::string::npos)
                        break;
                    at = comma + 1;
                }
            }
        } else {
            *err = "unknown option " + a +
                   " (usage: mpix-passthrough [--calls N] [--sizes a,b,...] [--auto | --row NAME] [--alltoall] "
                   "[--in-place] [--nonblocking | --persistent] [--wait-cost])";
            return false;
        }
    }
    if (o->nonblocking && o->persistent) {
        *err = "--nonblocking and --persistent time different forms: give one";
        return false;
    }
    return true;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

// One start-and-wait of each nonblocking path (variant as in main's run).
int nonblocking_call(int variant, const Options &o, const void *send, char *recv, int n, const int *counts,
                     const int *displs, MPIX_Comm *xcomm)
{
    if (variant == 1) {
        MPIX_Request *r = nullptr;
        int rc = o.alltoall ? MPIX_Ialltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, xcomm, &r)
                            : MPIX_Ialltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, xcomm,
                                              &r);
        return rc != MPI_SUCCESS ? rc : MPIX_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    if (variant == 0)
        rc = o.alltoall ? PMPI_Ialltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD, &r)
                        : PMPI_Ialltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                                          MPI_COMM_WORLD, &r);
    else
        rc = o.alltoall ? MPI_Ialltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD, &r)
                        : MPI_Ialltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                                         MPI_COMM_WORLD, &r);
    return rc != MPI_SUCCESS ? rc : (variant == 0 ? PMPI_Wait(&r, MPI_STATUS_IGNORE) : MPI_Wait(&r, MPI_STATUS_IGNORE));
}

#if MPI_VERSION >= 4
// --persistent: each path's request for one size (made collectively, in the
// same order on every rank), started and waited for by persistent_call.
struct PersistentRequests {
    MPI_Request direct = MPI_REQUEST_NULL, interposed = MPI_REQUEST_NULL;
    MPIX_Request *mpix = nullptr;

    int make(const Options &o, const void *send, char *recv, int n, const int *counts, const int *displs,
             MPIX_Comm *xcomm)
    {
        int rc = o.alltoall ? PMPI_Alltoall_init(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                 &direct)
                            : PMPI_Alltoallv_init(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                                                  MPI_COMM_WORLD, MPI_INFO_NULL, &direct);
        if (rc == MPI_SUCCESS)
            rc = o.alltoall ? MPIX_Alltoall_init(send, n, MPI_BYTE, recv, n, MPI_BYTE, xcomm, nullptr, &mpix)
                            : MPIX_Alltoallv_init(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                                                  xcomm, nullptr, &mpix);
        if (rc == MPI_SUCCESS)
            rc = o.alltoall ? MPI_Alltoall_init(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                &interposed)
                            : MPI_Alltoallv_init(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                                                 MPI_COMM_WORLD, MPI_INFO_NULL, &interposed);
        return rc;
    }
    int call(int variant)
    {
        if (variant == 1) {
            int rc = MPIX_Start(mpix);
            return rc != MPI_SUCCESS ? rc : MPIX_Wait(&mpix, MPI_STATUS_IGNORE);
        }
        if (variant == 0) {
            int rc = PMPI_Start(&direct);
            return rc != MPI_SUCCESS ? rc : PMPI_Wait(&direct, MPI_STATUS_IGNORE);
        }
        int rc = MPI_Start(&interposed);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&interposed, MPI_STATUS_IGNORE);
    }
    ~PersistentRequests()
    {
        if (direct != MPI_REQUEST_NULL)
            PMPI_Request_free(&direct);
        if (mpix)
            MPIX_Request_free(&mpix);
        if (interposed != MPI_REQUEST_NULL)
            MPI_Request_free(&interposed);
    }
};
#endif

// Nanoseconds per call of `wait` on MPI_REQUEST_NULL: best of 7 runs of
// `calls` calls (the slowest rank's).
template <class Wait>
double ns_per_wait(Wait wait, long calls)
{
    double best = 1e30;
    for (int run = 0; run < 7; ++run) {
        MPI_Request r = MPI_REQUEST_NULL;
        const double t0 = MPI_Wtime();
        for (long i = 0; i < calls; ++i)
            wait(&r);
        best = std::min(best, MPI_Wtime() - t0);
    }
    double slowest = 0;
    MPI_Allreduce(&best, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest * 1e9 / static_cast<double>(calls);
}

// --wait-cost: MPI_Wait through the drop-in against PMPI_Wait, with 0, 1 and
// 64 persistent exchanges registered (64 fill the placeholder filter: every
// lookup then takes the lock).
int wait_cost(int me, int p)
{
    const long calls = 2000000;
    setenv("MPIX_IALLTOALLV_ALGORITHM", "pairwise", 1);
    std::vector<int> counts(p, 1), displs(p);
    for (int j = 0; j < p; ++j)
        displs[j] = j;
    std::vector<char> send(p), recv(p);
    std::vector<MPI_Request> persistent;
    if (me == 0)
        std::printf("# mpix-passthrough --wait-cost  P=%d  (MPI_Wait on MPI_REQUEST_NULL, ns per call, best of 7 x "
                    "%ld calls, slowest rank)\n%12s %12s %12s %12s\n",
                    p, calls, "registered", "PMPI_Wait", "MPI_Wait", "added_ns");
    int failures = 0;
    for (int registered : {0, 1, 64}) {
        while (static_cast<int>(persistent.size()) < registered) {
            persistent.emplace_back();
            if (MPI_Alltoallv_init(send.data(), counts.data(), displs.data(), MPI_BYTE, recv.data(), counts.data(),
                                   displs.data(), MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &persistent.back()) != MPI_SUCCESS)
                ++failures;
        }
        const double direct = ns_per_wait([](MPI_Request *r) { return PMPI_Wait(r, MPI_STATUS_IGNORE); }, calls);
        const double interposed = ns_per_wait([](MPI_Request *r) { return MPI_Wait(r, MPI_STATUS_IGNORE); }, calls);
        if (me == 0)
            std::printf("%12d %12.2f %12.2f %12.2f\n", registered, direct, interposed, interposed - direct);
    }
    for (MPI_Request &r : persistent)
        if (MPI_Request_free(&r) != MPI_SUCCESS)
            ++failures;
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    Options o;
    std::string err;
    if (!parse(argc, argv, &o, &err)) {
        if (me == 0)
            std::fprintf(stderr, "mpix-passthrough: %s\n", err.c_str());
        MPI_Finalize();
        return 2;
    }
    if (o.wait_cost) {
        const int failures = wait_cost(me, p);
        MPI_Finalize();
        return failures ? 1 : 0;
    }
    // The drop-in's calls run the row their variables name (read on the
    // communicator's first call of each kind): without --auto or --row the MPI
    // library's own, whose pass-through is what this measures (auto takes
    // pairwise on 2 ranks).
    const char *row = o.row.c_str();
    setenv(o.alltoall ? "MPIX_IALLTOALL_ALGORITHM" : "MPIX_IALLTOALLV_ALGORITHM", row, 1);
    setenv(o.alltoall ? "MPIX_ALLTOALL_ALGORITHM" : "MPIX_ALLTOALLV_ALGORITHM", row, 1);
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    MPIX_Info *info;
    MPIX_Info_init(&info);
    int rc = MPIX_Info_set(info, o.alltoall ? "alltoall_algorithm" : "alltoallv_algorithm", row);
    if (rc == MPI_SUCCESS)
        rc = MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        if (me == 0)
            std::fprintf(stderr, "mpix-passthrough: --row %s: not a row of %s\n", row,
                         o.alltoall ? "MPIX_Alltoall" : "MPIX_Alltoallv");
        MPIX_Comm_free(&xcomm);
        MPI_Finalize();
        return 2;
    }
    const char *coll = o.nonblocking  ? (o.alltoall ? "MPI_Ialltoall + MPI_Wait" : "MPI_Ialltoallv + MPI_Wait")
                       : o.persistent ? (o.alltoall ? "MPI_Start + MPI_Wait of MPI_Alltoall_init"
                                                    : "MPI_Start + MPI_Wait of MPI_Alltoallv_init")
                                      : (o.alltoall ? "MPI_Alltoall" : "MPI_Alltoallv");
    if (me == 0) {
        std::printf("# mpix-passthrough  P=%d  calls=%d  mpix row=%s%s  (median over calls of the slowest rank, us;\n"
                    "#   the three variants interleaved call by call; interposed = %s through libmpix_pmpi)\n",
                    p, o.calls, row, o.in_place ? "  MPI_IN_PLACE" : "", coll);
        std::printf("%10s %12s %12s %12s %10s %10s\n", "bytes", "mpi_direct", "mpix", "interposed", "mpix_x",
                    "interp_x");
    }
    int failures = 0;
    for (long bytes : o.sizes) {
        std::vector<char> send(static_cast<std::size_t>(bytes) * p + 1), recv(send.size());
        std::vector<int> counts(p, static_cast<int>(bytes)), displs(p);
        for (int j = 0; j < p; ++j)
            displs[j] = static_cast<int>(bytes * j);
        for (std::size_t i = 0; i < send.size(); ++i)
            send[i] = static_cast<char>(me * 31 + i);
        std::vector<double> t[3];
        const void *sbuf = o.in_place ? MPI_IN_PLACE : send.data();
#if MPI_VERSION >= 4
        PersistentRequests persistent;
        if (o.persistent && persistent.make(o, sbuf, recv.data(), static_cast<int>(bytes), counts.data(),
                                            displs.data(), xcomm) != MPI_SUCCESS)
            ++failures;
#endif
        auto run = [&](int variant) {
#if MPI_VERSION >= 4
            if (o.persistent)
                return persistent.call(variant);
#endif
            if (o.nonblocking)
                return nonblocking_call(variant, o, sbuf, recv.data(), static_cast<int>(bytes), counts.data(),
                                        displs.data(), xcomm);
            if (o.alltoall) {
                int n = static_cast<int>(bytes);
                if (variant == 0)
                    return PMPI_Alltoall(sbuf, n, MPI_BYTE, recv.data(), n, MPI_BYTE, MPI_COMM_WORLD);
                if (variant == 1)
                    return MPIX_Alltoall(sbuf, n, MPI_BYTE, recv.data(), n, MPI_BYTE, xcomm);
                return MPI_Alltoall(sbuf, n, MPI_BYTE, recv.data(), n, MPI_BYTE, MPI_COMM_WORLD);
            }
            if (variant == 0)
                return PMPI_Alltoallv(sbuf, counts.data(), displs.data(), MPI_BYTE, recv.data(),
                                      counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD);
            if (variant == 1)
                return MPIX_Alltoallv(sbuf, counts.data(), displs.data(), MPI_BYTE, recv.data(),
                                      counts.data(), displs.data(), MPI_BYTE, xcomm);
            return MPI_Alltoallv(sbuf, counts.data(), displs.data(), MPI_BYTE, recv.data(), counts.data(),
                                 displs.data(), MPI_BYTE, MPI_COMM_WORLD);
        };
        const int warmup = std::max(10, o.calls / 10);
        for (int c = -warmup; c < o.calls; ++c)
            for (int variant = 0; variant < 3; ++variant) {
                // Rotate the order so no variant always follows the same one.
                int v = (variant + c) % 3;
                if (v < 0)
                    v += 3;
                if (o.in_place)
                    std::memcpy(recv.data(), send.data(), send.size());
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                if (run(v) != MPI_SUCCESS)
                    ++failures;
                double mine = MPI_Wtime() - t0, slowest = 0;
                MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (c >= 0)
                    t[v].push_back(slowest * 1e6);
                // Every variant must deliver: block j of rank s is s's bytes j*bytes...
                for (int s = 0; s < p && bytes > 0; ++s)
                    for (long k = 0; k < bytes; k += std::max(1L, bytes / 7))
                        if (recv[static_cast<std::size_t>(s * bytes + k)] !=
                            static_cast<char>(s * 31 + me * bytes + k))
                            ++failures;
            }
        double m[3] = {median(t[0]), median(t[1]), median(t[2])};
        if (me == 0)
            std::printf("%10ld %12.3f %12.3f %12.3f %10.3f %10.3f\n", bytes, m[0], m[1], m[2], m[1] / m[0],
                        m[2] / m[0]);
    }
    int any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0 && any)
        std::printf("# FAILED: %d wrong results or errors\n", any);
    MPIX_Comm_free(&xcomm);
    MPI_Finalize();
    return any ? 1 : 0;
}
