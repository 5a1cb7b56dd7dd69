/* An iterative SpMV solver loop with a persistent neighbour halo exchange.
 *
 * Usage: mpiexec -n P spmv_solver [--ppn N] [--iters K] MATRIX.mtx...
 *
 * This is the shape of the inner loop of a distributed Krylov or eigen solver,
 * written with mpix end to end. It runs power iteration,
 *     x <- A x / ||A x||,   K times (default 100),
 * on a square Matrix Market matrix, and checks the result against the same
 * iterations done serially. Copy it and replace the update of x with yours.
 *
 *   1. Partition: rows of A and entries of x in contiguous blocks (rank r owns
 *      rows [first(r), first(r+1)) and the same entries of x).
 *   2. Halo discovery: each rank lists the off-rank columns its rows use, and
 *      tells each owner which ones with MPIX_Alltoallv_crs. The owners learn
 *      who needs what without any rank holding the global pattern.
 *   3. Topology: MPIX_Topo_init_crs turns what MPIX_Alltoallv_crs reported into
 *      a neighbour topology. With reply = 1 the direction is reversed: the
 *      owners (who received the requests) send x values back to the requesters.
 *   4. Persistent exchange: MPIX_Neighbor_alltoallv_init once; then per
 *      iteration MPIX_Start, the local part of y = A x (the columns this rank
 *      owns) while the halo is in flight, MPIX_Wait, the halo part, and the
 *      update of x (one MPI_Allreduce for the norm).
 *   5. Check: every rank repeats the K iterations serially on the whole matrix
 *      and compares its block of x; the program prints the largest error and
 *      exits non-zero above a tolerance.
 *
 * Steps 3-5 run once per neighbour backend (MPIX_Algorithm_name
 * ("neighbor_alltoallv", i), chosen with the hint neighbor_alltoallv_algorithm),
 * and with --ppn N once more per backend with nodes of N consecutive ranks
 * emulated (MPIX_Comm_update_locality), so locality-aware backends aggregate
 * across "nodes" even on one machine.
 *
 * Every mpix call is checked: MPI_COMM_WORLD and MPI_COMM_SELF get
 * MPI_ERRORS_RETURN before MPIX_Comm_init (mpix raises errors through the user
 * communicator's handler, MPIX_Info_* through MPI_COMM_SELF's), so a failing
 * call returns its code and MPIX_CHECK prints MPIX_Error_string's text and
 * aborts.
 *
 * For brevity every rank reads the whole file (it needs it anyway for the
 * serial check); a real code reads or receives only its own rows. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpix.h"

/* Checks an mpix (or MPI) call: on failure names it, prints the library's
 * error text and aborts every rank (a collective that failed on one rank
 * cannot be continued by the others). */
#define MPIX_CHECK(call)                                                                                  \
    do {                                                                                                  \
        int check_rc_ = (call);                                                                           \
        if (check_rc_ != MPI_SUCCESS) {                                                                   \
            char check_text_[MPI_MAX_ERROR_STRING];                                                       \
            int check_len_ = 0, check_me_ = -1;                                                           \
            MPIX_Error_string(check_rc_, check_text_, &check_len_);                                       \
            MPI_Comm_rank(MPI_COMM_WORLD, &check_me_);                                                    \
            fprintf(stderr, "spmv_solver: rank %d: %s failed (%s:%d): %s\n", check_me_, #call, __FILE__,  \
                    __LINE__, check_text_);                                                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                 \
        }                                                                                                 \
    } while (0)

/* The matrix as coordinate triplets (0-based), in file order. */
typedef struct {
    int n;     /* rows = columns */
    long nnz;  /* entries after expanding symmetric storage */
    int *row, *col;
    double *val;
} Triplets;

/* Reads a coordinate Matrix Market file: real, integer or pattern;
 * general, symmetric or skew-symmetric (the other triangle is added).
 * Returns 0, or -1 with a message in err. */
static int read_matrix_market(const char *path, Triplets *m, char *err, size_t errlen)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s", path);
        return -1;
    }
    if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket", 14) || !strstr(line, "coordinate") ||
        strstr(line, "complex")) {
        snprintf(err, errlen, "%s: not a coordinate real/integer/pattern Matrix Market file", path);
        fclose(f);
        return -1;
    }
    int pattern = strstr(line, "pattern") != NULL;
    int skew = strstr(line, "skew-symmetric") != NULL;
    int sym = skew || strstr(line, "symmetric") != NULL;
    do {
        if (!fgets(line, sizeof line, f)) {
            snprintf(err, errlen, "%s: no size line", path);
            fclose(f);
            return -1;
        }
    } while (line[0] == '%');
    int rows, cols;
    long stored;
    if (sscanf(line, "%d %d %ld", &rows, &cols, &stored) != 3 || rows <= 0 || stored < 0) {
        snprintf(err, errlen, "%s: bad size line", path);
        fclose(f);
        return -1;
    }
    if (rows != cols) {
        snprintf(err, errlen, "%s: %d x %d: the solver needs a square matrix", path, rows, cols);
        fclose(f);
        return -1;
    }
    m->n = rows;
    m->row = malloc(sizeof(int) * (2 * stored + 1));
    m->col = malloc(sizeof(int) * (2 * stored + 1));
    m->val = malloc(sizeof(double) * (2 * stored + 1));
    m->nnz = 0;
    for (long k = 0; k < stored; ++k) {
        int i, j;
        double a = 1.0;
        if (!fgets(line, sizeof line, f) || sscanf(line, "%d %d %lf", &i, &j, &a) < (pattern ? 2 : 3) || i < 1 ||
            i > rows || j < 1 || j > cols) {
            snprintf(err, errlen, "%s: bad entry %ld", path, k + 1);
            fclose(f);
            return -1;
        }
        m->row[m->nnz] = i - 1, m->col[m->nnz] = j - 1, m->val[m->nnz++] = a;
        if (sym && i != j)
            m->row[m->nnz] = j - 1, m->col[m->nnz] = i - 1, m->val[m->nnz++] = skew ? -a : a;
    }
    fclose(f);
    return 0;
}

/* Contiguous block partition: rank r owns [first(r), first(r+1)). */
static int first(int r, int n, int p) { return (int)((long long)r * n / p); }
static int owner(int i, int n, int p)
{
    int r = (int)(((long long)i * p + p - 1) / n); /* a guess, then corrected */
    if (r >= p)
        r = p - 1;
    while (first(r, n, p) > i)
        --r;
    while (first(r + 1, n, p) <= i)
        ++r;
    return r;
}

/* The starting vector: any fixed function of the global index. */
static double x_start(int j) { return 1.0 + 0.25 * (j % 7); }

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* This rank's rows in CSR, split as distributed solvers store them: `diag`
 * holds the entries whose column this rank owns (local index col - c0), `offd`
 * the others (index into the halo: the position of the column in `need`). */
typedef struct {
    int r0, r1;                /* my rows [r0, r1) = my entries of x */
    int *diag_ptr, *diag_col;  /* CSR of the owned columns */
    double *diag_val;
    int *offd_ptr, *offd_col;  /* CSR of the halo columns */
    double *offd_val;
    int nneed, *need;          /* halo: the global columns I need, ascending */
    int nowners, *owners;      /* ranks that own them, ascending */
    int *need_cnt, *need_dsp;  /* per owner: how many, where in `need` */
} LocalRows;

static void build_local_rows(const Triplets *m, int p, int me, LocalRows *lr)
{
    int n = m->n;
    lr->r0 = first(me, n, p), lr->r1 = first(me + 1, n, p);
    int nrows = lr->r1 - lr->r0;

    /* The off-rank columns my rows use: sorted and unique. Since ownership is
     * by contiguous blocks, they come grouped by owner in ascending order. */
    lr->need = malloc(sizeof(int) * (m->nnz + 1));
    int cnt = 0;
    for (long k = 0; k < m->nnz; ++k)
        if (m->row[k] >= lr->r0 && m->row[k] < lr->r1 && (m->col[k] < lr->r0 || m->col[k] >= lr->r1))
            lr->need[cnt++] = m->col[k];
    qsort(lr->need, cnt, sizeof(int), cmp_int);
    int u = 0;
    for (int k = 0; k < cnt; ++k)
        if (u == 0 || lr->need[u - 1] != lr->need[k])
            lr->need[u++] = lr->need[k];
    lr->nneed = u;
    lr->owners = malloc(sizeof(int) * (p + 1));
    lr->need_cnt = malloc(sizeof(int) * (p + 1));
    lr->need_dsp = malloc(sizeof(int) * (p + 1));
    lr->nowners = 0;
    for (int k = 0; k < lr->nneed; ++k) {
        int o = owner(lr->need[k], n, p);
        if (lr->nowners == 0 || lr->owners[lr->nowners - 1] != o) {
            lr->owners[lr->nowners] = o;
            lr->need_cnt[lr->nowners] = 0;
            lr->need_dsp[lr->nowners] = k;
            ++lr->nowners;
        }
        lr->need_cnt[lr->nowners - 1]++;
    }

    /* CSR of both parts, entries of a row kept in file order. */
    lr->diag_ptr = calloc(nrows + 1, sizeof(int));
    lr->offd_ptr = calloc(nrows + 1, sizeof(int));
    for (long k = 0; k < m->nnz; ++k) {
        int i = m->row[k], j = m->col[k];
        if (i < lr->r0 || i >= lr->r1)
            continue;
        if (j >= lr->r0 && j < lr->r1)
            lr->diag_ptr[i - lr->r0 + 1]++;
        else
            lr->offd_ptr[i - lr->r0 + 1]++;
    }
    for (int i = 0; i < nrows; ++i) {
        lr->diag_ptr[i + 1] += lr->diag_ptr[i];
        lr->offd_ptr[i + 1] += lr->offd_ptr[i];
    }
    lr->diag_col = malloc(sizeof(int) * (lr->diag_ptr[nrows] + 1));
    lr->diag_val = malloc(sizeof(double) * (lr->diag_ptr[nrows] + 1));
    lr->offd_col = malloc(sizeof(int) * (lr->offd_ptr[nrows] + 1));
    lr->offd_val = malloc(sizeof(double) * (lr->offd_ptr[nrows] + 1));
    int *dfill = calloc(nrows + 1, sizeof(int)), *ofill = calloc(nrows + 1, sizeof(int));
    for (long k = 0; k < m->nnz; ++k) {
        int i = m->row[k], j = m->col[k];
        if (i < lr->r0 || i >= lr->r1)
            continue;
        int li = i - lr->r0;
        if (j >= lr->r0 && j < lr->r1) {
            int at = lr->diag_ptr[li] + dfill[li]++;
            lr->diag_col[at] = j - lr->r0;
            lr->diag_val[at] = m->val[k];
        } else {
            int at = lr->offd_ptr[li] + ofill[li]++;
            int *hit = bsearch(&j, lr->need, lr->nneed, sizeof(int), cmp_int);
            lr->offd_col[at] = (int)(hit - lr->need);
            lr->offd_val[at] = m->val[k];
        }
    }
    free(dfill), free(ofill);
}

static void free_local_rows(LocalRows *lr)
{
    free(lr->diag_ptr), free(lr->diag_col), free(lr->diag_val);
    free(lr->offd_ptr), free(lr->offd_col), free(lr->offd_val);
    free(lr->need), free(lr->owners), free(lr->need_cnt), free(lr->need_dsp);
}

/* What the owners learned from MPIX_Alltoallv_crs: who asked (`src`, ascending)
 * and for which of my columns (`idx`, global indices, grouped per requester at
 * `dsp`, `cnt` of them). These are exactly the send side of the halo exchange. */
typedef struct {
    int nsrc, *src, *cnt, *dsp;
    int total, *idx;
} Requests;

/* Step 2: tell every owner which of its columns I need. Capacities: at most
 * P - 1 requesters, and each can ask for each of my columns at most once. */
static void discover_halo(const LocalRows *lr, int p, MPIX_Comm *xcomm, Requests *rq)
{
    int mine = lr->r1 - lr->r0;
    int cap_nnz = p, cap_size = mine * (p - 1);
    rq->src = malloc(sizeof(int) * cap_nnz);
    rq->cnt = malloc(sizeof(int) * cap_nnz);
    rq->dsp = malloc(sizeof(int) * cap_nnz);
    rq->idx = malloc(sizeof(int) * (cap_size + 1));
    rq->nsrc = cap_nnz;
    rq->total = cap_size;
    MPIX_CHECK(MPIX_Alltoallv_crs(lr->nowners, lr->nneed, lr->owners, lr->need_cnt, lr->need_dsp, MPI_INT, lr->need,
                                  &rq->nsrc, &rq->total, rq->src, rq->cnt, rq->dsp, MPI_INT, rq->idx,
                                  NULL /* no per-call hints */, xcomm));
}

static void free_requests(Requests *rq) { free(rq->src), free(rq->cnt), free(rq->dsp), free(rq->idx); }

/* Steps 3-4 with one backend: returns this rank's block of x after `iters`
 * iterations in x (length r1 - r0). */
static void solve(const LocalRows *lr, const Requests *rq, const char *backend, int iters, MPIX_Comm *xcomm,
                  double *x)
{
    int nrows = lr->r1 - lr->r0;

    /* Step 3: the topology. MPIX_Alltoallv_crs went requester -> owner
     * (destinations = my owners, sources = my requesters); the values go
     * back, owner -> requester, so reply = 1 swaps the two: this rank sends
     * to rq->src (in that order) and receives from lr->owners (in that order). */
    MPIX_Topo *topo;
    MPIX_CHECK(MPIX_Topo_init_crs(lr->nowners, lr->owners, rq->nsrc, rq->src, 1 /* reply */, xcomm, &topo));

    /* Buffers of the persistent exchange: fixed for its lifetime, their
     * contents are what each MPIX_Start sends. sendbuf: the values asked of
     * me, per requester; halo: the values I asked for, per owner (so halo[k]
     * is x[need[k]]). */
    double *sendbuf = malloc(sizeof(double) * (rq->total + 1));
    double *halo = malloc(sizeof(double) * (lr->nneed + 1));

    MPIX_Info *info;
    MPIX_CHECK(MPIX_Info_init(&info));
    MPIX_CHECK(MPIX_Info_set(info, "neighbor_alltoallv_algorithm", backend));
    MPIX_Request *req;
    MPIX_CHECK(MPIX_Neighbor_alltoallv_init(sendbuf, rq->cnt, rq->dsp, MPI_DOUBLE, halo, lr->need_cnt,
                                            lr->need_dsp, MPI_DOUBLE, topo, xcomm, info, &req));
    MPIX_CHECK(MPIX_Info_free(&info));

    double *y = malloc(sizeof(double) * (nrows + 1));
    for (int i = 0; i < nrows; ++i)
        x[i] = x_start(lr->r0 + i);
    for (int it = 0; it < iters; ++it) {
        /* Pack the requested entries of my x, start the exchange. */
        for (int k = 0; k < rq->total; ++k)
            sendbuf[k] = x[rq->idx[k] - lr->r0];
        MPIX_CHECK(MPIX_Start(req));
        /* Overlap: the part of y = A x that needs only my own x. */
        for (int i = 0; i < nrows; ++i) {
            double s = 0.0;
            for (int k = lr->diag_ptr[i]; k < lr->diag_ptr[i + 1]; ++k)
                s += lr->diag_val[k] * x[lr->diag_col[k]];
            y[i] = s;
        }
        MPIX_CHECK(MPIX_Wait(&req, MPI_STATUS_IGNORE));
        /* The halo part, then x = y / ||y||. */
        double local = 0.0, norm2 = 0.0;
        for (int i = 0; i < nrows; ++i) {
            for (int k = lr->offd_ptr[i]; k < lr->offd_ptr[i + 1]; ++k)
                y[i] += lr->offd_val[k] * halo[lr->offd_col[k]];
            local += y[i] * y[i];
        }
        MPIX_CHECK(MPI_Allreduce(&local, &norm2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        double scale = norm2 > 0.0 ? 1.0 / sqrt(norm2) : 1.0;
        for (int i = 0; i < nrows; ++i)
            x[i] = y[i] * scale;
    }

    MPIX_CHECK(MPIX_Request_free(&req));
    MPIX_CHECK(MPIX_Topo_free(&topo));
    free(sendbuf), free(halo), free(y);
}

/* Step 5: the same iterations on the whole matrix, on one rank. Row sums add
 * the entries in file order; the distributed code adds the owned columns
 * first, so results agree to rounding, not bit for bit. */
static double *serial_solve(const Triplets *m, int iters)
{
    double *x = malloc(sizeof(double) * m->n), *y = malloc(sizeof(double) * m->n);
    for (int j = 0; j < m->n; ++j)
        x[j] = x_start(j);
    for (int it = 0; it < iters; ++it) {
        memset(y, 0, sizeof(double) * m->n);
        for (long k = 0; k < m->nnz; ++k)
            y[m->row[k]] += m->val[k] * x[m->col[k]];
        double norm2 = 0.0;
        for (int i = 0; i < m->n; ++i)
            norm2 += y[i] * y[i];
        double scale = norm2 > 0.0 ? 1.0 / sqrt(norm2) : 1.0;
        for (int i = 0; i < m->n; ++i)
            x[i] = y[i] * scale;
    }
    free(y);
    return x;
}

/* Everything for one matrix file; returns the number of failed runs (or 1
 * when the file cannot be used). */
static int run_matrix(const char *path, int ppn, int iters, MPIX_Comm *xcomm)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

    Triplets m = {0, 0, NULL, NULL, NULL};
    char err[512] = "";
    int bad = read_matrix_market(path, &m, err, sizeof err) != 0, any_bad = 0, bad0 = bad;
    MPIX_CHECK(MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (any_bad) {
        /* One message: rank 0's, or where rank 0 could read the file, each failing rank's. */
        MPIX_CHECK(MPI_Bcast(&bad0, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (bad && (me == 0 || !bad0))
            fprintf(stderr, "spmv_solver: rank %d: %s\n", me, err);
        free(m.row), free(m.col), free(m.val);
        return 1;
    }

    /* The reference: every rank computes it (cheap for the matrices here). */
    double *ref = serial_solve(&m, iters);

    /* Steps 1-2 depend only on the matrix and P: done once. */
    LocalRows lr;
    build_local_rows(&m, p, me, &lr);
    Requests rq;
    discover_halo(&lr, p, xcomm, &rq);
    int peers[2] = {lr.nowners, rq.nsrc}, max_peers[2];
    MPIX_CHECK(MPI_Allreduce(peers, max_peers, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (me == 0)
        printf("%s  n=%d nnz=%ld  P=%d  halo: at most %d owners / %d requesters per rank\n", name, m.n, m.nnz, p,
               max_peers[0], max_peers[1]);

    /* Each backend, on the real node map and (with --ppn) on emulated nodes.
     * The tolerance allows for the different order of the sums (see
     * serial_solve); a wrong halo value is off by far more. */
    const double tol = 1e-10;
    int failures = 0;
    double *x = malloc(sizeof(double) * (lr.r1 - lr.r0 + 1));
    for (int emulate = 0; emulate <= (ppn > 0); ++emulate) {
        MPIX_CHECK(MPIX_Comm_update_locality(xcomm, emulate ? ppn : 0));
        for (int b = 0; MPIX_Algorithm_name("neighbor_alltoallv", b); ++b) {
            const char *backend = MPIX_Algorithm_name("neighbor_alltoallv", b);
            double t0 = MPI_Wtime();
            solve(&lr, &rq, backend, iters, xcomm, x);
            double t = MPI_Wtime() - t0, err_max = 0.0, err_all = 0.0;
            for (int i = 0; i < lr.r1 - lr.r0; ++i) {
                double e = fabs(x[i] - ref[lr.r0 + i]);
                err_max = e > err_max || e != e ? e : err_max; /* keeps a NaN */
            }
            MPIX_CHECK(MPI_Allreduce(&err_max, &err_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
            int ok = err_all <= tol; /* false for NaN */
            failures += !ok;
            if (me == 0) {
                char nodes[32] = "real nodes";
                if (emulate)
                    snprintf(nodes, sizeof nodes, "nodes of %d ranks", ppn);
                printf("  %-12s %-18s %d iterations  max |x - x_serial| = %.3e  %s  (%.3f s)\n", backend, nodes,
                       iters, err_all, ok ? "ok" : "WRONG", t);
            }
        }
    }
    MPIX_CHECK(MPIX_Comm_update_locality(xcomm, 0));
    free(x), free(ref);
    free_requests(&rq);
    free_local_rows(&lr);
    free(m.row), free(m.col), free(m.val);
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);

    int ppn = 0, iters = 100, usage = 0, nfiles = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--ppn") && a + 1 < argc)
            ppn = atoi(argv[++a]), usage |= ppn < 1;
        else if (!strcmp(argv[a], "--iters") && a + 1 < argc)
            iters = atoi(argv[++a]), usage |= iters < 0;
        else if (argv[a][0] == '-')
            usage = 1;
        else
            ++nfiles;
    }
    if (usage || nfiles == 0) {
        if (me == 0)
            fprintf(stderr, "usage: spmv_solver [--ppn N] [--iters K] MATRIX.mtx...\n");
        MPI_Finalize();
        return 2;
    }
    if (MPIX_Algorithm_name("neighbor_alltoallv", 0) == NULL) {
        if (me == 0)
            fprintf(stderr, "spmv_solver: this mpix has no neighbor_alltoallv backend\n");
        MPI_Finalize();
        return 1;
    }

    /* Errors come back as codes (see MPIX_CHECK), not as aborts inside MPI:
     * mpix raises them through the communicator's error handler, and
     * MPIX_Info_* calls (which have none) through MPI_COMM_SELF's. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPIX_Comm *xcomm;
    MPIX_CHECK(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD));

    int failures = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--ppn") || !strcmp(argv[a], "--iters"))
            ++a; /* skip the option's value */
        else
            failures += run_matrix(argv[a], ppn, iters, xcomm);
    }
    if (me == 0)
        printf("spmv_solver: %d matrix file(s), %s\n", nfiles, failures ? "FAILED" : "all backends correct");
    MPIX_CHECK(MPIX_Comm_free(&xcomm));
    MPI_Finalize();
    return failures ? 1 : 0;
}
