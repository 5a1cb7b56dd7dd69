/* An unmodified MPI program (plain C, no mpix calls) linked with libmpix_pmpi:
 * MPI_Alltoall and MPI_Alltoallv must go through mpix and still be right.
 * Also the C compile check of mpix.h. */
#define _POSIX_C_SOURCE 200809L
#include <CUnit/Basic.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "mpix.h"

static int rank, size;

static int global_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

static void test_alltoallv_through_interposer(void)
{
    /* The trace file proves the call went through mpix (pairwise traces rounds). */
    char prefix[64], file[96];
    int job = 0;
    if (rank == 0)
        job = (int)getpid();
    MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(prefix, sizeof prefix, "/tmp/mpix-interpose-%d", job);
    snprintf(file, sizeof file, "%s.%d.jsonl", prefix, rank);
    setenv("MPIX_TRACE", prefix, 1);
    setenv("MPIX_ALLTOALLV_ALGORITHM", "pairwise", 1);
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    int stot = 0, rtot = 0;
    for (int j = 0; j < size; ++j) {
        sc[j] = (rank + j) % 3;  /* some zeros */
        rc[j] = (j + rank) % 3;
        sd[j] = stot;
        rd[j] = rtot + 1; /* gapped */
        stot += sc[j];
        rtot += rc[j] + 1;
    }
    int *sb = malloc((stot + 1) * sizeof(int)), *rb = malloc((rtot + 1) * sizeof(int));
    for (int j = 0; j < size; ++j)
        for (int e = 0; e < sc[j]; ++e)
            sb[sd[j] + e] = rank * 1000 + j * 10 + e;
    for (int i = 0; i <= rtot; ++i)
        rb[i] = -7;
    int ok = MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
    int pos = 0;
    for (int j = 0; j < size; ++j) {
        ok &= rb[pos] == -7; /* gap untouched */
        for (int e = 0; e < rc[j]; ++e)
            ok &= rb[rd[j] + e] == j * 1000 + rank * 10 + e;
        pos = rd[j] + rc[j];
    }
    CU_ASSERT(global_ok(ok));
    FILE *f = fopen(file, "r");
    CU_ASSERT(global_ok(size == 1 || f != NULL));
    if (f) {
        fclose(f);
        remove(file);
    }
    unsetenv("MPIX_TRACE");
    unsetenv("MPIX_ALLTOALLV_ALGORITHM");
    free(sc); free(sd); free(rc); free(rd); free(sb); free(rb);
}

static void test_alltoall_through_interposer(void)
{
    int *sb = malloc(2 * size * sizeof(int)), *rb = malloc(2 * size * sizeof(int));
    for (int j = 0; j < size; ++j) {
        sb[2 * j] = rank * 100 + j;
        sb[2 * j + 1] = -rank;
    }
    int ok = MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
    for (int j = 0; j < size; ++j)
        ok &= rb[2 * j] == j * 100 + rank && rb[2 * j + 1] == -j;
    /* a duplicated communicator gets its own cached MPIX_Comm, freed with it */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    ok &= MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 2, MPI_INT, dup) == MPI_SUCCESS;
    for (int j = 0; j < size; ++j)
        ok &= rb[2 * j] == rank * 100 + j && rb[2 * j + 1] == -rank;
    MPI_Comm_free(&dup);
    CU_ASSERT(global_ok(ok));
    CU_ASSERT_PTR_NOT_NULL(MPIX_Algorithm_name("alltoallv", 0));
    free(sb); free(rb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CU_initialize_registry();
    CU_pSuite s = CU_add_suite("interpose", NULL, NULL);
    CU_add_test(s, "MPI_Alltoallv through libmpix_pmpi", test_alltoallv_through_interposer);
    CU_add_test(s, "MPI_Alltoall through libmpix_pmpi", test_alltoall_through_interposer);
    CU_basic_set_mode(rank == 0 ? CU_BRM_VERBOSE : CU_BRM_SILENT);
    if (rank == 0)
        CU_basic_run_tests();
    else
        CU_run_all_tests();
    unsigned failed = CU_get_number_of_failures(), any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    CU_cleanup_registry();
    MPI_Finalize();
    return any ? 1 : 0;
}
