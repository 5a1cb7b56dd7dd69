// Structure read back from trace files. ParLogNa: K rounds for every radix, total
// data volume D, the temporary buffer bound P-1-K blocks, and every block arriving
// at its destination exactly once. The node-aware family and node_bruck: every
// block arrives once, each pair of units exchanges one message, only leaders leave
// the node, and node_bruck's messages inside a node stay within its two Bruck
// phases.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "alltoallv/parlogna.hpp"
#include "harness.hpp"
#include "mpix.h"

namespace {

// Independent K: the distinct (digit index, nonzero digit value) pairs among the
// base-r digits of 1..P-1 (every such pair is one round).
int rounds_by_digits(int p, int r)
{
    std::set<std::pair<int, int>> pairs;
    for (int t = 1; t < p; ++t) {
        int i = 0;
        for (int v = t; v > 0; v /= r, ++i)
            if (v % r)
                pairs.insert({i, v % r});
    }
    return static_cast<int>(pairs.size());
}

int nonzero_digits(int t, int r)
{
    int n = 0;
    for (; t > 0; t /= r)
        n += t % r != 0;
    return n;
}

void test_round_count_formula()
{
    for (int p = 1; p <= 64; ++p)
        for (int r = 2; r <= (p < 2 ? 2 : p); ++r) {
            int k = mpix::parlogna_round_count(p, r);
            MPIX_EXPECT(k == rounds_by_digits(p, r),
                        "K(P=" + std::to_string(p) + ",r=" + std::to_string(r) + ") = " + std::to_string(k));
            if (r >= p)
                MPIX_EXPECT(k == p - 1, "r >= P must be the direct exchange");
        }
    MPIX_CHECK_ALL("ParLogNa round count against digit enumeration, P <= 64");
}

std::size_t block_size(int src, int dst, int seed, std::size_t max_bytes)
{
    return static_cast<std::size_t>(mpixtest::mix(src, dst, seed) % (max_bytes + 1));
}

struct Line {
    int round, send_peer, recv_peer;
    std::vector<long long> blocks;
    unsigned long long sent, recv, temp, stage;
};

long long field(const std::string &line, const char *key)
{
    std::size_t at = line.find(std::string("\"") + key + "\":");
    if (at == std::string::npos)
        return -999;
    return std::atoll(line.c_str() + at + std::strlen(key) + 3);
}

std::vector<Line> read_trace(const std::string &file)
{
    std::vector<Line> lines;
    std::ifstream in(file);
    std::string s;
    while (std::getline(in, s)) {
        Line l;
        l.round = static_cast<int>(field(s, "round"));
        l.send_peer = static_cast<int>(field(s, "send_peer"));
        l.recv_peer = static_cast<int>(field(s, "recv_peer"));
        l.sent = static_cast<unsigned long long>(field(s, "bytes_sent"));
        l.recv = static_cast<unsigned long long>(field(s, "bytes_recv"));
        l.temp = static_cast<unsigned long long>(field(s, "temp_bytes"));
        long long staged = field(s, "stage_bytes");  // absent when nothing was staged
        l.stage = staged < 0 ? 0 : static_cast<unsigned long long>(staged);
        std::size_t at = s.find("\"blocks\":[") + 10;
        while (s[at] != ']') {
            char *end;
            l.blocks.push_back(std::strtoll(s.c_str() + at, &end, 10));
            at = static_cast<std::size_t>(end - s.c_str());
            if (s[at] == ',')
                ++at;
        }
        lines.push_back(std::move(l));
    }
    return lines;
}

// Concatenates every rank's values on rank 0 (empty elsewhere).
std::vector<long long> gather_on_root(const std::vector<long long> &mine)
{
    int n = static_cast<int>(mine.size()), p = mpixtest::size(), total = 0;
    std::vector<int> counts(p), displs(p);
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < p; ++i) {
        displs[i] = total;
        total += counts[i];
    }
    std::vector<long long> every(mpixtest::rank() == 0 ? total : 0);
    MPI_Gatherv(mine.data(), n, MPI_LONG_LONG, every.data(), counts.data(), displs.data(), MPI_LONG_LONG, 0,
                MPI_COMM_WORLD);
    return every;
}

// One traced ParLogNa call at radix r; checks the result and the trace.
void check_radix(MPIX_Comm *xcomm, const std::string &dir, int r, int batch, std::size_t max_bytes, int seed)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::string prefix = dir + "/r" + std::to_string(r) + "b" + std::to_string(batch);
    std::string what = "P=" + std::to_string(p) + " r=" + std::to_string(r) + " batch=" + std::to_string(batch);
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "alltoallv_algorithm", "parlogna");
    MPIX_Info_set(info, "radix", std::to_string(r).c_str());
    MPIX_Info_set(info, "batch_size", std::to_string(batch).c_str());
    MPIX_Info_set(info, "trace", prefix.c_str());
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);

    std::size_t largest = 0;
    for (int i = 0; i < p; ++i)
        for (int j = 0; j < p; ++j)
            if (i != j && block_size(i, j, seed, max_bytes) > largest)
                largest = block_size(i, j, seed, max_bytes);
    mpixtest::exchange_and_check(xcomm, false,
                       [&](int s, int d) { return static_cast<int>(block_size(s, d, seed, max_bytes)); }, what);

    std::string file = prefix + "." + std::to_string(me) + ".jsonl";
    std::vector<Line> lines = read_trace(file);
    std::remove(file.c_str());
    const int k = mpix::parlogna_round_count(p, r);
    std::set<int> rounds;
    unsigned long long sent = 0, temp = 0;
    std::vector<long long> hops;  // pairs (block id, receiving rank)
    for (const Line &l : lines) {
        rounds.insert(l.round);
        sent += l.sent;
        temp = l.temp > temp ? l.temp : temp;
        // Staging only holds part of what arrives in the same round.
        MPIX_EXPECT(l.stage <= l.recv, what + ": round " + std::to_string(l.round) + " staged " +
                                           std::to_string(l.stage) + " > received " + std::to_string(l.recv));
        for (long long id : l.blocks) {
            hops.push_back(id);
            hops.push_back(l.send_peer);
        }
    }
    if (p > 1) {
        MPIX_EXPECT(static_cast<int>(rounds.size()) == k,
                    what + ": traced " + std::to_string(rounds.size()) + " rounds, K = " + std::to_string(k));
        MPIX_EXPECT(rounds.empty() || (*rounds.begin() == 0 && *rounds.rbegin() == k - 1), what + ": round ids");
    }
    unsigned long long bound = static_cast<unsigned long long>(p - 1 - k) * largest;
    MPIX_EXPECT(temp <= bound, what + ": temp_bytes " + std::to_string(temp) + " > (P-1-K)*max block " +
                                   std::to_string(bound));
    if (r >= p)
        MPIX_EXPECT(temp == 0, what + ": direct exchange must use no temporary buffer");

    // D: every block crosses one link per nonzero digit of its distance.
    unsigned long long total_sent = 0, expect = 0;
    MPI_Allreduce(&sent, &total_sent, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (s != d)
                expect += block_size(s, d, seed, max_bytes) * nonzero_digits((d - s + p) % p, r);
    MPIX_EXPECT(total_sent == expect,
                what + ": D = " + std::to_string(total_sent) + ", expected " + std::to_string(expect));

    // Every block: exactly one hop per nonzero digit, exactly one arrival at its destination.
    std::vector<long long> every = gather_on_root(hops);
    const int all = static_cast<int>(every.size());
    if (me == 0) {
        std::map<long long, int> nhops, arrivals;
        for (int i = 0; i + 1 < all; i += 2) {
            ++nhops[every[i]];
            if (every[i + 1] == every[i] % p)
                ++arrivals[every[i]];
        }
        for (int s = 0; s < p; ++s)
            for (int d = 0; d < p; ++d) {
                if (s == d)
                    continue;
                long long id = static_cast<long long>(s) * p + d;
                std::string b = what + ": block " + std::to_string(s) + "->" + std::to_string(d);
                MPIX_EXPECT(arrivals[id] == 1, b + " arrived " + std::to_string(arrivals[id]) + " times");
                MPIX_EXPECT(nhops[id] == nonzero_digits((d - s + p) % p, r),
                            b + " took " + std::to_string(nhops[id]) + " hops");
            }
    }
    MPIX_CHECK_ALL(what.c_str());
}

void test_parlogna_every_radix()
{
    std::string dir = mpixtest::shared_temp_dir();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    int p = mpixtest::size();
    for (int r = 2; r <= (p < 2 ? 2 : p); ++r) {
        check_radix(xcomm, dir, r, 32, 100, r);
        check_radix(xcomm, dir, r, 1, 7, r + 100);  // one round in flight, tiny blocks
    }
    check_radix(xcomm, dir, 2, 2, 0, 1);  // all blocks empty
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpixtest::rank() == 0)
        rmdir(dir.c_str());
}


// Every rank's trace lines on rank 0, flattened: rank, round, send_peer,
// recv_peer, block count, blocks...
std::vector<long long> gather_lines(const std::vector<Line> &lines)
{
    std::vector<long long> flat;
    for (const Line &l : lines) {
        flat.insert(flat.end(), {mpixtest::rank(), l.round, l.send_peer, l.recv_peer,
                                 static_cast<long long>(l.blocks.size())});
        flat.insert(flat.end(), l.blocks.begin(), l.blocks.end());
    }
    return gather_on_root(flat);
}

enum class Units { none, nodes, half_nodes };

// One traced call of a node-aware algorithm on nodes of `ppn` consecutive ranks
// (the last one smaller when ppn does not divide P; 2 leaders or groups per node).
// Checks the data, then from the traces of all ranks: every block s->d (s != d)
// arrives at d exactly once; each ordered pair of `units` exchanges exactly one
// message, carrying exactly the blocks from one unit to the other; only the first
// rank of each of `leaders` sends to other nodes (Units::none: anyone may).
// max_local_sends >= 0: no rank sends more messages than that inside its node
// (node_bruck: its two Bruck phases).
void check_relay(MPIX_Comm *xcomm, const std::string &dir, bool alltoall, const char *algo, int ppn, Units units,
                 Units leaders, int max_local_sends = -1)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::string prefix = dir + "/" + algo + std::to_string(ppn);
    std::string what = std::string(algo) + " P=" + std::to_string(p) + " ppn=" + std::to_string(ppn);
    MPIX_Comm_update_locality(xcomm, ppn);
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, alltoall ? "alltoall_algorithm" : "alltoallv_algorithm", algo);
    MPIX_Info_set(info, "leaders_per_node", "2");
    MPIX_Info_set(info, "trace", prefix.c_str());
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);

    // Nonzero blocks (zero-byte ones send nothing, which would hide messages).
    mpixtest::exchange_and_check(xcomm, alltoall,
                       [&](int s, int d) { return alltoall ? 4 : 1 + static_cast<int>(mpixtest::mix(s, d, 7) % 9); },
                       what);

    std::string file = prefix + "." + std::to_string(me) + ".jsonl";
    std::vector<Line> lines = read_trace(file);
    std::remove(file.c_str());
    std::vector<long long> every = gather_lines(lines);
    const int total = static_cast<int>(every.size());
    if (me == 0) {
        // The units, computed here from ppn: node r / ppn; half nodes split a
        // node of n ranks into min(2, n) groups by local index i * 2 / n.
        auto node_of = [&](int r) { return r / ppn; };
        auto half_of = [&](int r) {
            int first = node_of(r) * ppn, n = std::min(ppn, p - first), k = std::min(2, n);
            return node_of(r) * 2 + (r - first) * k / n;
        };
        auto unit_of = [&](int r) { return units == Units::nodes ? node_of(r) : half_of(r); };
        auto leads = [&](int r) {  // the first rank of its node or half node
            return leaders == Units::none || r == 0 ||
                   (leaders == Units::nodes ? node_of(r - 1) != node_of(r) : half_of(r - 1) != half_of(r));
        };
        std::map<long long, int> arrivals;
        std::map<int, int> local_sends;
        std::map<std::pair<int, int>, int> messages;
        std::map<std::pair<int, int>, std::set<long long>> carried;
        for (int i = 0; i < total;) {
            int rank = static_cast<int>(every[i]), to = static_cast<int>(every[i + 2]);
            int from = static_cast<int>(every[i + 3]), n = static_cast<int>(every[i + 4]);
            i += 5;
            for (int b = 0; b < n; ++b, ++i) {
                long long id = every[i];
                if (from >= 0 && id % p == rank)
                    ++arrivals[id];
                if (to >= 0 && unit_of(rank) != unit_of(to))
                    carried[{unit_of(rank), unit_of(to)}].insert(id);
            }
            if (to >= 0 && unit_of(rank) != unit_of(to))
                ++messages[{unit_of(rank), unit_of(to)}];
            if (to >= 0 && node_of(rank) == node_of(to))
                ++local_sends[rank];
            if (to >= 0 && node_of(rank) != node_of(to))
                MPIX_EXPECT(leads(rank), what + ": rank " + std::to_string(rank) + " is no leader but sent to " +
                                                 std::to_string(to) + " on another node");
        }
        for (int s = 0; s < p; ++s)
            for (int d = 0; d < p; ++d)
                if (s != d) {
                    long long id = static_cast<long long>(s) * p + d;
                    MPIX_EXPECT(arrivals[id] == 1, what + ": block " + std::to_string(s) + "->" + std::to_string(d) +
                                                       " arrived " + std::to_string(arrivals[id]) + " times");
                }
        for (const auto &rs : local_sends)
            MPIX_EXPECT(max_local_sends < 0 || rs.second <= max_local_sends,
                        what + ": rank " + std::to_string(rs.first) + " sent " + std::to_string(rs.second) +
                            " messages inside its node, at most " + std::to_string(max_local_sends) + " designed");
        {
            int nunits = unit_of(p - 1) + 1;
            for (int u = 0; u < nunits; ++u)
                for (int v = 0; v < nunits; ++v) {
                    std::set<long long> want;
                    for (int s = 0; s < p; ++s)
                        for (int d = 0; d < p; ++d)
                            if (unit_of(s) == u && unit_of(d) == v)
                                want.insert(static_cast<long long>(s) * p + d);
                    if (u == v || want.empty())
                        continue;
                    std::string pair = what + ": units " + std::to_string(u) + "->" + std::to_string(v);
                    const std::pair<int, int> key(u, v);
                    MPIX_EXPECT(messages[key] == 1, pair + " exchanged " + std::to_string(messages[key]) + " messages");
                    MPIX_EXPECT(carried[key] == want, pair + ": wrong blocks");
                }
        }
    }
    MPIX_Comm_update_locality(xcomm, 0);
    MPIX_CHECK_ALL(what.c_str());
}

void test_relay_family()
{
    std::string dir = mpixtest::shared_temp_dir();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int ppn : {2, 3, 4}) {
        check_relay(xcomm, dir, false, "node_aware", ppn, Units::nodes, Units::none);
        check_relay(xcomm, dir, true, "node_aware", ppn, Units::nodes, Units::none);
        check_relay(xcomm, dir, false, "locality_aware", ppn, Units::half_nodes, Units::none);
        check_relay(xcomm, dir, true, "hierarchical", ppn, Units::nodes, Units::nodes);
        check_relay(xcomm, dir, true, "multileader", ppn, Units::half_nodes, Units::half_nodes);
        check_relay(xcomm, dir, true, "multileader_locality", ppn, Units::nodes, Units::half_nodes);
        // node_bruck (radix 2 at these sizes): two Bruck phases of ceil(log2 n)
        // rounds inside the node, one message per node pair between nodes.
        int rounds = 0;
        for (int w = 1; w < ppn; w *= 2)
            ++rounds;
        check_relay(xcomm, dir, false, "node_bruck", ppn, Units::nodes, Units::none, 2 * rounds);
        check_relay(xcomm, dir, true, "node_bruck", ppn, Units::nodes, Units::none, 2 * rounds);
    }
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpixtest::rank() == 0)
        rmdir(dir.c_str());
}

const mpixtest::TestCase kTests[] = {
    {"ParLogNa K against an independent digit count, P <= 64", test_round_count_formula},
    {"ParLogNa traces: K, D, temporary bound, each block once", test_parlogna_every_radix},
    {"node-aware family and node_bruck traces: each block once, one message per unit pair", test_relay_family},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "trace", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
