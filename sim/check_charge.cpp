// sim/check_charge: what test/sim-charge.sh runs under SimGrid SMPI (sim/run) to
// check that the simulation charges the library's own copies. Times MPIX_Alltoall
// (blocks of argv[1] bytes, default 4096) with a copy-heavy row (bruck_basic:
// rotation, packing and unpacking in every round, inverse rotation), a direct
// row (linear: only the rank's own block is copied) and the MPI library's own
// (pmpi: charged what the MPI library does with the own block, mpix copies
// nothing), each once after one warm-up call, verified; rank 0 prints `ROW simulated_us copied_bytes
// small_copies pieces blocks` per row, the slowest rank's time and this rank's copies (core/local_work.hpp) of the
// timed call, how many of them were of 16 B or less (copy_small), the pieces
// (ranges) they handled, which --cpu-piece charges, and the basic blocks of the
// library's code it ran (core/cpu_count.hpp; 0 where the build does not count
// them), which --cpu-block charges. Exit status 1 on a wrong byte or an error.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/comm.hpp"
#include "core/cpu_count.hpp"
#include "mpix.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = 0, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const int b = argc > 1 ? std::atoi(argv[1]) : 4096;
    MPIX_Comm *xcomm = nullptr;
    if (b <= 0 || MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) {
        MPI_Finalize();
        return 2;
    }
    std::vector<unsigned char> send(static_cast<std::size_t>(p) * b), recv(send.size());
    int bad = 0;
    for (const char *row : {"bruck_basic", "linear", "pmpi"}) {
        MPIX_Info *info = nullptr;
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "alltoall_algorithm", row);
        MPIX_Comm_set_info(xcomm, info);
        MPIX_Info_free(&info);
        double slowest = 0;
        unsigned long long copied = 0, small = 0, pieces = 0, blocks = 0;
        for (int call = 0; call < 2; ++call) {
            for (std::size_t k = 0; k < send.size(); ++k)  // byte k of the block for rank k / b
                send[k] = static_cast<unsigned char>(me * 31 + static_cast<int>(k / b) * 7 + static_cast<int>(k % b) + call);
            MPI_Barrier(MPI_COMM_WORLD);
            const std::uint64_t before = xcomm->work.bytes(), small_before = xcomm->work.small_copies(),
                                pieces_before = xcomm->work.pieces();
            const std::uint64_t blocks_before = mpix::cpu_blocks();
            double t0 = MPI_Wtime();
            int rc = MPIX_Alltoall(send.data(), b, MPI_BYTE, recv.data(), b, MPI_BYTE, xcomm);
            double t = MPI_Wtime() - t0;
            copied = xcomm->work.bytes() - before;
            small = xcomm->work.small_copies() - small_before;
            pieces = xcomm->work.pieces() - pieces_before;
            blocks = mpix::cpu_blocks() - blocks_before;
            MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (rc != MPI_SUCCESS)
                bad = 1;
            for (std::size_t k = 0; k < recv.size(); ++k)  // from rank k / b: its block for me
                if (recv[k] != static_cast<unsigned char>(static_cast<int>(k / b) * 31 + me * 7 +
                                                          static_cast<int>(k % b) + call))
                    bad = 1;
        }
        if (me == 0)
            std::printf("%s %.3f %llu %llu %llu %llu\n", row, slowest * 1e6, copied, small, pieces, blocks);
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && any_bad)
        std::printf("wrong bytes received\n");
    MPIX_Comm_free(&xcomm);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
