/* Times MPI Advance's MPIL_Alltoall algorithms under SMPI, as mpix-bench times
 * its rows: barrier, one warm-up call, barrier, one timed call, slowest rank.
 * Every received byte of both calls is checked.
 *   mpil_driver S ALGO[,ALGO...]      (ALGO: a name below, or "all") */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "locality_aware.h"

extern double refcmp_copied_bytes, refcmp_working_set;

static const struct { const char *name; enum AlltoallMethod method; } algos[] = {
    {"pairwise", ALLTOALL_PAIRWISE},
    {"nonblocking", ALLTOALL_NONBLOCKING},
    {"hierarchical_pairwise", ALLTOALL_HIERARCHICAL_PAIRWISE},
    {"hierarchical_nonblocking", ALLTOALL_HIERARCHICAL_NONBLOCKING},
    {"multileader_pairwise", ALLTOALL_MULTILEADER_PAIRWISE},
    {"multileader_nonblocking", ALLTOALL_MULTILEADER_NONBLOCKING},
    {"node_aware_pairwise", ALLTOALL_NODE_AWARE_PAIRWISE},
    {"node_aware_nonblocking", ALLTOALL_NODE_AWARE_NONBLOCKING},
    {"locality_aware_pairwise", ALLTOALL_LOCALITY_AWARE_PAIRWISE},
    {"locality_aware_nonblocking", ALLTOALL_LOCALITY_AWARE_NONBLOCKING},
    {"multileader_locality_pairwise", ALLTOALL_MULTILEADER_LOCALITY_PAIRWISE},
    {"multileader_locality_nonblocking", ALLTOALL_MULTILEADER_LOCALITY_NONBLOCKING},
};
enum { n_algos = sizeof algos / sizeof algos[0] };

static unsigned char pattern(int src, int dst, long k, int call)
{
    return (unsigned char)(src * 131u + dst * 7u + (unsigned long)k * 13u + call * 101u + 1u);
}

static int run(const char *name, enum AlltoallMethod method, long S, MPIL_Comm *xcomm)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    unsigned char *send = malloc((size_t)S * p + 1), *recv = malloc((size_t)S * p + 1);
    MPIL_Set_alltoall_algorithm(method);
    refcmp_working_set = 2.0 * (double)S * p;
    double t = 0;
    long wrong = 0;
    for (int call = 0; call < 2; call++) {
        for (int d = 0; d < p; d++)
            for (long k = 0; k < S; k++)
                send[(size_t)d * S + k] = pattern(rank, d, k, call);
        memset(recv, 0xEE, (size_t)S * p);
        refcmp_copied_bytes = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPIL_Alltoall(send, (int)S, MPI_BYTE, recv, (int)S, MPI_BYTE, xcomm);
        t = MPI_Wtime() - t0;
        for (int s = 0; s < p; s++)
            for (long k = 0; k < S; k++)
                wrong += recv[(size_t)s * S + k] != pattern(s, rank, k, call);
    }
    double tmax, cmax, cranks[1] = {refcmp_copied_bytes};
    long wrong_all;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(cranks, &cmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("MPIL_Alltoall_%s,%d,%ld,%.2f,%.0f,%.0f,%s\n", name, p, S, tmax * 1e6, cmax,
               refcmp_copied_bytes, wrong_all ? "WRONG" : "yes");
    fflush(stdout);
    free(send);
    free(recv);
    return wrong_all != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: mpil_driver S ALGO[,ALGO...]|all\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long S = atol(argv[1]);
    MPIL_Comm *xcomm;
    MPIL_Comm_init(&xcomm, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("row,P,bytes,time_us,copied_bytes_busiest,copied_bytes_rank0,verified\n");
    int bad = 0;
    char *list = strdup(argv[2]);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
        for (int i = 0; i < n_algos; i++)
            if (!strcmp(tok, "all") || !strcmp(tok, algos[i].name))
                bad |= run(algos[i].name, algos[i].method, S, xcomm);
    free(list);
    MPIL_Comm_free(&xcomm);
    MPI_Finalize();
    return bad;
}
