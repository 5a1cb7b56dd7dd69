// CUnit under MPI: every rank runs every test; assertions are agreed across
// ranks so rank 0's CUnit summary (the only one printed) covers all ranks.
#ifndef MPIX_TEST_HARNESS_HPP
#define MPIX_TEST_HARNESS_HPP

#include <CUnit/Basic.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

#include "harness_mix.hpp"
#include "mpix.h"

namespace mpixtest {

// Records a local failure with its detail (printed by the failing rank).
void fail(const std::string &what);
// Asserts on every rank that no rank recorded a failure since the last call.
void agree(const char *what, const char *file, int line);
int rank();
int size();
// MPIX_TEST_LEVEL=full (make check-stress): run the cases make check leaves out
// (test/mpi-harness.in says which rank counts each target runs).
bool full_level();

using TestFn = void (*)();
struct TestCase {
    const char *name;
    TestFn fn;
};
// Runs the suite; returns the process exit code (0 iff every rank passed). With
// MPIX_TEST_TIMES=1 rank 0 prints each test's wall time. `thread_level` >= 0:
// MPI_Init_thread with it (else MPI_Init).
int run_suite(int argc, char **argv, const char *suite, const TestCase *tests, int count, int thread_level = -1);

// One MPIX_Alltoallv of MPI_BYTE (or, with `alltoall`, MPIX_Alltoall of bytes(0, 0)
// per block) on xcomm's ranks, with block s -> d of bytes(s, d) bytes patterned by
// (s, d, index);
// records a failure (prefixed by `what`) for an error code, a wrong byte or a
// touched guard byte past the receive buffer.
// `nonblocking`: MPIX_Ialltoall(v) completed by MPIX_Wait.
void exchange_and_check(MPIX_Comm *xcomm, bool alltoall, const std::function<int(int, int)> &bytes,
                        const std::string &what, bool nonblocking = false);

// A fresh directory under /tmp made by rank 0, its name on every rank.
std::string shared_temp_dir();

// Selects registry row `name` of collective `coll` ("alltoall", ...) on xcomm
// (replaces the communicator's hints), with hint `key` = `value` where given.
void select_row(MPIX_Comm *xcomm, const char *coll, const char *name, const char *key = nullptr,
                const char *value = nullptr);

// For misuse tests: errors return (MPI_ERRORS_RETURN on MPI_COMM_WORLD, and on
// MPI_COMM_SELF, where errors without a communicator are raised).
void errors_return();

// The MPI error class of an error code (MPI_SUCCESS stays MPI_SUCCESS).
int error_class(int rc);

// This process's minor page faults so far (getrusage): the fault tests count a
// call's fresh working memory by the difference.
long minor_faults();

}  // namespace mpixtest

#define MPIX_CHECK_ALL(what) mpixtest::agree((what), __FILE__, __LINE__)
#define MPIX_EXPECT(cond, detail)                 \
    do {                                          \
        if (!(cond))                              \
            mpixtest::fail(std::string(detail));  \
    } while (0)

#endif
