// sim/calibrate-native: measures, natively on one node with two or more MPI
// ranks, what the one-node calibration platform needs (sim/calibrate writes it).
// Ranks 0 and 1 exchange the messages; the others only join the barriers and the
// copying at once, so a node of 16 cores is measured as 16 ranks load it:
//  - the one-way time of a message of n bytes between the two ranks (ping-pong),
//    from which the latency and the bandwidth of the intra-node path come;
//  - the per-message software cost (a stream of small nonblocking messages);
//  - the time of one memcpy of n bytes (a sweep from 16 B to 4 MiB, warm
//    buffers, as the library copies), from which the copy model's per-copy cost
//    and copy bandwidth come; and of the library's copy of a block of 16 B or
//    less (`small_copy`, 4-16 B pieces gathered from scattered places), the
//    model's cost of such a copy (copy_small).
//  - every rank copying at once between buffers of 1-64 MiB, alternating halves
//    (the copy rate out of the cache: the model's memory rate; `memcpy_both`);
//  - every rank sending n bytes to itself at once (`self_all`), as MPICH's
//    scattered MPI_Alltoall(v) moves a rank's own block: the model charges the
//    MPI library's collective that message (mpi_self) where it sends one;
//  - MPI_Pack of a datatype of several byte ranges (the MPI library's packing
//    of a message the library describes by ranges), per range.
//  - what sending such a datatype adds to an exchange between ranks 0 and 1
//    (`typed_send pieces bytes seconds`: both send at once, a hindexed send
//    against a contiguous one of the same bytes, the receives contiguous). On
//    this machine it is well below MPI_Pack's time for the same ranges
//    (16 x 1 KiB: 1.8 us against 6.1), so the pack lines are not its measure.
//  - with every rank busy at once (the CPU costs a many-round or probing row pays
//    on a loaded node): one MPI_Iprobe that finds nothing (`probe_all`), one
//    MPI_Test of a receive still pending (`test_all`), and one round of a
//    pairwise exchange, MPI_Sendrecv of n bytes with the ranks k away
//    (`round_all n`, k = 1..np-1 in turn); the slowest rank's time per call.
// Prints one line per measurement, `kind bytes seconds` (`pack pieces bytes
// seconds`), on rank 0; medians of repeated runs. Time is MPI_Wtime (and the steady clock for memcpy).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/local_work.hpp"  // copy_small: the library's copy of a small block

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Round trips of n bytes between ranks 0 and 1; the one-way time, median of
// `reps` timed groups of `inner` round trips each.
double pingpong(int me, std::size_t n, int reps, int inner, std::vector<char> &buf)
{
    std::vector<double> t;
    for (int r = 0; r < reps + 2; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < inner; ++i) {
            if (me == 0) {
                MPI_Send(buf.data(), static_cast<int>(n), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (me == 1) {
                MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf.data(), static_cast<int>(n), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        double dt = (MPI_Wtime() - t0) / inner / 2;
        if (r >= 2)
            t.push_back(dt);
    }
    return median(t);
}

// A window of `window` 16-byte Isends from rank 0 to rank 1 (receives posted
// first), then a zero-byte reply: time per message once the stream is steady,
// the larger of the send and receive software costs.
double message_rate(int me, int window, int reps)
{
    std::vector<char> buf(16 * static_cast<std::size_t>(window));
    std::vector<MPI_Request> req(window);
    std::vector<double> t;
    for (int r = 0; r < reps + 2; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == 1) {
            for (int i = 0; i < window; ++i)
                MPI_Irecv(&buf[16 * i], 16, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[i]);
            MPI_Send(nullptr, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);  // receives are posted
            MPI_Waitall(window, req.data(), MPI_STATUSES_IGNORE);
            MPI_Send(nullptr, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        } else if (me == 0) {
            MPI_Recv(nullptr, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t0 = MPI_Wtime();
            for (int i = 0; i < window; ++i)
                MPI_Isend(&buf[16 * i], 16, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[i]);
            MPI_Waitall(window, req.data(), MPI_STATUSES_IGNORE);
            MPI_Recv(nullptr, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        double dt = MPI_Wtime() - t0;
        if (r >= 2)
            t.push_back(dt);
    }
    return median(t);
}

// One memcpy of n bytes between two warm buffers, as the library copies blocks
// between its buffers: median over repeated timed groups.
// Every rank sends n bytes to itself at once, a receive posted first and then the
// send, as MPICH's scattered MPI_Alltoall(v) moves a rank's own block; the
// slowest rank's time per message, median of `reps` groups of `inner`.
double self_message(int me, std::size_t n, int reps, int inner, std::vector<char> &a, std::vector<char> &b)
{
    std::vector<double> t;
    const int count = static_cast<int>(n);
    for (int r = 0; r < reps + 2; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < inner; ++i) {
            MPI_Request q[2];
            MPI_Irecv(b.data(), count, MPI_BYTE, me, 7, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(a.data(), count, MPI_BYTE, me, 7, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        }
        double dt = (MPI_Wtime() - t0) / inner, slowest = 0;
        MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 2)
            t.push_back(slowest);
    }
    return median(t);
}

// Copies of `piece` bytes (4-16: the library's small copies, mpix::copy_small),
// 1,024 of them gathered from scattered places of `a` into `b` one after the
// other, as a node's small blocks are gathered into a message: the time per
// piece, median over repeated timed loops.
double small_copy_time(std::size_t piece, std::vector<char> &a, std::vector<char> &b)
{
    using clock = std::chrono::steady_clock;
    constexpr std::size_t kPieces = 1024;
    const std::size_t stride = 64;
    std::vector<std::size_t> from(kPieces);
    for (std::size_t i = 0; i < kPieces; ++i)
        from[i] = (i * 37 % kPieces) * stride;  // a scattered order over 64 KiB
    std::vector<double> t;
    volatile char sink = 0;
    for (int r = 0; r < 203; ++r) {
        auto t0 = clock::now();
        char *to = b.data();
        for (std::size_t i = 0; i < kPieces; ++i, to += piece)
            mpix::copy_small(to, a.data() + from[i], piece);
        sink = sink + b[r % (kPieces * piece)];
        double dt = std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(kPieces);
        if (r >= 3)
            t.push_back(dt);
    }
    return median(t);
}

double copy_time(std::size_t n, std::vector<char> &a, std::vector<char> &b)
{
    using clock = std::chrono::steady_clock;
    const std::size_t inner = std::max<std::size_t>(1, std::min<std::size_t>(4096, (std::size_t(64) << 20) / (n + 64)));
    std::vector<double> t;
    volatile char sink = 0;
    for (int r = 0; r < 23; ++r) {
        auto t0 = clock::now();
        for (std::size_t i = 0; i < inner; ++i) {
            // Alternate directions so neither buffer stays in one cache state.
            if (i & 1)
                std::memcpy(a.data(), b.data(), n);
            else
                std::memcpy(b.data(), a.data(), n);
            sink = sink + a[i % n];
        }
        double dt = std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(inner);
        if (r >= 3)
            t.push_back(dt);
    }
    return median(t);
}

// MPI_Pack of one hindexed datatype of `pieces` ranges of `piece` bytes each,
// spread over a buffer: what the MPI library does for a message the library
// describes by several byte ranges. Seconds per call, median.
double pack_time(int pieces, int piece, std::vector<char> &src, std::vector<char> &dst)
{
    std::vector<int> lens(pieces, piece);
    std::vector<MPI_Aint> displs(pieces);
    for (int i = 0; i < pieces; ++i)
        displs[i] = static_cast<MPI_Aint>(i) * 2 * piece;  // gaps between ranges
    MPI_Datatype t;
    MPI_Type_create_hindexed(pieces, lens.data(), displs.data(), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    const int inner = std::max(1, std::min(2000, (64 << 20) / (pieces * piece + 64)));
    std::vector<double> times;
    for (int r = 0; r < 23; ++r) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < inner; ++i) {
            int position = 0;
            MPI_Pack(src.data(), 1, t, dst.data(), static_cast<int>(dst.size()), &position, MPI_COMM_SELF);
        }
        double dt = (MPI_Wtime() - t0) / inner;
        if (r >= 3)
            times.push_back(dt);
    }
    MPI_Type_free(&t);
    return median(times);
}

// Ranks 0 and 1 exchanging `pieces` ranges of `piece` bytes at once, the send a
// hindexed datatype (typed) or contiguous bytes; seconds per exchange, median.
double exchange_time(int me, bool typed, int pieces, int piece, std::vector<char> &src, std::vector<char> &dst)
{
    std::vector<int> lens(pieces, piece);
    std::vector<MPI_Aint> displs(pieces);
    for (int i = 0; i < pieces; ++i)
        displs[i] = static_cast<MPI_Aint>(i) * 2 * piece;  // gaps between ranges, as pack_time
    MPI_Datatype t;
    MPI_Type_create_hindexed(pieces, lens.data(), displs.data(), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    const int bytes = pieces * piece, inner = std::max(20, std::min(1000, (16 << 20) / (bytes + 64)));
    std::vector<double> times;
    for (int r = 0; r < 17; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; me < 2 && i < inner; ++i) {
            MPI_Request q[2];
            MPI_Irecv(dst.data(), bytes, MPI_BYTE, 1 - me, 5, MPI_COMM_WORLD, &q[0]);
            if (typed)
                MPI_Isend(src.data(), 1, t, 1 - me, 5, MPI_COMM_WORLD, &q[1]);
            else
                MPI_Isend(src.data(), bytes, MPI_BYTE, 1 - me, 5, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        }
        if (r >= 2)
            times.push_back((MPI_Wtime() - t0) / inner);
    }
    MPI_Type_free(&t);
    return median(times);
}

// Every rank repeating `call` `inner` times between barriers; the slowest
// rank's time per call, median of `reps` groups.
template <class Call>
double slowest_per_call(int reps, int inner, Call call)
{
    std::vector<double> t;
    for (int r = 0; r < reps + 2; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < inner; ++i)
            call(i);
        double dt = (MPI_Wtime() - t0) / inner, slowest = 0;
        MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 2)
            t.push_back(slowest);
    }
    return median(t);
}

// The costs a row pays per MPI call and per round with every core of the node
// busy (see the file's comment); printed by rank 0.
void loaded_node_costs(int me, int np)
{
    int flag = 0;
    double probe = slowest_per_call(15, 2000, [&](int) {
        MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    });
    char byte = 0;
    MPI_Request pending;
    MPI_Irecv(&byte, 1, MPI_BYTE, MPI_ANY_SOURCE, 78, MPI_COMM_WORLD, &pending);
    double test = slowest_per_call(15, 2000, [&](int) { MPI_Test(&pending, &flag, MPI_STATUS_IGNORE); });
    MPI_Cancel(&pending);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    if (me == 0) {
        std::printf("probe_all %d %.9e\n", np, probe);
        std::printf("test_all %d %.9e\n", np, test);
    }
    for (std::size_t n : {std::size_t(16), std::size_t(1024), std::size_t(16384)}) {
        std::vector<char> out(n, 4), in(n);
        double round = slowest_per_call(15, 4 * (np - 1), [&](int i) {
            int k = 1 + i % (np - 1);
            MPI_Sendrecv(out.data(), static_cast<int>(n), MPI_BYTE, (me + k) % np, 79, in.data(),
                         static_cast<int>(n), MPI_BYTE, (me - k + np) % np, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        });
        if (me == 0)
            std::printf("round_all %zu %.9e\n", n, round);
    }
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me = 0, np = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        if (me == 0)
            std::fprintf(stderr, "calibrate-native: run with 2 or more ranks on one node (mpiexec -n 2)\n");
        MPI_Finalize();
        return 2;
    }
    const std::size_t largest = std::size_t(4) << 20;
    std::vector<char> buf(largest, 1);
    // Powers of 4, and around MPICH's switch from eager to rendezvous messages.
    std::vector<std::size_t> sizes;
    for (std::size_t n = 1; n <= largest; n *= 4)
        sizes.push_back(n);
    for (std::size_t n = 8192; n < 16384; n += 1024)
        sizes.push_back(n);
    for (std::size_t n : {16385, 32768, 131072, 524288, 2097152})
        sizes.push_back(n);
    std::sort(sizes.begin(), sizes.end());
    for (std::size_t n : sizes) {
        int inner = n <= 65536 ? 200 : 20;
        double t = pingpong(me, n, 15, inner, buf);
        if (me == 0)
            std::printf("pingpong %zu %.9e\n", n, t);
    }
    for (int window : {1, 64}) {
        double t = message_rate(me, window, 25);
        if (me == 0)
            std::printf("stream %d %.9e\n", window, t);
    }
    // Every rank copying at once between fresh buffer pairs of n bytes each
    // (as the ranks of an exchange copy their blocks, each from and to memory
    // it does not reuse at once): where the copy rate falls out of the cache.
    // Rank 0 prints the slowest rank's time per copy.
    for (std::size_t n : {std::size_t(1) << 20, std::size_t(4) << 20, std::size_t(16) << 20, std::size_t(64) << 20}) {
        std::vector<char> a(2 * n, 2), b(2 * n, 3);
        std::vector<double> t;
        for (int r = 0; r < 13; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            // Two halves in turn: each copy reads and writes memory the last one did not touch.
            std::memcpy(b.data() + (r % 2) * n, a.data() + (r % 2) * n, n);
            double dt = MPI_Wtime() - t0, slowest = 0;
            MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r >= 3)
                t.push_back(slowest);
        }
        if (me == 0)
            std::printf("memcpy_both %zu %.9e\n", n, median(t));
    }
    loaded_node_costs(me, np);
    // The MPI library's message from each rank to itself (`self_all`): where it
    // leaves the eager path, and its cost above (sim/calibrate: mpi_self).
    {
        std::vector<char> a(std::size_t(1) << 20, 4), b(std::size_t(1) << 20, 0);
        std::vector<std::size_t> self_sizes = {1024, 4096, 16384, 65536, 262144, std::size_t(1) << 20};
        for (std::size_t n = 5120; n < 16384; n += 1024)
            self_sizes.push_back(n);
        std::sort(self_sizes.begin(), self_sizes.end());
        for (std::size_t n : self_sizes) {
            double t = self_message(me, n, 15, n <= 65536 ? 100 : 10, a, b);
            if (me == 0)
                std::printf("self_all %zu %.9e\n", n, t);
        }
    }
    {
        std::vector<char> src(std::size_t(2) * 256 * 1024, 5), dst(std::size_t(256) * 1024);
        for (int piece : {8, 64, 1024})
            for (int pieces : {1, 16, 256}) {
                double typed = exchange_time(me, true, pieces, piece, src, dst);
                double contiguous = exchange_time(me, false, pieces, piece, src, dst);
                if (me == 0)
                    std::printf("typed_send %d %d %.9e\n", pieces, piece, typed - contiguous);
            }
    }
    // Copies on rank 0 only, with the other ranks waiting in a barrier (idle cores).
    if (me == 0) {
        std::vector<char> a(largest, 2), b(largest, 3);
        for (std::size_t n = 16; n <= largest; n *= 2)
            std::printf("memcpy %zu %.9e\n", n, copy_time(n, a, b));
        for (std::size_t piece : {4, 8, 16})
            std::printf("small_copy %zu %.9e\n", piece, small_copy_time(piece, a, b));
        for (int piece : {8, 64, 1024})
            for (int pieces : {1, 16, 256})
                std::printf("pack %d %d %.9e\n", pieces, piece, pack_time(pieces, piece, a, b));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
