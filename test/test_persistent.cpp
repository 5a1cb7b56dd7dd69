// Persistent MPIX_Alltoall(v): every registry row through MPIX_*_init, started
// several times with new send data in the same buffers (every datatype case,
// MPI_IN_PLACE, emulated nodes), the completion order rules, misuse, and
// many init/start/wait/free cycles (valgrind runs this program too).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "exchange_cases.hpp"
#include "harness.hpp"
#include "select/registry.hpp"

namespace {

MPIX_Info *algorithm_info(bool uniform, const char *algorithm)
{
    MPIX_Info *info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, uniform ? "alltoall_algorithm" : "alltoallv_algorithm", algorithm);
    return info;
}

// Every row, its hints given to the init call (per-call xinfo), each case
// started 3 times.
void check_every_row(mpix::Collective coll)
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    const bool uniform = coll == mpix::Collective::alltoall;
    std::vector<mpixtest::ExchangeCase> cases = mpixtest::exchange_cases(uniform);
    // Strides coprime with the case rotations (node sizes in fours, datatypes
    // in fives) keep every dimension covered; wider where ranks are
    // oversubscribed (make check's time; conformance runs every case blocking).
    const int stride = mpixtest::size() >= 5 ? 11 : mpixtest::size() >= 3 ? 7 : 3;
    std::vector<std::string> names;
    for (int i = 0; mpix::algorithm_at(coll, i); ++i)
        names.push_back(mpix::algorithm_at(coll, i)->name);
    names.push_back("auto");
    for (const std::string &name : names) {
        MPIX_Info *info = algorithm_info(uniform, name.c_str());
        int failures = 0;
        std::string first;
        for (size_t k = 0; k < cases.size(); k += stride) {
            mpixtest::ExchangeCase c = cases[k];
            c.starts = 3;
            std::string detail;
            if (!mpixtest::run_exchange_case(xcomm, MPI_COMM_WORLD, c, &detail, info) && failures++ == 0)
                first = detail;
        }
        MPIX_Comm_update_locality(xcomm, 0);
        MPIX_Info_free(&info);
        MPIX_EXPECT(failures == 0, name + ": " + std::to_string(failures) + " persistent case(s) failed; first: " + first);
        MPIX_CHECK_ALL(name.c_str());
    }
    MPIX_Comm_free(&xcomm);
}

void test_alltoall_every_row() { check_every_row(mpix::Collective::alltoall); }

// Every row's persistent init with every integer hint at INT_MAX (products such
// as radix x block size overflow an int), given as the init's per-call hints:
// right data on nodes of 2 ranks (in the CUnit suite for blocking calls:
// test_hints.cpp's hint extremes).
void test_hints_at_int_max()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    for (bool uniform : {true, false}) {
        mpix::Collective coll = uniform ? mpix::Collective::alltoall : mpix::Collective::alltoallv;
        mpixtest::ExchangeCase c = mpixtest::exchange_cases(uniform)[2];  // random blocks, a vector type
        c.ppn = 2;
        c.starts = 2;
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i) {
            MPIX_Info *info = algorithm_info(uniform, a->name);
            for (const char *key : {"radix", "batch_size", "leaders_per_node", "max_queue", "random_seed"})
                MPIX_Info_set(info, key, "2147483647");
            std::string detail;
            MPIX_EXPECT(mpixtest::run_exchange_case(xcomm, MPI_COMM_WORLD, c, &detail, info),
                        std::string(a->name) + " with hints at INT_MAX: " + detail);
            MPIX_Info_free(&info);
        }
    }
    MPIX_CHECK_ALL("persistent init with hints at INT_MAX, every row");
    MPIX_Comm_free(&xcomm);
}
void test_alltoallv_every_row() { check_every_row(mpix::Collective::alltoallv); }

// Uniform int blocks: rank r sends value(r, j, k) = 1000 * r + 10 * j + k + gen.
struct Uniform {
    int p, me, n;
    std::vector<int> send, recv;
    Uniform(int p_, int me_, int n_) : p(p_), me(me_), n(n_), send(p_ * n_), recv(p_ * n_) {}
    void fill(int gen)
    {
        for (int j = 0; j < p; ++j)
            for (int k = 0; k < n; ++k)
                send[j * n + k] = 1000 * me + 10 * j + k + gen;
        std::fill(recv.begin(), recv.end(), -1);
    }
    bool right(int gen) const
    {
        for (int j = 0; j < p; ++j)
            for (int k = 0; k < n; ++k)
                if (recv[j * n + k] != 1000 * j + 10 * me + k + gen)
                    return false;
        return true;
    }
};

// Requests completed in different orders on different ranks, with blocking
// calls between start and wait: every row kind (engine tasks, posted plans, the MPI
// library's own) must neither deadlock nor mix data.
void test_completion_order()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    const int p = mpixtest::size(), me = mpixtest::rank();
    const char *rows[] = {"bruck_basic", "nonblocking", "pmpi", "node_bruck", "pairwise"};
    const int nrows = 5;
    std::vector<Uniform> bufs;
    for (int i = 0; i < nrows; ++i)
        bufs.emplace_back(p, me, 2 + i);
    std::vector<MPIX_Request *> reqs(nrows, nullptr);
    for (int i = 0; i < nrows; ++i) {
        MPIX_Info *info = algorithm_info(true, rows[i]);
        MPIX_EXPECT(MPIX_Alltoall_init(bufs[i].send.data(), bufs[i].n, MPI_INT, bufs[i].recv.data(), bufs[i].n,
                                       MPI_INT, xcomm, info, &reqs[i]) == MPI_SUCCESS,
                    std::string("init ") + rows[i]);
        MPIX_Info_free(&info);
    }
    Uniform blocking(p, me, 3);
    for (int gen = 1; gen <= 4; ++gen) {
        for (int i = 0; i < nrows; ++i) {
            bufs[i].fill(gen);
            MPIX_EXPECT(MPIX_Start(reqs[i]) == MPI_SUCCESS, std::string("start ") + rows[i]);
        }
        // A blocking call while all of them are active.
        blocking.fill(gen);
        MPIX_EXPECT(MPIX_Alltoall(blocking.send.data(), 3, MPI_INT, blocking.recv.data(), 3, MPI_INT, xcomm) ==
                        MPI_SUCCESS,
                    "blocking call between start and wait");
        MPIX_EXPECT(blocking.right(gen), "blocking call between start and wait: data");
        // Odd ranks complete them last to first, even ranks first to last.
        for (int k = 0; k < nrows; ++k) {
            int i = (me % 2) ? nrows - 1 - k : k;
            MPIX_EXPECT(MPIX_Wait(&reqs[i], MPI_STATUS_IGNORE) == MPI_SUCCESS, std::string("wait ") + rows[i]);
            MPIX_EXPECT(bufs[i].right(gen), std::string(rows[i]) + ": data of start " + std::to_string(gen));
        }
    }
    for (MPIX_Request *&r : reqs)
        MPIX_Request_free(&r);
    MPIX_CHECK_ALL("requests completed in different orders on different ranks");
    MPIX_Comm_free(&xcomm);
}

// Misuse gives MPI errors and leaves the request usable.
void test_misuse()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    // Errors without a communicator (a NULL request) are raised on MPI_COMM_SELF.
    mpixtest::errors_return();
    const int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Request *req = nullptr;
    Uniform u(p, me, 4);
    CU_ASSERT_EQUAL_FATAL(
        MPIX_Alltoall_init(u.send.data(), 4, MPI_INT, u.recv.data(), 4, MPI_INT, xcomm, nullptr, &req), MPI_SUCCESS);
    // Wait and test on an inactive request return at once.
    int flag = 0;
    MPIX_EXPECT(MPIX_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait on an inactive request");
    MPIX_EXPECT(MPIX_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag == 1, "test on an inactive request");
    u.fill(7);
    CU_ASSERT_EQUAL_FATAL(MPIX_Start(req), MPI_SUCCESS);
    MPIX_EXPECT(mpixtest::error_class(MPIX_Start(req)) == MPI_ERR_REQUEST, "start of an active request");
    MPIX_EXPECT(mpixtest::error_class(MPIX_Request_free(&req)) == MPI_ERR_REQUEST && req != nullptr, "free of an active request");
    MPIX_EXPECT(mpixtest::error_class(MPIX_Comm_free(&xcomm)) == MPI_ERR_COMM && xcomm != nullptr,
                "MPIX_Comm_free with a live request");
    MPIX_EXPECT(mpixtest::error_class(MPIX_Test(&req, nullptr, MPI_STATUS_IGNORE)) == MPI_ERR_ARG, "test with flag NULL");
    MPIX_EXPECT(MPIX_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && u.right(7), "the request still works");
    MPIX_EXPECT(MPIX_Request_free(&req) == MPI_SUCCESS && req == nullptr, "free of an inactive request");
    MPIX_EXPECT(mpixtest::error_class(MPIX_Request_free(&req)) == MPI_ERR_REQUEST, "free of NULL");
    MPIX_EXPECT(mpixtest::error_class(MPIX_Start(nullptr)) == MPI_ERR_REQUEST, "start of NULL");
    MPIX_EXPECT(mpixtest::error_class(MPIX_Wait(nullptr, MPI_STATUS_IGNORE)) == MPI_ERR_ARG, "wait on NULL");
    // Init checks as the blocking call does, and leaves *request NULL.
    req = reinterpret_cast<MPIX_Request *>(&u);
    MPIX_EXPECT(mpixtest::error_class(MPIX_Alltoall_init(u.send.data(), -1, MPI_INT, u.recv.data(), 4, MPI_INT, xcomm, nullptr,
                                             &req)) == MPI_ERR_COUNT && req == nullptr,
                "init with a negative count");
    MPIX_EXPECT(mpixtest::error_class(MPIX_Alltoall_init(u.send.data(), 4, MPI_INT, u.recv.data(), 4, MPI_INT, xcomm, nullptr,
                                             nullptr)) == MPI_ERR_ARG,
                "init with request NULL");
    std::vector<int> counts(p, 1), displs(p, 0);
    MPIX_EXPECT(mpixtest::error_class(MPIX_Alltoallv_init(u.send.data(), counts.data(), displs.data(), MPI_DATATYPE_NULL,
                                              u.recv.data(), counts.data(), displs.data(), MPI_INT, xcomm, nullptr,
                                              &req)) == MPI_ERR_TYPE,
                "init with MPI_DATATYPE_NULL");
    MPIX_CHECK_ALL("misuse of persistent requests");
    CU_ASSERT_EQUAL(MPIX_Comm_free(&xcomm), MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

// Many init/start/wait/free cycles over the three kinds of start; under
// valgrind (make check-valgrind) nothing may leak.
void test_many_cycles()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    const int p = mpixtest::size(), me = mpixtest::rank();
    // 1,000 under valgrind (make check-valgrind, 3 ranks) and where the ranks
    // have cores; fewer when oversubscribed, where every cycle waits for the
    // scheduler.
    const int cycles = p <= 2 || std::getenv("MPIX_TEST_VALGRIND") ? 1000 : 100;
    const char *rows[] = {"nonblocking", "bruck_basic", "pmpi", "parlogna"};
    int wrong = 0;
    for (int i = 0; i < cycles; ++i) {
        const char *row = rows[i % 4];
        const bool uniform = i % 4 != 3;
        MPIX_Info *info = algorithm_info(uniform, row);
        Uniform u(p, me, 1 + i % 3);
        std::vector<int> counts(p, u.n), displs(p);
        for (int j = 0; j < p; ++j)
            displs[j] = j * u.n;
        MPIX_Request *req = nullptr;
        int rc = uniform ? MPIX_Alltoall_init(u.send.data(), u.n, MPI_INT, u.recv.data(), u.n, MPI_INT, xcomm, info,
                                              &req)
                         : MPIX_Alltoallv_init(u.send.data(), counts.data(), displs.data(), MPI_INT, u.recv.data(),
                                               counts.data(), displs.data(), MPI_INT, xcomm, info, &req);
        MPIX_Info_free(&info);
        if (rc != MPI_SUCCESS) {
            MPIX_EXPECT(false, std::string("init ") + row);
            break;
        }
        u.fill(i);
        MPIX_Start(req);
        MPIX_Wait(&req, MPI_STATUS_IGNORE);
        wrong += !u.right(i);
        MPIX_Request_free(&req);
    }
    MPIX_EXPECT(wrong == 0, std::to_string(wrong) + " of " + std::to_string(cycles) + " cycles gave wrong data");
    MPIX_CHECK_ALL("init/start/wait/free cycles");
    CU_ASSERT_EQUAL(MPIX_Comm_free(&xcomm), MPI_SUCCESS);
}

const mpixtest::TestCase kTests[] = {
    {"MPIX_Alltoall_init: every row, every case, 3 starts", test_alltoall_every_row},
    {"MPIX_Alltoallv_init: every row, every case, 3 starts", test_alltoallv_every_row},
    {"hints at INT_MAX through the init, every row", test_hints_at_int_max},
    {"completion in different orders, blocking calls between", test_completion_order},
    {"misuse: active free, double start, NULL, bad init", test_misuse},
    {"init/start/wait/free cycles", test_many_cycles},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "persistent", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
