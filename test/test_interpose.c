/* An unmodified MPI program (plain C, no mpix calls but for listing the rows)
 * linked with libmpix_pmpi: MPI_Alltoall(v) and MPI_Ialltoall(v) must go through
 * mpix and still be right.
 * Also the C compile check of mpix.h. */
#define _POSIX_C_SOURCE 200809L
#include <CUnit/Basic.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "config.h"
#include "mpix.h"

static int rank, size;

static int global_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* Sets MPIX_TRACE to a prefix unique to this job (same on every rank) and
 * writes this rank's trace file name into `file`. */
static void trace_to(const char *base, char *file, size_t len)
{
    char prefix[64];
    int job = 0;
    if (rank == 0)
        job = (int)getpid();
    MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(prefix, sizeof prefix, "%s-%d", base, job);
    snprintf(file, len, "%s.%d.jsonl", prefix, rank);
    setenv("MPIX_TRACE", prefix, 1);
}

static void test_alltoallv_through_interposer(void)
{
    /* The trace file proves the call went through mpix (pairwise traces rounds). */
    char file[96];
    trace_to("/tmp/mpix-interpose", file, sizeof file);
    setenv("MPIX_ALLTOALLV_ALGORITHM", "pairwise", 1);
    /* A fresh communicator reads the environment; freed before the file is removed,
     * it cannot write the trace again (MPI_COMM_WORLD's would keep it for later tests). */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
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
    int ok = MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm) == MPI_SUCCESS;
    MPI_Comm_free(&comm);
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

#if MPIX_HAVE_LARGE_COUNT
/* MPI_Alltoallv_c / MPI_Alltoall_c (MPI-4 large counts) go through mpix too: the
 * trace file of the pairwise row proves it. */
static void test_large_count_through_interposer(void)
{
    char file[96];
    trace_to("/tmp/mpix-interpose-c", file, sizeof file);
    setenv("MPIX_ALLTOALLV_ALGORITHM", "pairwise", 1);
    setenv("MPIX_ALLTOALL_ALGORITHM", "pairwise", 1);
    MPI_Comm comm; /* a fresh communicator: its MPIX_Comm reads the environment */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Count *sc = malloc(size * sizeof(MPI_Count)), *rc = malloc(size * sizeof(MPI_Count));
    MPI_Aint *sd = malloc(size * sizeof(MPI_Aint)), *rd = malloc(size * sizeof(MPI_Aint));
    long long *sb = malloc((3 * size + 1) * sizeof(long long)), *rb = malloc((4 * size + 1) * sizeof(long long));
    MPI_Aint stot = 0, rtot = 0;
    for (int j = 0; j < size; ++j) {
        sc[j] = (rank + 2 * j) % 3;
        rc[j] = (j + 2 * rank) % 3;
        sd[j] = stot;
        rd[j] = rtot + 1; /* gapped */
        stot += sc[j];
        rtot += rc[j] + 1;
        for (MPI_Count e = 0; e < sc[j]; ++e)
            sb[sd[j] + e] = rank * 1000LL + j * 10 + e;
    }
    for (MPI_Aint i = 0; i <= rtot; ++i)
        rb[i] = -7;
    int ok = MPI_Alltoallv_c(sb, sc, sd, MPI_LONG_LONG, rb, rc, rd, MPI_LONG_LONG, comm) == MPI_SUCCESS;
    MPI_Aint pos = 0;
    for (int j = 0; j < size; ++j) {
        ok &= rb[pos] == -7;
        for (MPI_Count e = 0; e < rc[j]; ++e)
            ok &= rb[rd[j] + e] == j * 1000LL + rank * 10 + e;
        pos = rd[j] + rc[j];
    }
    for (int j = 0; j < size; ++j)
        sb[j] = rank * 100LL + j;
    ok &= MPI_Alltoall_c(sb, 1, MPI_LONG_LONG, rb, 1, MPI_LONG_LONG, comm) == MPI_SUCCESS;
    for (int j = 0; j < size; ++j)
        ok &= rb[j] == j * 100LL + rank;
    CU_ASSERT(global_ok(ok));
    FILE *f = fopen(file, "r");
    CU_ASSERT(global_ok(size == 1 || f != NULL));
    if (f) {
        fclose(f);
        remove(file);
    }
    MPI_Comm_free(&comm);
    unsetenv("MPIX_TRACE");
    unsetenv("MPIX_ALLTOALLV_ALGORITHM");
    unsetenv("MPIX_ALLTOALL_ALGORITHM");
    free(sc); free(sd); free(rc); free(rd); free(sb); free(rb);
}
#endif

/* MPIX_PPN reaches the drop-in: a communicator's first exchange reads it (a
 * malformed value is that exchange's MPI_ERR_INFO_VALUE), and node_aware on the
 * emulated nodes is right. */
static void test_ppn_through_interposer(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int *sb = malloc(size * sizeof(int)), *rb = malloc(size * sizeof(int));
    for (int j = 0; j < size; ++j)
        sb[j] = rank * 100 + j;
    setenv("MPIX_PPN", "zero", 1);
    int code = MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm), cls = MPI_SUCCESS;
    MPI_Error_class(code, &cls);
    CU_ASSERT(global_ok(cls == MPI_ERR_INFO_VALUE));
    MPI_Comm_free(&comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    setenv("MPIX_PPN", "2", 1);
    setenv("MPIX_ALLTOALL_ALGORITHM", "node_aware", 1);
    int ok = MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm) == MPI_SUCCESS;
    for (int j = 0; j < size; ++j)
        ok &= rb[j] == j * 100 + rank;
    CU_ASSERT(global_ok(ok));
    unsetenv("MPIX_PPN");
    unsetenv("MPIX_ALLTOALL_ALGORITHM");
    MPI_Comm_free(&comm);
    free(sb); free(rb);
}

#if MPIX_HAVE_GREQUEST_POLL
/* One MPI_Ialltoallv case: gapped receive blocks (the gaps are guards), some
 * empty blocks, `salt` varies the data between requests. */
struct vcase {
    int *sc, *sd, *rc, *rd, *sb, *rb, *ref;
    int rtot;
};

/* Send data for the blocks (new at each persistent start), the receive buffer
 * and its guards reset, and the reference. */
static void vcase_refill(struct vcase *v, int salt)
{
    for (int j = 0; j < size; ++j)
        for (int e = 0; e < v->sc[j]; ++e)
            v->sb[v->sd[j] + e] = salt * 100000 + rank * 1000 + j * 10 + e;
    for (int i = 0; i < v->rtot; ++i)
        v->rb[i] = v->ref[i] = -7;
    /* the reference: the MPI library's own collective, not intercepted */
    PMPI_Alltoallv(v->sb, v->sc, v->sd, MPI_INT, v->ref, v->rc, v->rd, MPI_INT, MPI_COMM_WORLD);
}

static void vcase_init(struct vcase *v, int salt)
{
    v->sc = malloc(size * sizeof(int));
    v->sd = malloc(size * sizeof(int));
    v->rc = malloc(size * sizeof(int));
    v->rd = malloc(size * sizeof(int));
    int stot = 0, rtot = 0;
    for (int j = 0; j < size; ++j) {
        v->sc[j] = (rank + j + salt) % 4;
        v->rc[j] = (j + rank + salt) % 4;
        v->sd[j] = stot;
        v->rd[j] = rtot + 1;
        stot += v->sc[j];
        rtot += v->rc[j] + 1;
    }
    v->rtot = rtot + 1;
    v->sb = malloc((stot + 1) * sizeof(int));
    v->rb = malloc(v->rtot * sizeof(int));
    v->ref = malloc(v->rtot * sizeof(int));
    vcase_refill(v, salt);
}

static int vcase_right(const struct vcase *v)
{
    int ok = 1;
    for (int i = 0; i < v->rtot; ++i)
        ok &= v->rb[i] == v->ref[i]; /* blocks and the gaps between them */
    return ok;
}

static void vcase_free(struct vcase *v)
{
    free(v->sc); free(v->sd); free(v->rc); free(v->rd); free(v->sb); free(v->rb); free(v->ref);
}

/* Completes `n` requests with completion call `how` (0..8); returns 0 on an
 * error. Afterwards each request must be MPI_REQUEST_NULL, or equal `kept[i]`
 * where `kept` is given (a persistent request stays, inactive). */
static int complete_kept(int how, int n, MPI_Request *reqs, const MPI_Request *kept)
{
    int ok = 1, flag = 0, done = 0, idx, out, indices[8];
    MPI_Status st[8];
    switch (how) {
    case 0: /* MPI_Wait, last to first */
        for (int i = n - 1; i >= 0; --i)
            ok &= MPI_Wait(&reqs[i], &st[0]) == MPI_SUCCESS;
        break;
    case 1:
        ok &= MPI_Waitall(n, reqs, st) == MPI_SUCCESS;
        break;
    case 2:
        for (int k = 0; k < n; ++k)
            ok &= MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS && idx != MPI_UNDEFINED;
        break;
    case 3:
        while (done < n && ok) {
            ok &= MPI_Waitsome(n, reqs, &out, indices, st) == MPI_SUCCESS && out != MPI_UNDEFINED;
            done += out;
        }
        break;
    case 4: /* MPI_Test loops, first to last */
        for (int i = 0; i < n; ++i)
            for (flag = 0; !flag && ok;)
                ok &= MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        break;
    case 5:
        while (!flag && ok)
            ok &= MPI_Testall(n, reqs, &flag, st) == MPI_SUCCESS;
        break;
    case 6:
        while (done < n && ok) {
            ok &= MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
            done += flag && idx != MPI_UNDEFINED;
        }
        break;
    case 7:
        while (done < n && ok) {
            ok &= MPI_Testsome(n, reqs, &out, indices, MPI_STATUSES_IGNORE) == MPI_SUCCESS && out != MPI_UNDEFINED;
            done += out;
        }
        break;
    default: /* MPI_Request_get_status until complete, then MPI_Wait frees */
        for (int i = 0; i < n; ++i) {
            for (flag = 0; !flag && ok;)
                ok &= MPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
            ok &= MPI_Wait(&reqs[i], MPI_STATUS_IGNORE) == MPI_SUCCESS;
        }
        break;
    }
    for (int i = 0; i < n; ++i)
        ok &= reqs[i] == (kept ? kept[i] : MPI_REQUEST_NULL);
    return ok;
}

static int complete_all(int how, int n, MPI_Request *reqs) { return complete_kept(how, n, reqs, NULL); }

/* Every alltoallv row through the interposed MPI_Ialltoallv (and an alltoall row
 * through MPI_Ialltoall): three requests in flight beside a point-to-point pair,
 * completed by each MPI completion call in turn, against PMPI_Alltoallv. */
static void test_nonblocking_through_interposer(void)
{
    const char *name;
    for (int row = 0; (name = MPIX_Algorithm_name("alltoallv", row)) != NULL; ++row) {
        const char *a2a = MPIX_Algorithm_name("alltoall", row % 3);
        setenv("MPIX_IALLTOALLV_ALGORITHM", name, 1);
        setenv("MPIX_IALLTOALL_ALGORITHM", a2a, 1);
        MPI_Comm comm; /* fresh: its nonblocking route reads the environment */
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        struct vcase a, b;
        vcase_init(&a, 1);
        vcase_init(&b, 2);
        int *usb = malloc(size * sizeof(int)), *urb = malloc(size * sizeof(int));
        for (int j = 0; j < size; ++j) {
            usb[j] = rank * 100 + j;
            urb[j] = -1;
        }
        int token = rank, got = -1;
        MPI_Request reqs[5];
        int ok = MPI_Ialltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm, &reqs[0]) == MPI_SUCCESS;
        ok &= MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, comm, &reqs[1]) == MPI_SUCCESS;
        ok &= MPI_Ialltoall(usb, 1, MPI_INT, urb, 1, MPI_INT, comm, &reqs[2]) == MPI_SUCCESS;
        ok &= MPI_Ialltoallv(b.sb, b.sc, b.sd, MPI_INT, b.rb, b.rc, b.rd, MPI_INT, comm, &reqs[3]) == MPI_SUCCESS;
        ok &= MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 5, comm, &reqs[4]) == MPI_SUCCESS;
        const int how = row % 9;
        if (getenv("MPIX_TEST_VERBOSE") && rank == 0) { printf("[%s/%d]", name, how); fflush(stdout); }
        ok &= complete_all(how, 5, reqs);
        ok &= vcase_right(&a) && vcase_right(&b) && got == (rank + size - 1) % size;
        for (int j = 0; j < size; ++j)
            ok &= urb[j] == j * 100 + rank;
        if (!global_ok(ok) && rank == 0)
            printf("\n  row %s (alltoall %s), completion %d: wrong\n", name, a2a, how);
        CU_ASSERT(global_ok(ok));
        vcase_free(&a);
        vcase_free(&b);
        free(usb);
        free(urb);
        MPI_Comm_free(&comm);
    }
    unsetenv("MPIX_IALLTOALLV_ALGORITHM");
    unsetenv("MPIX_IALLTOALL_ALGORITHM");
}

/* A row name the nonblocking variables do not know is the call's
 * MPI_ERR_INFO_VALUE, on every rank, and its text names the variable (not the
 * hint key the drop-in sets from it); nothing is left behind: the next call,
 * with a known row, completes. */
static void test_nonblocking_bad_row_variable(void)
{
    setenv("MPIX_IALLTOALLV_ALGORITHM", "not_a_row", 1);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    struct vcase a;
    vcase_init(&a, 7);
    MPI_Request req = MPI_REQUEST_NULL;
    const int code = MPI_Ialltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm, &req);
    int cls = MPI_SUCCESS, len = 0;
    MPI_Error_class(code, &cls);
    char text[MPI_MAX_ERROR_STRING] = "", mpi_text[MPI_MAX_ERROR_STRING] = "";
    MPIX_Error_string(code, text, &len);
    /* the drop-in's MPI_Error_string, which an unmodified program calls, says the same */
    MPI_Error_string(code, mpi_text, &len);
    int ok = cls == MPI_ERR_INFO_VALUE && req == MPI_REQUEST_NULL && strstr(text, "MPIX_IALLTOALLV_ALGORITHM") &&
             strstr(text, "not_a_row") && strcmp(text, mpi_text) == 0 && len == (int)strlen(mpi_text);
    if (!ok)
        printf("\n  rank %d: class %d, text: %s, MPI_Error_string: %s\n", rank, cls, text, mpi_text);
    setenv("MPIX_IALLTOALLV_ALGORITHM", "pairwise", 1);
    ok &= MPI_Ialltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm, &req) == MPI_SUCCESS;
    ok &= MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && vcase_right(&a);
    CU_ASSERT(global_ok(ok));
    vcase_free(&a);
    MPI_Comm_free(&comm);
    unsetenv("MPIX_IALLTOALLV_ALGORITHM");
}

/* Completes one request with completion call `how` (as complete_kept does);
 * returns the error class it reports (its status's where the call says
 * MPI_ERR_IN_STATUS). */
static int complete_one_class(int how, MPI_Request *req)
{
    MPI_Status st[1];
    int flag = 0, idx = 0, out = 0, indices[1], rc = MPI_SUCCESS, cls = MPI_SUCCESS;
    st[0].MPI_ERROR = MPI_SUCCESS;
    switch (how) {
    case 0: rc = MPI_Wait(req, &st[0]); break;
    case 1: rc = MPI_Waitall(1, req, st); break;
    case 2: rc = MPI_Waitany(1, req, &idx, &st[0]); break;
    case 3: do rc = MPI_Waitsome(1, req, &out, indices, st); while (rc == MPI_SUCCESS && out == 0); break;
    case 4: while ((rc = MPI_Test(req, &flag, &st[0])) == MPI_SUCCESS && !flag) {} break;
    case 5: while ((rc = MPI_Testall(1, req, &flag, st)) == MPI_SUCCESS && !flag) {} break;
    case 6: while ((rc = MPI_Testany(1, req, &idx, &flag, &st[0])) == MPI_SUCCESS && !flag) {} break;
    case 7: do rc = MPI_Testsome(1, req, &out, indices, st); while (rc == MPI_SUCCESS && out == 0); break;
    default:
        while ((rc = MPI_Request_get_status(*req, &flag, &st[0])) == MPI_SUCCESS && !flag) {}
        rc = MPI_Wait(req, &st[0]);
        break;
    }
    if (rc == MPI_ERR_IN_STATUS)
        rc = st[0].MPI_ERROR;
    MPI_Error_class(rc, &cls);
    return cls;
}

static int world_handler_calls;
static void count_world_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    ++world_handler_calls;
}

/* MPICH raises every completion call's error through MPI_COMM_WORLD's handler,
 * a generalized request's too. A block one int longer than its receive block,
 * on a communicator that returns errors, with MPI_COMM_WORLD left fatal: the
 * receiving rank gets MPI_ERR_TRUNCATE from each completion call, the others
 * MPI_SUCCESS, and nobody aborts (before, MPI_COMM_WORLD's fatal handler
 * aborted the job); the same through a persistent request's start. Then a
 * truncated point-to-point receive while an exchange is in flight still goes
 * to MPI_COMM_WORLD's handler once, as MPICH does. */
static void test_nonblocking_long_block_errors(void)
{
    const char *rows[] = {"auto", "nonblocking", "pairwise", "parlogna", "node_bruck"};
    const int last = size - 1;
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    int *sb = malloc((2 * size + 1) * sizeof(int)), *rb = malloc(2 * size * sizeof(int));
    for (int j = 0; j < size; ++j) {
        sc[j] = rc[j] = 2;
        sd[j] = rd[j] = 2 * j;
    }
    for (int i = 0; i < 2 * size + 1; ++i)
        sb[i] = rank * 1000 + i;
    if (rank == 0)
        sc[last] = 3; /* sb holds the extra int */
    int ok = 1;
    for (int how = 0; how < 9; ++how) {
        const char *row = rows[how % 5];
        setenv("MPIX_IALLTOALLV_ALGORITHM", row, 1);
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Request req = MPI_REQUEST_NULL;
        int start = MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, &req);
        int cls = start == MPI_SUCCESS ? complete_one_class(how, &req) : -1;
        int want = rank == last ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
        if (cls != want || req != MPI_REQUEST_NULL) {
            printf("\n  rank %d, row %s, completion %d: class %d, expected %d\n", rank, row, how, cls, want);
            ok = 0;
        }
#if MPI_VERSION >= 4
        /* The same through a persistent request (a start of row `row`): inactive afterwards */
        if (strcmp(row, "auto") != 0) {
            MPI_Request preq = MPI_REQUEST_NULL;
            int made = MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, MPI_INFO_NULL, &preq);
            int pcls = made == MPI_SUCCESS && MPI_Start(&preq) == MPI_SUCCESS ? complete_one_class(how, &preq) : -1;
            int flag = 0;
            if (pcls != want || preq == MPI_REQUEST_NULL ||
                MPI_Request_get_status(preq, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) {
                printf("\n  rank %d, row %s, persistent, completion %d: class %d, expected %d\n", rank, row, how,
                       pcls, want);
                ok = 0;
            }
            if (preq != MPI_REQUEST_NULL)
                MPI_Request_free(&preq);
        }
#endif
        MPI_Comm_free(&comm);
    }
    unsetenv("MPIX_IALLTOALLV_ALGORITHM");
    CU_ASSERT(global_ok(ok));
    if (size >= 2) {
        MPI_Errhandler counting;
        MPI_Comm_create_errhandler(count_world_errors, &counting);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
        world_handler_calls = 0;
        sc[last] = 2;
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Request req = MPI_REQUEST_NULL, p2p = MPI_REQUEST_NULL;
        int pair[2] = {rank, rank}, one = -1, p2p_cls = MPI_SUCCESS;
        ok = MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, &req) == MPI_SUCCESS;
        if (rank == 0)
            ok &= MPI_Send(pair, 2, MPI_INT, 1, 9, comm) == MPI_SUCCESS;
        if (rank == 1) {
            ok &= MPI_Irecv(&one, 1, MPI_INT, 0, 9, comm, &p2p) == MPI_SUCCESS;
            MPI_Error_class(MPI_Wait(&p2p, MPI_STATUS_IGNORE), &p2p_cls);
            ok &= p2p_cls == MPI_ERR_TRUNCATE && world_handler_calls == 1;
        }
        ok &= MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok &= world_handler_calls == (rank == 1 ? 1 : 0);
        for (int j = 0; j < size; ++j)
            ok &= rb[2 * j] == j * 1000 + 2 * rank && rb[2 * j + 1] == j * 1000 + 2 * rank + 1;
        if (!ok)
            printf("\n  rank %d: point-to-point class %d, MPI_COMM_WORLD's handler called %d times\n", rank, p2p_cls,
                   world_handler_calls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Errhandler_free(&counting);
        MPI_Comm_free(&comm);
        CU_ASSERT(global_ok(ok));
    }
    free(sc); free(sd); free(rc); free(rd); free(sb); free(rb);
}

/* MPI's progress rule through completion calls: even ranks wait for a message
 * that their odd partner sends only after its own MPI_Ialltoallv completed,
 * and only then wait for their all-to-all. The even ranks' MPI_Wait on the
 * point-to-point request must progress their all-to-all (rows of several
 * rounds need it), or both wait forever. */
static void test_nonblocking_progress_in_other_waits(void)
{
    const char *rows[] = {"pairwise", "node_bruck", "parlogna", "two_phase_bruck"};
    for (int k = 0; k < 4; ++k) {
        setenv("MPIX_IALLTOALLV_ALGORITHM", rows[k], 1);
        setenv("MPIX_PPN", "2", 1);
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        struct vcase a;
        vcase_init(&a, 4 + k);
        const int partner = rank % 2 ? rank - 1 : rank + 1;
        MPI_Request req, p2p = MPI_REQUEST_NULL;
        int ok = MPI_Ialltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm, &req) == MPI_SUCCESS;
        int token = -1;
        if (partner < size) {
            if (rank % 2 == 0) {
                ok &= MPI_Irecv(&token, 1, MPI_INT, partner, 9, comm, &p2p) == MPI_SUCCESS;
                ok &= MPI_Wait(&p2p, MPI_STATUS_IGNORE) == MPI_SUCCESS && token == partner;
                ok &= MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
            } else {
                ok &= MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
                ok &= MPI_Send(&rank, 1, MPI_INT, partner, 9, comm) == MPI_SUCCESS;
            }
        } else {
            ok &= MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        }
        ok &= vcase_right(&a);
        if (!global_ok(ok) && rank == 0)
            printf("\n  row %s: wrong\n", rows[k]);
        CU_ASSERT(global_ok(ok));
        vcase_free(&a);
        MPI_Comm_free(&comm);
        unsetenv("MPIX_IALLTOALLV_ALGORITHM");
        unsetenv("MPIX_PPN");
    }
}

/* The trace proves mpix ran an MPI_Ialltoallv whose row the environment names,
 * and that without one the MPI library's own collective runs (no trace). MPI_Cancel
 * is refused with MPI_ERR_REQUEST; the request then completes as usual. */
static void test_nonblocking_route_and_cancel(void)
{
    for (int named = 0; named < 2; ++named) {
        char file[96];
        trace_to(named ? "/tmp/mpix-interpose-i" : "/tmp/mpix-interpose-i0", file, sizeof file);
        if (named)
            setenv("MPIX_IALLTOALLV_ALGORITHM", "pairwise", 1);
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        struct vcase a;
        vcase_init(&a, 3);
        MPI_Request req;
        int ok = MPI_Ialltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm, &req) == MPI_SUCCESS;
        if (named) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
            int cls = MPI_SUCCESS;
            MPI_Error_class(MPI_Cancel(&req), &cls);
            ok &= cls == MPI_ERR_REQUEST;
            /* A NULL request pointer is MPI_ERR_ARG through comm's handler, as
             * MPICH reports it, and starts nothing. */
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
            cls = MPI_SUCCESS;
            MPI_Error_class(MPI_Ialltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm, NULL), &cls);
            ok &= cls == MPI_ERR_ARG;
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
        }
        MPI_Status st;
        ok &= MPI_Wait(&req, &st) == MPI_SUCCESS && vcase_right(&a);
        int cancelled = 1;
        MPI_Test_cancelled(&st, &cancelled);
        ok &= !cancelled;
        CU_ASSERT(global_ok(ok));
        FILE *f = fopen(file, "r");
        CU_ASSERT(global_ok(named ? size == 1 || f != NULL : f == NULL));
        if (f) {
            fclose(f);
            remove(file);
        }
        vcase_free(&a);
        MPI_Comm_free(&comm);
        unsetenv("MPIX_TRACE");
        unsetenv("MPIX_IALLTOALLV_ALGORITHM");
    }
}

#if MPI_VERSION >= 4
/* Every alltoallv row through the interposed MPI_Alltoallv_init (and an alltoall
 * row through MPI_Alltoall_init), beside a persistent point-to-point pair:
 * started four times with new data each time, by MPI_Startall over the mixed
 * array or MPI_Start one by one, completed by each completion call in turn
 * (the handles stay, inactive), against PMPI_Alltoallv. Inactive requests
 * complete at once with an empty status; MPI_Cancel, and MPI_Request_free on
 * an active request, are refused with MPI_ERR_REQUEST; the trace proves mpix ran. */
static void test_persistent_through_interposer(void)
{
    const char *name;
    for (int row = 0; (name = MPIX_Algorithm_name("alltoallv", row)) != NULL; ++row) {
        char file[96];
        trace_to("/tmp/mpix-interpose-p", file, sizeof file);
        /* MPICH 4.0.2's own persistent collectives (the `pmpi` row is handed to
         * it) break in MPI_Waitany, Waitsome, Testall and Testany ("already
         * active" at the next start): that row is completed by Wait and
         * Waitall only, and the alltoall rows skip it. */
        const int mpi_own = strcmp(name, "pmpi") == 0;
        const char *a2a = MPIX_Algorithm_name("alltoall", 1 + row % 3);
        setenv("MPIX_IALLTOALLV_ALGORITHM", name, 1);
        setenv("MPIX_IALLTOALL_ALGORITHM", a2a, 1);
        setenv("MPIX_PPN", "2", 1);
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        struct vcase a;
        vcase_init(&a, 1);
        int *usb = malloc(size * sizeof(int)), *urb = malloc(size * sizeof(int));
        int token = -1, got = -1;
        MPI_Request reqs[4], kept[4];
        int ok = MPI_Alltoallv_init(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm, MPI_INFO_NULL,
                                    &reqs[0]) == MPI_SUCCESS;
        ok &= MPI_Recv_init(&got, 1, MPI_INT, (rank + size - 1) % size, 5, comm, &reqs[1]) == MPI_SUCCESS;
        ok &= MPI_Alltoall_init(usb, 1, MPI_INT, urb, 1, MPI_INT, comm, MPI_INFO_NULL, &reqs[2]) == MPI_SUCCESS;
        ok &= MPI_Send_init(&token, 1, MPI_INT, (rank + 1) % size, 5, comm, &reqs[3]) == MPI_SUCCESS;
        memcpy(kept, reqs, sizeof reqs);
        for (int start = 0; start < 4 && ok; ++start) {
            vcase_refill(&a, 10 + start);
            for (int j = 0; j < size; ++j) {
                usb[j] = start * 10000 + rank * 100 + j;
                urb[j] = -1;
            }
            token = start * 1000 + rank;
            got = -1;
            const int how = mpi_own ? start % 2 : (row + start) % 9;
            if (getenv("MPIX_TEST_VERBOSE") && rank == 0) {
                printf("[%s/%d/%d]", name, start, how);
                fflush(stdout);
            }
            if (start % 2 == 0) {
                ok &= MPI_Startall(4, reqs) == MPI_SUCCESS;
            } else {
                for (int i = 0; i < 4; ++i)
                    ok &= MPI_Start(&reqs[i]) == MPI_SUCCESS;
            }
            if (start == 1 && !mpi_own) { /* misuse of an active request: refused, nothing lost */
                int cls = MPI_SUCCESS;
                MPI_Error_class(MPI_Request_free(&reqs[0]), &cls);
                ok &= cls == MPI_ERR_REQUEST && reqs[0] == kept[0];
                MPI_Error_class(MPI_Cancel(&reqs[2]), &cls);
                ok &= cls == MPI_ERR_REQUEST;
            }
            ok &= complete_kept(how, 4, reqs, kept);
            ok &= vcase_right(&a) && got == (start * 1000 + (rank + size - 1) % size);
            for (int j = 0; j < size; ++j)
                ok &= urb[j] == start * 10000 + j * 100 + rank;
        }
        /* MPI lets the communicator go first: the requests stay usable */
        MPI_Comm_free(&comm);
        vcase_refill(&a, 20);
        ok &= MPI_Start(&reqs[0]) == MPI_SUCCESS && MPI_Wait(&reqs[0], MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok &= vcase_right(&a);
        /* inactive: complete at once, empty status, handle kept */
        MPI_Status st;
        int flag = 0, source = 0, count = -1;
        ok &= MPI_Test(&reqs[0], &flag, &st) == MPI_SUCCESS && flag && reqs[0] == kept[0];
        MPI_Get_count(&st, MPI_INT, &count);
        source = st.MPI_SOURCE;
        ok &= source == MPI_ANY_SOURCE && count == 0;
        ok &= MPI_Wait(&reqs[2], MPI_STATUS_IGNORE) == MPI_SUCCESS && reqs[2] == kept[2];
        for (int i = 0; i < 4; ++i)
            ok &= MPI_Request_free(&reqs[i]) == MPI_SUCCESS && reqs[i] == MPI_REQUEST_NULL;
        if (!global_ok(ok) && rank == 0)
            printf("\n  row %s (alltoall %s): wrong\n", name, a2a);
        CU_ASSERT(global_ok(ok));
        FILE *f = fopen(file, "r");
        CU_ASSERT(global_ok(size == 1 || mpi_own || f != NULL));
        if (f) {
            fclose(f);
            remove(file);
        }
        vcase_free(&a);
        free(usb);
        free(urb);
        unsetenv("MPIX_TRACE");
        unsetenv("MPIX_PPN");
        unsetenv("MPIX_IALLTOALLV_ALGORITHM");
        unsetenv("MPIX_IALLTOALL_ALGORITHM");
    }
}
#endif
#endif

/* How neighbor_exchange_right exchanges. */
enum neighbor_form { NEIGHBOR_BLOCKING, NEIGHBOR_NONBLOCKING, NEIGHBOR_PERSISTENT, NEIGHBOR_FREED_IN_FLIGHT };

/* MPI_Neighbor_alltoallv on `graph` (indegree/outdegree edges), or two
 * MPI_Ineighbor_alltoallv in flight, or MPI_Neighbor_alltoallv_init started
 * three times with new data: gapped receive blocks (the gaps are guards), the
 * block of edge k of rank r carries (r, k), compared with
 * PMPI_Neighbor_alltoallv. Returns 1 when right. */
static int neighbor_exchange_right(MPI_Comm graph, enum neighbor_form form)
{
    int indeg = 0, outdeg = 0, weighted = 0;
    MPI_Dist_graph_neighbors_count(graph, &indeg, &outdeg, &weighted);
    int *sc = malloc((outdeg + 1) * sizeof(int)), *sd = malloc((outdeg + 1) * sizeof(int));
    int *rc = malloc((indeg + 1) * sizeof(int)), *rd = malloc((indeg + 1) * sizeof(int));
    int *srcs = malloc((indeg + 1) * sizeof(int)), *dsts = malloc((outdeg + 1) * sizeof(int));
    MPI_Dist_graph_neighbors(graph, indeg, srcs, MPI_UNWEIGHTED, outdeg, dsts, MPI_UNWEIGHTED);
    int stot = 0, rtot = 0;
    for (int k = 0; k < outdeg; ++k) {
        sc[k] = 1 + (dsts[k] + rank) % 3; /* the same length the receiver expects */
        sd[k] = stot;
        stot += sc[k];
    }
    for (int k = 0; k < indeg; ++k) {
        rc[k] = 1 + (rank + srcs[k]) % 3;
        rd[k] = rtot + 1;
        rtot += rc[k] + 1;
    }
    int *sb = malloc((stot + 1) * sizeof(int)), *sb2 = malloc((stot + 1) * sizeof(int));
    int *rb = malloc((rtot + 2) * sizeof(int)), *rb2 = malloc((rtot + 2) * sizeof(int));
    int *ref = malloc((rtot + 2) * sizeof(int)), *ref2 = malloc((rtot + 2) * sizeof(int));
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int ok = 1;
    if (form == NEIGHBOR_PERSISTENT) {
#if MPI_VERSION >= 4
        ok &= MPI_Neighbor_alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, graph, MPI_INFO_NULL, &reqs[0]) ==
              MPI_SUCCESS;
#endif
    }
    const int rounds = form == NEIGHBOR_PERSISTENT ? 3 : 1;
    for (int round = 0; round < rounds; ++round) {
        for (int k = 0; k < outdeg; ++k)
            for (int e = 0; e < sc[k]; ++e) {
                sb[sd[k] + e] = round * 1000000 + rank * 10000 + k * 100 + e;
                sb2[sd[k] + e] = -sb[sd[k] + e];
            }
        for (int i = 0; i < rtot + 2; ++i)
            rb[i] = ref[i] = rb2[i] = ref2[i] = -7;
        ok &= PMPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, ref, rc, rd, MPI_INT, graph) == MPI_SUCCESS;
        ok &= PMPI_Neighbor_alltoallv(sb2, sc, sd, MPI_INT, ref2, rc, rd, MPI_INT, graph) == MPI_SUCCESS;
        if (form == NEIGHBOR_BLOCKING) {
            ok &= MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, graph) == MPI_SUCCESS;
        } else if (form == NEIGHBOR_FREED_IN_FLIGHT) { /* a duplicate, freed while the exchange is in flight */
            MPI_Comm dup;
            ok &= MPI_Comm_dup(graph, &dup) == MPI_SUCCESS;
            ok &= MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, dup, &reqs[0]) == MPI_SUCCESS;
            ok &= MPI_Comm_free(&dup) == MPI_SUCCESS;
            ok &= MPI_Wait(&reqs[0], MPI_STATUS_IGNORE) == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL;
        } else if (form == NEIGHBOR_NONBLOCKING) {
            ok &= MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, graph, &reqs[0]) == MPI_SUCCESS;
            ok &= MPI_Ineighbor_alltoallv(sb2, sc, sd, MPI_INT, rb2, rc, rd, MPI_INT, graph, &reqs[1]) == MPI_SUCCESS;
            MPI_Status st[2];
            ok &= MPI_Waitall(2, reqs, st) == MPI_SUCCESS;
            ok &= reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL;
            for (int i = 0; i < rtot + 2; ++i)
                ok &= rb2[i] == ref2[i];
        } else {
            ok &= MPI_Start(&reqs[0]) == MPI_SUCCESS && MPI_Wait(&reqs[0], MPI_STATUS_IGNORE) == MPI_SUCCESS;
            ok &= reqs[0] != MPI_REQUEST_NULL;
        }
        for (int i = 0; i < rtot + 2; ++i)
            ok &= rb[i] == ref[i];
    }
    if (form == NEIGHBOR_PERSISTENT)
        ok &= MPI_Request_free(&reqs[0]) == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL;
    free(sc); free(sd); free(rc); free(rd); free(srcs); free(dsts);
    free(sb); free(sb2); free(rb); free(rb2); free(ref); free(ref2);
    return ok;
}

/* MPI_Neighbor_alltoallv on distributed graphs runs through mpix on each backend
 * (the locality backend's trace proves it, on emulated nodes of 2): an adjacent
 * graph with a neighbour listed twice and a self loop (MPI's order: the k-th
 * block to a repeated destination is its k-th block from that source), and a
 * graph from MPI_Dist_graph_create. A Cartesian communicator goes to MPI (no trace). */
static void test_neighbor_through_interposer(void)
{
    const char *name;
    for (int row = 0; (name = MPIX_Algorithm_name("neighbor_alltoallv", row)) != NULL; ++row) {
        char file[96];
        trace_to("/tmp/mpix-interpose-n", file, sizeof file);
        setenv("MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM", name, 1);
        setenv("MPIX_PPN", "2", 1);
        const int right = (rank + 1) % size, left = (rank + size - 1) % size;
        int dsts[3] = {right, right, rank}, srcs[3] = {left, left, rank};
        MPI_Comm adjacent, general;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, srcs, MPI_UNWEIGHTED, 3, dsts, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &adjacent);
        int ok = neighbor_exchange_right(adjacent, NEIGHBOR_BLOCKING);
        ok &= neighbor_exchange_right(adjacent, NEIGHBOR_BLOCKING); /* the cached topology */
        /* each rank names its own edges to the next two ranks */
        int degree = 2, targets[2] = {right, (rank + 2) % size}, weights[2] = {5, 1};
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, targets, weights, MPI_INFO_NULL, 0, &general);
        ok &= neighbor_exchange_right(general, NEIGHBOR_BLOCKING);
        CU_ASSERT(global_ok(ok));
        FILE *f = fopen(file, "r");
        const int traced = f != NULL;
        if (f) {
            fclose(f);
            remove(file);
        }
        if (!strcmp(name, "locality"))
            CU_ASSERT(global_ok(size < 3 || traced));
        MPI_Comm_free(&adjacent);
        MPI_Comm_free(&general);
#if MPIX_HAVE_GREQUEST_POLL
        /* the nonblocking and persistent forms, on communicators of their own */
        trace_to("/tmp/mpix-interpose-in", file, sizeof file);
        setenv("MPIX_INEIGHBOR_ALLTOALLV_ALGORITHM", name, 1);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, srcs, MPI_UNWEIGHTED, 3, dsts, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &adjacent);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, targets, weights, MPI_INFO_NULL, 0, &general);
        ok = neighbor_exchange_right(adjacent, NEIGHBOR_NONBLOCKING);
        ok &= neighbor_exchange_right(general, NEIGHBOR_NONBLOCKING);
        ok &= neighbor_exchange_right(adjacent, NEIGHBOR_FREED_IN_FLIGHT);
#if MPI_VERSION >= 4
        ok &= neighbor_exchange_right(adjacent, NEIGHBOR_PERSISTENT);
        ok &= neighbor_exchange_right(general, NEIGHBOR_PERSISTENT);
#endif
        if (!global_ok(ok) && rank == 0)
            printf("\n  backend %s: nonblocking or persistent form wrong\n", name);
        CU_ASSERT(global_ok(ok));
        f = fopen(file, "r");
        if (f) {
            fclose(f);
            remove(file);
        }
        if (!strcmp(name, "locality"))
            CU_ASSERT(global_ok(size < 3 || f != NULL));
        MPI_Comm_free(&adjacent);
        MPI_Comm_free(&general);
        unsetenv("MPIX_INEIGHBOR_ALLTOALLV_ALGORITHM");
#endif
        unsetenv("MPIX_TRACE");
        unsetenv("MPIX_PPN");
        unsetenv("MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM");
    }
    /* a Cartesian ring: the MPI library's own call, so no trace */
    char file[96];
    trace_to("/tmp/mpix-interpose-cart", file, sizeof file);
    setenv("MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM", "locality", 1);
    MPI_Comm cart;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int sc[2] = {1, 1}, sd[2] = {0, 1}, rc[2] = {1, 1}, rd[2] = {0, 2}, sb[2] = {rank, -rank}, rb[3] = {-7, -7, -7};
    int ok = MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, cart) == MPI_SUCCESS;
    /* block 0 from the left neighbour (its block 1), block 1 from the right (its block 0);
     * below 3 ranks both neighbours are one rank and MPI leaves the match open */
    if (size >= 3)
        ok &= rb[0] == -((rank + size - 1) % size) && rb[1] == -7 && rb[2] == (rank + 1) % size;
    CU_ASSERT(global_ok(ok));
    FILE *f = fopen(file, "r");
    CU_ASSERT(global_ok(f == NULL));
    if (f) {
        fclose(f);
        remove(file);
    }
    MPI_Comm_free(&cart);
    unsetenv("MPIX_TRACE");
    unsetenv("MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM");
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
#if MPIX_HAVE_LARGE_COUNT
    CU_add_test(s, "MPI_Alltoallv_c and MPI_Alltoall_c through libmpix_pmpi", test_large_count_through_interposer);
#else
    if (rank == 0)
        printf("(this MPI library has no MPI_Alltoall_c/MPI_Alltoallv_c: nothing to intercept)\n");
#endif
    CU_add_test(s, "MPIX_PPN through libmpix_pmpi", test_ppn_through_interposer);
    CU_add_test(s, "MPI_Neighbor_alltoallv on distributed graphs", test_neighbor_through_interposer);
#if MPIX_HAVE_GREQUEST_POLL
    CU_add_test(s, "MPI_Ialltoall(v), every row, every completion call", test_nonblocking_through_interposer);
    CU_add_test(s, "MPI_Ialltoallv: the route, the trace, MPI_Cancel", test_nonblocking_route_and_cancel);
    CU_add_test(s, "MPI_Ialltoallv progressed by MPI_Wait on other requests", test_nonblocking_progress_in_other_waits);
    CU_add_test(s, "MPI_Ialltoallv: a bad MPIX_IALLTOALLV_ALGORITHM is named", test_nonblocking_bad_row_variable);
    CU_add_test(s, "MPI_Ialltoallv: a longer block reported on its communicator, every completion call",
                test_nonblocking_long_block_errors);
#if MPI_VERSION >= 4
    CU_add_test(s, "MPI_Alltoall(v)_init, every row, Start/Startall, every completion call",
                test_persistent_through_interposer);
#endif
#else
    if (rank == 0)
        printf("(this MPI library has no generalized requests with a poll function: MPI_Ialltoall(v) not intercepted)\n");
#endif
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
