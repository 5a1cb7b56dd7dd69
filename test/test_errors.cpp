// Bad input: every error returns the named MPI error class under MPI_ERRORS_RETURN,
// names the function in its string, writes nothing, and leaves the MPIX_Comm usable.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "exchange_cases.hpp"
#include "config.h"
#include "harness.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "mpix.h"

namespace {

std::string error_text(int code)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, s, &len);
    return std::string(s, len);
}

// The text MPIX_Error_string gives, on every MPI library.
std::string mpix_text(int code)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    if (MPIX_Error_string(code, s, &len) != MPI_SUCCESS || len < 0 || s[len] != '\0')
        return "(MPIX_Error_string failed)";
    return std::string(s, len);
}

#define EXPECT_CLASS(call, cls, fn)                                                                        \
    do {                                                                                                   \
        int rc_ = (call);                                                                                  \
        MPIX_EXPECT(mpixtest::error_class(rc_) == (cls), std::string(#call) + " returned class " +                   \
                                                   std::to_string(mpixtest::error_class(rc_)) + ", expected " #cls); \
        MPIX_EXPECT(!mpix::error_strings_supported() || error_text(rc_).find(fn) != std::string::npos,     \
                    std::string(#call) + ": error string '" + error_text(rc_) + "' does not name " + std::string(fn));    \
        MPIX_EXPECT(mpix_text(rc_).find(std::string(fn) + ": ") == 0,                                       \
                    std::string(#call) + ": MPIX_Error_string gave '" + mpix_text(rc_) + "'");             \
    } while (0)

// EXPECT_CLASS, raised by mpix's own checks (their text), not passed on from
// the MPI library (texts naming the algorithm, pmpi), as a call without the
// pass-through shortcuts would be.
#define EXPECT_OWN_CHECK(call, cls, fn)                                                                   \
    do {                                                                                                   \
        EXPECT_CLASS(call, cls, fn);                                                                       \
        int own_rc_ = (call);                                                                              \
        MPIX_EXPECT(mpix_text(own_rc_).find("algorithm") == std::string::npos,                           \
                    std::string(#call) + ": raised by the MPI library: '" + mpix_text(own_rc_) + "'");      \
    } while (0)

struct Fixture {
    MPIX_Comm *xcomm = nullptr;
    int p = mpixtest::size();
    std::vector<int> counts, displs, sendbuf, recvbuf;
    Fixture()
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
        counts.assign(p, 2);
        displs.resize(p);
        for (int i = 0; i < p; ++i)
            displs[i] = 2 * i;
        sendbuf.assign(2 * p, 5);
        recvbuf.assign(2 * p + 8, -1);  // a few guard ints past the blocks
    }
    ~Fixture()
    {
        MPIX_Comm_free(&xcomm);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    }
    bool recv_untouched() const
    {
        for (int v : recvbuf)
            if (v != -1)
                return false;
        return true;
    }
};

void test_alltoallv_errors()
{
    Fixture f;
    std::vector<int> bad = f.counts;
    bad[f.p - 1] = -1;
    const char *fn = "MPIX_Alltoallv";
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), bad.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                f.counts.data(), f.displs.data(), MPI_INT, f.xcomm),
                 MPI_ERR_COUNT, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                bad.data(), f.displs.data(), MPI_INT, f.xcomm),
                 MPI_ERR_COUNT, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_DATATYPE_NULL,
                                f.recvbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.xcomm),
                 MPI_ERR_TYPE, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                f.counts.data(), f.displs.data(), MPI_DATATYPE_NULL, f.xcomm),
                 MPI_ERR_TYPE, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), nullptr, f.displs.data(), MPI_INT, f.recvbuf.data(),
                                f.counts.data(), f.displs.data(), MPI_INT, f.xcomm),
                 MPI_ERR_ARG, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), nullptr, MPI_INT, f.recvbuf.data(),
                                f.counts.data(), f.displs.data(), MPI_INT, f.xcomm),
                 MPI_ERR_ARG, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                nullptr, f.displs.data(), MPI_INT, f.xcomm),
                 MPI_ERR_ARG, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                f.counts.data(), nullptr, MPI_INT, f.xcomm),
                 MPI_ERR_ARG, fn);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                f.counts.data(), f.displs.data(), MPI_INT, nullptr),
                 MPI_ERR_ARG, fn);
    MPIX_EXPECT(f.recv_untouched(), "an erroneous MPIX_Alltoallv wrote into the receive buffer");
    // (A self block longer than its receive block takes part: test_one_rank_erroneous.)
    MPIX_CHECK_ALL("MPIX_Alltoallv rejects bad input with the right class and writes nothing");

    // The communicator is still usable after the errors.
    std::string detail;
    MPIX_EXPECT(mpixtest::run_exchange_case(f.xcomm, MPI_COMM_WORLD, mpixtest::exchange_cases(false)[0], &detail),
                detail);
    MPIX_CHECK_ALL("MPIX_Comm usable after errors");
}

void test_alltoall_errors()
{
    Fixture f;
    const char *fn = "MPIX_Alltoall";
    EXPECT_CLASS(MPIX_Alltoall(f.sendbuf.data(), -1, MPI_INT, f.recvbuf.data(), 2, MPI_INT, f.xcomm), MPI_ERR_COUNT,
                 fn);
    EXPECT_CLASS(MPIX_Alltoall(f.sendbuf.data(), 2, MPI_INT, f.recvbuf.data(), -2, MPI_INT, f.xcomm), MPI_ERR_COUNT,
                 fn);
    EXPECT_CLASS(MPIX_Alltoall(f.sendbuf.data(), 2, MPI_DATATYPE_NULL, f.recvbuf.data(), 2, MPI_INT, f.xcomm),
                 MPI_ERR_TYPE, fn);
    EXPECT_CLASS(MPIX_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, f.recvbuf.data(), 2, MPI_DATATYPE_NULL, f.xcomm),
                 MPI_ERR_TYPE, fn);
    EXPECT_CLASS(MPIX_Alltoall(f.sendbuf.data(), 2, MPI_INT, f.recvbuf.data(), 2, MPI_INT, nullptr), MPI_ERR_ARG, fn);
    EXPECT_CLASS(MPIX_Alltoall(nullptr, 2, MPI_INT, f.recvbuf.data(), 2, MPI_INT, f.xcomm), MPI_ERR_BUFFER, fn);
    // A non-contiguous type is packed: the NULL must be caught before anything reads it.
    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    EXPECT_CLASS(MPIX_Alltoall(nullptr, 1, strided, f.recvbuf.data(), 1, strided, f.xcomm), MPI_ERR_BUFFER, fn);
    EXPECT_CLASS(MPIX_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, nullptr, 1, strided, f.xcomm), MPI_ERR_BUFFER, fn);
    MPI_Type_free(&strided);
    MPIX_EXPECT(f.recv_untouched(), "an erroneous MPIX_Alltoall wrote into the receive buffer");
    // Send and receive blocks of different lengths: each rank takes part (its
    // blocks cut to 1 int), then reports it; nothing lands past the blocks.
    EXPECT_CLASS(MPIX_Alltoall(f.sendbuf.data(), 2, MPI_INT, f.recvbuf.data(), 1, MPI_INT, f.xcomm), MPI_ERR_TRUNCATE,
                 fn);
    MPIX_EXPECT(std::all_of(f.recvbuf.begin(), f.recvbuf.begin() + f.p, [](int v) { return v == 5; }) &&
                    std::all_of(f.recvbuf.begin() + f.p, f.recvbuf.end(), [](int v) { return v == -1; }),
                "MPIX_Alltoall with blocks cut to 1 int: wrong receive buffer");
    MPIX_CHECK_ALL("MPIX_Alltoall rejects bad input with the right class and writes nothing past the blocks");
}

using mpixtest::select_row;

// MPIX_Alltoall(_c) hands a call with the arguments of its last pass-through
// call (same counts, predefined types, MPI_IN_PLACE choice) straight to the MPI
// library (select/dispatch.hpp, pass_alltoall_again). Such a call must still
// move the right blocks into new buffers, still reject NULL buffers and
// MPI_IN_PLACE as recvbuf, and stop once the hints name another row; a derived
// type (whose handle a new type may take after a free) is never taken for it.
void test_alltoall_pass_through_repeat()
{
    Fixture f;
    const int p = f.p, me = mpixtest::rank();
    const char *fn = "MPIX_Alltoall";
    auto sent = [](int s, int d, int k) { return 1000 * s + 10 * d + k + 1; };
    // Sends 2 ints a block from fresh buffers (guards after the receive blocks)
    // through `form` (0: MPIX_Alltoall, 1: MPIX_Alltoall_c, 2: in place).
    auto exchange = [&](int form, const std::string &what) {
        std::vector<int> send(2 * p), recv(2 * p + 8, -1);
        for (int d = 0; d < p; ++d)
            for (int k = 0; k < 2; ++k)
                (form == 2 ? recv : send)[2 * d + k] = sent(me, d, k);
        int rc = form == 0   ? MPIX_Alltoall(send.data(), 2, MPI_INT, recv.data(), 2, MPI_INT, f.xcomm)
                 : form == 1 ? MPIX_Alltoall_c(send.data(), 2, MPI_INT, recv.data(), 2, MPI_INT, f.xcomm)
                             : MPIX_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.data(), 2, MPI_INT, f.xcomm);
        MPIX_EXPECT(rc == MPI_SUCCESS, what + ": returned " + std::to_string(rc));
        for (int s = 0; s < p; ++s)
            for (int k = 0; k < 2; ++k)
                MPIX_EXPECT(recv[2 * s + k] == sent(s, me, k), what + ": wrong value from rank " + std::to_string(s));
        for (int g = 2 * p; g < 2 * p + 8; ++g)
            MPIX_EXPECT(recv[g] == -1, what + ": wrote past the receive blocks");
    };
    auto last_row = [&]() {
        const char *name = f.xcomm->last_algorithm[static_cast<int>(mpix::Collective::alltoall)];
        return std::string(name ? name : "(none)");
    };
    for (const char *row : {"pmpi", "auto"}) {
        select_row(f.xcomm, "alltoall", row);
        const std::string where = std::string(" (row ") + row + ")";
        for (int form : {0, 0, 1, 1, 2, 2, 0})
            exchange(form, std::string("call of form ") + std::to_string(form) + where);
        const std::string picked = last_row();
        // Bad buffers after a good call with the same counts and types.
        EXPECT_OWN_CHECK(MPIX_Alltoall(f.sendbuf.data(), 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, f.xcomm), MPI_ERR_BUFFER, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoall(nullptr, 2, MPI_INT, f.recvbuf.data(), 2, MPI_INT, f.xcomm), MPI_ERR_BUFFER, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoall(f.sendbuf.data(), 2, MPI_INT, nullptr, 2, MPI_INT, f.xcomm), MPI_ERR_BUFFER, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoall_c(f.sendbuf.data(), 2, MPI_INT, nullptr, 2, MPI_INT, f.xcomm), MPI_ERR_BUFFER,
                     "MPIX_Alltoall_c");
        EXPECT_OWN_CHECK(MPIX_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, nullptr, 2, MPI_INT, f.xcomm), MPI_ERR_BUFFER,
                     fn);
        MPIX_EXPECT(f.recv_untouched(), std::string("an erroneous call wrote into the receive buffer") + where);
        // Erroneous on each rank alone: it takes part, then reports (test_one_rank_erroneous).
        EXPECT_OWN_CHECK(MPIX_Alltoall(f.sendbuf.data(), 2, MPI_INT, f.recvbuf.data(), 1, MPI_INT, f.xcomm),
                     MPI_ERR_TRUNCATE, fn);
        std::fill(f.recvbuf.begin(), f.recvbuf.end(), -1);
        exchange(0, "the call after the errors" + where);
        MPIX_EXPECT(last_row() == picked, "the row changed from " + picked + " to " + last_row() + where);
        // Hints naming another row stop the shortcut.
        select_row(f.xcomm, "alltoall", "pairwise");
        exchange(0, "pairwise after " + std::string(row));
        MPIX_EXPECT(last_row() == "pairwise", "hints name pairwise after " + std::string(row) + ", ran " + last_row());
    }
    // Derived types: a committed contiguous pair, freed, then a strided type
    // (whose handle may be the freed one's) with the same count.
    select_row(f.xcomm, "alltoall", "pmpi");
    for (int round = 0; round < 2; ++round) {
        MPI_Datatype t;
        if (round == 0)
            MPI_Type_contiguous(2, MPI_INT, &t);
        else
            MPI_Type_vector(2, 1, 2, MPI_INT, &t);  // ints 0 and 2 of each 3-int block
        MPI_Type_commit(&t);
        const int stride = round == 0 ? 2 : 3;
        std::vector<int> send(stride * p + 1, -7), recv(stride * p + 8, -1);
        for (int d = 0; d < p; ++d) {
            send[stride * d] = sent(me, d, 0);
            send[stride * d + (round == 0 ? 1 : 2)] = sent(me, d, 1);
        }
        for (int call = 0; call < 2; ++call) {
            std::fill(recv.begin(), recv.end(), -1);
            int rc = MPIX_Alltoall(send.data(), 1, t, recv.data(), 1, t, f.xcomm);
            const std::string what = std::string(round == 0 ? "contiguous" : "strided") + " type, call " +
                                     std::to_string(call);
            MPIX_EXPECT(rc == MPI_SUCCESS, what + ": returned " + std::to_string(rc));
            for (int s = 0; s < p; ++s) {
                MPIX_EXPECT(recv[stride * s] == sent(s, me, 0) &&
                                recv[stride * s + (round == 0 ? 1 : 2)] == sent(s, me, 1),
                            what + ": wrong value from rank " + std::to_string(s));
                if (round == 1)
                    MPIX_EXPECT(recv[stride * s + 1] == -1, what + ": wrote into a strided type's gap");
            }
            for (std::size_t g = static_cast<std::size_t>(stride) * p; g < recv.size(); ++g)
                MPIX_EXPECT(recv[g] == -1, what + ": wrote past the receive blocks");
        }
        MPI_Type_free(&t);
    }
    MPIX_Comm_set_info(f.xcomm, nullptr);
    MPIX_CHECK_ALL("MPIX_Alltoall repeated with the arguments of a pass-through call: checked, right blocks");
}

// MPIX_Alltoallv's shortcut (the same types and MPI_IN_PLACE choice as its last
// pass-through call): new counts, displacements and buffers every call, and
// every bad count or buffer still reported.
void test_alltoallv_pass_through_repeat()
{
    Fixture f;
    const int p = f.p, me = mpixtest::rank();
    const char *fn = "MPIX_Alltoallv";
    auto sent = [](int s, int d, int k) { return 1000 * s + 10 * d + k + 1; };
    auto len = [](int s, int d, int call) { return (s + 2 * d + call) % 3; };  // 0-2 ints, zero blocks included
    auto last_row = [&]() {
        const char *name = f.xcomm->last_algorithm[static_cast<int>(mpix::Collective::alltoallv)];
        return std::string(name ? name : "(none)");
    };
    // Call `call`: blocks of len() ints, sent in reverse rank order with a
    // gap, received with a gap and guards; in place where `in_place`.
    auto exchange = [&](int call, bool in_place, const std::string &what) {
        std::vector<int> sc(p), sd(p), rc(p), rd(p);
        int at = 1;
        for (int d = p - 1; d >= 0; --d) {
            sc[d] = len(me, d, call);
            sd[d] = at;
            at += sc[d] + 1;
        }
        at = 2;
        for (int s = 0; s < p; ++s) {
            rc[s] = len(s, me, call);
            rd[s] = at;
            at += rc[s] + 1;
        }
        std::vector<int> send(4 * p + 4, -7), recv(at + 8, -1);
        if (in_place) {
            for (int d = 0; d < p; ++d) {  // in place: the send side is the receive side
                sc[d] = rc[d] = len(me, d, call) == len(d, me, call) ? len(me, d, call) : 0;
                for (int k = 0; k < rc[d]; ++k)
                    recv[rd[d] + k] = sent(me, d, k);
            }
        } else {
            for (int d = 0; d < p; ++d)
                for (int k = 0; k < sc[d]; ++k)
                    send[sd[d] + k] = sent(me, d, k);
        }
        int err = MPIX_Alltoallv(in_place ? MPI_IN_PLACE : send.data(), sc.data(), sd.data(), MPI_INT, recv.data(),
                                 rc.data(), rd.data(), MPI_INT, f.xcomm);
        MPIX_EXPECT(err == MPI_SUCCESS, what + ": returned " + std::to_string(err));
        std::vector<char> inside(recv.size(), 0);
        for (int s = 0; s < p; ++s)
            for (int k = 0; k < rc[s]; ++k) {
                inside[rd[s] + k] = 1;
                MPIX_EXPECT(recv[rd[s] + k] == sent(s, me, k), what + ": wrong value from rank " + std::to_string(s));
            }
        for (std::size_t g = 0; g < recv.size(); ++g)
            MPIX_EXPECT(inside[g] || recv[g] == -1, what + ": wrote outside the receive blocks");
    };
    for (const char *row : {"pmpi", "auto"}) {
        select_row(f.xcomm, "alltoallv", row);
        const std::string where = std::string(" (row ") + row + ")";
        for (int call = 0; call < 6; ++call)
            exchange(call, call == 3 || call == 4, "call " + std::to_string(call) + where);
        const std::string picked = last_row();
        std::vector<int> neg = f.counts, zero(p, 0), big = f.counts;
        neg[p - 1] = -1;
        big[me] = 3;  // the block to itself longer than its receive block
        EXPECT_OWN_CHECK(MPIX_Alltoallv(f.sendbuf.data(), neg.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                    f.counts.data(), f.displs.data(), MPI_INT, f.xcomm), MPI_ERR_COUNT, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                    neg.data(), f.displs.data(), MPI_INT, f.xcomm), MPI_ERR_COUNT, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoallv(f.sendbuf.data(), nullptr, f.displs.data(), MPI_INT, f.recvbuf.data(),
                                    f.counts.data(), f.displs.data(), MPI_INT, f.xcomm), MPI_ERR_ARG, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                    f.counts.data(), nullptr, MPI_INT, f.xcomm), MPI_ERR_ARG, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoallv(nullptr, f.counts.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                    f.counts.data(), f.displs.data(), MPI_INT, f.xcomm), MPI_ERR_BUFFER, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, nullptr,
                                    f.counts.data(), f.displs.data(), MPI_INT, f.xcomm), MPI_ERR_BUFFER, fn);
        EXPECT_OWN_CHECK(MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, MPI_IN_PLACE,
                                    f.counts.data(), f.displs.data(), MPI_INT, f.xcomm), MPI_ERR_BUFFER, fn);
        MPIX_EXPECT(f.recv_untouched(), std::string("an erroneous call wrote into the receive buffer") + where);
        // Erroneous on each rank alone: it takes part, then reports (test_one_rank_erroneous).
        EXPECT_OWN_CHECK(MPIX_Alltoallv(f.sendbuf.data(), big.data(), f.displs.data(), MPI_INT, f.recvbuf.data(),
                                    f.counts.data(), f.displs.data(), MPI_INT, f.xcomm), MPI_ERR_TRUNCATE, fn);
        std::fill(f.recvbuf.begin(), f.recvbuf.end(), -1);
        // A NULL send buffer with nothing to send is no error (both NULL would be
        // aliased buffers to MPICH's own collective).
        int err = MPIX_Alltoallv(nullptr, zero.data(), f.displs.data(), MPI_INT, f.recvbuf.data(), zero.data(),
                                 f.displs.data(), MPI_INT, f.xcomm);
        MPIX_EXPECT(err == MPI_SUCCESS, "a NULL sendbuf with zero counts" + where + " returned " + std::to_string(err));
        exchange(6, false, "the call after the errors" + where);
        MPIX_EXPECT(last_row() == picked, "the row changed from " + picked + " to " + last_row() + where);
        select_row(f.xcomm, "alltoallv", "pairwise");
        exchange(7, false, "pairwise after " + std::string(row));
        MPIX_EXPECT(last_row() == "pairwise", "hints name pairwise after " + std::string(row) + ", ran " + last_row());
    }
    MPIX_Comm_set_info(f.xcomm, nullptr);
    MPIX_CHECK_ALL("MPIX_Alltoallv repeated with the types of a pass-through call: checked, right blocks");
}

// Runs body(xcomm, row, where) for every registry row of `coll`, on one node and
// on emulated nodes of each of `ppns` ranks (0: one node; 2 unless given), through a user communicator whose errors return
// (MPI_COMM_WORLD's handler is left as the caller set it).
void on_every_row(const char *coll, const std::function<void(MPIX_Comm *, const char *, const std::string &)> &body,
                  std::initializer_list<int> ppns = {0, 2})
{
    MPI_Comm user;
    MPI_Comm_dup(MPI_COMM_WORLD, &user);
    MPI_Comm_set_errhandler(user, MPI_ERRORS_RETURN);
    for (int ppn : ppns) {
        MPIX_Comm *xcomm;
        MPIX_Comm_init(&xcomm, user);
        if (ppn)
            MPIX_Comm_update_locality(xcomm, ppn);
        for (int i = 0; const char *row = MPIX_Algorithm_name(coll, i); ++i) {
            select_row(xcomm, coll, row);
            body(xcomm, row, ppn ? ", nodes of " + std::to_string(ppn) + " ranks" : std::string(", one node"));
        }
        MPIX_Comm_free(&xcomm);
    }
    MPI_Comm_free(&user);
}

// MPI_IN_PLACE as recvbuf (alone, or as both buffers) is MPI_ERR_BUFFER from every
// registry row of both collectives, before anything is read or written.
void test_in_place_recvbuf()
{
    Fixture f;
    for (const char *coll : {"alltoall", "alltoallv"}) {
        const bool v = std::strcmp(coll, "alltoallv") == 0;
        const char *fn = v ? "MPIX_Alltoallv" : "MPIX_Alltoall";
        for (int i = 0; const char *name = MPIX_Algorithm_name(coll, i); ++i) {
            select_row(f.xcomm, coll, name);
            for (bool large : {false, true})
                for (bool both : {false, true}) {
                    const void *send = both ? MPI_IN_PLACE : static_cast<const void *>(f.sendbuf.data());
                    const std::vector<MPI_Count> counts_c(f.counts.begin(), f.counts.end());
                    const std::vector<MPI_Aint> displs_c(f.displs.begin(), f.displs.end());
                    int rc = v && large ? MPIX_Alltoallv_c(send, counts_c.data(), displs_c.data(), MPI_INT,
                                                           MPI_IN_PLACE, counts_c.data(), displs_c.data(), MPI_INT,
                                                           f.xcomm)
                             : v        ? MPIX_Alltoallv(send, f.counts.data(), f.displs.data(), MPI_INT, MPI_IN_PLACE,
                                                         f.counts.data(), f.displs.data(), MPI_INT, f.xcomm)
                             : large    ? MPIX_Alltoall_c(send, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, f.xcomm)
                                        : MPIX_Alltoall(send, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, f.xcomm);
                    const std::string call = std::string(fn) + (large ? "_c" : "");
                    MPIX_EXPECT(mpixtest::error_class(rc) == MPI_ERR_BUFFER,
                                call + " " + name + (both ? " (both buffers in place)" : "") +
                                    ": recvbuf MPI_IN_PLACE gave class " + std::to_string(mpixtest::error_class(rc)));
                    MPIX_EXPECT(mpix_text(rc).find(call + ": ") == 0,
                                call + " " + name + ": MPIX_Error_string gave '" + mpix_text(rc) + "'");
                }
        }
    }
    MPIX_Comm_set_info(f.xcomm, nullptr);
    for (int x : f.sendbuf)
        MPIX_EXPECT(x == 5, "the send buffer changed");
    MPIX_CHECK_ALL("MPI_IN_PLACE as recvbuf: MPI_ERR_BUFFER from every algorithm");
}

// The same buffer as sendbuf and recvbuf without MPI_IN_PLACE, with the same
// datatype and counts (so every block is its own receive block), is
// MPI_ERR_BUFFER from every row of both collectives in the blocking, _c,
// nonblocking and persistent forms, the buffer untouched; also after a call
// that went to the MPI library's own collective (its repeat shortcut must not
// take the aliased call). One buffer holding separate send and receive blocks
// (other displacements) is legal and exchanges correctly.
void test_aliased_buffers()
{
    Fixture f;
    const int p = f.p, me = mpixtest::rank();
    std::vector<int> both(2 * p);
    const std::vector<MPI_Count> counts_c(f.counts.begin(), f.counts.end());
    const std::vector<MPI_Aint> displs_c(f.displs.begin(), f.displs.end());
    for (const char *coll : {"alltoall", "alltoallv"}) {
        const bool v = std::strcmp(coll, "alltoallv") == 0;
        const std::string fn = v ? "MPIX_Alltoallv" : "MPIX_Alltoall";
        for (int i = 0; const char *name = MPIX_Algorithm_name(coll, i); ++i) {
            select_row(f.xcomm, coll, name);
            // One call with separate buffers first: a pass-through row then
            // remembers the call for its shortcut.
            std::vector<int> recv(2 * p, -1);
            int rc = v ? MPIX_Alltoallv(f.sendbuf.data(), f.counts.data(), f.displs.data(), MPI_INT, recv.data(),
                                        f.counts.data(), f.displs.data(), MPI_INT, f.xcomm)
                       : MPIX_Alltoall(f.sendbuf.data(), 2, MPI_INT, recv.data(), 2, MPI_INT, f.xcomm);
            MPIX_EXPECT(rc == MPI_SUCCESS, fn + " " + name + ": the call with separate buffers failed");
            for (int form = 0; form < 4; ++form) {  // blocking, _c, nonblocking, persistent
                std::fill(both.begin(), both.end(), 1000 * me + 7);
                MPIX_Request *req = nullptr;
                int *b = both.data();
                if (form == 0)
                    rc = v ? MPIX_Alltoallv(b, f.counts.data(), f.displs.data(), MPI_INT, b, f.counts.data(),
                                            f.displs.data(), MPI_INT, f.xcomm)
                           : MPIX_Alltoall(b, 2, MPI_INT, b, 2, MPI_INT, f.xcomm);
                else if (form == 1)
                    rc = v ? MPIX_Alltoallv_c(b, counts_c.data(), displs_c.data(), MPI_INT, b, counts_c.data(),
                                              displs_c.data(), MPI_INT, f.xcomm)
                           : MPIX_Alltoall_c(b, 2, MPI_INT, b, 2, MPI_INT, f.xcomm);
                else if (form == 2)
                    rc = v ? MPIX_Ialltoallv(b, f.counts.data(), f.displs.data(), MPI_INT, b, f.counts.data(),
                                             f.displs.data(), MPI_INT, f.xcomm, &req)
                           : MPIX_Ialltoall(b, 2, MPI_INT, b, 2, MPI_INT, f.xcomm, &req);
                else
                    rc = v ? MPIX_Alltoallv_init(b, f.counts.data(), f.displs.data(), MPI_INT, b, f.counts.data(),
                                                 f.displs.data(), MPI_INT, f.xcomm, nullptr, &req)
                           : MPIX_Alltoall_init(b, 2, MPI_INT, b, 2, MPI_INT, f.xcomm, nullptr, &req);
                const char *forms[] = {"", "_c", " (nonblocking)", " (persistent init)"};
                const std::string what = fn + forms[form] + " " + name;
                MPIX_EXPECT(mpixtest::error_class(rc) == MPI_ERR_BUFFER,
                            what + ": aliased buffers gave class " + std::to_string(mpixtest::error_class(rc)));
                MPIX_EXPECT(mpix_text(rc).find("same blocks of memory") != std::string::npos,
                            what + ": MPIX_Error_string gave '" + mpix_text(rc) + "'");
                MPIX_EXPECT(req == nullptr, what + ": a request was made");
                for (int x : both)
                    if (x != 1000 * me + 7) {
                        MPIX_EXPECT(false, what + ": the buffer changed");
                        break;
                    }
            }
            // Legal: one buffer, send blocks in its first half, receive blocks in its second.
            std::vector<int> halves(4 * p, -1), rdispls(p);
            for (int j = 0; j < p; ++j) {
                halves[2 * j] = 100 * me + j;
                halves[2 * j + 1] = -100 * me - j;
                rdispls[j] = 2 * p + 2 * j;
            }
            const std::vector<MPI_Aint> rdispls_c(rdispls.begin(), rdispls.end());
            for (int form = 0; v && form < 4; ++form) {  // blocking, _c, nonblocking, persistent
                std::fill(halves.begin() + 2 * p, halves.end(), -1);
                int *h = halves.data();
                MPIX_Request *req = nullptr;
                if (form == 0)
                    rc = MPIX_Alltoallv(h, f.counts.data(), f.displs.data(), MPI_INT, h, f.counts.data(),
                                        rdispls.data(), MPI_INT, f.xcomm);
                else if (form == 1)
                    rc = MPIX_Alltoallv_c(h, counts_c.data(), displs_c.data(), MPI_INT, h, counts_c.data(),
                                          rdispls_c.data(), MPI_INT, f.xcomm);
                else if (form == 2)
                    rc = MPIX_Ialltoallv(h, f.counts.data(), f.displs.data(), MPI_INT, h, f.counts.data(),
                                         rdispls.data(), MPI_INT, f.xcomm, &req);
                else
                    rc = MPIX_Alltoallv_init(h, f.counts.data(), f.displs.data(), MPI_INT, h, f.counts.data(),
                                             rdispls.data(), MPI_INT, f.xcomm, nullptr, &req);
                if (rc == MPI_SUCCESS && form == 3)
                    rc = MPIX_Start(req);
                if (rc == MPI_SUCCESS && form >= 2)
                    rc = MPIX_Wait(&req, MPI_STATUS_IGNORE);
                if (req)
                    MPIX_Request_free(&req);
                const char *forms[] = {" ", "_c ", " (nonblocking) ", " (persistent) "};
                const std::string what = fn + forms[form] + name + ": one buffer, separate blocks";
                MPIX_EXPECT(rc == MPI_SUCCESS, what + ", failed: " + mpix_text(rc));
                for (int j = 0; j < p && rc == MPI_SUCCESS; ++j)
                    MPIX_EXPECT(halves[2 * p + 2 * j] == 100 * j + me && halves[2 * p + 2 * j + 1] == -100 * j - me,
                                what + ": wrong block from rank " + std::to_string(j));
            }
        }
    }
    MPIX_Comm_set_info(f.xcomm, nullptr);
    MPIX_CHECK_ALL("aliased buffers: MPI_ERR_BUFFER from every row and form");
}

// A derived datatype never committed, on either side, is MPI_ERR_TYPE from every
// row of all four collectives (as MPI's own collectives do), before anything moves.
void test_uncommitted_types()
{
    Fixture f;
    MPI_Datatype loose;  // never committed
    MPI_Type_contiguous(2, MPI_INT, &loose);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    std::vector<int> ones(f.p, 1), displs(f.p);
    for (int i = 0; i < f.p; ++i)
        displs[i] = i;
    for (const char *coll : {"alltoall", "alltoallv", "alltoall_crs", "alltoallv_crs"}) {
        const std::string fn = std::string("MPIX_") + char(std::toupper(coll[0])) + (coll + 1);
        for (int i = 0; const char *name = MPIX_Algorithm_name(coll, i); ++i) {
            select_row(f.xcomm, coll, name);
            for (bool send_side : {true, false}) {
                MPI_Datatype st = send_side ? loose : pair, rt = send_side ? pair : loose;
                int rc = MPI_SUCCESS, dest = (mpixtest::rank() + 1) % f.p, src = -1, nnz = 1, size = 1;
                if (!std::strcmp(coll, "alltoall"))
                    rc = MPIX_Alltoall(f.sendbuf.data(), 1, st, f.recvbuf.data(), 1, rt, f.xcomm);
                else if (!std::strcmp(coll, "alltoallv"))
                    rc = MPIX_Alltoallv(f.sendbuf.data(), ones.data(), displs.data(), st, f.recvbuf.data(),
                                        ones.data(), displs.data(), rt, f.xcomm);
                else if (!std::strcmp(coll, "alltoall_crs"))
                    rc = MPIX_Alltoall_crs(1, &dest, 1, st, f.sendbuf.data(), &nnz, &src, 1, rt, f.recvbuf.data(),
                                           nullptr, f.xcomm);
                else
                    rc = MPIX_Alltoallv_crs(1, 1, &dest, ones.data(), displs.data(), st, f.sendbuf.data(), &nnz,
                                            &size, &src, ones.data(), displs.data(), rt, f.recvbuf.data(), nullptr,
                                            f.xcomm);
                std::string what = fn + " " + name + (send_side ? ": uncommitted sendtype" : ": uncommitted recvtype");
                MPIX_EXPECT(mpixtest::error_class(rc) == MPI_ERR_TYPE, what + " gave class " + std::to_string(mpixtest::error_class(rc)));
                // (the dense collectives name the side: a blocking call takes part without it)
                const bool dense = !std::strcmp(coll, "alltoall") || !std::strcmp(coll, "alltoallv");
                const std::string side = dense ? (send_side ? "sendtype: " : "recvtype: ") : "";
                MPIX_EXPECT(mpix_text(rc).find(fn + ": " + side + "datatype is not committed") == 0,
                            what + ": MPIX_Error_string gave '" + mpix_text(rc) + "'");
                // The large-count form of the dense collectives, on the same row.
                const std::vector<MPI_Count> ones_c(ones.begin(), ones.end());
                const std::vector<MPI_Aint> displs_c(displs.begin(), displs.end());
                if (!std::strcmp(coll, "alltoall") || !std::strcmp(coll, "alltoallv")) {
                    int rc_c = !std::strcmp(coll, "alltoall")
                                   ? MPIX_Alltoall_c(f.sendbuf.data(), 1, st, f.recvbuf.data(), 1, rt, f.xcomm)
                                   : MPIX_Alltoallv_c(f.sendbuf.data(), ones_c.data(), displs_c.data(), st,
                                                      f.recvbuf.data(), ones_c.data(), displs_c.data(), rt, f.xcomm);
                    MPIX_EXPECT(mpixtest::error_class(rc_c) == MPI_ERR_TYPE &&
                                    mpix_text(rc_c).find(fn + "_c: " + side + "datatype is not committed") == 0,
                                fn + "_c " + name + ": class " + std::to_string(mpixtest::error_class(rc_c)) + ", '" +
                                    mpix_text(rc_c) + "'");
                }
            }
        }
    }
    MPIX_Comm_set_info(f.xcomm, nullptr);
    MPI_Type_free(&loose);
    MPI_Type_free(&pair);
    MPIX_EXPECT(f.recv_untouched(), "a call with an uncommitted type wrote into the receive buffer");
    MPIX_CHECK_ALL("uncommitted datatypes: MPI_ERR_TYPE from every row of every collective");

    std::string detail;
    MPIX_EXPECT(mpixtest::run_exchange_case(f.xcomm, MPI_COMM_WORLD, mpixtest::exchange_cases(false)[0], &detail),
                detail);
    MPIX_CHECK_ALL("MPIX_Comm usable after uncommitted types");
}

// MPI_IN_PLACE as sendvals or recvvals of a sparse exchange is MPI_ERR_BUFFER
// from every backend (there is no in-place form), never a segfault.
void test_in_place_sparse()
{
    Fixture f;
    std::vector<int> ones(f.p, 1), displs(f.p, 0);
    for (const char *coll : {"alltoall_crs", "alltoallv_crs"})
        for (int i = 0; const char *name = MPIX_Algorithm_name(coll, i); ++i) {
            select_row(f.xcomm, coll, name);
            for (int which = 0; which < 3; ++which) {  // sendvals, recvvals, both
                const void *sv = which != 1 ? MPI_IN_PLACE : static_cast<const void *>(f.sendbuf.data());
                void *rv = which != 0 ? MPI_IN_PLACE : static_cast<void *>(f.recvbuf.data());
                int dest = (mpixtest::rank() + 1) % f.p, src = -1, nnz = 1, size = 2;
                int rc = !std::strcmp(coll, "alltoall_crs")
                             ? MPIX_Alltoall_crs(1, &dest, 2, MPI_INT, sv, &nnz, &src, 2, MPI_INT, rv, nullptr,
                                                 f.xcomm)
                             : MPIX_Alltoallv_crs(1, 2, &dest, &ones[0], &displs[0], MPI_INT, sv, &nnz, &size, &src,
                                                  &ones[0], &displs[0], MPI_INT, rv, nullptr, f.xcomm);
                MPIX_EXPECT(mpixtest::error_class(rc) == MPI_ERR_BUFFER,
                            std::string(coll) + " " + name + ": MPI_IN_PLACE " +
                                (which == 0 ? "sendvals" : which == 1 ? "recvvals" : "both") + " gave class " +
                                std::to_string(mpixtest::error_class(rc)));
            }
        }
    MPIX_Comm_set_info(f.xcomm, nullptr);
    MPIX_EXPECT(f.recv_untouched(), "an in-place sparse call wrote into the receive buffer");
    MPIX_CHECK_ALL("MPI_IN_PLACE in a sparse exchange: MPI_ERR_BUFFER from every backend");
}

// Blocks no machine could stage (of a non-contiguous type, which mpix packs):
// every rank gets MPI_ERR_NO_MEM before anything is sent, instead of the abort an
// exception crossing the C interface would cause; the MPIX_Comm stays usable.
void test_out_of_memory()
{
    Fixture f;
    MPI_Datatype strided;
    MPI_Type_vector(1 << 20, 1, 2, MPI_INT, &strided);  // 4 MiB of data per element
    MPI_Type_commit(&strided);
    const int huge = 1 << 30;  // elements per block: 4 PiB
    std::vector<int> counts(f.p, huge), displs(f.p, 0);
    EXPECT_CLASS(MPIX_Alltoallv(f.sendbuf.data(), counts.data(), displs.data(), strided, f.recvbuf.data(),
                                counts.data(), displs.data(), strided, f.xcomm),
                 MPI_ERR_NO_MEM, "MPIX_Alltoallv");
    EXPECT_CLASS(MPIX_Alltoall(f.sendbuf.data(), huge, strided, f.recvbuf.data(), huge, strided, f.xcomm),
                 MPI_ERR_NO_MEM, "MPIX_Alltoall");
    int dest = (mpixtest::rank() + 1) % f.p, src = -1, recv_nnz = 1;
    EXPECT_CLASS(MPIX_Alltoall_crs(1, &dest, huge, strided, f.sendbuf.data(), &recv_nnz, &src, huge, strided,
                                   f.recvbuf.data(), nullptr, f.xcomm),
                 MPI_ERR_NO_MEM, "MPIX_Alltoall_crs");
    MPI_Type_free(&strided);
    MPIX_EXPECT(f.recv_untouched(), "an exchange that ran out of memory wrote into the receive buffer");
    // The net under every C entry point, for allocations that are not checked
    // one by one: no exception leaves the library.
    EXPECT_CLASS(mpix::guard_entry(MPI_COMM_WORLD, "MPIX_Guarded", []() -> int { throw std::bad_alloc(); }),
                 MPI_ERR_NO_MEM, "MPIX_Guarded");
    EXPECT_CLASS(mpix::guard_entry(MPI_COMM_WORLD, "MPIX_Guarded", []() -> int { throw std::length_error("x"); }),
                 MPI_ERR_INTERN, "MPIX_Guarded");
    MPIX_EXPECT(mpix::guard_entry(MPI_COMM_WORLD, "MPIX_Guarded", [] { return MPI_SUCCESS; }) == MPI_SUCCESS,
                "guard_entry changed a successful result");
    MPIX_CHECK_ALL("unstageable blocks give MPI_ERR_NO_MEM on every rank and write nothing");

    std::string detail;
    MPIX_EXPECT(mpixtest::run_exchange_case(f.xcomm, MPI_COMM_WORLD, mpixtest::exchange_cases(false)[0], &detail),
                detail);
    MPIX_CHECK_ALL("MPIX_Comm usable after running out of memory");
}

void test_comm_and_info_errors()
{
    Fixture f;
    MPIX_Comm *x = nullptr;
    EXPECT_CLASS(MPIX_Comm_init(&x, MPI_COMM_NULL), MPI_ERR_COMM, "MPIX_Comm_init");
    MPIX_EXPECT(x == nullptr, "MPIX_Comm_init(MPI_COMM_NULL) set xcomm");
    EXPECT_CLASS(MPIX_Comm_init(nullptr, MPI_COMM_WORLD), MPI_ERR_ARG, "MPIX_Comm_init");
    EXPECT_CLASS(MPIX_Comm_free(nullptr), MPI_ERR_ARG, "MPIX_Comm_free");
    EXPECT_CLASS(MPIX_Comm_update_locality(f.xcomm, -1), MPI_ERR_ARG, "MPIX_Comm_update_locality");
    EXPECT_CLASS(MPIX_Comm_update_locality(nullptr, 2), MPI_ERR_ARG, "MPIX_Comm_update_locality");
    EXPECT_CLASS(MPIX_Comm_set_info(nullptr, nullptr), MPI_ERR_ARG, "MPIX_Comm_set_info");
    EXPECT_CLASS(MPIX_Comm_topo_init(nullptr), MPI_ERR_ARG, "MPIX_Comm_topo_init");

    MPIX_Info *info;
    CU_ASSERT_EQUAL_FATAL(MPIX_Info_init(&info), MPI_SUCCESS);
    const char *fn = "MPIX_Info_set";
    EXPECT_CLASS(MPIX_Info_set(info, "no_such_key", "1"), MPI_ERR_INFO_KEY, fn);
    EXPECT_CLASS(MPIX_Info_set(info, nullptr, "1"), MPI_ERR_INFO_KEY, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "radix", "1"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "radix", "four"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "radix", "99999999999"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "batch_size", "0"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "batch_size", "3x"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "leaders_per_node", "0"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "segment_size", "-5"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "locality", "rack"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "inner", ""), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "crs_recv_nnz_known", "maybe"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "alltoallv_algorithm", "no_such_algorithm"), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(info, "alltoall_algorithm", nullptr), MPI_ERR_INFO_VALUE, fn);
    EXPECT_CLASS(MPIX_Info_set(nullptr, "radix", "2"), MPI_ERR_ARG, fn);
    int flag = 1;
    char value[8];
    EXPECT_CLASS(MPIX_Info_get(info, "bogus", 8, value, &flag), MPI_ERR_INFO_KEY, "MPIX_Info_get");
    EXPECT_CLASS(MPIX_Info_get(info, "radix", 8, value, nullptr), MPI_ERR_ARG, "MPIX_Info_get");
    // Rejected values leave nothing behind.
    CU_ASSERT_EQUAL(MPIX_Info_get(info, "radix", 8, value, &flag), MPI_SUCCESS);
    MPIX_EXPECT(flag == 0, "a rejected radix was stored");
    MPIX_Info_free(&info);
    EXPECT_CLASS(MPIX_Info_free(&info), MPI_ERR_ARG, "MPIX_Info_free");
    EXPECT_CLASS(MPIX_Info_init(nullptr), MPI_ERR_ARG, "MPIX_Info_init");
    MPIX_CHECK_ALL("communicator and info errors");
}

void test_bad_environment()
{
    Fixture f;
    setenv("MPIX_RADIX", "1", 1);
    MPIX_Comm *x = nullptr;
    EXPECT_CLASS(MPIX_Comm_init(&x, MPI_COMM_WORLD), MPI_ERR_INFO_VALUE, "MPIX_Comm_init");
    MPIX_EXPECT(x == nullptr, "MPIX_Comm_init with a bad environment returned a communicator");
    unsetenv("MPIX_RADIX");
    setenv("MPIX_ALLTOALLV_ALGORITHM", "bogus", 1);
    EXPECT_CLASS(MPIX_Comm_init(&x, MPI_COMM_WORLD), MPI_ERR_INFO_VALUE, "MPIX_Comm_init");
    unsetenv("MPIX_ALLTOALLV_ALGORITHM");
    for (const char *bad : {"-1", "two", "", "4x", "99999999999"}) {
        setenv("MPIX_PPN", bad, 1);
        int rc = MPIX_Comm_init(&x, MPI_COMM_WORLD);
        MPIX_EXPECT(mpixtest::error_class(rc) == MPI_ERR_INFO_VALUE && x == nullptr,
                    std::string("MPIX_PPN=") + bad + ": class " + std::to_string(mpixtest::error_class(rc)));
        MPIX_EXPECT(mpix_text(rc).find("MPIX_Comm_init: environment variable MPIX_PPN: ") == 0,
                    std::string("MPIX_PPN=") + bad + ": the error text '" + mpix_text(rc) + "' does not name it");
    }
    // Ranks that disagree would build different node maps and wait on each other.
    if (mpixtest::size() > 1) {
        setenv("MPIX_PPN", mpixtest::rank() == 0 ? "1" : "2", 1);
        EXPECT_CLASS(MPIX_Comm_init(&x, MPI_COMM_WORLD), MPI_ERR_INFO_VALUE, "MPIX_Comm_init");
        MPIX_EXPECT(x == nullptr, "MPIX_Comm_init with MPIX_PPN differing between ranks returned a communicator");
    }
    unsetenv("MPIX_PPN");
    MPIX_CHECK_ALL("malformed MPIX_ environment variables are rejected at MPIX_Comm_init");
}

// Where the MPI library keeps attached strings, they must name the function.
void test_error_strings()
{
    if (!mpix::error_strings_supported()) {
        // The fallback must still give the class itself.
        CU_ASSERT_EQUAL(mpix::error_code(MPI_ERR_COUNT, "MPIX_Test", "probe"), MPI_ERR_COUNT);
        return;
    }
    int code = mpix::error_code(MPI_ERR_COUNT, "MPIX_Test", "negative count");
    CU_ASSERT_EQUAL(mpixtest::error_class(code), MPI_ERR_COUNT);
    CU_ASSERT_STRING_EQUAL(error_text(code).c_str(), "MPIX_Test: negative count");
    CU_ASSERT_EQUAL(mpix::error_code(MPI_ERR_COUNT, "MPIX_Test", "negative count"), code);  // memoised
}

// MPIX_Error_string gives the full text of the last error on this thread on every
// MPI library (MPICH 4.0 keeps none for codes of predefined classes), also from
// inside an error handler, and MPI's own text for any other code.
int handler_saw_text = 0;
void remember_text(MPI_Comm *, int *code, ...)
{
    handler_saw_text = mpix_text(*code).find("MPIX_Info_set: ") == 0 ? 1 : -1;
}

void test_mpix_error_string()
{
    Fixture f;
    MPIX_Info *info;
    MPIX_Info_init(&info);
    int rc = MPIX_Info_set(info, "radix", "1");
    MPIX_EXPECT(mpix_text(rc).find("MPIX_Info_set: ") == 0 && mpix_text(rc).find("radix") != std::string::npos,
                "MPIX_Info_set's text: '" + mpix_text(rc) + "'");
    // A code mpix did not just raise: MPI's text for it.
    MPIX_EXPECT(mpix_text(MPI_ERR_RANK) == error_text(MPI_ERR_RANK), "MPI_ERR_RANK's text differs from MPI's");
    MPIX_EXPECT(mpix_text(MPI_SUCCESS) == error_text(MPI_SUCCESS), "MPI_SUCCESS's text differs from MPI's");
    int len = 0;
    MPIX_EXPECT(mpixtest::error_class(MPIX_Error_string(rc, nullptr, &len)) == MPI_ERR_ARG, "NULL string accepted");
    // Inside a handler: MPI_COMM_SELF gets the Info error (there is no communicator).
    MPI_Errhandler h;
    MPI_Comm_create_errhandler(remember_text, &h);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, h);
    MPIX_Info_set(info, "batch_size", "0");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&h);
    MPIX_EXPECT(handler_saw_text == 1, "an error handler could not read the text of the error it was called for");
    MPIX_Info_free(&info);
    MPIX_CHECK_ALL("MPIX_Error_string: the full text on every MPI library");
}

void test_init_free_cycles()
{
    // 2,500 cycles: every duplicate and cached sub-communicator must be freed,
    // or MPI runs out of context ids (MPICH has 2,048) long before the end. At
    // 3+ ranks the 2-core CI machine is oversubscribed and each collective costs
    // milliseconds, so there 300 cycles check that freeing works with several
    // ranks; the leak itself does not depend on the rank count.
    int cycles = mpixtest::size() <= 2 ? 2500 : 300;
    int failures = 0;
    for (int i = 0; i < cycles; ++i) {
        MPIX_Comm *x = nullptr;
        if (MPIX_Comm_init(&x, MPI_COMM_WORLD) != MPI_SUCCESS) {
            ++failures;
            break;
        }
        if (i % 100 == 0)
            MPIX_Comm_topo_init(x);
        if (MPIX_Comm_free(&x) != MPI_SUCCESS || x != nullptr)
            ++failures;
    }
    MPIX_EXPECT(failures == 0, "MPIX_Comm_init/free cycle failed");
    MPIX_CHECK_ALL("MPIX_Comm_init/MPIX_Comm_free cycles");
}

// Blocks of the wrong length, from every registry row of MPIX_Alltoallv, with
// MPI_COMM_WORLD fatal and then returning (MPICH 4.0 raises errors of MPI_Wait on
// MPI_COMM_WORLD) and the user communicator returning. Three patterns: one pair
// (rank 0's block for the last rank), every rank's block for the last rank, every
// block but the self block. A block one int too long gives its receiver
// MPI_ERR_TRUNCATE, one int too short MPI_ERR_COUNT; nothing is written past a
// receive block; every rank that receives only right blocks completes with all
// of them right; nobody hangs. On one node, and on emulated nodes of 2 ranks.
enum class LongBlocks { one_pair, into_last, all_pairs };

bool sends_wrong(LongBlocks pattern, int from, int to, int p)
{
    if (from == to)
        return false;
    switch (pattern) {
    case LongBlocks::one_pair: return from == 0 && to == p - 1;
    case LongBlocks::into_last: return to == p - 1;
    case LongBlocks::all_pairs: return true;
    }
    return false;
}

const char *pattern_name(LongBlocks pattern)
{
    switch (pattern) {
    case LongBlocks::one_pair: return "one pair";
    case LongBlocks::into_last: return "every rank to the last";
    case LongBlocks::all_pairs: return "all pairs";
    }
    return "?";
}

// Blocks of 3 ints everywhere, except the pattern's wrong pairs: `sent` ints
// sent, `expected` ints expected (either may be 0, which many schedules skip).
// `persistent`: through MPIX_Alltoallv_init, two starts; MPIX_Wait reports it.
void mismatch_case(MPIX_Comm *xcomm, const char *algo, LongBlocks pattern, int sent, int expected,
                   const std::string &where, bool large_count = false, bool persistent = false)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::vector<int> sc(p, 3), rc(p, 3), sd(p), rd(p);
    bool receives_wrong = false;
    for (int j = 0; j < p; ++j) {
        sd[j] = rd[j] = 5 * j;  // two free ints after each block: a long block's and a guard
        if (sends_wrong(pattern, me, j, p))
            sc[j] = sent;
        if (sends_wrong(pattern, j, me, p)) {
            rc[j] = expected;
            receives_wrong = true;
        }
    }
    std::vector<int> sb(5 * p), rb(5 * p + 4, -7);
    for (int j = 0; j < p; ++j)
        for (int k = 0; k < sc[j]; ++k)
            sb[sd[j] + k] = me * 1000 + j * 10 + k;
    std::string what = std::string(algo) + ", " + pattern_name(pattern) + ", " + std::to_string(sent) +
                       " ints sent where " + std::to_string(expected) + " are expected" + where;
    if (std::getenv("MPIX_TEST_VERBOSE") && me == 0)  // names the case a hang is in
        std::fprintf(stderr, "case: %s\n", what.c_str());
    const std::vector<MPI_Count> sc_c(sc.begin(), sc.end()), rc_c(rc.begin(), rc.end());
    const std::vector<MPI_Aint> sd_c(sd.begin(), sd.end()), rd_c(rd.begin(), rd.end());
    int err;
    if (persistent) {
        MPIX_Request *req = nullptr;
        err = MPIX_Alltoallv_init(sb.data(), sc.data(), sd.data(), MPI_INT, rb.data(), rc.data(), rd.data(), MPI_INT,
                                  xcomm, nullptr, &req);
        for (int start = 0; start < 2 && req; ++start) {
            std::fill(rb.begin(), rb.end(), -7);
            err = MPIX_Start(req);
            if (err == MPI_SUCCESS)
                err = MPIX_Wait(&req, MPI_STATUS_IGNORE);
        }
        if (req)
            MPIX_Request_free(&req);
    } else {
        err = large_count ? MPIX_Alltoallv_c(sb.data(), sc_c.data(), sd_c.data(), MPI_INT, rb.data(), rc_c.data(),
                                             rd_c.data(), MPI_INT, xcomm)
                          : MPIX_Alltoallv(sb.data(), sc.data(), sd.data(), MPI_INT, rb.data(), rc.data(), rd.data(),
                                           MPI_INT, xcomm);
    }
    int want = receives_wrong ? (sent > expected ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT) : MPI_SUCCESS;
    // The MPI library's own collective (MPICH's included) does not report a
    // short block, nor a block sent where none is expected (it posts no receive
    // for it): `pmpi` passes that on (docs/errors.md).
    if (std::strcmp(algo, "pmpi") == 0 && (want == MPI_ERR_COUNT || expected == 0) && err == MPI_SUCCESS)
        want = MPI_SUCCESS;
    // Nor does MPICH 4.0's persistent MPI_Alltoallv_init report a long block
    // (its MPI_Wait returns MPI_SUCCESS): `pmpi`'s persistent form is that call.
    if (std::strcmp(algo, "pmpi") == 0 && persistent && MPIX_HAVE_PERSISTENT_COLLECTIVES && err == MPI_SUCCESS)
        want = MPI_SUCCESS;
    MPIX_EXPECT(mpixtest::error_class(err) == want, what + ": rank " + std::to_string(me) + " got class " +
                                              std::to_string(mpixtest::error_class(err)) + ", expected " + std::to_string(want));
    if (err != MPI_SUCCESS && mpixtest::error_class(err) == want) {
        std::string text = mpix_text(err);
        const char *says = want == MPI_ERR_TRUNCATE ? "longer than its receive block" : "shorter than its receive block";
        MPIX_EXPECT(text.find(persistent ? "MPIX_Wait: " : large_count ? "MPIX_Alltoallv_c: " : "MPIX_Alltoallv: ") == 0 &&
                        text.find(says) != std::string::npos &&
                        text.find(algo) != std::string::npos,
                    what + ": MPIX_Error_string gave '" + text + "'");
    }
    bool guards = rb[5 * p] == -7 && rb[5 * p + 3] == -7;
    for (int j = 0; j < p; ++j)
        for (int k = rc[j]; k < 5; ++k)
            guards = guards && rb[rd[j] + k] == -7;
    MPIX_EXPECT(guards, what + ": wrote past a receive block");
    if (!receives_wrong)
        for (int j = 0; j < p; ++j)
            for (int k = 0; k < 3; ++k)
                MPIX_EXPECT(rb[rd[j] + k] == j * 1000 + me * 10 + k, what + ": wrong data on a correct rank");
}

void test_block_size_mismatch()
{
    if (mpixtest::size() < 2) {
        MPIX_CHECK_ALL("block size mismatch (needs 2 ranks)");
        return;
    }
    on_every_row("alltoallv", [](MPIX_Comm *xcomm, const char *algo, const std::string &where) {
        for (LongBlocks pattern : {LongBlocks::one_pair, LongBlocks::into_last, LongBlocks::all_pairs})
            for (int sent : {4, 2})
                mismatch_case(xcomm, algo, pattern, sent, 3, where);
        // Empty against non-empty, both ways: schedules that skip empty messages
        // must neither hang nor miss the block.
        mismatch_case(xcomm, algo, LongBlocks::one_pair, 0, 3, where);
        mismatch_case(xcomm, algo, LongBlocks::one_pair, 3, 0, where);
        // The large-count entry point (pmpi: MPI_Alltoallv_c), MPI_COMM_WORLD fatal.
        mismatch_case(xcomm, algo, LongBlocks::one_pair, 4, 3, where + ", MPIX_Alltoallv_c", true);
        // A persistent request (MPIX_Wait reports it, on every start).
        mismatch_case(xcomm, algo, LongBlocks::one_pair, 4, 3, where + ", persistent", false, true);
        // MPI_COMM_WORLD returning must not change what the user communicator sees.
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        mismatch_case(xcomm, algo, LongBlocks::one_pair, 4, 3, where + ", MPI_COMM_WORLD returning");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    });
    MPIX_CHECK_ALL("block size mismatch on every row: the receiver's error, no write past its blocks, no hang");
    // The library left MPI_COMM_WORLD's handler as it found it.
    MPI_Errhandler h;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h);
    MPIX_EXPECT(h == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD's error handler changed");
    MPI_Errhandler_free(&h);
    MPIX_CHECK_ALL("MPI_COMM_WORLD's error handler unchanged");
}

// An MPIX_Comm on a duplicate of MPI_COMM_WORLD that returns errors.
struct ReturningComm {
    MPI_Comm user;
    MPIX_Comm *xcomm;
    ReturningComm()
    {
        MPI_Comm_dup(MPI_COMM_WORLD, &user);
        MPI_Comm_set_errhandler(user, MPI_ERRORS_RETURN);
        MPIX_Comm_init(&xcomm, user);
    }
    ~ReturningComm()
    {
        MPIX_Comm_free(&xcomm);
        MPI_Comm_free(&user);
    }
};

// xcomm's MPIX_Alltoallv runs `algo` with `hints`.
void use_alltoallv_row(MPIX_Comm *xcomm, const char *algo, const mpixtest::HintList &hints)
{
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "alltoallv_algorithm", algo);
    for (const auto &hint : hints)
        MPIX_Info_set(info, hint.first.c_str(), hint.second.c_str());
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
}

// randomized_segmented with 4-byte pieces, so that a 3-int block is 3 pieces
// and a wrong length changes how many pieces arrive: the receiver follows the
// sender's last-piece mark, so it neither waits for pieces that never come nor
// leaves the sender's extra pieces unreceived; at every queue length.
void test_segmented_mismatch()
{
    if (mpixtest::size() < 2) {
        MPIX_CHECK_ALL("segmented block size mismatch (needs 2 ranks)");
        return;
    }
    {
        ReturningComm c;
        for (const char *queue : {"0", "1", "2"}) {
            use_alltoallv_row(c.xcomm, "randomized_segmented", {{"segment_size", "4"}, {"max_queue", queue}});
            const std::string where = std::string(", 4-byte pieces, max_queue ") + queue;
            for (LongBlocks pattern : {LongBlocks::one_pair, LongBlocks::into_last, LongBlocks::all_pairs})
                for (int sent : {5, 4, 2, 0})
                    mismatch_case(c.xcomm, "randomized_segmented", pattern, sent, 3, where);
            mismatch_case(c.xcomm, "randomized_segmented", LongBlocks::one_pair, 3, 0, where);
            mismatch_case(c.xcomm, "randomized_segmented", LongBlocks::one_pair, 4, 3, where + ", persistent", false,
                          true);
        }
    }
    MPIX_CHECK_ALL("randomized_segmented: wrong lengths across pieces reported, no hang, no overrun");
}

// nonempty with one receive in flight: where the ranks disagree on which blocks
// are empty, the receives not yet posted are posted before the receiver learns
// the lengths sent to it; none hangs, none is left behind, every pattern is
// reported by its receiver.
void test_nonempty_window_mismatch()
{
    if (mpixtest::size() < 2) {
        MPIX_CHECK_ALL("nonempty block size mismatch (needs 2 ranks)");
        return;
    }
    {
        ReturningComm c;
        use_alltoallv_row(c.xcomm, "nonempty", {{"batch_size", "1"}});
        for (LongBlocks pattern : {LongBlocks::one_pair, LongBlocks::into_last, LongBlocks::all_pairs}) {
            for (int sent : {4, 2, 0})
                mismatch_case(c.xcomm, "nonempty", pattern, sent, 3, ", one receive in flight");
            mismatch_case(c.xcomm, "nonempty", pattern, 3, 0, ", one receive in flight");
        }
        mismatch_case(c.xcomm, "nonempty", LongBlocks::all_pairs, 0, 3, ", one receive in flight, persistent", false,
                      true);
    }
    MPIX_CHECK_ALL("nonempty, one receive in flight: empty against non-empty blocks reported, no hang, no overrun");
}

// MPIX_Alltoall with rank 0 passing a block one int longer (shorter) than the
// others, on every row, on one node and on nodes of 2 and 3 ranks, MPI_COMM_WORLD
// fatal: no abort, no hang, nothing written past a receive buffer, and no rank
// returns success with a wrong block. Every rank gets a block from rank 0, so
// every rank must report it (MPI_ERR_TRUNCATE or MPI_ERR_COUNT): multi-hop rows
// relay an error by sending the receiver-known messages that follow it empty
// (relay_length in core/p2p.hpp). `pmpi` is the MPI library's own collective,
// which does not check the lengths it receives: there only no overrun and no
// hang are asserted (docs/errors.md).
void test_uniform_size_mismatch()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    if (p < 2) {
        MPIX_CHECK_ALL("uniform block size mismatch (needs 2 ranks)");
        return;
    }
    auto body = [p, me](MPIX_Comm *xcomm, const char *algo, const std::string &where) {
        for (int delta : {1, -1}) {
            const int n = 3 + (me == 0 ? delta : 0);
            std::vector<int> sb(n * p), rb(n * p + 4, -7);
            for (int d = 0; d < p; ++d)
                for (int k = 0; k < n; ++k)
                    sb[d * n + k] = me * 10000 + d * 100 + k;
            std::string what =
                std::string(algo) + (delta > 0 ? ": rank 0's blocks longer" : ": rank 0's blocks shorter") + where;
            if (std::getenv("MPIX_TEST_VERBOSE") && me == 0)
                std::fprintf(stderr, "case: %s\n", what.c_str());
            int err = MPIX_Alltoall(sb.data(), n, MPI_INT, rb.data(), n, MPI_INT, xcomm);
            int cls = mpixtest::error_class(err);
            MPIX_EXPECT(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_COUNT,
                        what + ": class " + std::to_string(cls));
            MPIX_EXPECT(rb[n * p] == -7 && rb[n * p + 3] == -7, what + ": wrote past the receive buffer");
            if (cls == MPI_SUCCESS && std::strcmp(algo, "pmpi") != 0) {
                bool right = true;
                for (int q = 0; q < p; ++q)
                    for (int k = 0; k < n; ++k)
                        right = right && rb[q * n + k] == q * 10000 + me * 100 + k;
                MPIX_EXPECT(right, what + ": rank " + std::to_string(me) + " returned success with a wrong block");
            }
            int reported = cls != MPI_SUCCESS, any = 0;
            MPI_Allreduce(&reported, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            MPIX_EXPECT(any, what + ": no rank reported the mismatch");
        }
    };
    on_every_row("alltoall", body, {0, 2, 3});
    MPIX_CHECK_ALL("MPIX_Alltoall with unequal block sizes: reported, no abort, hang or overrun");
}

// How a case's call is made: blocking, nonblocking (MPIX_Wait), or persistent
// (two starts, each waited for).
enum class CallForm { blocking, nonblocking, persistent };

const char *form_name(CallForm form)
{
    return form == CallForm::blocking ? "" : form == CallForm::nonblocking ? ", nonblocking" : ", persistent";
}

// Makes the call `form` names from its three entry points; returns its error
// (a persistent request's: both starts must return the same).
int call_in_form(CallForm form, const std::function<int()> &blocking,
                 const std::function<int(MPIX_Request **)> &nonblocking,
                 const std::function<int(MPIX_Request **)> &persistent_init, const std::function<void()> &before_start)
{
    if (form == CallForm::blocking)
        return blocking();
    MPIX_Request *req = nullptr;
    if (form == CallForm::nonblocking) {
        const int rc = nonblocking(&req);
        return rc != MPI_SUCCESS ? rc : MPIX_Wait(&req, MPI_STATUS_IGNORE);
    }
    int rc = persistent_init(&req);
    for (int start = 0; start < 2 && req; ++start) {  // every start, also after an error
        before_start();
        const int started = MPIX_Start(req);
        const int waited = started == MPI_SUCCESS ? MPIX_Wait(&req, MPI_STATUS_IGNORE) : started;
        MPIX_EXPECT(start == 0 || mpixtest::error_class(waited) == mpixtest::error_class(rc),
                    "a persistent request's second start returned class " +
                        std::to_string(mpixtest::error_class(waited)) + ", its first " +
                        std::to_string(mpixtest::error_class(rc)));
        rc = waited;
    }
    if (req)
        MPIX_Request_free(&req);
    return rc;
}

// Arguments that are erroneous on rank 0 alone, which the other ranks cannot
// see: an MPIX_Alltoall whose send blocks are one int longer (shorter) than its
// receive blocks, and an MPIX_Alltoallv whose block to itself is one int longer
// than its receive block. Rank 0 takes part with the blocks the others expect
// (returning at once would leave them waiting for its blocks forever) and
// reports MPI_ERR_TRUNCATE (MPI_ERR_COUNT); on every row, blocking,
// nonblocking and persistent (forms_for), on one node and on nodes of 2:
//  - MPIX_Alltoall: rank 0 gets every block right; the other ranks complete,
//    rank 0's block to them cut to 3 ints (padded with zeros).
//  - MPIX_Alltoallv: rank 0 gets its self block's first 3 ints and every other
//    block right; the other ranks complete with every block right.
//  - Nothing lands past a receive block, and a correct call follows.
void test_one_rank_erroneous()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    // The three forms share the fitting (FittedSend); make check runs them all
    // on every row up to 2 ranks, and from 3 (oversubscribed: every call waits
    // for the scheduler) the blocking form on every row and all three only on
    // the rows that hand the call to the MPI library (check-stress: all).
    auto forms_for = [p](const char *algo) -> std::vector<CallForm> {
        if (p <= 2 || mpixtest::full_level() || std::strcmp(algo, "pmpi") == 0 || std::strcmp(algo, "auto") == 0)
            return {CallForm::blocking, CallForm::nonblocking, CallForm::persistent};
        return {CallForm::blocking};
    };
    auto expect_text = [&](int err, const char *fn, const char *says, const std::string &what) {
        const std::string text = mpix_text(err);
        MPIX_EXPECT(text.rfind(std::string(fn) + ": ", 0) == 0 && text.find(says) != std::string::npos,
                    what + ": MPIX_Error_string gave '" + text + "'");
    };
    auto alltoall = [&](MPIX_Comm *xcomm, const char *algo, const std::string &where) {
        for (CallForm form : forms_for(algo))
            for (int delta : {1, -1}) {
                const int sent = me == 0 ? 3 + delta : 3;
                std::vector<int> sb(sent * p), rb(3 * p + 4, -7);
                int round = 0;  // a persistent request's starts send new data
                auto value = [&](int s, int d, int k) { return round * 1000000 + s * 10000 + d * 100 + k; };
                auto fill_send = [&] {
                    for (int d = 0; d < p; ++d)
                        for (int k = 0; k < sent; ++k)
                            sb[d * sent + k] = value(me, d, k);
                };
                fill_send();
                const std::string what = std::string(algo) + ": MPIX_Alltoall, rank 0 sends " +
                                         std::to_string(3 + delta) + " ints a block, receives 3" + where +
                                         form_name(form);
                if (std::getenv("MPIX_TEST_VERBOSE") && me == 0)
                    std::fprintf(stderr, "case: %s\n", what.c_str());
                const int err = call_in_form(
                    form, [&] { return MPIX_Alltoall(sb.data(), sent, MPI_INT, rb.data(), 3, MPI_INT, xcomm); },
                    [&](MPIX_Request **r) {
                        return MPIX_Ialltoall(sb.data(), sent, MPI_INT, rb.data(), 3, MPI_INT, xcomm, r);
                    },
                    [&](MPIX_Request **r) {
                        return MPIX_Alltoall_init(sb.data(), sent, MPI_INT, rb.data(), 3, MPI_INT, xcomm, nullptr, r);
                    },
                    [&] {
                        ++round;
                        fill_send();
                        std::fill(rb.begin(), rb.end(), -7);
                    });
                const int cls = mpixtest::error_class(err);
                const int want = me != 0 ? MPI_SUCCESS : delta > 0 ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT;
                MPIX_EXPECT(cls == want, what + ": rank " + std::to_string(me) + " got class " + std::to_string(cls));
                if (me == 0)
                    expect_text(err, form == CallForm::blocking ? "MPIX_Alltoall" : "MPIX_Wait", "differ in length",
                                what);
                bool right = std::all_of(rb.begin() + 3 * p, rb.end(), [](int v) { return v == -7; });
                for (int q = 0; q < p; ++q)
                    for (int k = 0; k < 3; ++k)
                        right = right && rb[3 * q + k] == (q == 0 && k >= 3 + delta ? 0 : value(q, me, k));
                MPIX_EXPECT(right, what + ": rank " + std::to_string(me) + "'s receive blocks are wrong");
            }
        mpixtest::exchange_and_check(xcomm, true, [](int, int) { return 3; }, std::string(algo) + where);
    };
    auto alltoallv = [&](MPIX_Comm *xcomm, const char *algo, const std::string &where) {
        for (CallForm form : forms_for(algo)) {
            std::vector<int> sc(p, 3), rc(p, 3), dis(p);
            for (int j = 0; j < p; ++j)
                dis[j] = 5 * j;  // room for a long block and a guard after each
            if (me == 0)
                sc[0] = 4;
            std::vector<int> sb(5 * p), rb(5 * p + 4, -7);
            int round = 0;  // a persistent request's starts send new data
            auto value = [&](int s, int d, int k) { return round * 1000000 + s * 1000 + d * 10 + k; };
            auto fill_send = [&] {
                for (int j = 0; j < p; ++j)
                    for (int k = 0; k < sc[j]; ++k)
                        sb[dis[j] + k] = value(me, j, k);
            };
            fill_send();
            const std::string what =
                std::string(algo) + ": MPIX_Alltoallv, rank 0 sends itself 4 ints, receives 3" + where + form_name(form);
            if (std::getenv("MPIX_TEST_VERBOSE") && me == 0)
                std::fprintf(stderr, "case: %s\n", what.c_str());
            const int err = call_in_form(
                form,
                [&] {
                    return MPIX_Alltoallv(sb.data(), sc.data(), dis.data(), MPI_INT, rb.data(), rc.data(), dis.data(),
                                          MPI_INT, xcomm);
                },
                [&](MPIX_Request **r) {
                    return MPIX_Ialltoallv(sb.data(), sc.data(), dis.data(), MPI_INT, rb.data(), rc.data(), dis.data(),
                                           MPI_INT, xcomm, r);
                },
                [&](MPIX_Request **r) {
                    return MPIX_Alltoallv_init(sb.data(), sc.data(), dis.data(), MPI_INT, rb.data(), rc.data(),
                                               dis.data(), MPI_INT, xcomm, nullptr, r);
                },
                [&] {
                    ++round;
                    fill_send();
                    std::fill(rb.begin(), rb.end(), -7);
                });
            const int cls = mpixtest::error_class(err);
            MPIX_EXPECT(cls == (me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS),
                        what + ": rank " + std::to_string(me) + " got class " + std::to_string(cls));
            if (me == 0)
                expect_text(err, form == CallForm::blocking ? "MPIX_Alltoallv" : "MPIX_Wait", "sends itself", what);
            bool right = rb[5 * p] == -7 && rb[5 * p + 3] == -7;
            for (int j = 0; j < p; ++j)
                for (int k = 0; k < 5; ++k)
                    right = right && rb[dis[j] + k] == (k < 3 ? value(j, me, k) : -7);
            MPIX_EXPECT(right, what + ": rank " + std::to_string(me) + "'s receive blocks are wrong");
        }
        mpixtest::exchange_and_check(xcomm, false, [](int s, int d) { return 1 + (s + d) % 3; },
                                     std::string(algo) + where);
    };
    on_every_row("alltoall", alltoall);
    on_every_row("alltoallv", alltoallv);
    MPIX_CHECK_ALL("arguments erroneous on one rank alone: it takes part and reports, the others complete");
}

// An argument wrong on rank 0 alone in a blocking call, which the other ranks
// cannot see: a negative send or receive count, a NULL send or receive
// buffer for blocks with data, or a send or receive datatype that cannot be
// used (MPI_DATATYPE_NULL, not committed). Rank 0 takes part so that they complete
// (StandInSides), writes nothing to its receive buffer and returns
// MPI_ERR_COUNT (MPI_ERR_BUFFER, MPI_ERR_TYPE) with a text naming its error; no rank hangs,
// writes past a block, or gets a later call wrong. On every row, on one node
// and on nodes of 2:
//  - MPIX_Alltoall: the others complete; rank 0's blocks are zeros where its
//    send count was negative, its send buffer NULL or its send type
//    unusable, else right.
//  - MPIX_Alltoallv, rank 0's count to (from) rank P-1 negative: the others
//    complete with every block right, or report the short (long) block, as
//    for counts that differ between ranks. A NULL buffer: the others complete,
//    rank 0's blocks zeros where its send buffer was NULL.
// Where MPIX_Alltoallv runs the MPI library's own collective (`pmpi`, and
// `auto`, which may pick it), rank 0 returns at once, as that collective does,
// and its peers would wait: there every rank's argument is wrong alike, and
// every rank returns the error. (Nonblocking and persistent calls return it at
// once, leaving no request: test/fuzz.test's bad arguments.)
void test_one_rank_stand_in()
{
    // (null_send_negative_recv: both wrong; the count is reported, and the NULL
    // buffer must still not be read)
    // (null_sendtype, uncommitted_recvtype: a side whose lengths rank 0
    // cannot know; its blocks taken as empty, as for negative counts)
    enum class Wrong {
        negative_send,
        negative_recv,
        null_send,
        null_recv,
        null_send_negative_recv,
        null_sendtype,
        uncommitted_recvtype
    };
    const Wrong kWrong[] = {Wrong::negative_send,           Wrong::negative_recv, Wrong::null_send,
                            Wrong::null_recv,               Wrong::null_send_negative_recv,
                            Wrong::null_sendtype,           Wrong::uncommitted_recvtype};
    auto wrong_name = [](Wrong w) {
        return w == Wrong::negative_send             ? "send count negative"
               : w == Wrong::negative_recv           ? "receive count negative"
               : w == Wrong::null_send               ? "sendbuf NULL"
               : w == Wrong::null_recv               ? "recvbuf NULL"
               : w == Wrong::null_send_negative_recv ? "sendbuf NULL and receive count negative"
               : w == Wrong::null_sendtype           ? "sendtype MPI_DATATYPE_NULL"
                                                     : "recvtype not committed";
    };
    auto bad_type = [](Wrong w) { return w == Wrong::null_sendtype || w == Wrong::uncommitted_recvtype; };
    // The datatypes rank 0 passes (an uncommitted copy of MPI_INT where wrong).
    MPI_Datatype uncommitted = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(1, MPI_INT, &uncommitted);
    auto send_type = [&](Wrong w, bool here) { return here && w == Wrong::null_sendtype ? MPI_DATATYPE_NULL : MPI_INT; };
    auto recv_type = [&](Wrong w, bool here) {
        return here && w == Wrong::uncommitted_recvtype ? uncommitted : MPI_INT;
    };
    auto is_negative = [](Wrong w) {
        return w == Wrong::negative_send || w == Wrong::negative_recv || w == Wrong::null_send_negative_recv;
    };
    auto null_send = [](Wrong w) { return w == Wrong::null_send || w == Wrong::null_send_negative_recv; };
    auto wrong_class = [&](Wrong w) {
        return bad_type(w) ? MPI_ERR_TYPE : is_negative(w) ? MPI_ERR_COUNT : MPI_ERR_BUFFER;
    };
    auto wrong_text = [&](Wrong w) {
        return w == Wrong::null_sendtype          ? "sendtype: datatype is MPI_DATATYPE_NULL"
               : w == Wrong::uncommitted_recvtype ? "recvtype: datatype is not committed"
               : is_negative(w)                   ? "negative count"
               : w == Wrong::null_send            ? "sendbuf is NULL"
                                                  : "recvbuf is NULL";
    };
    const int p = mpixtest::size(), me = mpixtest::rank();
    // Every call's values are its own: a rank that left a call early would
    // hand the others its next call's blocks, and they would not match.
    int serial = 0;
    auto class_is = [&](int err, std::initializer_list<int> allowed, const std::string &what) {
        const int cls = mpixtest::error_class(err);
        MPIX_EXPECT(std::find(allowed.begin(), allowed.end(), cls) != allowed.end(),
                    what + ": rank " + std::to_string(me) + " got class " + std::to_string(cls) + " (" +
                        mpix_text(err) + ")");
    };
    auto says = [&](int err, const char *text, const std::string &what) {
        MPIX_EXPECT(mpix_text(err).find(text) != std::string::npos,
                    what + ": MPIX_Error_string gave '" + mpix_text(err) + "'");
    };
    auto untouched = [&](const std::vector<int> &rb, const std::string &what) {
        MPIX_EXPECT(std::all_of(rb.begin(), rb.end(), [](int v) { return v == -7; }),
                    what + ": rank " + std::to_string(me) + " wrote to its receive buffer");
    };
    auto alltoall = [&](MPIX_Comm *xcomm, const char *algo, const std::string &where) {
        for (Wrong wrong : kWrong) {
            const bool here = me == 0;
            const int sent = here && wrong == Wrong::negative_send ? -1 : 3;
            const int received =
                here && (wrong == Wrong::negative_recv || wrong == Wrong::null_send_negative_recv) ? -1 : 3;
            const bool zeros_from_0 = wrong == Wrong::negative_send || null_send(wrong) || wrong == Wrong::null_sendtype;
            const int round = ++serial;
            auto value = [&](int s, int d, int k) { return round * 1000000 + s * 10000 + d * 100 + k; };
            std::vector<int> sb(3 * p), rb(3 * p + 4, -7);
            for (int d = 0; d < p; ++d)
                for (int k = 0; k < 3; ++k)
                    sb[d * 3 + k] = value(me, d, k);
            const void *send_buf = here && null_send(wrong) ? nullptr : sb.data();
            void *recv_buf = here && wrong == Wrong::null_recv ? nullptr : rb.data();
            const std::string what = std::string(algo) + ": MPIX_Alltoall, rank 0's " + wrong_name(wrong) + where;
            const int err = MPIX_Alltoall(send_buf, sent, send_type(wrong, here), recv_buf, received,
                                          recv_type(wrong, here), xcomm);
            class_is(err, {here ? wrong_class(wrong) : MPI_SUCCESS}, what);
            if (here) {
                says(err, wrong_text(wrong), what);
                untouched(rb, what);
                continue;
            }
            bool right = std::all_of(rb.begin() + 3 * p, rb.end(), [](int v) { return v == -7; });
            for (int q = 0; q < p; ++q)
                for (int k = 0; k < 3; ++k)
                    right = right && rb[3 * q + k] == (q == 0 && zeros_from_0 ? 0 : value(q, me, k));
            MPIX_EXPECT(right, what + ": rank " + std::to_string(me) + "'s receive buffer is wrong");
        }
        mpixtest::exchange_and_check(xcomm, true, [](int, int) { return 3; }, std::string(algo) + where);
    };
    auto alltoallv = [&](MPIX_Comm *xcomm, const char *algo, const std::string &where) {
        // Every rank's argument wrong alike where the call may run MPI's own collective.
        const bool all_ranks = std::strcmp(algo, "pmpi") == 0 || std::strcmp(algo, "auto") == 0;
        const bool here = all_ranks || me == 0;
        for (Wrong wrong : kWrong) {
            std::vector<int> sc(p, 3), rc(p, 3), dis(p);
            for (int j = 0; j < p; ++j)
                dis[j] = 5 * j;  // a guard of 2 ints after each block
            if (here && wrong == Wrong::negative_send)
                sc[p - 1] = -1;
            if (here && (wrong == Wrong::negative_recv || wrong == Wrong::null_send_negative_recv))
                rc[p - 1] = -2;
            const int round = ++serial;
            std::vector<int> sb(5 * p), rb(5 * p + 4, -7);
            for (int j = 0; j < p; ++j)
                for (int k = 0; k < 3; ++k)
                    sb[dis[j] + k] = round * 1000000 + me * 1000 + j * 10 + k;
            const void *send_buf = here && null_send(wrong) ? nullptr : sb.data();
            void *recv_buf = here && wrong == Wrong::null_recv ? nullptr : rb.data();
            const std::string what = std::string(algo) + ": MPIX_Alltoallv, " +
                                     (all_ranks ? "every rank's " : "rank 0's ") + wrong_name(wrong) +
                                     (wrong == Wrong::negative_send ? " (to rank P-1)"
                                      : is_negative(wrong)          ? " (from rank P-1)"
                                                                    : "") +
                                     where;
            const int err = MPIX_Alltoallv(send_buf, sc.data(), dis.data(), send_type(wrong, here), recv_buf,
                                           rc.data(), dis.data(), recv_type(wrong, here), xcomm);
            if (here) {
                class_is(err, {wrong_class(wrong)}, what);
                says(err, wrong_text(wrong), what);
                untouched(rb, what);
                continue;
            }
            class_is(err, is_negative(wrong) || bad_type(wrong)
                              ? std::initializer_list<int>{MPI_SUCCESS, MPI_ERR_COUNT, MPI_ERR_TRUNCATE}
                                   : std::initializer_list<int>{MPI_SUCCESS},
                     what);
            bool right = rb[5 * p] == -7 && rb[5 * p + 3] == -7;
            for (int q = 0; q < p; ++q)
                for (int k = 0; k < 5; ++k) {
                    const int want = k >= 3 ? -7
                                     : q == 0 && null_send(wrong) ? 0
                                                                          : round * 1000000 + q * 1000 + me * 10 + k;
                    // (a rank that reported a length: only its guards; its blocks are undefined)
                    right = right && ((err != MPI_SUCCESS && k < 3) || rb[dis[q] + k] == want);
                }
            MPIX_EXPECT(right, what + ": rank " + std::to_string(me) + "'s receive buffer is wrong");
        }
        mpixtest::exchange_and_check(xcomm, false, [](int s, int d) { return 1 + (s + d) % 3; },
                                     std::string(algo) + where);
    };
    on_every_row("alltoall", alltoall);
    on_every_row("alltoallv", alltoallv);
    MPI_Type_free(&uncommitted);
    MPIX_CHECK_ALL("a negative count, NULL buffer or unusable datatype on one rank alone: it takes part and reports, "
                   "nobody waits");
}

// The progress thread needs MPI_THREAD_MULTIPLE; this program runs under
// MPI_Init's single level: asked for by the environment, MPIX_Comm_init fails
// with MPI_ERR_OTHER and a text naming the thread level; by a hint, so does
// MPIX_Comm_set_info, and the comm stays usable.
void test_progress_thread_refused()
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    setenv("MPIX_ASYNC_PROGRESS", "1", 1);
    MPIX_Comm *xcomm = nullptr;
    int rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    unsetenv("MPIX_ASYNC_PROGRESS");
    int cls = rc;
    MPI_Error_class(rc, &cls);
    MPIX_EXPECT(cls == MPI_ERR_OTHER && xcomm == nullptr, "MPIX_ASYNC_PROGRESS=1 under MPI_THREAD_SINGLE");
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPIX_Error_string(rc, text, &len);
    MPIX_EXPECT(std::strstr(text, "MPI_THREAD_MULTIPLE") != nullptr, std::string("error text: ") + text);
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Info *info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "async_progress", "true");
    rc = MPIX_Comm_set_info(xcomm, info);
    MPI_Error_class(rc, &cls);
    MPIX_EXPECT(cls == MPI_ERR_OTHER, "hint async_progress under MPI_THREAD_SINGLE");
    MPIX_Info_free(&info);
    mpixtest::exchange_and_check(xcomm, false, [](int s, int d) { return 1 + (s + d) % 3; }, "after the refusal");
    MPIX_Comm_free(&xcomm);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPIX_CHECK_ALL("the progress thread refused without MPI_THREAD_MULTIPLE");
}

const mpixtest::TestCase kTests[] = {
    {"MPIX_Alltoallv bad input", test_alltoallv_errors},
    {"the progress thread without MPI_THREAD_MULTIPLE", test_progress_thread_refused},
    {"MPIX_Alltoall bad input", test_alltoall_errors},
    {"MPIX_Alltoall repeated after a pass-through call", test_alltoall_pass_through_repeat},
    {"MPIX_Alltoallv repeated after a pass-through call", test_alltoallv_pass_through_repeat},
    {"MPI_IN_PLACE as recvbuf, every algorithm", test_in_place_recvbuf},
    {"aliased sendbuf and recvbuf, every row", test_aliased_buffers},
    {"uncommitted datatypes, every row", test_uncommitted_types},
    {"MPI_IN_PLACE in sparse exchanges, every backend", test_in_place_sparse},
    {"out of memory", test_out_of_memory},
    {"block size mismatch, every row", test_block_size_mismatch},
    {"MPIX_Alltoall block sizes unequal across ranks, every row", test_uniform_size_mismatch},
    {"arguments erroneous on one rank alone, every row", test_one_rank_erroneous},
    {"a negative count, NULL buffer or unusable datatype on one rank alone, every row", test_one_rank_stand_in},
    {"block size mismatch across segments (randomized_segmented)", test_segmented_mismatch},
    {"block size mismatch with nonempty's receive window of 1", test_nonempty_window_mismatch},
    {"MPIX_Comm / MPIX_Info bad input", test_comm_and_info_errors},
    {"malformed environment variables", test_bad_environment},
    {"error strings", test_error_strings},
    {"MPIX_Error_string", test_mpix_error_string},
    {"init/free cycles (2,500 at 1-2 ranks, 300 at more)", test_init_free_cycles},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "errors", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
