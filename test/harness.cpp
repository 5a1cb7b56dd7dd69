#include "harness.hpp"

#include <sys/resource.h>

#include "core/comm.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace mpixtest {

namespace {
int local_failures = 0;  // test-program state only (not library code)
int my_rank = 0, my_size = 1;
const TestCase *suite_tests = nullptr;  // the running suite's tests, for timed_test

// MPIX_TEST_TIMES=1: rank 0 prints each test's wall time after its name (make
// check's time budget: test/mpi-harness.in). The first 32 tests of a suite.
template <std::size_t I>
void timed_test()
{
    double t0 = MPI_Wtime();
    suite_tests[I].fn();
    if (my_rank == 0) {
        std::printf("[%.2f s] ", MPI_Wtime() - t0);
        std::fflush(stdout);
    }
}
template <std::size_t... I>
constexpr std::array<TestFn, sizeof...(I)> timed_tests(std::index_sequence<I...>)
{
    return {{&timed_test<I>...}};
}
constexpr std::array<TestFn, 32> kTimed = timed_tests(std::make_index_sequence<32>{});
}  // namespace

int rank() { return my_rank; }
int size() { return my_size; }

bool full_level()
{
    const char *level = std::getenv("MPIX_TEST_LEVEL");
    return level && std::strcmp(level, "full") == 0;
}

void fail(const std::string &what)
{
    if (local_failures < 5)
        std::fprintf(stderr, "[rank %d] %s\n", my_rank, what.c_str());
    ++local_failures;
}

void exchange_and_check(MPIX_Comm *xcomm, bool alltoall, const std::function<int(int, int)> &bytes,
                        const std::string &what, bool nonblocking)
{
    const int p = xcomm->size, me = xcomm->rank;  // the exchange's communicator
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < p; ++j) {
        sc[j] = bytes(me, j);
        rc[j] = bytes(j, me);
        sd[j] = stotal;
        rd[j] = rtotal;
        stotal += sc[j];
        rtotal += rc[j];
    }
    std::vector<unsigned char> sbuf(stotal), rbuf(rtotal + 1, 0xEE);
    for (int j = 0; j < p; ++j)
        for (int b = 0; b < sc[j]; ++b)
            sbuf[sd[j] + b] = static_cast<unsigned char>(mpixtest::mix(me, j, b));
    int n = bytes(0, 0);
    int err;
    if (nonblocking) {
        MPIX_Request *req = nullptr;
        err = alltoall ? MPIX_Ialltoall(sbuf.data(), n, MPI_BYTE, rbuf.data(), n, MPI_BYTE, xcomm, &req)
                       : MPIX_Ialltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(),
                                         rd.data(), MPI_BYTE, xcomm, &req);
        if (err == MPI_SUCCESS)
            err = MPIX_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        err = alltoall ? MPIX_Alltoall(sbuf.data(), n, MPI_BYTE, rbuf.data(), n, MPI_BYTE, xcomm)
                       : MPIX_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(),
                                        rd.data(), MPI_BYTE, xcomm);
    }
    MPIX_EXPECT(err == MPI_SUCCESS, what + ": call failed");
    bool ok = rbuf[rtotal] == 0xEE;
    for (int j = 0; j < p; ++j)
        for (int b = 0; b < rc[j]; ++b)
            ok = ok && rbuf[rd[j] + b] == static_cast<unsigned char>(mpixtest::mix(j, me, b));
    MPIX_EXPECT(ok, what + ": wrong data");
}

void agree(const char *what, const char *file, int line)
{
    int local = local_failures, total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    local_failures = 0;
    std::string msg = std::string(what) + (total ? " (failed on some rank; see stderr)" : "");
    CU_assertImplementation(total == 0, line, msg.c_str(), file, "", CU_FALSE);
}

int run_suite(int argc, char **argv, const char *suite_name, const TestCase *tests, int count, int thread_level)
{
    if (thread_level < 0) {
        MPI_Init(&argc, &argv);
    } else {
        int provided = 0;
        MPI_Init_thread(&argc, &argv, thread_level, &provided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &my_size);
    if (CU_initialize_registry() != CUE_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    CU_pSuite suite = CU_add_suite(suite_name, nullptr, nullptr);
    const bool timed = std::getenv("MPIX_TEST_TIMES") != nullptr;
    suite_tests = tests;
    for (int i = 0; i < count; ++i)
        CU_add_test(suite, tests[i].name, timed && i < (int)kTimed.size() ? kTimed[i] : tests[i].fn);
    CU_basic_set_mode(my_rank == 0 ? CU_BRM_VERBOSE : CU_BRM_SILENT);
    if (my_rank == 0)
        std::printf("%s: %d rank(s)\n", suite_name, my_size);
    // Every rank runs every test (assertions are collective); only rank 0 reports.
    if (my_rank == 0)
        CU_basic_run_tests();
    else
        CU_run_all_tests();
    unsigned local = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    CU_cleanup_registry();
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

void select_row(MPIX_Comm *xcomm, const char *coll, const char *name, const char *key, const char *value)
{
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, (std::string(coll) + "_algorithm").c_str(), name);
    if (key)
        MPIX_Info_set(info, key, value);
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
}

void errors_return()
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

int error_class(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

std::string shared_temp_dir()
{
    char dir[] = "/tmp/mpix-test-XXXXXX";
    char buf[256] = {0};
    if (rank() == 0) {
        const char *made = mkdtemp(dir);
        std::snprintf(buf, sizeof buf, "%s", made ? made : "/tmp");
    }
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
    return buf;
}

long minor_faults()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

}  // namespace mpixtest
