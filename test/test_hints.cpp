// Hints, selection precedence, registry enumeration and topology maps.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "config.h"
#include "core/comm.hpp"
#include "exchange_cases.hpp"
#include "harness.hpp"
#include "mpix.h"
#include "select/registry.hpp"
#include "topo/topology.hpp"

namespace {

// The algorithm an MPIX_Alltoallv call ran, read back from its trace file.
std::string traced_algorithm(MPIX_Comm *xcomm, const std::string &prefix)
{
    std::string file = prefix + "." + std::to_string(mpixtest::rank()) + ".jsonl";
    std::remove(file.c_str());
    std::string detail;
    mpixtest::ExchangeCase c = mpixtest::exchange_cases(false)[2];  // uniform counts: every rank traces rounds
    c.dist = mpixtest::Dist::uniform;
    if (!mpixtest::run_exchange_case(xcomm, MPI_COMM_WORLD, c, &detail))
        return "call failed: " + detail;
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    std::remove(file.c_str());
    size_t at = line.find("\"algorithm\":\"");
    if (at == std::string::npos)
        return "no trace";
    at += 13;
    return line.substr(at, line.find('"', at) - at);
}

void test_precedence()
{
    if (mpixtest::size() < 2)
        return;  // one rank sends no messages, so nothing is traced
    char dir[] = "/tmp/mpix-hints-XXXXXX";
    std::string prefix;
    if (mpixtest::rank() == 0)
        prefix = std::string(mkdtemp(dir)) + "/trace";
    char buf[256] = {0};
    std::snprintf(buf, sizeof buf, "%s", prefix.c_str());
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
    prefix = buf;

    setenv("MPIX_ALLTOALLV_ALGORITHM", "pairwise", 1);
    setenv("MPIX_TRACE", prefix.c_str(), 1);
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    unsetenv("MPIX_ALLTOALLV_ALGORITHM");
    unsetenv("MPIX_TRACE");
    std::string got = traced_algorithm(xcomm, prefix);
    MPIX_EXPECT(got == "pairwise", "environment selection: traced " + got);
    MPIX_CHECK_ALL("environment variable selects the algorithm");

    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "alltoallv_algorithm", "linear");
    MPIX_Comm_set_info(xcomm, info);
    got = traced_algorithm(xcomm, prefix);
    MPIX_EXPECT(got == "linear", "comm info over environment: traced " + got);
    MPIX_CHECK_ALL("MPIX_Comm_set_info overrides the environment");

    // Comm info without the key leaves the environment's choice.
    MPIX_Info_free(&info);
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "batch_size", "4");
    MPIX_Comm_set_info(xcomm, info);
    got = traced_algorithm(xcomm, prefix);
    MPIX_EXPECT(got == "pairwise", "environment kept when comm info lacks the key: traced " + got);
    MPIX_CHECK_ALL("environment applies where comm info is silent");
    MPIX_Info_free(&info);
    MPIX_Comm_free(&xcomm);
    if (mpixtest::rank() == 0)
        rmdir(prefix.substr(0, prefix.rfind('/')).c_str());
}

void test_info_get_set()
{
    MPIX_Info *info;
    CU_ASSERT_EQUAL_FATAL(MPIX_Info_init(&info), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPIX_Info_set(info, "alltoallv_algorithm", "scattered"), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPIX_Info_set(info, "radix", "7"), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPIX_Info_set(info, "radix", "9"), MPI_SUCCESS);  // replaces
    char value[64];
    int flag = 0;
    CU_ASSERT_EQUAL(MPIX_Info_get(info, "radix", sizeof value, value, &flag), MPI_SUCCESS);
    CU_ASSERT(flag == 1 && std::strcmp(value, "9") == 0);
    CU_ASSERT_EQUAL(MPIX_Info_get(info, "alltoallv_algorithm", 4, value, &flag), MPI_SUCCESS);
    CU_ASSERT(flag == 1 && std::strcmp(value, "sca") == 0);  // truncated to valuelen - 1
    CU_ASSERT_EQUAL(MPIX_Info_get(info, "batch_size", sizeof value, value, &flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 0);
    for (const char *ok : {"auto", "pairwise"})
        CU_ASSERT_EQUAL(MPIX_Info_set(info, "alltoall_algorithm", ok), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPIX_Info_set(info, "crs_recv_nnz_known", "true"), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPIX_Info_set(info, "locality", "socket"), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPIX_Info_set(info, "inner", "pairwise"), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPIX_Info_set(info, "segment_size", "1048576"), MPI_SUCCESS);
    MPIX_Info_free(&info);
    CU_ASSERT_PTR_NULL(info);
}

void test_registry_enumeration()
{
    int n = 0;
    for (const char *coll : {"alltoall", "alltoallv"}) {
        const char *first = MPIX_Algorithm_name(coll, 0);
        CU_ASSERT_PTR_NOT_NULL(first);
        int i = 0;
        while (MPIX_Algorithm_name(coll, i))
            ++i;
        CU_ASSERT(i >= 5);
        n += i;
        CU_ASSERT_PTR_NULL(MPIX_Algorithm_name(coll, i));
        CU_ASSERT_PTR_NULL(MPIX_Algorithm_name(coll, -1));
    }
    CU_ASSERT_PTR_NULL(MPIX_Algorithm_name("gather", 0));
    CU_ASSERT_PTR_NULL(MPIX_Algorithm_name(nullptr, 0));
    CU_ASSERT(n >= 10);
}

// `auto`'s MPIX_Alltoallv rule at its thresholds (src/select/registry.cpp): P, the
// node count and, on nodes of fewer than 4 ranks only, the agreed mean block.
void test_auto_alltoallv_rule()
{
    struct Case {
        int p, nodes;
        unsigned long long mean;
        const char *want;
    };
    const Case cases[] = {
        {2, 1, 16, "pairwise"},                  // 2 ranks: a sendrecv and a local copy
        {2, 2, 1ULL << 40, "pairwise"},
        {1, 1, 16, "pairwise"},                  // 1 rank: a local copy
        {3, 1, 16, "pmpi"},                      // fewer than 8 ranks otherwise: the MPI library's own
        {7, 1, 16, "pmpi"},
        {7, 7, 1 << 20, "pmpi"},
        {8, 1, 0, "pmpi"},                       // one node of up to 16 ranks: the MPI library's own
        {16, 1, 96, "pmpi"},                     // to a 96 B agreed mean,
        {16, 1, 97, "randomized_sendrecv"},      // randomized_sendrecv above
        {8, 1, 1 << 30, "randomized_sendrecv"},
        {17, 1, 0, "node_bruck"},                // one node of more: node_bruck at every size
        {256, 1, 1 << 30, "node_bruck"},
        {256, 16, 0, "node_bruck"},              // nodes of 4+ ranks: node_bruck, no statistic
        {256, 16, 1ULL << 40, "node_bruck"},
        {1024, 64, 16, "node_bruck"},
        {8, 2, 100, "node_bruck"},               // the smallest several-node case
        {64, 16, 16, "node_bruck"},              // 4 ranks per node exactly
        {63, 16, 16, "two_phase_bruck"},         // fewer than 4 per node: the agreed mean decides
        {64, 32, 0, "two_phase_bruck"},
        {64, 32, 259, "two_phase_bruck"},
        {64, 32, 260, "parlogna"},
        {64, 32, 7482, "parlogna"},
        {64, 32, 7483, "nonblocking"},           // up to 64 ranks: every message at once
        {16, 16, 365, "two_phase_bruck"},        // up to 32 ranks, their own borders
        {16, 16, 366, "parlogna"},
        {16, 16, 5950, "nonblocking"},
        {1024, 1024, 16, "two_phase_bruck"},     // one rank per node
        {1024, 1024, 1 << 20, "pmpi"},           // above 64 ranks: the MPI library's throttled exchange
    };
    for (const Case &c : cases) {
        bool needs = mpix::auto_alltoallv_needs_mean(c.p, c.nodes);
        bool want_needs = std::string(c.want) != "pmpi" && std::string(c.want) != "node_bruck" &&
                          std::string(c.want) != "pairwise" &&
                          std::string(c.want) != "nonblocking" && std::string(c.want) != "randomized_sendrecv";
        if (c.p >= 8 && std::string(c.want) == "pmpi")
            want_needs = true;
        if (c.nodes == 1 && c.p >= 8 && c.p <= 16)  // one node of 8-16 ranks: a mean band
            want_needs = true;
        if (c.nodes > 1 && std::string(c.want) == "nonblocking")  // a mean band's last rule
            want_needs = true;
        MPIX_EXPECT(needs == want_needs, "P=" + std::to_string(c.p) + " nodes=" + std::to_string(c.nodes) +
                                             ": needs the agreed mean " + std::to_string(needs));
    }
    for (const Case &c : cases) {
        const mpix::Algorithm *a = mpix::auto_alltoallv_rule(c.p, c.nodes, c.mean);
        std::string got = a ? a->name : "(null)";
        MPIX_EXPECT(got == c.want, "P=" + std::to_string(c.p) + " nodes=" + std::to_string(c.nodes) +
                                       " mean=" + std::to_string(c.mean) + ": picked " + got + ", want " + c.want);
    }
    MPIX_CHECK_ALL("auto rule for alltoallv");
}

// `auto` for MPIX_Alltoallv agrees without a collective on the call's path: on
// nodes of fewer than 4 ranks it uses the largest mean block of the previous call
// (the first call's own, agreed by a blocking reduction). Calls whose means jump
// between the rule's ranges, differing per rank: every rank must run the same
// algorithm in every call (else the call would hang or fail), that algorithm must
// be the rule's pick for the expected statistic, and the data must be right.
// (With an agreement every call, agreement_period=1: the schedule that agrees
// less often while the pick holds is test/test_table.cpp's.)
void test_auto_agreement()
{
    const int p = mpixtest::size();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Info *every_call = nullptr;
    MPIX_Info_init(&every_call);
    MPIX_Info_set(every_call, "agreement_period", "1");
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_set_info(xcomm, every_call), MPI_SUCCESS);
    MPIX_Info_free(&every_call);
    for (int ppn : {2, 0}) {
        MPIX_Comm_update_locality(xcomm, ppn);
        const mpix::Regions *r = nullptr;
        CU_ASSERT_EQUAL_FATAL(mpix::get_regions(xcomm, mpix::Locality::node, &r), MPI_SUCCESS);
        // Per call, the largest block any rank sends: in the Bruck, ParLogNa and
        // direct ranges of the rule, in an order that changes the pick each call.
        const int scales[] = {8, 40, 1500, 20, 900, 300, 8};
        unsigned long long previous = 0;
        for (int k = 0; k < (int)(sizeof scales / sizeof scales[0]); ++k) {
            // Block me -> j: (me + 1) * scale / p bytes, so rank p-1 has the largest mean.
            std::function<int(int, int)> bytes = [&](int src, int) { return (src + 1) * scales[k] / p; };
            std::string what = "ppn " + std::to_string(ppn) + " call " + std::to_string(k);
            mpixtest::exchange_and_check(xcomm, false, bytes, what);
            // The statistic this call must have used, computed here independently.
            unsigned long long now = 0;
            for (int j = 0; j < p - 1; ++j)
                now += static_cast<unsigned long long>(bytes(p - 1, j));
            if (p > 1)
                now /= static_cast<unsigned long long>(p - 1);
            unsigned long long used = k == 0 ? now : previous;
            previous = now;
            const char *ran = xcomm->last_algorithm[static_cast<int>(mpix::Collective::alltoallv)];
            const mpix::Algorithm *want = mpix::auto_alltoallv_rule(p, r->count, used);
            MPIX_EXPECT(ran && want && std::string(ran) == want->name,
                        what + ": ran " + (ran ? ran : "(none)") + ", the rule picks " + want->name);
            int index = 0, lowest = 0, highest = 0;
            while (ran && mpix::algorithm_at(mpix::Collective::alltoallv, index) &&
                   std::strcmp(mpix::algorithm_at(mpix::Collective::alltoallv, index)->name, ran))
                ++index;
            MPI_Allreduce(&index, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&index, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            MPIX_EXPECT(lowest == highest, what + ": ranks ran different algorithms");
        }
    }
    MPIX_CHECK_ALL("auto agrees one call late, identically on every rank");
    MPIX_Comm_free(&xcomm);
}

// Where `auto` picks the MPI library's own collective for a blocking call,
// its nonblocking and persistent forms run a row of mpix's own, which reports
// a block of the wrong length (MPICH's MPI_Ialltoall(v)/_init report none):
// randomized_sendrecv for a nonblocking call from 8 ranks, pairwise on 1 and 2,
// nonblocking between and for persistent requests (exchange_request.cpp,
// reporting_row). One
// node, blocks of 64 KiB: the table picks pmpi below 8 ranks (but pairwise for
// MPIX_Alltoallv on 1 and 2), and for MPIX_Alltoall on one node of 8-16 ranks. The
// data is checked too.
void test_auto_nonblocking_rows()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Comm_update_locality(xcomm, 0);
    const int block = 16384;  // ints: 64 KiB
    std::vector<int> send(static_cast<size_t>(p) * block), recv(send.size()), counts(p, block), displs(p);
    for (int j = 0; j < p; ++j)
        displs[j] = j * block;
    for (size_t i = 0; i < send.size(); ++i)
        send[i] = me * 1000003 + static_cast<int>(i);
    auto right = [&] {
        bool ok = true;
        for (int j = 0; j < p; ++j)
            for (int i = 0; i < block; i += 97)
                ok = ok && recv[static_cast<size_t>(j) * block + i] == j * 1000003 + me * block + i;
        std::fill(recv.begin(), recv.end(), -1);
        return ok;
    };
    for (bool uniform : {true, false}) {
        const mpix::Collective c = uniform ? mpix::Collective::alltoall : mpix::Collective::alltoallv;
        const std::string what = uniform ? "MPIX_Alltoall" : "MPIX_Alltoallv";
        if (!uniform && p >= 8)
            continue;  // one node of 8-16 ranks: randomized_sendrecv in every form
        auto ran = [&] { return std::string(xcomm->last_algorithm[static_cast<int>(c)] ? xcomm->last_algorithm[static_cast<int>(c)] : "(none)"); };
        int rc = uniform ? MPIX_Alltoall(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, xcomm)
                         : MPIX_Alltoallv(send.data(), counts.data(), displs.data(), MPI_INT, recv.data(), counts.data(),
                                          displs.data(), MPI_INT, xcomm);
        MPIX_EXPECT(rc == MPI_SUCCESS && right(), what + ": blocking call");
        // On 1 and 2 ranks MPIX_Alltoallv takes pairwise in every form (the
        // table's pick is mpix's own, so nonblocking and persistent requests keep it).
        const bool two_rank_pairwise = !uniform && p <= 2;
        const std::string blocking_row = two_rank_pairwise ? "pairwise" : "pmpi";
        MPIX_EXPECT(ran() == blocking_row, what + ": the blocking call ran " + ran() + ", the table picks " + blocking_row);
        MPIX_Request *req = nullptr;
        rc = uniform ? MPIX_Ialltoall(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, xcomm, &req)
                     : MPIX_Ialltoallv(send.data(), counts.data(), displs.data(), MPI_INT, recv.data(), counts.data(),
                                       displs.data(), MPI_INT, xcomm, &req);
        rc = rc == MPI_SUCCESS ? MPIX_Wait(&req, MPI_STATUS_IGNORE) : rc;
        // Where the table picks pmpi, a nonblocking call takes pairwise on 1 and
        // 2 ranks (one exchange), randomized_sendrecv from 8, nonblocking between.
        const std::string nonblocking_row = p <= 2 ? "pairwise" : p >= 8 ? "randomized_sendrecv" : "nonblocking";
        MPIX_EXPECT(rc == MPI_SUCCESS && right(), what + ": nonblocking call");
        MPIX_EXPECT(ran() == nonblocking_row, what + ": the nonblocking call ran " + ran() + ", want " + nonblocking_row);
        rc = uniform ? MPIX_Alltoall_init(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, xcomm, nullptr, &req)
                     : MPIX_Alltoallv_init(send.data(), counts.data(), displs.data(), MPI_INT, recv.data(),
                                           counts.data(), displs.data(), MPI_INT, xcomm, nullptr, &req);
        if (rc == MPI_SUCCESS) {
            // A persistent request's block lengths are checked once at init:
            // where they agree, the MPI library's own persistent collective.
            const std::string persistent_row =
                two_rank_pairwise ? "pairwise" : MPIX_HAVE_PERSISTENT_COLLECTIVES ? "pmpi" : "nonblocking";
            MPIX_EXPECT(ran() == persistent_row,
                        what + ": the persistent request runs " + ran() + ", want " + persistent_row);
            for (int start = 0; start < 3; ++start) {
                rc = MPIX_Start(req);
                rc = rc == MPI_SUCCESS ? MPIX_Wait(&req, MPI_STATUS_IGNORE) : rc;
                MPIX_EXPECT(rc == MPI_SUCCESS && right(), what + ": persistent start " + std::to_string(start));
            }
            MPIX_Request_free(&req);
        } else {
            MPIX_EXPECT(false, what + ": persistent init failed");
        }
        if (uniform || two_rank_pairwise || p < 2)
            continue;
        // Rank 1 sends rank 0 one int more than rank 0 receives: the check at
        // init finds it, so the request runs a row that reports it (MPICH's
        // persistent collective would not), from rank 0's every MPIX_Wait.
        std::vector<int> longer = counts;
        if (me == 1)
            longer[0] = block + 1;
        mpixtest::errors_return();  // xcomm's user is MPI_COMM_WORLD
        rc = MPIX_Alltoallv_init(send.data(), longer.data(), displs.data(), MPI_INT, recv.data(), counts.data(),
                                 displs.data(), MPI_INT, xcomm, nullptr, &req);
        MPIX_EXPECT(rc == MPI_SUCCESS, what + ": persistent init with a longer block failed");
        if (rc != MPI_SUCCESS)
            continue;
        MPIX_EXPECT(ran() == "nonblocking", what + ": with a longer block the persistent request runs " + ran() +
                                                ", want nonblocking (a row that reports it)");
        for (int start = 0; start < 2; ++start) {
            rc = MPIX_Start(req);
            rc = rc == MPI_SUCCESS ? MPIX_Wait(&req, MPI_STATUS_IGNORE) : rc;
            const int want = me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
            MPIX_EXPECT(mpixtest::error_class(rc) == want,
                        what + ": a longer block, start " + std::to_string(start) + ": rank " + std::to_string(me) +
                            " got class " + std::to_string(mpixtest::error_class(rc)));
        }
        std::fill(recv.begin(), recv.end(), -1);
        MPIX_Request_free(&req);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPIX_CHECK_ALL("auto's nonblocking and persistent rows where the table picks pmpi");
    MPIX_Comm_free(&xcomm);
}

// `auto` with and without MPI_IN_PLACE on one communicator, alternating, so
// that the remembered pick (MPIX_Comm::auto_memo) must tell them apart: on 2
// ranks MPI_IN_PLACE takes pmpi (MPIX_Alltoall up to 4 KiB blocks) and
// pairwise otherwise; on 1 rank pairwise (MPIX_Alltoall up to 16 KiB), and in
// place the call leaves the block where it is. From 3 ranks the table's pick,
// the same either way. Every call's data is checked.
void test_auto_in_place()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    // An agreement every call, so that a pick that follows the agreed mean block
    // (MPIX_Alltoallv on one node of 8-16 ranks) changes exactly one call late.
    MPIX_Info *every_call = nullptr;
    MPIX_Info_init(&every_call);
    MPIX_Info_set(every_call, "agreement_period", "1");
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_set_info(xcomm, every_call), MPI_SUCCESS);
    MPIX_Info_free(&every_call);
    MPIX_Comm_update_locality(xcomm, 0);
    auto want_row = [&](bool uniform, bool in_place, int bytes) -> std::string {
        if (p == 1)
            return !uniform || bytes <= 16384 ? "pairwise" : "pmpi";
        if (p == 2 && uniform)
            return in_place ? (bytes <= 4096 ? "pmpi" : "pairwise") : (bytes <= 32768 ? "pairwise" : "pmpi");
        if (p == 2)
            return in_place ? "pmpi" : "pairwise";
        return "";  // the table's pick, not in place
    };
    for (int ints : {4, 1024, 1025, 8192, 8193}) {
        const int bytes = ints * 4;
        std::vector<int> send(static_cast<size_t>(p) * ints), recv(send.size()), counts(p, ints), displs(p);
        for (int j = 0; j < p; ++j)
            displs[j] = j * ints;
        for (size_t i = 0; i < send.size(); ++i)
            send[i] = me * 1000003 + static_cast<int>(i);
        for (bool uniform : {true, false}) {
            const mpix::Collective c = uniform ? mpix::Collective::alltoall : mpix::Collective::alltoallv;
            std::string table_row;
            for (int round = 0; round < 4; ++round) {
                const bool in_place = round % 2 == 1;
                std::fill(recv.begin(), recv.end(), -1);
                if (in_place)
                    recv = send;
                const void *sbuf = in_place ? MPI_IN_PLACE : send.data();
                const int rc = uniform ? MPIX_Alltoall(sbuf, ints, MPI_INT, recv.data(), ints, MPI_INT, xcomm)
                                       : MPIX_Alltoallv(sbuf, counts.data(), displs.data(), MPI_INT, recv.data(),
                                                        counts.data(), displs.data(), MPI_INT, xcomm);
                bool right = rc == MPI_SUCCESS;
                for (int j = 0; j < p && right; ++j)
                    for (int i = 0; i < ints && right; ++i)
                        right = recv[static_cast<size_t>(j) * ints + i] == j * 1000003 + me * ints + i;
                const char *name = xcomm->last_algorithm[static_cast<int>(c)];
                const std::string ran = name ? name : "(none)";
                std::string want = want_row(uniform, in_place, bytes);
                // From 3 ranks MPI_IN_PLACE changes nothing. The first call at a
                // new size may still run the last size's pick: on one node of 8-16
                // ranks MPIX_Alltoallv's pick follows the agreed mean block, agreed
                // one call late; calls 2-4 must all run the pick of this size.
                const bool settling = want.empty() && !uniform && round == 0;
                if (want.empty()) {
                    if (table_row.empty() && !settling)
                        table_row = ran;
                    want = settling ? ran : table_row;
                }
                const std::string what = std::string(uniform ? "MPIX_Alltoall" : "MPIX_Alltoallv") + " " +
                                         std::to_string(bytes) + " B" + (in_place ? " in place" : "") + ", call " +
                                         std::to_string(round + 1);
                MPIX_EXPECT(right, what + ": wrong data or rc " + std::to_string(rc));
                MPIX_EXPECT(ran == want, what + ": ran " + ran + ", want " + want);
            }
        }
    }
    MPIX_CHECK_ALL("auto with and without MPI_IN_PLACE, alternating on one communicator");
    MPIX_Comm_free(&xcomm);
}

// Node maps: emulated layouts with uneven last nodes, and the real map.
void test_topology_maps()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    int p = mpixtest::size(), me = mpixtest::rank();
    for (int ppn : {1, 2, 3, 0}) {
        CU_ASSERT_EQUAL(MPIX_Comm_update_locality(xcomm, ppn), MPI_SUCCESS);
        const mpix::Regions *r = nullptr;
        CU_ASSERT_EQUAL_FATAL(mpix::get_regions(xcomm, mpix::Locality::node, &r), MPI_SUCCESS);
        int expect_count = ppn ? (p + ppn - 1) / ppn : 1;  // one real node here
        MPIX_EXPECT(r->count == expect_count, "ppn " + std::to_string(ppn) + ": " + std::to_string(r->count) + " nodes");
        for (int q = 0; q < p; ++q) {
            int node = ppn ? q / ppn : 0, index = ppn ? q % ppn : q;
            MPIX_EXPECT(r->region_of[q] == node && r->index_of[q] == index && r->member(node, index) == q,
                        "rank " + std::to_string(q) + " misplaced for ppn " + std::to_string(ppn));
        }
        MPI_Comm local, cross;
        CU_ASSERT_EQUAL_FATAL(mpix::get_region_comms(xcomm, mpix::Locality::node, &local, &cross), MPI_SUCCESS);
        int ls, lr, cs;
        MPI_Comm_size(local, &ls);
        MPI_Comm_rank(local, &lr);
        MPI_Comm_size(cross, &cs);
        MPIX_EXPECT(ls == r->size_of(r->my_region) && lr == r->my_index, "local communicator mismatch");
        int same_index = 0;
        for (int g = 0; g < r->count; ++g)
            same_index += r->size_of(g) > r->my_index;
        MPIX_EXPECT(cs == same_index, "cross communicator mismatch");
        const mpix::Regions *s = nullptr;
        CU_ASSERT_EQUAL_FATAL(mpix::get_regions(xcomm, mpix::Locality::socket, &s), MPI_SUCCESS);
        MPIX_EXPECT(s->count >= r->count, "fewer socket regions than nodes");
        for (int q = 0; q < p; ++q)
            MPIX_EXPECT(r->region_of[q] == r->region_of[s->member(s->region_of[q], 0)],
                        "a socket region spans two nodes");
    }
    (void)me;
    // Round-robin keys give non-consecutive members.
    std::vector<long long> keys(p);
    for (int q = 0; q < p; ++q)
        keys[q] = q % 3;
    mpix::Regions rr;
    mpix::build_regions_from_keys(keys, me, &rr);
    CU_ASSERT_EQUAL(rr.count, p < 3 ? p : 3);
    for (int q = 0; q < p; ++q)
        MPIX_EXPECT(rr.member(rr.region_of[q], rr.index_of[q]) == q && rr.index_of[q] == q / 3,
                    "round-robin map wrong");
    MPIX_CHECK_ALL("node and socket maps");
    MPIX_Comm_free(&xcomm);
}

// Every accepted hint value works on every registry row: the extremes (INT_MAX,
// where products such as radix x block size or batch x 2 overflow an int, and
// the smallest values) give right data on one node and on nodes of 2 ranks.
void test_hint_extremes()
{
    const char *big = "2147483647";
    const std::vector<std::vector<std::pair<const char *, const char *>>> sets = {
        {{"radix", big}, {"batch_size", big}, {"leaders_per_node", big}, {"max_queue", big},
         {"segment_size", "9223372036854775807"}, {"random_seed", big}},
        {{"radix", "2"}, {"batch_size", "1"}, {"leaders_per_node", "1"}, {"inner", "pairwise"}},
        {{"radix", "2147483646"}, {"batch_size", "2147483646"}, {"leaders_per_node", "2"}},
    };
    for (int ppn : {0, 2}) {
        MPIX_Comm *xcomm;
        MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
        if (ppn)
            MPIX_Comm_update_locality(xcomm, ppn);
        for (const char *coll : {"alltoall", "alltoallv"}) {
            const bool v = std::strcmp(coll, "alltoallv") == 0;
            for (int i = 0; const char *name = MPIX_Algorithm_name(coll, i); ++i)
                for (std::size_t k = 0; k < sets.size(); ++k) {
                    MPIX_Info *info;
                    MPIX_Info_init(&info);
                    for (const auto &kv : sets[k])
                        MPIX_EXPECT(MPIX_Info_set(info, kv.first, kv.second) == MPI_SUCCESS,
                                    std::string("rejected ") + kv.first + "=" + kv.second);
                    MPIX_Info_set(info, v ? "alltoallv_algorithm" : "alltoall_algorithm", name);
                    MPIX_Comm_set_info(xcomm, info);
                    MPIX_Info_free(&info);
                    std::string what = std::string(coll) + " " + name + ", hint set " + std::to_string(k) +
                                       (ppn ? ", nodes of 2" : ", one node");
                    mpixtest::exchange_and_check(xcomm, !v, [](int, int) { return 1000; }, what + ", 1000 B");
                    if (v)
                        mpixtest::exchange_and_check(xcomm, false, [](int s, int d) { return (3 * s + d) % 7; },
                                                     what + ", 0-6 B");
                }
        }
        MPIX_Comm_free(&xcomm);
    }
    MPIX_CHECK_ALL("hint extremes: right data from every row");
}

const mpixtest::TestCase kTests[] = {
    {"selection precedence: env < comm info", test_precedence},
    {"MPIX_Info set/get", test_info_get_set},
    {"registry enumeration", test_registry_enumeration},
    {"auto rule for alltoallv", test_auto_alltoallv_rule},
    {"auto for alltoallv: agreed one call late, the same pick on every rank", test_auto_agreement},
    {"auto's own rows in nonblocking and persistent forms where the table picks pmpi", test_auto_nonblocking_rows},
    {"auto with and without MPI_IN_PLACE", test_auto_in_place},
    {"topology maps (real, emulated, round-robin)", test_topology_maps},
    {"hint extremes on every row", test_hint_extremes},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "hints", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
