// Hints, selection precedence, registry enumeration and topology maps.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

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
// node count and the agreed mean block in bytes.
void test_auto_alltoallv_rule()
{
    struct Case {
        int p, nodes;
        unsigned long long mean;
        const char *want;
    };
    const Case cases[] = {
        {7, 1, 16, "pmpi"},                      // too few ranks for any rule
        {256, 1, 0, "two_phase_bruck"},          // one node: log-time for small blocks
        {256, 1, 32, "two_phase_bruck"},
        {256, 1, 33, "parlogna"},
        {256, 1, 768, "parlogna"},
        {256, 1, 769, "pmpi"},
        {256, 16, 32, "two_phase_bruck"},        // 16 nodes of 16: Bruck below 64 B
        {256, 16, 33, "parlinna_coalesced"},
        {256, 16, 8192, "parlinna_coalesced"},
        {256, 16, 8193, "pmpi"},
        {1024, 64, 0, "node_aware"},             // 64 nodes: node_aware up to 16 KiB
        {1024, 64, 32, "node_aware"},
        {1024, 64, 8192, "node_aware"},
        {1024, 64, 8193, "pmpi"},
        {512, 32, 33, "node_aware"},             // the many-nodes threshold
        {512, 31, 33, "parlinna_coalesced"},
        {512, 32, 32, "two_phase_bruck"},        // ... is 64 nodes for small blocks
        {1024, 63, 32, "two_phase_bruck"},
        {64, 32, 100, "parlogna"},               // nodes of 2 ranks: treated as one node
        {64, 32, 16, "two_phase_bruck"},
        {8, 2, 100, "parlinna_coalesced"},       // the smallest several-node case
    };
    for (const Case &c : cases) {
        const mpix::Algorithm *a = mpix::auto_alltoallv_rule(c.p, c.nodes, c.mean);
        std::string got = a ? a->name : "(null)";
        MPIX_EXPECT(got == c.want, "P=" + std::to_string(c.p) + " nodes=" + std::to_string(c.nodes) +
                                       " mean=" + std::to_string(c.mean) + ": picked " + got + ", want " + c.want);
    }
    MPIX_CHECK_ALL("auto rule for alltoallv");
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

const mpixtest::TestCase kTests[] = {
    {"selection precedence: env < comm info", test_precedence},
    {"MPIX_Info set/get", test_info_get_set},
    {"registry enumeration", test_registry_enumeration},
    {"auto rule for alltoallv", test_auto_alltoallv_rule},
    {"topology maps (real, emulated, round-robin)", test_topology_maps},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "hints", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
