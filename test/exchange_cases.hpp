// Conformance cases for MPIX_Alltoall / MPIX_Alltoallv, independent of CUnit so
// the same cases also run under SimGrid SMPI (sim/check). Expected values are
// computed independently (a formula of source, destination and element index);
// guard bytes surround and fill every gap of every block.
#ifndef MPIX_TEST_EXCHANGE_CASES_HPP
#define MPIX_TEST_EXCHANGE_CASES_HPP

#include <mpi.h>

#include <string>
#include <vector>

#include "mpix.h"

namespace mpixtest {

enum class Dist { random_with_zeros, all_zero, uniform, skewed };
enum class Layout { packed, gapped, reversed };
// Element types of (send side, receive side): int/int, double/double, or a
// non-contiguous resized vector (negative lower bound) on one side only.
enum class Types { int_int, double_double, vector_int, int_vector };

struct ExchangeCase {
    bool uniform;  // MPIX_Alltoall
    Dist dist;
    Layout layout;
    Types types;
    bool in_place;
    int ppn;  // emulated node size, 0 = real nodes, < 0 = leave the comm's node map alone
    unsigned seed;
    bool large_count = false;  // through MPIX_Alltoall(v)_c (MPI_Count counts, MPI_Aint displacements)
    // > 0: a persistent request (MPIX_Alltoall(v)_init) started this many times,
    // with other send data each time, every result checked (large_count unused).
    int starts = 0;
    // > 0: through MPIX_Ialltoall(v) (large_count: the _c forms), this many
    // calls in flight on the comm at once (each with its own buffers and
    // data), with a checked blocking call and the user's own wildcard receive
    // between start and completion; completed by MPIX_Wait in a per-rank
    // shuffled order, MPIX_Test loops, MPIX_Waitall or MPIX_Testall (by seed).
    int in_flight = 0;
    // Buffers passed as MPI_BOTTOM, each side's type a struct of its element
    // type at the buffer's absolute address (same layout in memory).
    bool bottom = false;
    std::string describe() const;
};

// Every case the suite runs for one collective (a few dozen, covering each dimension).
std::vector<ExchangeCase> exchange_cases(bool uniform);

// Runs one case with the algorithm currently selected on `xcomm` (hints set by the
// caller; a persistent case passes them to its init as `xinfo`, may be null). Returns true if this rank saw correct results; `detail` says what failed.
bool run_exchange_case(MPIX_Comm *xcomm, MPI_Comm comm, const ExchangeCase &c, std::string *detail,
                       MPIX_Info *xinfo = nullptr);

// After an exchange on every rank of `comm`: whether a message is left on
// xcomm's communicator that no receive took (a later call's receive on that
// tag would match it); `detail` says which.
bool left_behind(MPIX_Comm *xcomm, MPI_Comm comm, std::string *detail);

// Runs every `stride`-th case of `collective` for `algorithm` with extra hints
// (key=value pairs; `starts` > 0: through persistent requests started that many
// times; else `in_flight` > 0: through the nonblocking calls, 1 to in_flight
// in flight); returns the number of failed cases on this rank and the
// first failure's detail (a message left behind counts as one). A stride of 3 still covers every dimension: cases
// rotate node sizes in fours and datatypes in fives.
int check_algorithm(MPIX_Comm *xcomm, MPI_Comm comm, bool uniform, const char *algorithm,
                    const std::vector<std::pair<std::string, std::string>> &hints, std::string *first_failure,
                    int stride = 1, int starts = 0, int in_flight = 0);

using HintList = std::vector<std::pair<std::string, std::string>>;

// The hint settings an algorithm is tested with: none, then each hint key in the
// comma-separated `hint_keys` it reads at edge values (radix 2, 3, ceil(sqrt P),
// P-1, P; batch 1, 3; inner=pairwise; leaders 1, 2; locality=socket; random_seed 7;
// max_queue 1; segment_size 3 with max_queue 3 and 4096 with max_queue 2; direct_above 1).
std::vector<HintList> hint_variants(const char *hint_keys, int p);

}  // namespace mpixtest

#endif
