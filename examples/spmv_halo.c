/* SpMV halo set-up with mpix's sparse dynamic data exchange.
 *
 * Usage: mpiexec -n P spmv_halo PATH...   (PATH: a Matrix Market file or a
 * directory of .mtx files)
 *
 * Rows of A and entries of x are partitioned block-wise (separately, so
 * rectangular matrices work). Each rank knows which x entries it needs from whom,
 * but not who needs its own entries: the halo is formed as a sparse solver would,
 *   1. MPIX_Alltoall_crs:  to each owner, how many of its columns I need;
 *   2. MPIX_Alltoallv_crs: to each owner, the column indices themselves;
 * after which each rank knows what to send to whom. The halo exchange then runs
 * with plain point-to-point messages, and the distributed y = A x is checked
 * against a serial product. Every registry backend is tried in turn.
 * Exit status 0 iff every check passed on every rank. */
#include <dirent.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpix.h"

typedef struct {
    int rows, cols;
    long nnz;
    int *ri, *ci;
    double *v;
} Matrix;

/* Coordinate Matrix Market: real, integer, pattern or complex (real part);
 * symmetric/skew-symmetric/hermitian storage is expanded. */
static int read_matrix(const char *path, Matrix *m)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket", 14) || !strstr(line, "coordinate")) {
        fclose(f);
        return -1;
    }
    int pattern = strstr(line, "pattern") != NULL;
    int skew = strstr(line, "skew") != NULL;
    int sym = skew || strstr(line, "symmetric") || strstr(line, "hermitian");
    long stored = 0;
    do {
        if (!fgets(line, sizeof line, f)) {
            fclose(f);
            return -1;
        }
    } while (line[0] == '%');
    if (sscanf(line, "%d %d %ld", &m->rows, &m->cols, &stored) != 3) {
        fclose(f);
        return -1;
    }
    m->ri = malloc(sizeof(int) * 2 * (stored + 1));
    m->ci = malloc(sizeof(int) * 2 * (stored + 1));
    m->v = malloc(sizeof(double) * 2 * (stored + 1));
    m->nnz = 0;
    for (long k = 0; k < stored; ++k) {
        int i, j;
        double a = 1.0;
        if (!fgets(line, sizeof line, f) || sscanf(line, "%d %d %lf", &i, &j, &a) < 2) {
            fclose(f);
            return -1;
        }
        if (pattern)
            a = 1.0;
        m->ri[m->nnz] = i - 1, m->ci[m->nnz] = j - 1, m->v[m->nnz++] = a;
        if (sym && i != j)
            m->ri[m->nnz] = j - 1, m->ci[m->nnz] = i - 1, m->v[m->nnz++] = skew ? -a : a;
    }
    fclose(f);
    return 0;
}

/* Block partition: rank r owns [first(r), first(r+1)). */
static int first(int r, int n, int p) { return (int)((long long)r * n / p); }
static int owner(int i, int n, int p)
{
    int r = (int)((long long)i * p / n);
    while (first(r + 1, n, p) <= i)
        ++r;
    while (first(r, n, p) > i)
        --r;
    return r;
}
static double x_value(int j) { return 1.0 + 0.25 * (j % 7); }

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* One halo set-up + exchange + SpMV with backends `crs` / `crsv`; returns the
 * number of wrong y entries on this rank (or -1 on an MPI error). */
static long spmv_check(const Matrix *m, MPIX_Comm *xcomm, const char *crs, const char *crsv, int *halo_peers)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int r0 = first(me, m->rows, p), r1 = first(me + 1, m->rows, p);
    int c0 = first(me, m->cols, p), c1 = first(me + 1, m->cols, p);

    /* Columns I need from others: sorted, unique, grouped by owner. */
    int *need = malloc(sizeof(int) * (m->nnz + 1)), nneed = 0;
    for (long k = 0; k < m->nnz; ++k)
        if (m->ri[k] >= r0 && m->ri[k] < r1 && (m->ci[k] < c0 || m->ci[k] >= c1))
            need[nneed++] = m->ci[k];
    qsort(need, nneed, sizeof(int), cmp_int);
    int u = 0;
    for (int k = 0; k < nneed; ++k)
        if (u == 0 || need[u - 1] != need[k])
            need[u++] = need[k];
    nneed = u;
    int *dest = malloc(sizeof(int) * (p + 1)), *cnt = malloc(sizeof(int) * (p + 1)),
        *dsp = malloc(sizeof(int) * (p + 1)), ndest = 0;
    for (int k = 0; k < nneed; ++k) {
        int o = owner(need[k], m->cols, p);
        if (ndest == 0 || dest[ndest - 1] != o) {
            dest[ndest] = o, cnt[ndest] = 0, dsp[ndest] = k;
            ++ndest;
        }
        cnt[ndest - 1]++;
    }

    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "alltoall_crs_algorithm", crs);
    MPIX_Info_set(info, "alltoallv_crs_algorithm", crsv);
    /* 1. Who needs my columns, and how many: capacities are P (at most one
     *    message per rank). */
    int nreq = p, *req_src = malloc(sizeof(int) * p), *req_cnt = malloc(sizeof(int) * p);
    int rc = MPIX_Alltoall_crs(ndest, dest, 1, MPI_INT, cnt, &nreq, req_src, 1, MPI_INT, req_cnt, info, xcomm);
    /* 2. Which columns: the sizes are now known exactly, so say so. */
    int total = 0;
    for (int k = 0; rc == MPI_SUCCESS && k < nreq; ++k)
        total += req_cnt[k];
    int nreq2 = nreq, total2 = total;
    int *idx_src = malloc(sizeof(int) * (nreq + 1)), *idx_cnt = malloc(sizeof(int) * (nreq + 1)),
        *idx_dsp = malloc(sizeof(int) * (nreq + 1)), *idx = malloc(sizeof(int) * (total + 1));
    MPIX_Info_set(info, "crs_recv_nnz_known", "true");
    MPIX_Info_set(info, "crs_recv_size_known", "true");
    if (rc == MPI_SUCCESS)
        rc = MPIX_Alltoallv_crs(ndest, nneed, dest, cnt, dsp, MPI_INT, need, &nreq2, &total2, idx_src, idx_cnt,
                                idx_dsp, MPI_INT, idx, info, xcomm);
    MPIX_Info_free(&info);
    long wrong = rc == MPI_SUCCESS ? 0 : -1;
    for (int k = 0; wrong == 0 && k < nreq; ++k)
        if (idx_src[k] != req_src[k] || idx_cnt[k] != req_cnt[k])
            wrong = -1;

    /* 3. Halo exchange: send the requested x entries, receive the needed ones. */
    double *xl = malloc(sizeof(double) * (c1 - c0 + 1)), *halo = malloc(sizeof(double) * (nneed + 1)),
           *out = malloc(sizeof(double) * (total + 1));
    for (int j = c0; j < c1; ++j)
        xl[j - c0] = x_value(j);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (ndest + nreq + 1));
    int nr = 0;
    if (wrong == 0) {
        for (int k = 0; k < ndest; ++k)
            MPI_Irecv(halo + dsp[k], cnt[k], MPI_DOUBLE, dest[k], 99, MPI_COMM_WORLD, &reqs[nr++]);
        for (int k = 0; k < nreq; ++k) {
            for (int t = 0; t < idx_cnt[k]; ++t)
                out[idx_dsp[k] + t] = xl[idx[idx_dsp[k] + t] - c0];
            MPI_Isend(out + idx_dsp[k], idx_cnt[k], MPI_DOUBLE, idx_src[k], 99, MPI_COMM_WORLD, &reqs[nr++]);
        }
        /* (MPI_Waitall with MPI_STATUSES_IGNORE draws a GCC 12 warning from MPICH's header) */
        for (int k = 0; k < nr; ++k)
            MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
    }

    /* 4. y = A x with local + halo x, against the serial product. */
    double *y = calloc(r1 - r0 + 1, sizeof(double)), *ys = calloc(r1 - r0 + 1, sizeof(double));
    for (long k = 0; wrong == 0 && k < m->nnz; ++k) {
        int i = m->ri[k], j = m->ci[k];
        if (i < r0 || i >= r1)
            continue;
        double xj;
        if (j >= c0 && j < c1) {
            xj = xl[j - c0];
        } else {
            int *hit = bsearch(&j, need, nneed, sizeof(int), cmp_int);
            xj = halo[hit - need];
        }
        y[i - r0] += m->v[k] * xj;
        ys[i - r0] += m->v[k] * x_value(j);
    }
    for (int i = 0; wrong == 0 && i < r1 - r0; ++i)
        if (fabs(y[i] - ys[i]) > 1e-12 * (1.0 + fabs(ys[i])))
            ++wrong;
    *halo_peers = ndest;
    free(need), free(dest), free(cnt), free(dsp), free(req_src), free(req_cnt), free(idx_src), free(idx_cnt);
    free(idx_dsp), free(idx), free(xl), free(halo), free(out), free(reqs), free(y), free(ys);
    return wrong;
}

static int check_matrix(const char *path, MPIX_Comm *xcomm)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    Matrix m;
    int bad = read_matrix(path, &m) != 0, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad) {
        if (me == 0)
            fprintf(stderr, "spmv_halo: cannot read Matrix Market file %s\n", path);
        return 1;
    }
    int failures = 0;
    for (int a = 0; MPIX_Algorithm_name("alltoall_crs", a); ++a) {
        const char *crs = MPIX_Algorithm_name("alltoall_crs", a);
        /* alltoallv_crs has no `rma`: pair it with auto there. */
        const char *crsv = "auto";
        for (int b = 0; MPIX_Algorithm_name("alltoallv_crs", b); ++b)
            if (!strcmp(MPIX_Algorithm_name("alltoallv_crs", b), crs))
                crsv = crs;
        int peers = 0;
        long wrong = spmv_check(&m, xcomm, crs, crsv, &peers), worst = 0;
        int max_peers = 0;
        MPI_Allreduce(&wrong, &worst, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
        long sum = wrong < 0 ? 0 : wrong, total = 0;
        MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&peers, &max_peers, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        int ok = worst == 0 && total == 0;
        failures += !ok;
        if (me == 0)
            printf("%-28s %dx%d nnz=%ld  %-22s/%-22s halo peers<=%d  %s\n", strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
                   m.rows, m.cols, m.nnz, crs, crsv, max_peers, ok ? "ok" : "WRONG");
    }
    free(m.ri), free(m.ci), free(m.v);
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 2) {
        if (me == 0)
            fprintf(stderr, "usage: spmv_halo MATRIX.mtx|DIRECTORY...\n");
        MPI_Finalize();
        return 2;
    }
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    int failures = 0, checked = 0;
    for (int a = 1; a < argc; ++a) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            /* Missing input (e.g. the shared test matrices) is an error, not a skip. */
            if (me == 0)
                fprintf(stderr, "spmv_halo: %s does not exist\n", argv[a]);
            ++failures;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failures += check_matrix(argv[a], xcomm);
            ++checked;
            continue;
        }
        struct dirent **list;
        int n = scandir(argv[a], &list, NULL, alphasort);
        for (int k = 0; k < n; ++k) {
            size_t len = strlen(list[k]->d_name);
            if (len > 4 && !strcmp(list[k]->d_name + len - 4, ".mtx")) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[a], list[k]->d_name);
                failures += check_matrix(path, xcomm);
                ++checked;
            }
            free(list[k]);
        }
        if (n >= 0)
            free(list);
    }
    if (checked == 0) {
        if (me == 0)
            fprintf(stderr, "spmv_halo: no matrices found\n");
        ++failures;
    }
    if (me == 0)
        printf("spmv_halo: %d matrix file(s), %s\n", checked, failures ? "FAILED" : "all backends correct");
    MPIX_Comm_free(&xcomm);
    MPI_Finalize();
    return failures ? 1 : 0;
}
