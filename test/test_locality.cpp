// Every registry algorithm on node maps that break placement assumptions:
// uneven nodes (3,3,2 at P=8), round-robin placement (rank r on node r % 3),
// one node, one node per rank, and nodes with two sockets each (round-robin
// too). The maps are installed with the internal test hook
// mpix::set_emulated_regions: this machine has one package, and hwloc's synthetic
// topologies do not answer the binding query that real socket discovery uses.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "exchange_cases.hpp"
#include "harness.hpp"
#include "select/registry.hpp"
#include "topo/topology.hpp"

namespace {

using HintList = std::vector<std::pair<std::string, std::string>>;

struct Layout {
    const char *name;
    std::vector<long long> nodes, sockets;
};

std::vector<Layout> layouts(int p)
{
    std::vector<Layout> out(5);
    out[0].name = "uneven nodes of 3";
    out[1].name = "round-robin over 3 nodes";
    out[2].name = "one node";
    out[3].name = "every rank its own node";
    out[4].name = "round-robin over 2 nodes of 2 sockets";
    for (int r = 0; r < p; ++r) {
        out[0].nodes.push_back(r / 3);
        out[1].nodes.push_back(r % 3);
        out[2].nodes.push_back(0);
        out[3].nodes.push_back(r);
        out[4].nodes.push_back(r % 2);
        out[4].sockets.push_back((r / 2) % 2);
    }
    return out;
}

// Nodes of `k` consecutive ranks (the last one shorter), no sockets.
bool consecutive_nodes(const Layout &l, int k)
{
    if (!l.sockets.empty())
        return false;
    for (size_t r = 0; r < l.nodes.size(); ++r)
        if (l.nodes[r] != (long long)r / k)
            return false;
    return true;
}

// make check leaves out (MPIX_TEST_LEVEL=full runs them: make check-stress) the
// layouts conformance.test runs every row on, at every hint value these loops set,
// at the 1-4 ranks it runs at in make check: nodes of 1, 2 or 3 consecutive ranks
// and one node (its cases with ppn = 1, 2, 3 and 0; topology.cpp builds the same
// regions from those node keys as from the ones installed here). At more ranks,
// where conformance runs in check-stress only, it leaves out the two degenerate
// maps, one node and a node per rank, and keeps uneven nodes of 3 (3,3,2),
// round-robin and sockets.
bool covered_by_conformance(const Layout &l, int p)
{
    if (mpixtest::full_level())
        return false;
    if (consecutive_nodes(l, 1) || consecutive_nodes(l, p))
        return true;
    return p <= 4 && (consecutive_nodes(l, 2) || consecutive_nodes(l, 3));
}

bool reads(const mpix::Algorithm *a, const char *key)
{
    std::string keys = std::string(",") + a->hint_keys + ",";
    return keys.find(std::string(",") + key + ",") != std::string::npos;
}

// Selects `algorithm` (MPIX_Alltoall's row, or MPIX_Alltoallv's) with `hints`.
void select_with_hints(MPIX_Comm *xcomm, bool uniform, const char *algorithm, const HintList &hints)
{
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, uniform ? "alltoall_algorithm" : "alltoallv_algorithm", algorithm);
    for (const auto &kv : hints)
        MPIX_Info_set(info, kv.first.c_str(), kv.second.c_str());
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
}

// Runs a sample of the conformance cases with `algorithm` on the installed map.
int run_cases(MPIX_Comm *xcomm, bool uniform, const char *algorithm, const HintList &hints, std::string *failure)
{
    select_with_hints(xcomm, uniform, algorithm, hints);
    int failures = 0, i = 0;
    for (mpixtest::ExchangeCase c : mpixtest::exchange_cases(uniform)) {
        // A quarter of the cases (a seventh at 5+ ranks, where the 2-core machine is
        // crowded) still covers every datatype: strides coprime with their rotation.
        if (i++ % (mpixtest::size() >= 5 ? 7 : 4))
            continue;
        c.ppn = -1;
        std::string detail;
        if (!mpixtest::run_exchange_case(xcomm, MPI_COMM_WORLD, c, &detail) && failures++ == 0)
            *failure = detail;
    }
    MPIX_Comm_set_info(xcomm, nullptr);
    return failures;
}

void check_layouts(mpix::Collective coll)
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    bool uniform = coll == mpix::Collective::alltoall;
    for (const Layout &l : layouts(mpixtest::size())) {
        if (covered_by_conformance(l, mpixtest::size()))
            continue;
        CU_ASSERT_EQUAL_FATAL(mpix::set_emulated_regions(xcomm, l.nodes, l.sockets), MPI_SUCCESS);
        for (int i = 0;; ++i) {
            const mpix::Algorithm *a = mpix::algorithm_at(coll, i);
            if (!a)
                break;
            std::vector<HintList> variants{{}};
            if (reads(a, "inner"))
                variants.push_back({{"inner", "pairwise"}});
            if (reads(a, "relay_steps"))
                for (const char *steps : {"2", "3"})
                    variants.push_back({{"relay_steps", steps}});
            if (reads(a, "leaders_per_node"))
                variants.push_back({{"leaders_per_node", "2"}});
            if (reads(a, "locality") && !l.sockets.empty())
                variants.push_back({{"locality", "socket"}});
            if (reads(a, "batch_size"))
                variants.push_back({{"batch_size", "1"}, {"radix", "2"}});
            for (const HintList &h : variants) {
                std::string what = std::string(a->name) + " on " + l.name, failure;
                for (const auto &kv : h)
                    what += " " + kv.first + "=" + kv.second;
                int failures = run_cases(xcomm, uniform, a->name, h, &failure);
                MPIX_EXPECT(failures == 0, what + ": " + std::to_string(failures) + " case(s) failed; first: " + failure);
                MPIX_CHECK_ALL(what.c_str());
            }
        }
        // auto: its alltoallv rule picks ParLinNa on several nodes of 4+ ranks.
        std::string what = std::string("auto on ") + l.name, failure;
        int failures = run_cases(xcomm, uniform, "auto", {}, &failure);
        MPIX_EXPECT(failures == 0, what + ": " + std::to_string(failures) + " case(s) failed; first: " + failure);
        MPIX_CHECK_ALL(what.c_str());
    }
    MPIX_Comm_update_locality(xcomm, 0);
    MPIX_Comm_free(&xcomm);
}

// The hook really installs the maps the layouts describe.
void test_emulated_maps()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    int p = mpixtest::size(), me = mpixtest::rank();
    std::vector<Layout> ls = layouts(p);
    mpix::set_emulated_regions(xcomm, ls[1].nodes);
    const mpix::Regions *r = nullptr;
    MPIX_EXPECT(mpix::get_regions(xcomm, mpix::Locality::node, &r) == MPI_SUCCESS, "get_regions");
    MPIX_EXPECT(r->count == (p < 3 ? p : 3) && r->my_index == me / 3 && r->member(r->my_region, 0) == me % 3,
                "round-robin node map");
    mpix::set_emulated_regions(xcomm, ls[4].nodes, ls[4].sockets);
    MPIX_EXPECT(mpix::get_regions(xcomm, mpix::Locality::socket, &r) == MPI_SUCCESS, "get_regions socket");
    int expect = p >= 4 ? 4 : p;
    MPIX_EXPECT(r->count == expect, "two sockets per node: " + std::to_string(r->count) + " regions");
    MPIX_CHECK_ALL("emulated node and socket maps");
    MPIX_Comm_free(&xcomm);
}

// MPIX_PPN emulates nodes of that many consecutive ranks from MPIX_Comm_init on
// (the drop-in's way: no code change), MPIX_Comm_update_locality(0) restores the
// real map, and exchanges on the emulated nodes are right.
void test_ppn_environment()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    for (int ppn : {1, 2, 3}) {
        setenv("MPIX_PPN", std::to_string(ppn).c_str(), 1);
        MPIX_Comm *xcomm = nullptr;
        CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
        unsetenv("MPIX_PPN");
        const mpix::Regions *r = nullptr;
        MPIX_EXPECT(mpix::get_regions(xcomm, mpix::Locality::node, &r) == MPI_SUCCESS && r, "get_regions");
        if (r)
            MPIX_EXPECT(r->count == (p + ppn - 1) / ppn && r->my_region == me / ppn,
                        "MPIX_PPN=" + std::to_string(ppn) + ": " + std::to_string(r->count) + " nodes, this rank on " +
                            std::to_string(r->my_region));
        std::string failure;
        // ppn < 0 in the cases: keep the node map the environment installed.
        for (const char *algorithm : {"node_aware", "node_bruck"}) {
            int failures = 0;
            for (const mpixtest::ExchangeCase &c0 : mpixtest::exchange_cases(false)) {
                mpixtest::ExchangeCase c = c0;
                c.ppn = -1;
                MPIX_Info *info;
                MPIX_Info_init(&info);
                MPIX_Info_set(info, "alltoallv_algorithm", algorithm);
                MPIX_Comm_set_info(xcomm, info);
                MPIX_Info_free(&info);
                std::string detail;
                if (!mpixtest::run_exchange_case(xcomm, MPI_COMM_WORLD, c, &detail) && failures++ == 0)
                    failure = detail;
            }
            MPIX_EXPECT(failures == 0, std::string(algorithm) + " with MPIX_PPN=" + std::to_string(ppn) + ": " + failure);
        }
        MPIX_Comm_update_locality(xcomm, 0);
        MPIX_EXPECT(mpix::get_regions(xcomm, mpix::Locality::node, &r) == MPI_SUCCESS && r && r->count == 1,
                    "MPIX_Comm_update_locality(0) after MPIX_PPN: the real node map (one node)");
        MPIX_Comm_free(&xcomm);
        MPIX_CHECK_ALL(("MPIX_PPN=" + std::to_string(ppn)).c_str());
    }
}

// A relay forwards what it received unpacked where the message arrived grouped by
// its next receiver: hop 3's items come grouped by hop 4's receiver (the
// destination's leader), so a rank handling one remote node passes each group on
// from its receive buffer. Checked by the busiest rank's copies, as its LocalWork
// counts them, on the first 4 (8) ranks, so at 4 and 8 ranks (make check's
// locality runs); the blocks are verified too. Per rank of the relay route:
// - node_aware, three steps, P = 4 in nodes of 2: a handler copies its own block,
//   its mate's (hop 2), the 4 blocks for the other node (hop 3, packed) and its 2
//   from there: 8 blocks (10 when hop 4 repacked its mate's 2).
// - multileader_locality, 2 leaders a node, P = 8 in nodes of 4: leader 2 (it
//   handles node 1) copies its own block, packs 4 for leader 0 (hop 2), delivers
//   3, packs 16 for node 1 (hop 3) and 7 for its member (hop 5), and delivers 4:
//   35 blocks (43 when hop 4 repacked leader 0's 8).
void test_relay_forwards_unpacked()
{
    struct Case {
        int p, ppn;
        const char *row;
        HintList hints;
        long long busiest_blocks;
    };
    const Case cases[] = {
        {4, 2, "node_aware", {{"relay_steps", "3"}}, 8},
        {8, 4, "multileader_locality", {{"leaders_per_node", "2"}}, 35},
    };
    constexpr int block = 1024;
    const int me = mpixtest::rank();
    for (const Case &c : cases) {
        const std::string what = std::string(c.row) + " at P = " + std::to_string(c.p);
        if (mpixtest::size() >= c.p) {
            MPI_Comm sub;
            MPI_Comm_split(MPI_COMM_WORLD, me < c.p ? 0 : MPI_UNDEFINED, me, &sub);
            if (sub != MPI_COMM_NULL) {
                MPIX_Comm *xcomm;
                CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, sub), MPI_SUCCESS);
                std::vector<long long> nodes;
                for (int r = 0; r < c.p; ++r)
                    nodes.push_back(r / c.ppn);
                CU_ASSERT_EQUAL_FATAL(mpix::set_emulated_regions(xcomm, nodes), MPI_SUCCESS);
                select_with_hints(xcomm, true, c.row, c.hints);
                long long copied = 0;
                for (int call = 0; call < 2; ++call) {  // the second, once the plan is cached
                    const std::uint64_t before = xcomm->work.bytes();  // the harness's own fills are not counted
                    mpixtest::exchange_and_check(xcomm, true, [](int, int) { return block; }, what);
                    copied = static_cast<long long>(xcomm->work.bytes() - before);
                }
                long long busiest = 0;
                MPI_Allreduce(&copied, &busiest, 1, MPI_LONG_LONG, MPI_MAX, sub);
                MPIX_EXPECT(busiest == c.busiest_blocks * block,
                            what + ": the busiest rank copied " + std::to_string(busiest / block) + " blocks, not " +
                                std::to_string(c.busiest_blocks));
                MPIX_Comm_free(&xcomm);
                MPI_Comm_free(&sub);
            }
        }
        MPIX_CHECK_ALL(what.c_str());
    }
}

// node_bruck hands on a run of blocks that lie side by side as one range: a
// bundle's blocks for consecutive ranks of a remote node (phase A), bundles
// that arrived next to each other (forwarded in phases A and C), and a remote
// node's blocks for consecutive receive blocks (delivered). So every range it
// copies is one copy: its LocalWork counts as many pieces as copies on every
// rank (a CopyRun that joined ranges would count more pieces than copies; at
// P = 64 in nodes of 8 they were 205 pieces and 112 copies a rank before).
// P = 8 in 4 nodes of 2 (one part per remote node: its 2 blocks are one
// range), 16 B blocks, MPIX_Alltoall and MPIX_Alltoallv, verified.
void test_node_bruck_joins_ranges()
{
    const int p = 8, me = mpixtest::rank();
    const std::string what = "node_bruck at P = 8 in nodes of 2";
    if (mpixtest::size() >= p) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, me < p ? 0 : MPI_UNDEFINED, me, &sub);
        if (sub != MPI_COMM_NULL) {
            MPIX_Comm *xcomm;
            CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, sub), MPI_SUCCESS);
            std::vector<long long> nodes;
            for (int r = 0; r < p; ++r)
                nodes.push_back(r / 2);
            CU_ASSERT_EQUAL_FATAL(mpix::set_emulated_regions(xcomm, nodes), MPI_SUCCESS);
            for (bool uniform : {true, false}) {
                select_with_hints(xcomm, uniform, "node_bruck", {});
                long long pieces = 0, copies = 0;
                for (int call = 0; call < 2; ++call) {  // the second, once the plan is cached
                    const std::uint64_t p0 = xcomm->work.pieces(), c0 = xcomm->work.copies();
                    mpixtest::exchange_and_check(xcomm, uniform, [](int, int) { return 16; }, what);
                    pieces = static_cast<long long>(xcomm->work.pieces() - p0);
                    copies = static_cast<long long>(xcomm->work.copies() - c0);
                }
                long long extra = pieces - copies, most = 0;
                MPI_Allreduce(&extra, &most, 1, MPI_LONG_LONG, MPI_MAX, sub);
                MPIX_EXPECT(most == 0 && copies > 0,
                            what + (uniform ? " (alltoall)" : " (alltoallv)") + ": rank " + std::to_string(me) +
                                " counted " + std::to_string(pieces) + " pieces for " + std::to_string(copies) +
                                " copies; a rank had " + std::to_string(most) + " pieces more than copies");
            }
            MPIX_Comm_free(&xcomm);
            MPI_Comm_free(&sub);
        }
    }
    MPIX_CHECK_ALL(what.c_str());
}

void test_alltoall_layouts() { check_layouts(mpix::Collective::alltoall); }
void test_alltoallv_layouts() { check_layouts(mpix::Collective::alltoallv); }

const mpixtest::TestCase kTests[] = {
    {"emulated node and socket maps", test_emulated_maps},
    {"MPIX_PPN emulates nodes from MPIX_Comm_init", test_ppn_environment},
    {"relays forward runs of their receive buffers unpacked", test_relay_forwards_unpacked},
    {"node_bruck hands on side-by-side blocks as one range", test_node_bruck_joins_ranges},
    {"MPIX_Alltoall: every algorithm on uneven, round-robin, socket layouts", test_alltoall_layouts},
    {"MPIX_Alltoallv: every algorithm on uneven, round-robin, socket layouts", test_alltoallv_layouts},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "locality", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
