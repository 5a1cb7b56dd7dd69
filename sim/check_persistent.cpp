// sim/check_persistent: what test/sim-persistent.sh runs under SimGrid SMPI
// (sim/run): every registry row of MPIX_Alltoall and MPIX_Alltoallv, and auto,
// as a persistent request started three times, completed by MPIX_Wait and then
// by MPIX_Test loops, with blocks of zero bytes among the others. A completion
// by MPIX_Test runs the exchange as a task that may not block, so every wait
// inside it is a test; SimGrid 3.32's MPI_Test leaves the flag unset for a
// request never posted (MPI_REQUEST_NULL with MPI_STATUS_IGNORE), and a wait on
// one (a round with nothing to receive) then spun forever without letting
// simulated time advance (src/core/wait.cpp). Built natively too (make check).
//
// Every received byte and the guard bytes between and after the blocks are
// checked; the send buffer must come back unchanged. Exit status 1 on a wrong
// byte, 2 on an error returned; rank 0 prints one line per row.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "mpix.h"
#include "select/registry.hpp"

namespace {

constexpr unsigned char kGuard = 0xEE;
constexpr int kGap = 3;  // guard bytes before every block

int set_algorithm(MPIX_Comm *xcomm, bool uniform, const char *name)
{
    MPIX_Info *info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, uniform ? "alltoall_algorithm" : "alltoallv_algorithm", name);
    const int rc = MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
    return rc;
}

// How MPIX_Alltoallv's blocks are sized: `mixed`, a quarter of the pairs send
// none; `ring`, each rank sends only to itself and the next rank (a shift), so
// that the log-time rows' later rounds carry nothing at all.
enum class Pattern { mixed, ring };

// Bytes src sends dst (MPIX_Alltoall: 8 each).
int block_bytes(bool uniform, Pattern pattern, int p, int src, int dst)
{
    if (uniform)
        return 8;
    if (pattern == Pattern::ring)
        return (dst - src + p) % p <= 1 ? 8 : 0;
    return ((src * 3 + dst) % 4) * 8;
}

unsigned char value(int src, int dst, int k, int start)
{
    return static_cast<unsigned char>(src * 31 + dst * 7 + k * 3 + start * 11 + 1);
}

// One row, three starts. Returns 0, 1 (wrong byte) or 2 (error returned).
int check_row(MPIX_Comm *xcomm, bool uniform, Pattern pattern, const char *name, int p, int me)
{
    if (set_algorithm(xcomm, uniform, name) != MPI_SUCCESS)
        return 2;
    std::vector<int> scounts(p), sdispls(p), rcounts(p), rdispls(p);
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < p; ++j) {
        stotal += kGap;
        scounts[j] = block_bytes(uniform, pattern, p, me, j);
        sdispls[j] = stotal;
        stotal += scounts[j];
        rtotal += kGap;
        rcounts[j] = block_bytes(uniform, pattern, p, j, me);
        rdispls[j] = rtotal;
        rtotal += rcounts[j];
    }
    std::vector<unsigned char> send(static_cast<std::size_t>(stotal) + kGap, kGuard);
    std::vector<unsigned char> recv(static_cast<std::size_t>(rtotal) + kGap);
    MPIX_Request *req = nullptr;
    // MPIX_Alltoall's blocks are contiguous: its own layout, no gaps.
    const int rc = uniform ? MPIX_Alltoall_init(send.data(), 8, MPI_BYTE, recv.data(), 8, MPI_BYTE, xcomm, nullptr, &req)
                           : MPIX_Alltoallv_init(send.data(), scounts.data(), sdispls.data(), MPI_BYTE, recv.data(),
                                                 rcounts.data(), rdispls.data(), MPI_BYTE, xcomm, nullptr, &req);
    if (rc != MPI_SUCCESS)
        return 2;
    const auto sent_at = [&](int j) { return uniform ? static_cast<std::size_t>(j) * 8 : static_cast<std::size_t>(sdispls[j]); };
    const auto received_at = [&](int j) { return uniform ? static_cast<std::size_t>(j) * 8 : static_cast<std::size_t>(rdispls[j]); };
    int bad = 0;
    for (int start = 1; start <= 3; ++start) {
        std::fill(send.begin(), send.end(), kGuard);
        std::fill(recv.begin(), recv.end(), kGuard);
        for (int j = 0; j < p; ++j)
            for (int k = 0; k < scounts[j]; ++k)
                send[sent_at(j) + static_cast<std::size_t>(k)] = value(me, j, k, start);
        const std::vector<unsigned char> send_before = send;
        int done = MPIX_Start(req);
        if (done != MPI_SUCCESS)
            return 2;
        if (start == 1) {
            done = MPIX_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            int flag = 0;
            while (done == MPI_SUCCESS && !flag)
                done = MPIX_Test(&req, &flag, MPI_STATUS_IGNORE);
        }
        if (done != MPI_SUCCESS)
            return 2;
        std::vector<bool> in_block(recv.size(), false);
        for (int j = 0; j < p; ++j)
            for (int k = 0; k < rcounts[j]; ++k) {
                const std::size_t at = received_at(j) + static_cast<std::size_t>(k);
                in_block[at] = true;
                if (recv[at] != value(j, me, k, start))
                    bad = 1;
            }
        for (std::size_t i = 0; i < recv.size(); ++i)
            if (!in_block[i] && recv[i] != kGuard)
                bad = 1;  // a write between, before or past the blocks
        if (send != send_before)
            bad = 1;
    }
    if (MPIX_Request_free(&req) != MPI_SUCCESS)
        return 2;
    return bad;
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = 0, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPIX_Comm *xcomm = nullptr;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    int worst = 0, cases = 0;
    for (const mpix::Collective coll : {mpix::Collective::alltoall, mpix::Collective::alltoallv}) {
        const bool uniform = coll == mpix::Collective::alltoall;
        std::vector<std::string> names;
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
            names.push_back(a->name);
        names.push_back("auto");
        for (const std::string &name : names)
            for (const Pattern pattern : {Pattern::mixed, Pattern::ring}) {
                if (uniform && pattern == Pattern::ring)
                    continue;
                const int here = check_row(xcomm, uniform, pattern, name.c_str(), p, me);
                int outcome = 0;
                MPI_Allreduce(&here, &outcome, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                worst = std::max(worst, outcome);
                ++cases;
                if (me == 0)
                    std::printf("%s %s %s%s\n", outcome == 0 ? "ok    " : outcome == 1 ? "WRONG " : "ERROR ",
                                mpix::collective_name(coll), name.c_str(), uniform ? "" : pattern == Pattern::ring ? " (ring)" : " (mixed)");
            }
    }
    if (me == 0)
        std::printf("check_persistent P=%d: %d cases, %s\n", p, cases, worst == 0 ? "all right" : "FAILED");
    MPIX_Comm_free(&xcomm);
    MPI_Finalize();
    return worst;
}
