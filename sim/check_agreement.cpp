// sim/check_agreement: what test/sim-agreement.sh runs under SimGrid SMPI
// (sim/run) to check `auto`'s per-call agreement of MPIX_Alltoallv's block
// statistics in the SMPI build (src/select/registry.cpp, agreed_blocks), with
// agreement_period 1 (an agreement every call; the default schedule, rarer
// agreements while the pick holds, is test/test_table.cpp's):
//  - the picks are one call late and identical on every rank, as in the native
//    build (test/test_table.cpp, the same table and block sizes): rank r's blocks
//    grow with r, so only the agreed largest mean makes the ranks pick alike;
//  - every received byte is right;
//  - what the agreement costs a call: `auto` through a table whose first rule
//    tests the mean block, minus the row it picks named directly, each the
//    median of 5 calls after one warm-up (rank 0 prints `agreement_us X`).
// argv[1]: the table file to write (rank 0 writes it; the library reads it on
// rank 0). Exit status 1 on a wrong pick or byte, 2 on an error.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "mpix.h"

namespace {

// (MPIX_Comm_set_info replaces the comm's hints: every call here keeps an
// agreement every call, so that its picks are one call late and the cost
// measured below is paid by each call.)
int set_hint(MPIX_Comm *xcomm, const char *key, const char *value)
{
    MPIX_Info *info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, key, value);
    MPIX_Info_set(info, "agreement_period", "1");
    const int rc = MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
    return rc;
}

// Block src -> dst: (src + 1) * scale / p bytes; byte k of it a function of
// (src, dst, k, call). Returns the slowest rank's time; *bad set on a wrong
// byte or an error.
double exchange(MPIX_Comm *xcomm, int p, int me, int scale, int call, int *bad)
{
    const auto block = [&](int src) { return (src + 1) * scale / p; };
    std::vector<int> scounts(p), sdispls(p), rcounts(p), rdispls(p);
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < p; ++j) {
        scounts[j] = block(me);
        sdispls[j] = stotal;
        stotal += scounts[j];
        rcounts[j] = block(j);
        rdispls[j] = rtotal;
        rtotal += rcounts[j];
    }
    const auto value = [&](int src, int dst, int k) {
        return static_cast<unsigned char>(src * 31 + dst * 7 + k + call * 3);
    };
    std::vector<unsigned char> send(static_cast<std::size_t>(stotal) + 1), recv(static_cast<std::size_t>(rtotal) + 1, 0xEE);
    for (int j = 0; j < p; ++j)
        for (int k = 0; k < scounts[j]; ++k)
            send[static_cast<std::size_t>(sdispls[j] + k)] = value(me, j, k);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    const int rc = MPIX_Alltoallv(send.data(), scounts.data(), sdispls.data(), MPI_BYTE, recv.data(), rcounts.data(),
                                  rdispls.data(), MPI_BYTE, xcomm);
    const double t = MPI_Wtime() - t0;
    if (rc != MPI_SUCCESS)
        *bad = 2;
    for (int j = 0; j < p; ++j)
        for (int k = 0; k < rcounts[j]; ++k)
            if (recv[static_cast<std::size_t>(rdispls[j] + k)] != value(j, me, k))
                *bad = std::max(*bad, 1);
    if (recv[static_cast<std::size_t>(rtotal)] != 0xEE)  // the guard byte past the last block
        *bad = std::max(*bad, 1);
    double slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

// The same row on every rank?
bool same_everywhere(const char *name)
{
    char mine[64] = {0}, first[64] = {0};
    std::snprintf(mine, sizeof mine, "%s", name ? name : "(none)");
    std::memcpy(first, mine, sizeof mine);
    MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
    int same = std::strcmp(first, mine) == 0, all = 0;
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

double median_of(MPIX_Comm *xcomm, int p, int me, int scale, int *bad)
{
    exchange(xcomm, p, me, scale, 0, bad);  // warm-up
    std::vector<double> t;
    for (int call = 1; call <= 5; ++call)
        t.push_back(exchange(xcomm, p, me, scale, call, bad));
    std::sort(t.begin(), t.end());
    return t[2];
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = 0, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int ok = argc > 1;
    if (ok && me == 0) {
        std::ofstream out(argv[1]);
        out << "{\"mpix_selection_table\": 1, \"description\": \"sim/check_agreement\", \"alltoallv\": ["
               "{\"when\": {\"mean_block_bytes\": {\"max\": 40}}, \"algorithm\": \"pairwise\"},"
               "{\"when\": {\"max_block_bytes\": {\"max\": 400}}, \"algorithm\": \"linear\"},"
               "{\"algorithm\": \"scattered\", \"hints\": {\"batch_size\": 3}}]}\n";
        ok = out.good();
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPIX_Comm *xcomm = nullptr;
    if (!ok || MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS || set_hint(xcomm, "tuning_file", argv[1])) {
        if (me == 0)
            std::printf("cannot write %s or set it as the tuning file\n", argc > 1 ? argv[1] : "(no path)");
        MPI_Finalize();
        return 2;
    }
    int bad = 0, wrong_picks = 0;
    const int scales[] = {30, 300, 3000, 20, 30};
    const char *want[] = {"pairwise", "pairwise", "linear", "scattered", "pairwise"};  // one call late
    for (int k = 0; k < 5; ++k) {
        exchange(xcomm, p, me, scales[k], k, &bad);
        const char *name = xcomm->last_algorithm[static_cast<int>(mpix::Collective::alltoallv)];
        const bool same = same_everywhere(name);
        const bool right = same && name && std::strcmp(name, want[k]) == 0;
        wrong_picks += right ? 0 : 1;
        if (me == 0)
            std::printf("call %d scale %d: ran %s, expected %s%s\n", k, scales[k], name ? name : "(none)", want[k],
                        same ? "" : " (ranks differ)");
    }
    // The agreement's cost: auto (pairwise at scale 30) minus pairwise named.
    const double agreed = median_of(xcomm, p, me, 30, &bad);
    const char *picked = xcomm->last_algorithm[static_cast<int>(mpix::Collective::alltoallv)];
    if (!picked || std::strcmp(picked, "pairwise") != 0)
        ++wrong_picks;
    set_hint(xcomm, "alltoallv_algorithm", "pairwise");
    const double fixed = median_of(xcomm, p, me, 30, &bad);
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) {
        std::printf("auto_us %.3f pairwise_us %.3f agreement_us %.3f\n", agreed * 1e6, fixed * 1e6,
                    (agreed - fixed) * 1e6);
        if (any_bad)
            std::printf("%s\n", any_bad == 2 ? "an exchange returned an error" : "wrong bytes received");
        if (wrong_picks)
            std::printf("%d wrong picks\n", wrong_picks);
        std::remove(argv[1]);
    }
    MPIX_Comm_free(&xcomm);
    MPI_Finalize();
    return any_bad ? any_bad : wrong_picks ? 1 : 0;
}
