/* Distributed matrix transpose, the communication step of a 2-D FFT.
 *
 * An N x N matrix of complex numbers is split by rows: each of the P ranks owns
 * N/P consecutive rows. After the transpose each rank owns N/P consecutive
 * columns of the original matrix, stored as rows. The receive side uses a
 * strided, resized datatype, so MPIX_Alltoall scatters each incoming block
 * straight into place (no local transpose pass).
 *
 * Usage: mpiexec -n P ./fft_transpose [N] [algorithm]   (N a multiple of P)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpix.h"

/* The value of element (row, col): every rank can compute any element. */
static double re(long row, long col) { return row * 1000.0 + col; }
static double im(long row, long col) { return -(double)row - col * 0.5; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 8L * size;
    if (n <= 0 || n % size) {
        if (rank == 0)
            fprintf(stderr, "N must be a positive multiple of the rank count\n");
        MPI_Finalize();
        return 1;
    }
    long b = n / size; /* rows (and later columns) per rank */

    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    if (argc > 2) {
        MPIX_Info *info;
        MPIX_Info_init(&info);
        if (MPIX_Info_set(info, "alltoall_algorithm", argv[2]) != MPI_SUCCESS && rank == 0)
            fprintf(stderr, "unknown algorithm %s, using auto\n", argv[2]);
        MPIX_Comm_set_info(xcomm, info);
        MPIX_Info_free(&info);
    }

    /* Send side: my b rows, packed per destination as b x b sub-blocks
     * (block for rank j = my rows, columns j*b .. j*b+b-1, row-major). */
    double *send = malloc(sizeof(double) * 2 * b * n);
    double *recv = malloc(sizeof(double) * 2 * b * n);
    for (int j = 0; j < size; ++j)
        for (long r = 0; r < b; ++r)
            for (long c = 0; c < b; ++c) {
                double *z = send + 2 * ((long)j * b * b + r * b + c);
                z[0] = re(rank * b + r, j * b + c);
                z[1] = im(rank * b + r, j * b + c);
            }

    /* Receive side: the block from rank j holds rows j*b.. of my columns; element
     * (r, c) of it belongs at local row c, column j*b + r. One "column" type places
     * b elements down a column (stride n); resized to one complex so consecutive
     * columns follow each other. */
    MPI_Datatype complex_t, column, column_resized, block;
    MPI_Type_contiguous(2, MPI_DOUBLE, &complex_t);
    MPI_Type_vector((int)b, 1, (int)n, complex_t, &column);
    MPI_Type_create_resized(column, 0, 2 * sizeof(double), &column_resized);
    MPI_Type_contiguous((int)b, column_resized, &block);
    /* Block j starts at column j*b: extent b complexes. */
    MPI_Datatype block_resized;
    MPI_Type_create_resized(block, 0, (MPI_Aint)(2 * sizeof(double) * b), &block_resized);
    MPI_Type_commit(&complex_t);
    MPI_Type_commit(&block_resized);

    double t0 = MPI_Wtime();
    int rc = MPIX_Alltoall(send, (int)(b * b), complex_t, recv, 1, block_resized, xcomm);
    double t = MPI_Wtime() - t0;

    /* Check: local row c of rank p is original column p*b + c. */
    long bad = rc != MPI_SUCCESS;
    for (long c = 0; c < b && !bad; ++c)
        for (long row = 0; row < n; ++row) {
            const double *z = recv + 2 * (c * n + row);
            if (z[0] != re(row, rank * b + c) || z[1] != im(row, rank * b + c))
                ++bad;
        }
    long total_bad = 0;
    MPI_Allreduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    double tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fft_transpose: N=%ld P=%d %s (%.1f us)\n", n, size, total_bad ? "WRONG" : "verified", tmax * 1e6);

    MPI_Type_free(&complex_t);
    MPI_Type_free(&column);
    MPI_Type_free(&column_resized);
    MPI_Type_free(&block);
    MPI_Type_free(&block_resized);
    free(send);
    free(recv);
    MPIX_Comm_free(&xcomm);
    MPI_Finalize();
    return total_bad ? 1 : 0;
}
