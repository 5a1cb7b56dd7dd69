// Structure read back from trace files. ParLogNa: K rounds for every radix, total
// data volume D, the temporary buffer bound P-1-K blocks, and every block arriving
// at its destination exactly once. The node-aware family and node_bruck: every
// block arrives once, each pair of units exchanges one message, only leaders leave
// the node, and node_bruck's messages inside a node stay within its two Bruck
// phases. Every registry row of every collective (alltoall, alltoallv, the sparse
// and neighbour exchanges, on emulated nodes of 2 ranks from P = 4): its trace
// replays as a viewer replays it, every block ending at its destination.
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
#include <tuple>
#include <utility>
#include <vector>

#include "alltoall/bruck.hpp"
#include "alltoallv/bundle_bruck.hpp"
#include "alltoallv/node_bruck_adaptive.hpp"
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

// A round's positions as the runs of for_each_position_with_digit lists them,
// against testing each t's digit by division (what the rounds did before): the
// same positions, in the same ascending order, for every group size to 300,
// every weight and digit value, radices 2-17 and the largest two (n - 1, n).
// Every radix of every n would take a minute a rank.
void test_round_positions_without_division()
{
    bool all_same = true;
    std::string first_difference;
    for (int n = 1; n <= 300 && all_same; ++n)
        for (int r = 2; r <= std::max(2, n) && all_same; r = (r < 17 || r >= n - 1) ? r + 1 : n - 1)
            for (long long w = 1; w < n && all_same; w *= r)
                for (int z = 1; z < r && all_same; ++z) {
                    std::vector<int> by_division, by_runs;
                    for (int t = 1; t < n; ++t)
                        if (mpix::radix_digit(t, w, r) == z)
                            by_division.push_back(t);
                    mpix::for_each_position_with_digit(n, w, r, z, [&](int t) { by_runs.push_back(t); });
                    if (by_runs != by_division) {
                        all_same = false;
                        first_difference = "n=" + std::to_string(n) + " r=" + std::to_string(r) +
                                           " w=" + std::to_string(w) + " z=" + std::to_string(z);
                    }
                }
    MPIX_EXPECT(all_same, "round positions differ at " + first_difference);
    MPIX_CHECK_ALL("round positions by runs, against the digit of every position");
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

// pairs: a node of n ranks as node_bruck's groups of at most 2 consecutive ranks
// (ceil(n / 2) of them; a node of 2 stays whole, where half_nodes splits it).
enum class Units { none, nodes, half_nodes, pairs };

// One traced call of a node-aware algorithm on nodes of `ppn` consecutive ranks
// (the last one smaller when ppn does not divide P; 2 leaders or groups per node).
// Checks the data, then from the traces of all ranks: every block s->d (s != d)
// arrives at d exactly once; each ordered pair of `units` exchanges exactly
// `per_pair` messages (node_bruck: one per part of a node), carrying exactly the
// blocks from one unit to the other; only the first rank of each of `leaders`
// sends to other nodes (Units::none: anyone may).
// max_local_sends >= 0: no rank sends more messages than that inside its node
// (node_bruck: its two Bruck phases).
// group_size: that hint too (node_bruck's groups of consecutive ranks of a node).
// relay_steps: that hint too (node_aware, locality_aware); per_pair = kPerSender:
// each rank of a unit sends one message to every other unit (two steps).
// block_bytes: alltoall's block (4 unless given). gather: the leader rows' shape,
// from the messages non-leaders send: linear (each sends its leader one message,
// and nothing else) or binomial (in a group of 4+ some forward in the scatter).
constexpr int kPerSender = -1;
enum class Gather { any, linear, binomial };
void check_relay(MPIX_Comm *xcomm, const std::string &dir, bool alltoall, const char *algo, int ppn, Units units,
                 Units leaders, int max_local_sends = -1, int per_pair = 1, const char *group_size = nullptr,
                 const char *relay_steps = nullptr, int block_bytes = 4, Gather gather = Gather::any)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::string prefix = dir + "/" + algo + std::to_string(ppn);
    std::string what = std::string(algo) + " P=" + std::to_string(p) + " ppn=" + std::to_string(ppn) +
                       (relay_steps ? std::string(" relay_steps=") + relay_steps : std::string()) +
                       (block_bytes != 4 ? " block " + std::to_string(block_bytes) : std::string());
    MPIX_Comm_update_locality(xcomm, ppn);
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, alltoall ? "alltoall_algorithm" : "alltoallv_algorithm", algo);
    MPIX_Info_set(info, "leaders_per_node", "2");
    if (group_size)
        MPIX_Info_set(info, "group_size", group_size);
    if (relay_steps)
        MPIX_Info_set(info, "relay_steps", relay_steps);
    MPIX_Info_set(info, "trace", prefix.c_str());
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);

    // Nonzero blocks (zero-byte ones send nothing, which would hide messages).
    mpixtest::exchange_and_check(xcomm, alltoall,
                       [&](int s, int d) {
                           return alltoall ? block_bytes : 1 + static_cast<int>(mpixtest::mix(s, d, 7) % 9);
                       },
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
        auto pair_of = [&](int r) {
            int first = node_of(r) * ppn, n = std::min(ppn, p - first), count = (n + 1) / 2;
            return node_of(r) * ppn + (r - first) * count / n;
        };
        auto unit_of = [&](int r) {
            return units == Units::nodes ? node_of(r) : units == Units::pairs ? pair_of(r) : half_of(r);
        };
        auto leads = [&](int r) {  // the first rank of its node or half node
            return leaders == Units::none || r == 0 ||
                   (leaders == Units::nodes ? node_of(r - 1) != node_of(r) : half_of(r - 1) != half_of(r));
        };
        std::map<long long, int> arrivals;
        std::map<int, int> local_sends, sends;
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
            if (to >= 0)
                ++sends[rank];
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
        if (gather != Gather::any && p > ppn) {  // one node: straight to the destinations
            bool forwards = false;
            for (int r = 0; r < p; ++r)
                if (!leads(r)) {
                    forwards = forwards || sends[r] > 1;
                    MPIX_EXPECT(gather == Gather::binomial || sends[r] == 1,
                                what + ": rank " + std::to_string(r) + " sent " + std::to_string(sends[r]) +
                                    " messages, its leader's gather alone designed");
                }
            bool big_group = false;  // a group of 4 or more: a binomial scatter forwards
            for (int r = 0; r + 3 < p; ++r)
                big_group = big_group || (leads(r) && !leads(r + 1) && !leads(r + 2) && !leads(r + 3));
            MPIX_EXPECT(gather == Gather::linear || !big_group || forwards,
                        what + ": no member forwarded blocks: the gather was not binomial");
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
                    int designed = per_pair;
                    if (per_pair == kPerSender) {
                        designed = 0;
                        for (int s = 0; s < p; ++s)
                            designed += unit_of(s) == u;
                    }
                    MPIX_EXPECT(messages[key] == designed, pair + " exchanged " + std::to_string(messages[key]) +
                                                               " messages, " + std::to_string(designed) + " designed");
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
        // Three steps: one message per pair of nodes (or half nodes); two steps:
        // one from every rank to every other node, and at most one to each rank
        // of its own node (hop 4; none travels inside a node before).
        for (bool alltoall : {false, true}) {
            check_relay(xcomm, dir, alltoall, "node_aware", ppn, Units::nodes, Units::none, -1, 1, nullptr, "3");
            check_relay(xcomm, dir, alltoall, "node_aware", ppn, Units::nodes, Units::none, ppn - 1, kPerSender,
                        nullptr, "2");
        }
        check_relay(xcomm, dir, false, "locality_aware", ppn, Units::half_nodes, Units::none, -1, 1, nullptr, "3");
        check_relay(xcomm, dir, false, "locality_aware", ppn, Units::half_nodes, Units::none, -1, kPerSender, nullptr,
                    "2");
        // The leader rows gather binomially while a rank's send buffer is at most
        // 16 KiB, linearly beyond (8 KiB blocks).
        for (int block : {4, 8192}) {
            const Gather shape = block == 4 ? Gather::binomial : Gather::linear;
            check_relay(xcomm, dir, true, "hierarchical", ppn, Units::nodes, Units::nodes, -1, 1, nullptr, nullptr,
                        block, shape);
            check_relay(xcomm, dir, true, "multileader", ppn, Units::half_nodes, Units::half_nodes, -1, 1, nullptr,
                        nullptr, block, shape);
            check_relay(xcomm, dir, true, "multileader_locality", ppn, Units::nodes, Units::half_nodes, -1, 1,
                        nullptr, nullptr, block, shape);
        }
        // node_bruck (radix 2 at these sizes): two Bruck phases of ceil(log2 n)
        // rounds inside the node; between nodes one message per node pair and
        // part: a node's ranks split into smallest node / (nodes - 1) parts
        // (P=4 on nodes of 2: 2 parts, a message per pair of counterparts).
        int rounds = 0;
        for (int w = 1; w < ppn; w *= 2)
            ++rounds;
        const int p = mpixtest::size(), nodes = (p + ppn - 1) / ppn, smallest = p - (nodes - 1) * ppn;
        const int parts = nodes > 1 ? std::max(1, smallest / (nodes - 1)) : 1;
        check_relay(xcomm, dir, false, "node_bruck", ppn, Units::nodes, Units::none, 2 * rounds, parts);
        check_relay(xcomm, dir, true, "node_bruck", ppn, Units::nodes, Units::none, 2 * rounds, parts);
        // With group_size 2, nodes of 3-4 ranks split into groups of 2 + 1 and
        // 2 + 2 (a last node of 2 stays whole), and the groups exchange as nodes
        // do: one message per group pair and part, each block delivered once.
        if (ppn >= 3 && p >= 3) {
            std::vector<int> group_sizes;
            for (int first = 0; first < p; first += ppn) {
                const int n = std::min(ppn, p - first), count = (n + 1) / 2;
                for (int g = 0; g < count; ++g)  // local index m is in group m * count / n
                    group_sizes.push_back(((g + 1) * n + count - 1) / count - (g * n + count - 1) / count);
            }
            const int groups = static_cast<int>(group_sizes.size());
            const int least = *std::min_element(group_sizes.begin(), group_sizes.end());
            const int group_parts = std::max(1, least / (groups - 1));
            check_relay(xcomm, dir, false, "node_bruck", ppn, Units::pairs, Units::none, -1, group_parts, "2");
            check_relay(xcomm, dir, true, "node_bruck", ppn, Units::pairs, Units::none, -1, group_parts, "2");
        }
    }
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpixtest::rank() == 0)
        rmdir(dir.c_str());
}

// Hints node_bruck for MPIX_Alltoallv, with direct_above (1200 bytes unless
// given) and a trace under `prefix`; returns this rank's trace file.
std::string trace_node_bruck_modes(MPIX_Comm *xcomm, const std::string &prefix, const char *direct_above = "1200")
{
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "alltoallv_algorithm", "node_bruck");
    MPIX_Info_set(info, "direct_above", direct_above);
    MPIX_Info_set(info, "trace", prefix.c_str());
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
    return prefix + "." + std::to_string(mpixtest::rank()) + ".jsonl";
}

// The first line a traced node_bruck call wrote to `file` (empty: none; the
// direct mode sends nothing for blocks of 0 bytes, so it writes no line then).
std::string first_trace_line(const std::string &file)
{
    std::ifstream in(file);
    std::string first;
    std::getline(in, first);
    return first;
}

bool ran_direct(const std::string &first_line)
{
    return first_line.empty() || first_line.find(";direct\"") != std::string::npos ||
           first_line.find(";direct;") != std::string::npos;
}

// node_bruck's MPIX_Alltoallv mode follows the largest volume anywhere of the
// previous call: learnt inside its Bruck rounds' messages; in the direct mode
// on one node agreed on every 8th call only (the mode is kept between), and
// between nodes the range of rank volumes agreed in the exchange's windows on
// every call (where they leave at most one of its rounds after them: up to
// 4 ranks here, from 256 at scale). With direct_above 1200 bytes (100 on one node): a first call of
// 1600-byte blocks runs the Bruck rounds; the next 8 run direct (on one node the
// 8th agrees: large); then empty blocks: on one node 8 calls still run direct
// (the 8th agrees: nothing) and the next runs the Bruck rounds again; between
// nodes the first empty call runs direct and agrees nothing, and the next runs
// the Bruck rounds. On one node and on nodes of 2, every rank the same mode (a
// rank in the wrong mode would hang or lose blocks), every block checked.
void test_node_bruck_modes()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    if (p < 2) {
        MPIX_CHECK_ALL("node_bruck modes (needs 2 ranks)");
        return;
    }
    std::string dir = mpixtest::shared_temp_dir();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int ppn : {0, 2}) {
        MPIX_Comm_update_locality(xcomm, ppn);
        const std::string file = trace_node_bruck_modes(xcomm, dir + "/modes" + std::to_string(ppn));
        // Between nodes the windows (32 peers each) carry the range's rounds
        // (ceil(log2 p)) where at most one is left after them: here up to 4 ranks.
        const bool between_nodes = ppn == 2 && p > 2 && p <= 4;
        // Between nodes of 2, from 4 ranks, then a range that does not decide:
        // large calls again (the rounds learn them, then direct), then only rank 0
        // sends rank 2 1300 bytes. The largest rank volume (1300) lies between
        // direct_above and twice it, the smallest is 0, so the mode depends on the
        // node means (650): 8 calls direct, the 8th agreeing them, then the rounds.
        const bool undecided_range = between_nodes && p >= 4;
        const int calls = undecided_range ? 29 : 18;
        for (int call = 0; call < calls; ++call) {
            const bool large = call < 9 || call == 18 || call == 19;
            const bool lopsided = call >= 20;
            const bool want_direct = (call >= 1 && call <= (between_nodes ? 9 : 16)) || call == 19 ||
                                     (call >= 20 && call <= 27);
            const std::string what = "node_bruck modes, ppn " + std::to_string(ppn) + ", call " + std::to_string(call);
            std::remove(file.c_str());
            mpixtest::exchange_and_check(
                xcomm, false,
                [&](int src, int dst) { return large ? 1600 : lopsided && src == 0 && dst == 2 ? 1300 : 0; }, what);
            const std::string first = first_trace_line(file);
            const bool direct = ran_direct(first);
            MPIX_EXPECT(first.empty() ? want_direct : true, what + ": no trace line for a Bruck call");
            MPIX_EXPECT(direct == want_direct, what + ": ran " + (direct ? "direct" : "the Bruck rounds") +
                                                   ", expected " + (want_direct ? "direct" : "the Bruck rounds") +
                                                   " (" + first.substr(0, 120) + ")");
        }
        std::remove(file.c_str());
        MPIX_Comm_set_info(xcomm, nullptr);
        MPIX_CHECK_ALL(("node_bruck modes, ppn " + std::to_string(ppn)).c_str());
    }
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        rmdir(dir.c_str());
}

// ParLinNa's MPIX_Alltoallv takes phase 1's radix from the largest volume any
// rank of the node exchanged in the previous call, agreed in phase 1's headers
// (node_bruck's rule: radix 2 up to 48 KiB, then min(4, n)); the first call
// takes ParLogNa's ceil(sqrt(n)). Only rank 0 sends large blocks (more than
// 48 KiB in all, every other rank's volume stays below), so a rank that chose
// by its own volume would run another schedule than its node: a hang or lost
// blocks. One node of every rank; every block checked, and each call's radix
// read from its trace. Each row on a communicator of its own: the two rows
// share phase 1 and its kept volume, so on one communicator the second row's
// first call follows the first row's last (radix 2 at 8 ranks, not 3).
void test_parlinna_radix_follows_volume()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::string dir = mpixtest::shared_temp_dir();
    const int large_block = p > 1 ? (64 << 10) / (p - 1) + 1 : 0;  // rank 0 sends more than 48 KiB in all
    const bool large[] = {false, true, true, false, false};
    for (const char *row : {"parlinna_coalesced", "parlinna_staggered"}) {
        MPIX_Comm *xcomm;
        CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
        const std::string prefix = dir + "/" + row;
        MPIX_Info *info;
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "alltoallv_algorithm", row);
        MPIX_Info_set(info, "trace", prefix.c_str());
        MPIX_Comm_set_info(xcomm, info);
        MPIX_Info_free(&info);
        const std::string file = prefix + "." + std::to_string(me) + ".jsonl";
        for (int call = 0; call < 5; ++call) {
            const std::string what = std::string(row) + ", call " + std::to_string(call);
            std::remove(file.c_str());
            mpixtest::exchange_and_check(
                xcomm, false, [&](int src, int dst) { return large[call] && src == 0 && dst != 0 ? large_block : 3; },
                what);
            int want = mpix::parlogna_radix(p, 0);  // the first call
            if (call > 0)
                want = large[call - 1] ? std::max(2, std::min(4, p)) : 2;
            const std::string first = first_trace_line(file);
            const std::string params = "\"params\":\"radix=" + std::to_string(std::min(want, std::max(p, 2))) + "\"";
            MPIX_EXPECT(p == 1 || first.find(params) != std::string::npos,
                        what + ": expected " + params + " in " + first.substr(0, 120));
        }
        std::remove(file.c_str());
        MPIX_Comm_free(&xcomm);
        MPIX_CHECK_ALL(row);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        rmdir(dir.c_str());
}

// Under skew node_bruck's MPIX_Alltoallv mode follows the largest node mean
// volume, and the largest rank's only beyond twice direct_above: every rank
// sends only rank 0 a block of H bytes, so rank 0 moves (p-1)H and every other
// rank H. With the largest rank between direct_above and twice it and every
// node's mean within it, every call keeps the Bruck rounds (a rank-maximum rule
// would send calls 1 and 2 direct, where every small rank pays p message
// overheads); with the largest rank beyond twice direct_above (one node, p >= 5)
// calls 1 and 2 run direct. H is the middle of the range each case allows.
void test_node_bruck_skew_mode()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    if (p < 3) {
        MPIX_CHECK_ALL("node_bruck skew mode (needs 3 ranks: with 2 the mean and the largest agree)");
        return;
    }
    std::string dir = mpixtest::shared_temp_dir();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int ppn : {0, 2})
        for (bool want_direct : {false, true}) {
            MPIX_Comm_update_locality(xcomm, ppn);
            // The threshold node_bruck applies: direct_above, a twelfth of it on one
            // node (ppn 0: this machine's one node, as test_node_bruck_modes assumes).
            const bool one_node = ppn == 0;
            const double above = one_node ? 1200.0 / 12 : 1200.0;
            // Node mean: one node 2(p-1)H/p, nodes of 2 (rank 0 with rank 1) pH/2.
            const double mean_max = one_node ? above * p / (2.0 * (p - 1)) : 2.0 * above / p;
            const double low = (want_direct ? 2 * above : above) / (p - 1);
            const double high = std::min(mean_max, want_direct ? 1e18 : 2 * above / (p - 1));
            if (low + 1 >= high)
                continue;  // no such H at this p and placement
            const int hot = static_cast<int>((low + high) / 2);
            const std::string file = trace_node_bruck_modes(xcomm, dir + "/skew" + std::to_string(ppn));
            for (int call = 0; call < 3; ++call) {
                const std::string what = "node_bruck skew mode, ppn " + std::to_string(ppn) + ", H " +
                                         std::to_string(hot) + ", call " + std::to_string(call);
                std::remove(file.c_str());
                mpixtest::exchange_and_check(xcomm, false, [&](int s, int d) { return d == 0 && s != 0 ? hot : 0; },
                                             what);
                const std::string first = first_trace_line(file);
                const bool direct = ran_direct(first);
                const bool expected = want_direct && call > 0;
                MPIX_EXPECT(direct == expected, what + ": ran " + (direct ? "direct" : "the Bruck rounds") +
                                                    " (" + first.substr(0, 120) + ")");
            }
            std::remove(file.c_str());
            MPIX_Comm_set_info(xcomm, nullptr);
            MPIX_CHECK_ALL(("node_bruck skew mode, ppn " + std::to_string(ppn)).c_str());
        }
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        rmdir(dir.c_str());
}

// A rank that receives more than direct_above gets node_bruck's phase C
// straight into its receive blocks (node_bruck_in_place), a message per remote
// node from each handler; where its blocks from one node are not one range of
// its buffer, through a staging buffer. Up to 4 ranks two nodes, ranks 0..p-2
// and p-1; from 5 nodes of 2 (then rank 0 handles node {2, 3}, whose blocks for
// rank 1 are not one range in the reversed layout: the staging). Rank 0 handles
// a remote node and sends rank 1 its data. direct_above 1200: every
// rank sends rank 1 H = 1500 / (p-1) bytes and every other rank 1-5 bytes, so
// rank 1 receives about 1500 > 1200 while every node's mean stays below 1200
// and no rank passes 2400: the Bruck rounds on every call. Receive blocks in
// rank order, and in reversed order with 3-byte gaps; every block and gap
// checked over 3 calls. Then rank p-1 sends rank 1 one byte more than rank 1
// expects: rank 1 alone returns MPI_ERR_TRUNCATE and nothing lands outside its
// blocks; a clean call after it is exact on every rank. Then the same
// receiver with a strided datatype, MPI_IN_PLACE and MPIX_Ialltoallv against
// PMPI_Alltoallv, and a handler past direct_above that sends its chunks unpacked.
void test_node_bruck_in_place()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    if (p < 3) {
        MPIX_CHECK_ALL("node_bruck in-place receives (needs 3 ranks: a node of 2 and a remote node)");
        return;
    }
    std::string dir = mpixtest::shared_temp_dir();
    mpixtest::errors_return();  // the longer block's error is returned, not fatal
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Comm_update_locality(xcomm, p <= 4 ? p - 1 : 2);
    const std::string file = trace_node_bruck_modes(xcomm, dir + "/inplace");
    const int hot = 1500 / (p - 1);
    auto block = [&](int s, int d, int extra) {
        return d == 1 && s != 1 ? hot + (s == p - 1 ? extra : 0) : 1 + (s + 2 * d) % 5;
    };
    // One call: `sent(s, d)` bytes from s to d where d expects `expected(s, d)`;
    // this rank returns the error class `want`.
    using Bytes = std::function<int(int, int)>;
    const Bytes as_planned = [&](int s, int d) { return block(s, d, 0); };
    auto call = [&](const Bytes &sent, const Bytes &expected, bool reversed, int want, const std::string &what) {
        std::vector<int> sc(p), sd(p), rc(p), rd(p);
        int stotal = 0, rtotal = 3;
        for (int j = 0; j < p; ++j) {
            sc[j] = sent(me, j);
            rc[j] = expected(j, me);
        }
        for (int k = 0; k < p; ++k) {  // reversed: send blocks too, with 2-byte gaps
            const int j = reversed ? p - 1 - k : k;
            rd[j] = rtotal;
            rtotal += rc[j] + (reversed ? 3 : 0);
            sd[j] = stotal;
            stotal += sc[j] + (reversed ? 2 : 0);
        }
        std::vector<unsigned char> sbuf(stotal), rbuf(rtotal + 3, 0xEE);
        for (int j = 0; j < p; ++j)
            for (int b = 0; b < sc[j]; ++b)
                sbuf[sd[j] + b] = static_cast<unsigned char>(mpixtest::mix(me, j, b));
        std::remove(file.c_str());
        int rc_call = MPIX_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(),
                                     MPI_BYTE, xcomm);
        int cls = rc_call;
        if (rc_call != MPI_SUCCESS)
            MPI_Error_class(rc_call, &cls);
        MPIX_EXPECT(cls == want, what + ": returned class " + std::to_string(cls) + ", expected " + std::to_string(want));
        std::vector<char> inside(rbuf.size(), 0);
        bool data_ok = true;
        for (int j = 0; j < p; ++j)
            for (int b = 0; b < rc[j]; ++b) {
                inside[rd[j] + b] = 1;
                data_ok = data_ok && rbuf[rd[j] + b] == static_cast<unsigned char>(mpixtest::mix(j, me, b));
            }
        bool guards_ok = true;
        for (std::size_t b = 0; b < rbuf.size(); ++b)
            guards_ok = guards_ok && (inside[b] || rbuf[b] == 0xEE);
        MPIX_EXPECT(guards_ok, what + ": bytes written outside the receive blocks");
        if (want == MPI_SUCCESS)
            MPIX_EXPECT(data_ok, what + ": wrong data");
        MPIX_EXPECT(!ran_direct(first_trace_line(file)) || first_trace_line(file).empty(),
                    what + ": ran direct, not the Bruck rounds");
    };
    for (bool reversed : {false, true})
        for (int c = 0; c < 3; ++c)
            call(as_planned, as_planned, reversed, MPI_SUCCESS,
                 std::string("node_bruck in place, ") + (reversed ? "reversed blocks with gaps" : "blocks in order") +
                     ", call " + std::to_string(c));
    // The same receiver in a strided datatype of one int per 8 bytes, blocks in
    // reversed order with gaps, against PMPI_Alltoallv: separate buffers (everyone
    // sends rank 1 `ints` ints; with `hot_sends` rank 1 sends them back), and
    // MPI_IN_PLACE (rank 1 exchanges `ints` with everyone); blocking, and
    // nonblocking completed by a MPIX_Test loop.
    MPI_Datatype strided;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    auto strided_calls = [&](int ints, bool hot_sends, const std::string &label) {
        for (bool in_place : {false, true})
            for (bool nonblocking : {false, true}) {
                std::vector<int> sc(p), rc(p), sd(p), rd(p);
                for (int j = 0; j < p; ++j) {
                    const int small = 1 + (me + j) % 3;
                    if (in_place || hot_sends) {
                        sc[j] = rc[j] = (me == 1 || j == 1) && me != j ? ints : small;
                    } else {
                        sc[j] = j == 1 && me != 1 ? ints : small;
                        rc[j] = me == 1 && j != 1 ? ints : small;
                    }
                }
                int st = 0, rt = 0;
                for (int k = p - 1; k >= 0; --k) {
                    sd[k] = st;
                    st += sc[k] + 1;
                    rd[k] = rt;
                    rt += rc[k] + 2;
                }
                std::vector<int> sbuf(2 * st + 2, -3), rbuf(2 * rt + 2, -7);
                for (int j = 0; j < p; ++j)
                    for (int e = 0; e < sc[j]; ++e)
                        sbuf[2 * (sd[j] + e)] = me * 100000 + j * 1000 + e;
                if (in_place)
                    for (int j = 0; j < p; ++j)
                        for (int e = 0; e < rc[j]; ++e)
                            rbuf[2 * (rd[j] + e)] = me * 100000 + j * 1000 + e;
                std::vector<int> want = rbuf;
                const void *send = in_place ? MPI_IN_PLACE : static_cast<const void *>(sbuf.data());
                MPI_Datatype stype = in_place ? MPI_DATATYPE_NULL : strided;
                const int *scounts = in_place ? nullptr : sc.data(), *sdispls = in_place ? nullptr : sd.data();
                int rc_call;
                if (nonblocking) {
                    MPIX_Request *req = nullptr;
                    rc_call = MPIX_Ialltoallv(send, scounts, sdispls, stype, rbuf.data(), rc.data(), rd.data(), strided,
                                              xcomm, &req);
                    for (int done = 0; rc_call == MPI_SUCCESS && !done;)
                        rc_call = MPIX_Test(&req, &done, MPI_STATUS_IGNORE);
                } else {
                    rc_call = MPIX_Alltoallv(send, scounts, sdispls, stype, rbuf.data(), rc.data(), rd.data(), strided,
                                             xcomm);
                }
                PMPI_Alltoallv(send, scounts, sdispls, stype, want.data(), rc.data(), rd.data(), strided,
                               MPI_COMM_WORLD);
                const std::string what = label + "strided ints, " + (in_place ? "MPI_IN_PLACE" : "separate buffers") +
                                         (nonblocking ? ", MPIX_Ialltoallv" : ", MPIX_Alltoallv");
                MPIX_EXPECT(rc_call == MPI_SUCCESS, what + ": call failed");
                MPIX_EXPECT(rbuf == want, what + ": differs from PMPI_Alltoallv (blocks or gaps)");
            }
    };
    strided_calls(1500 / 4 / (p - 1) + 1, false, "node_bruck in place, ");
    call([&](int s, int d) { return block(s, d, 1); }, as_planned, false, me == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS,
         "node_bruck in place, rank p-1 sends rank 1 a longer block");
    call(as_planned, as_planned, true, MPI_SUCCESS, "node_bruck in place, the call after the longer block");
    // A handler past direct_above sends its chunks unpacked, one message per
    // remote group, to ranks whose chunks are large (their received bytes over the
    // remote groups at least 4 KiB), and they receive them in place. direct_above
    // 20000: rank 0 (the handler of a remote node) receives about 24000 and rank 1
    // about 4200 per remote group, every node mean below 20000; every block
    // checked, blocks in order and reversed with gaps.
    {
        trace_node_bruck_modes(xcomm, dir + "/inplace", "20000");
        const int groups = p <= 4 ? 2 : (p + 1) / 2;
        const int to_hot = 24000 / (p - 1) + 1, to_one = (4200 * (groups - 1) + 100) / (p - 1) + 1;
        const Bytes bytes = [&](int src, int dst) {
            return src == dst ? 3 : dst == 0 ? to_hot : dst == 1 ? to_one : 1 + (src + dst) % 4;
        };
        for (bool reversed : {false, true})
            call(bytes, bytes, reversed, MPI_SUCCESS,
                 std::string("node_bruck, a handler past direct_above sends unpacked, ") +
                     (reversed ? "reversed blocks with gaps" : "blocks in order"));
    }
    // The bypass (node_bruck_bypasses): from the second call, rank 1 (past
    // direct_above in the previous one) sends its blocks for the remote nodes
    // that rank 0 handles straight to their handlers, 4200 bytes a rank, not
    // through rank 0; from 5 ranks, where rank 1 handles the even nodes from 2
    // on, rank 0's blocks for those nodes (4200 per node) skip rank 1 the same
    // way. direct_above 20000: rank 1 receives about 24000, sends at most 25200,
    // node 0's mean stays below 20000: the rounds on every call. Every block and
    // gap checked, blocks in order and reversed with gaps (the bypass's messages
    // then gather ranges); the traces must show rank 1's messages to the handlers
    // of rank 0's nodes, and from 5 ranks rank 0's to those of rank 1's. Then a
    // longer block from rank 1 to rank p-1 and from rank p-1 to rank 1: only the
    // receiver returns MPI_ERR_TRUNCATE.
    {
        trace_node_bruck_modes(xcomm, dir + "/inplace", "20000");
        auto node_of = [&](int r) { return p <= 4 ? (r == p - 1 ? 1 : 0) : r / 2; };
        const int nodes = node_of(p - 1) + 1;
        // Node v's handler in node 0 (nodes of at most 2 ranks, one part):
        // local index (v - 1) mod 2; up to 4 ranks node 0 handles with rank 0.
        auto handled_by_1 = [&](int v) { return p > 4 && v > 0 && (v - 1) % 2 == 1; };
        int ranks_of_1 = 0, nodes_of_1 = 0;
        for (int v = 1; v < nodes; ++v)
            nodes_of_1 += handled_by_1(v) ? 1 : 0;
        for (int r = 2; r < p; ++r)
            ranks_of_1 += handled_by_1(node_of(r)) ? 1 : 0;
        const int to_hot = 24000 / (p - 1) + 1;
        const int zero_to_1 = ranks_of_1 > 0 ? 4200 * nodes_of_1 / ranks_of_1 + 1 : 0;
        auto bypass_bytes = [&](int extra_1, int extra_p) {
            return Bytes([=](int src, int dst) {
                if (src == dst)
                    return 3;
                if (dst == 1)
                    return to_hot + (src == p - 1 ? extra_p : 0);
                if (src == 1 && node_of(dst) != 0)
                    return 4200 + (dst == p - 1 ? extra_1 : 0);
                if (src == 0 && handled_by_1(node_of(dst)))
                    return zero_to_1;
                return 1 + (src + dst) % 4;
            });
        };
        const Bytes planned = bypass_bytes(0, 0);
        for (bool reversed : {false, true})
            for (int c = 0; c < 3; ++c) {
                const std::string what = std::string("node_bruck bypass, ") +
                                         (reversed ? "reversed blocks with gaps" : "blocks in order") + ", call " +
                                         std::to_string(c);
                call(planned, planned, reversed, MPI_SUCCESS, what);
                // Rank 1 sends to the nodes rank 0 handles, and from 5 ranks rank
                // 0 to the nodes rank 1 handles: only the bypass does.
                if ((me == 1 || (me == 0 && p > 4)) && (c > 0 || reversed)) {
                    bool to_handlers = false;
                    for (const Line &l : read_trace(file))
                        to_handlers = to_handlers || (l.send_peer >= 0 && node_of(l.send_peer) != 0 &&
                                                      handled_by_1(node_of(l.send_peer)) == (me == 0));
                    MPIX_EXPECT(to_handlers, what + ": rank " + std::to_string(me) +
                                                 " sent nothing to the handlers of the other's nodes");
                }
            }
        call(bypass_bytes(1, 0), planned, true, me == p - 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS,
             "node_bruck bypass, rank 1 sends rank p-1 a longer block");
        call(bypass_bytes(0, 1), planned, true, me == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS,
             "node_bruck bypass, rank p-1 sends rank 1 a longer block");
        call(planned, planned, true, MPI_SUCCESS, "node_bruck bypass, the call after the longer blocks");
        // Bypassed in a strided datatype: rank 1 exchanges about 24000 bytes
        // with everyone (at least 3400 a rank, 6800 a remote node of 2).
        strided_calls(6000 / (p - 1) + 1, true, "node_bruck bypass, ");
    }
    MPI_Type_free(&strided);
    std::remove(file.c_str());
    MPIX_Comm_set_info(xcomm, nullptr);
    MPIX_CHECK_ALL("node_bruck: a rank past direct_above receives phase C in place, exactly, in any layout");
    MPIX_Comm_free(&xcomm);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        rmdir(dir.c_str());
}

// node_bruck's direct mode between nodes sends only the non-empty blocks once
// the previous direct call agreed that no rank has more than 1.25 (P-1) of them
// (node_bruck_direct_nonempty), and returns to every block once one has more.
// Nodes of 2, 3-4 ranks, direct_above 1200: every rank sends only rank 0 1500
// bytes (rank 0 moves 1500 (p-1) > 2400: direct; it has p-1 non-empty blocks).
// Call 0 runs the rounds, call 1 every block (it agrees the count), calls 2-4 the
// non-empty ones; then every block 1600 bytes: call 5 still non-empty only (it
// agrees 2 (p-1)), call 6 every block. Every block checked on every call; a
// rank in another mode than the others would hang or lose blocks.
void test_node_bruck_direct_nonempty()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    if (p < 3 || p > 4) {
        MPIX_CHECK_ALL("node_bruck's non-empty direct mode (3-4 ranks: the windows agree the count)");
        return;
    }
    std::string dir = mpixtest::shared_temp_dir();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Comm_update_locality(xcomm, 2);
    const std::string file = trace_node_bruck_modes(xcomm, dir + "/nonempty");
    for (int call = 0; call < 7; ++call) {
        const bool sparse = call < 5;
        const std::string what = "node_bruck non-empty direct mode, call " + std::to_string(call);
        std::remove(file.c_str());
        mpixtest::exchange_and_check(
            xcomm, false, [&](int s, int d) { return sparse ? (d == 0 && s != 0 ? 1500 : 0) : 1600; }, what);
        const std::string first = first_trace_line(file);
        const bool direct = ran_direct(first), nonempty = first.find(";nonempty") != std::string::npos;
        MPIX_EXPECT(direct == (call > 0), what + ": ran " + (direct ? "direct" : "the Bruck rounds"));
        // Ranks with nothing to send write no line.
        if (!first.empty())
            MPIX_EXPECT(nonempty == (call >= 2 && call <= 5),
                        what + (nonempty ? ": sent only the non-empty blocks" : ": sent every block") + " (" +
                            first.substr(0, 120) + ")");
    }
    std::remove(file.c_str());
    MPIX_Comm_set_info(xcomm, nullptr);
    MPIX_CHECK_ALL("node_bruck's direct mode sends only the non-empty blocks where the agreed count says so");
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        rmdir(dir.c_str());
}

// node_bruck_adaptive's rule on hand-made volumes {largest rank, largest node
// mean}, P=256 (mean block = node mean / 255), direct threshold 2 MiB.
void test_node_bruck_adaptive_rule()
{
    using Pick = mpix::NodeBruckAdaptivePick;
    const std::uint64_t above = 2u << 20;
    // node_bruck's direct mode for one large rank at P=256: past (P-1) x
    // direct_above / 45 (11.4 MiB), which is more than twice direct_above there.
    const std::uint64_t rank_direct = 255 * (above / 45);
    struct Case {
        bool known;
        std::uint64_t largest, node_mean;
        int nodes, since;
        Pick want;
        const char *what;
    };
    const Case cases[] = {
        {false, 0, 0, 4, 0, Pick::node_bruck, "nothing known yet"},
        {true, 2040, 2040, 4, 7, Pick::node_bruck, "8th call: refresh"},
        {true, 2040, 2040, 4, 6, Pick::two_phase_bruck, "4 nodes, mean block 8 B"},
        {true, 64 * 255, 64 * 255, 4, 0, Pick::two_phase_bruck, "4 nodes, mean block 64 B"},
        {true, 65 * 255, 65 * 255, 4, 0, Pick::parlinna_coalesced, "4 nodes, mean block 65 B"},
        {true, 3u << 19, 3u << 19, 4, 0, Pick::parlinna_coalesced, "4 nodes, node mean 1.5 MiB"},
        {true, (3u << 19) + 1, (3u << 19) + 1, 4, 0, Pick::node_bruck, "4 nodes, node mean past 1.5 MiB"},
        {true, 2 * above, above + 1, 4, 0, Pick::node_bruck, "node mean past direct_above: direct"},
        {true, 2 * above + 1, 1000, 4, 0, Pick::node_bruck, "one rank past twice direct_above, skewed small blocks"},
        {true, rank_direct + 1, 1u << 20, 4, 0, Pick::node_bruck, "one rank past (P-1) direct_above / 45: direct"},
        {true, rank_direct, 1u << 20, 4, 0, Pick::parlinna_coalesced, "one rank at (P-1) direct_above / 45: no direct"},
        {true, 2 * above + 1, 1u << 20, 4, 0, Pick::parlinna_coalesced, "one rank just past twice direct_above: no direct"},
        {true, 9 * 2040, 2040, 4, 0, Pick::node_bruck, "4 nodes, skewed 9:1, mean block 8 B"},
        {true, 8 * 2040, 2040, 4, 0, Pick::two_phase_bruck, "4 nodes, 8:1 is not skewed"},
        {true, 9 * 65 * 255, 65 * 255, 4, 0, Pick::parlinna_coalesced, "4 nodes, skewed, mean block 65 B"},
        {true, 2040, 2040, 16, 0, Pick::node_bruck, "16 nodes, uniform"},
        {true, 9 * 18360, 18360, 16, 0, Pick::node_bruck, "16 nodes, skewed 9:1, mean block 72 B"},
    };
    for (const Case &c : cases) {
        const std::uint64_t volumes[2] = {c.largest, c.node_mean};
        const Pick got = mpix::node_bruck_adaptive_pick(c.known, volumes, above, 256, c.nodes, c.since);
        MPIX_EXPECT(got == c.want, std::string(c.what) + ": picked " + mpix::node_bruck_adaptive_pick_name(got) +
                                       ", expected " + mpix::node_bruck_adaptive_pick_name(c.want));
    }
    // The bracket: the largest and smallest rank volume a call agreed; the pick
    // where every node mean between gives the same row, none where it does not.
    struct Bracketed {
        std::uint64_t largest, smallest;
        int nodes;
        bool decides;
        Pick want;
        const char *what;
    };
    const Bracketed bracketed[] = {
        {2040, 2040, 4, true, Pick::two_phase_bruck, "4 nodes, equal volumes, mean block 8 B"},
        {64 * 255 + 254, 2100, 4, true, Pick::two_phase_bruck, "4 nodes, mean block at most 64 B anywhere, never 8:1"},
        {64 * 255 + 254, 0, 4, false, Pick::node_bruck, "4 nodes, mean block at most 64 B, 8:1 or more possible"},
        {64 * 255 + 255, 1000, 4, false, Pick::node_bruck, "4 nodes, mean block 4-65 B"},
        {3u << 19, 65 * 255, 4, true, Pick::parlinna_coalesced, "4 nodes, 65 B to 1.5 MiB"},
        {(3u << 19) + 1, 65 * 255, 4, false, Pick::node_bruck, "4 nodes, up to just past 1.5 MiB"},
        {rank_direct + 1, 0, 4, true, Pick::node_bruck, "one rank past (P-1) direct_above / 45"},
        {rank_direct, 1000, 4, false, Pick::node_bruck, "4 nodes, up to (P-1) direct_above / 45"},
        {2040, 2040, 16, true, Pick::node_bruck, "16 nodes, equal volumes"},
        {9 * 18360, 18360, 16, true, Pick::node_bruck, "16 nodes, 9:1: node_bruck for any node mean"},
        {9 * 2040, 2040, 4, false, Pick::node_bruck, "4 nodes, 9:1, node means anywhere between"},
        {8 * 2040, 2040, 4, true, Pick::two_phase_bruck, "4 nodes, never more than 8:1, mean block at most 64 B"},
    };
    for (const Bracketed &c : bracketed) {
        const std::uint64_t bracket[2] = {c.largest, c.smallest};
        Pick got = Pick::node_bruck;
        const bool decides = mpix::node_bruck_adaptive_pick_bracketed(bracket, above, 256, c.nodes, &got);
        MPIX_EXPECT(decides == c.decides && (!decides || got == c.want),
                    std::string(c.what) + ": " + (decides ? "decided " : "left undecided") +
                        (decides ? mpix::node_bruck_adaptive_pick_name(got) : "") + ", expected " +
                        (c.decides ? mpix::node_bruck_adaptive_pick_name(c.want) : "no decision"));
    }
    MPIX_CHECK_ALL("node_bruck_adaptive's rule");
}

// node_bruck_adaptive's pick per call, against an independent model of its
// rule. The rows picked between node_bruck calls (two_phase_bruck,
// parlinna_coalesced) agree the call's largest and smallest rank volume; where
// the rule gives the same row for a node mean at either end, every node mean
// between gives it too (the rule's rows follow each other as the node mean
// grows), and the next call takes it. Otherwise the rule runs on the volumes
// node_bruck last learnt: node_bruck when none are known yet, on every 8th call,
// and where its direct mode applies; between, by the mean block (stale by design
// until node_bruck runs again, or, after a call whose agreed largest volume moved
// more than 2x from the learnt one, until the next call): two_phase_bruck up to
// the first threshold, parlinna_coalesced up to the second, node_bruck beyond.
// First equal blocks of one size per phase (each rank's volume (P-1) b, so the
// mean block is b), the size changing mid-period; then rank 0 sends rank 1 a
// large block and every other block is small, so the smallest rank volume asks
// for two_phase_bruck and the largest for parlinna_coalesced: there the node
// means decide, as node_bruck learnt them. On one node and on nodes of 2 and of 1
// (more than 4 nodes from P=5: node_bruck every call; small blocks that are
// skewed, a rank above 8 times the largest node mean: node_bruck); every block checked; each call's
// pick read from its trace.
void test_node_bruck_adaptive_picks()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    if (p < 2) {
        MPIX_CHECK_ALL("node_bruck_adaptive picks (needs 2 ranks)");
        return;
    }
    using mpix::kAdaptiveParlinnaMaxVolume;
    using mpix::kAdaptiveTwoPhaseMaxBlock;
    // Mean blocks below the first threshold, between, and a volume (P-1) b
    // just past the second (below 2 MiB, node_bruck's direct mode on nodes of 2).
    const int small = static_cast<int>(kAdaptiveTwoPhaseMaxBlock / 2);
    const int medium = static_cast<int>(4 * kAdaptiveTwoPhaseMaxBlock);
    const int large = static_cast<int>(kAdaptiveParlinnaMaxVolume / (p - 1) + 1000);
    // The one large block of the last phase: rank 1 then receives more than the
    // first threshold's volume, 64 (P-1) bytes.
    const int heavy = static_cast<int>(4 * kAdaptiveTwoPhaseMaxBlock) * (p - 1);
    std::string dir = mpixtest::shared_temp_dir();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int ppn : {0, 2, 1}) {
        MPIX_Comm_update_locality(xcomm, ppn);
        const bool one_node = ppn == 0 || p <= ppn;
        const int per_node = one_node ? p : ppn;
        const int nodes = one_node ? 1 : (p + ppn - 1) / ppn;
        for (bool low_threshold : {false, true}) {
            // direct_above: 2 MiB (never reached here) or 1200 bytes, which the
            // large phase's volume passes (one node: a twelfth of it).
            const long long above = low_threshold ? 1200 : 2LL << 20;
            const long long threshold = one_node ? above / 12 : above;
            const std::string prefix = dir + "/adaptive" + std::to_string(ppn);
            MPIX_Info *info;
            MPIX_Info_init(&info);
            MPIX_Info_set(info, "alltoallv_algorithm", "node_bruck_adaptive");
            MPIX_Info_set(info, "direct_above", std::to_string(above).c_str());
            MPIX_Info_set(info, "trace", prefix.c_str());
            MPIX_Comm_set_info(xcomm, info);
            MPIX_Info_free(&info);
            const std::string file = prefix + "." + std::to_string(me) + ".jsonl";
            // A fresh comm state per threshold: drop it by changing the nodes and back.
            MPIX_Comm_update_locality(xcomm, ppn == 0 ? 1 : 0);
            MPIX_Comm_update_locality(xcomm, ppn);
            // The rule on volumes {largest rank, largest node mean}.
            auto rule = [&](long long largest_rank, long long node_mean, int since_refresh) -> std::string {
                if (node_mean > threshold || largest_rank > 2 * threshold || since_refresh + 1 >= 8)
                    return "node_bruck";
                if (nodes > 4)
                    return "node_bruck";
                if (node_mean / (p - 1) <= static_cast<long long>(kAdaptiveTwoPhaseMaxBlock))
                    return largest_rank > 8 * node_mean ? "node_bruck" : "two_phase_bruck";
                if (node_mean <= static_cast<long long>(kAdaptiveParlinnaMaxVolume))
                    return "parlinna_coalesced";
                return "node_bruck";
            };
            // The model's state: what node_bruck last learnt (learnt: its node
            // mean, largest: its largest rank volume), the calls since it ran, and
            // the last agreed largest and smallest rank volume.
            bool known = false, bracketed = false;
            long long learnt = 0, largest = 0, bracket_largest = 0, bracket_smallest = 0;
            int since = 0, direct_calls = 0;
            // {b, h}: every block b bytes, and rank 0's to rank 1 h (h < 0: b).
            // The equal phases: the medium calls start on the 6th call (two_phase_bruck's
            // growth check), the large ones on the 13th (parlinna_coalesced's).
            std::vector<std::pair<int, int>> calls;
            for (int b : {small, small, small, small, small, medium, medium, medium, medium, medium, medium, medium,
                          large, large, large, large, large, large, large, large, large, large, small, small})
                calls.push_back({b, -1});
            for (int k = 0; k < 10; ++k)
                calls.push_back({small, heavy});
            int call = 0;
            for (const auto &c : calls) {
                auto bytes = [&](int src, int dst) { return src == 0 && dst == 1 && c.second >= 0 ? c.second : c.first; };
                // Every rank's volume: the larger of what it sends and receives.
                std::vector<long long> volume(static_cast<std::size_t>(p));
                for (int r = 0; r < p; ++r) {
                    long long sent = 0, received = 0;
                    for (int q = 0; q < p; ++q)
                        if (q != r) {
                            sent += bytes(r, q);
                            received += bytes(q, r);
                        }
                    volume[static_cast<std::size_t>(r)] = std::max(sent, received);
                }
                const long long rank_max = *std::max_element(volume.begin(), volume.end());
                const long long rank_min = *std::min_element(volume.begin(), volume.end());
                long long node_max = 0;
                for (int first = 0; first < p; first += per_node) {
                    const int last = std::min(p, first + per_node);
                    long long sum = 0;
                    for (int r = first; r < last; ++r)
                        sum += volume[static_cast<std::size_t>(r)];
                    node_max = std::max(node_max, sum / (last - first));
                }
                std::string want;
                if (known && bracketed && rule(bracket_largest, bracket_smallest, 0) == rule(bracket_largest, bracket_largest, 0))
                    want = rule(bracket_largest, bracket_largest, 0);
                else
                    want = known ? rule(largest, learnt, since) : "node_bruck";
                bool direct = false;
                if (want == "node_bruck") {
                    since = 0;
                    bracketed = false;
                    // In its direct mode (by the volumes learnt before this call)
                    // node_bruck agrees them again only on every 8th call in a
                    // row, unless (between nodes, up to 4 ranks: its windows of 32
                    // carry the rounds) the range of rank volumes its windows
                    // agree gives the mode for any node mean.
                    direct = known && (learnt > threshold || largest > 2 * threshold);
                    if (direct && nodes > 1 && p <= 4 &&
                        (rank_max > 2 * threshold || rank_min > threshold || rank_max <= threshold)) {
                        largest = rank_max;
                        if (learnt < rank_min || learnt > rank_max)
                            learnt = rank_min + (rank_max - rank_min) / 2;
                        direct_calls = 0;
                    } else if (!direct || ++direct_calls == 8) {
                        direct_calls = 0;
                        learnt = node_max;
                        largest = rank_max;
                    }
                    known = true;
                } else {
                    ++since;
                    bracketed = true;
                    bracket_largest = rank_max;
                    bracket_smallest = rank_min;
                    // Where the agreed largest volume moved more than 2x from the
                    // learnt one, node_bruck takes the new volumes (the node mean
                    // as their midpoint), a direct call agrees them, and the next
                    // call refreshes unless the bracket decides.
                    if (rank_max > 2 * largest || largest > 2 * rank_max) {
                        since = 7;
                        largest = rank_max;
                        learnt = rank_min + (rank_max - rank_min) / 2;
                        direct_calls = 7;
                    }
                }
                const std::string what = "node_bruck_adaptive, ppn " + std::to_string(ppn) + ", direct_above " +
                                         std::to_string(above) + ", call " + std::to_string(call++) + " (" +
                                         std::to_string(c.first) + " B blocks" +
                                         (c.second >= 0 ? ", one of " + std::to_string(c.second) : std::string()) +
                                         ")";
                std::remove(file.c_str());
                mpixtest::exchange_and_check(xcomm, false, bytes, what);
                const std::string first = first_trace_line(file);
                MPIX_EXPECT(first.find("pick=" + want + "\"") != std::string::npos ||
                                first.find("pick=" + want + ";") != std::string::npos,
                            what + ": expected " + want + ", trace: " + first.substr(0, 160));
                MPIX_EXPECT(want != "node_bruck" || direct == (first.find(";direct") != std::string::npos),
                            what + ": expected node_bruck " + (direct ? "direct" : "in rounds") +
                                ", trace: " + first.substr(0, 160));
            }
            std::remove(file.c_str());
            MPIX_Comm_set_info(xcomm, nullptr);
        }
        MPIX_CHECK_ALL(("node_bruck_adaptive picks, ppn " + std::to_string(ppn)).c_str());
    }
    MPIX_Comm_update_locality(xcomm, 0);
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        rmdir(dir.c_str());
}

// ---- Replay: every row of every collective, as a trace viewer replays it ----

// One trace row on rank 0, with the rank that wrote it.
struct Row {
    int rank, round, to, from;  // to: send_peer, from: recv_peer
    std::vector<long long> blocks;
    unsigned long long sent, recv;
};

// Every rank's trace file `prefix`.<rank>.jsonl as rows on rank 0 (removed after).
std::vector<Row> gather_rows(const std::string &prefix)
{
    std::string file = prefix + "." + std::to_string(mpixtest::rank()) + ".jsonl";
    std::vector<Line> lines = read_trace(file);
    std::remove(file.c_str());
    std::vector<long long> flat;
    for (const Line &l : lines) {
        flat.insert(flat.end(), {mpixtest::rank(), l.round, l.send_peer, l.recv_peer, static_cast<long long>(l.sent),
                                 static_cast<long long>(l.recv), static_cast<long long>(l.blocks.size())});
        flat.insert(flat.end(), l.blocks.begin(), l.blocks.end());
    }
    std::vector<long long> every = gather_on_root(flat);
    std::vector<Row> rows;
    for (std::size_t i = 0; i + 7 <= every.size();) {
        Row r;
        r.rank = static_cast<int>(every[i]);
        r.round = static_cast<int>(every[i + 1]);
        r.to = static_cast<int>(every[i + 2]);
        r.from = static_cast<int>(every[i + 3]);
        r.sent = static_cast<unsigned long long>(every[i + 4]);
        r.recv = static_cast<unsigned long long>(every[i + 5]);
        std::size_t n = static_cast<std::size_t>(every[i + 6]);
        i += 7;
        const auto first = every.begin() + static_cast<std::ptrdiff_t>(i);
        r.blocks.assign(first, first + static_cast<std::ptrdiff_t>(n));
        i += n;
        rows.push_back(std::move(r));
    }
    return rows;
}

// Replays one call's rows (every rank's) as a viewer does; returns "" or what is wrong.
// `exists`: the blocks of the call (global id src*P+dst, src != dst), `nonempty`
// those with bytes. Every block starts at its source; rounds are replayed in
// increasing order, and within a round a send applies once its sender holds every
// block it lists (to a fixpoint). A send's blocks then sit at its peer. Checked:
// peers and ids in range, no self block, no block of the call listed that does not
// exist; every sent block held by its sender at its round; no block delivered twice
// to one rank (a repeat by the same sender to the same peer is another piece of it)
// nor back to a rank that held it; every rank a block passes through, other than its
// destination, forwards it; receive-only rows list exactly the blocks their peer's
// rows of that round send to them, and the bytes sent; every non-empty block ends at
// its destination.
std::string replay(const std::vector<Row> &rows, int p, const std::set<long long> &exists,
                   const std::set<long long> &nonempty)
{
    auto str = [](long long v) { return std::to_string(v); };
    auto row_text = [&](const Row &r) {
        std::string b;
        for (long long id : r.blocks)
            b += (b.empty() ? "" : ",") + str(id / p) + ">" + str(id % p);
        return "rank " + str(r.rank) + " round " + str(r.round) + " send_peer " + str(r.to) + " recv_peer " +
               str(r.from) + " blocks [" + b + "]";
    };
    std::map<int, std::vector<const Row *>> sends_by_round;
    // (round, sender, receiver) -> blocks and bytes as the sender's and as the receiver's rows tell.
    std::map<std::tuple<int, int, int>, std::set<long long>> sent_set, recv_set;
    std::map<std::tuple<int, int, int>, unsigned long long> sent_bytes, recv_bytes;
    for (const Row &r : rows) {
        if (r.round < 0 || r.to < -1 || r.to >= p || r.from < -1 || r.from >= p || r.to == r.rank ||
            r.from == r.rank)
            return "bad round or peer: " + row_text(r);
        if (r.to < 0 && r.from < 0 && !r.blocks.empty())
            return "blocks without a peer: " + row_text(r);
        for (long long id : r.blocks) {
            if (id < 0 || id >= static_cast<long long>(p) * p || id / p == id % p)
                return "bad block id " + str(id) + ": " + row_text(r);
            if (!exists.count(id))
                return "block " + str(id / p) + ">" + str(id % p) + " is not part of this call: " + row_text(r);
        }
        if (r.to >= 0) {
            sends_by_round[r.round].push_back(&r);
            auto key = std::make_tuple(r.round, r.rank, r.to);
            sent_set[key].insert(r.blocks.begin(), r.blocks.end());
            sent_bytes[key] += r.sent;
        } else if (r.from >= 0) {
            auto key = std::make_tuple(r.round, r.from, r.rank);
            recv_set[key].insert(r.blocks.begin(), r.blocks.end());
            recv_bytes[key] += r.recv;
        }
    }
    for (const auto &rv : recv_set) {
        const auto &key = rv.first;
        std::string at = "round " + str(std::get<0>(key)) + " " + str(std::get<1>(key)) + "->" + str(std::get<2>(key));
        if (sent_set[key] != rv.second)
            return at + ": the receive rows list other blocks than the sender's rows send";
        if (sent_bytes[key] != recv_bytes[key])
            return at + ": bytes_recv " + str(static_cast<long long>(recv_bytes[key])) + " != bytes_sent " +
                   str(static_cast<long long>(sent_bytes[key]));
    }
    std::map<long long, std::set<int>> holders;
    std::map<long long, std::map<int, int>> came_from;  // block -> receiver -> sender
    std::map<long long, std::set<int>> forwarded;        // block -> ranks that sent it
    for (long long id : exists)
        holders[id].insert(static_cast<int>(id / p));
    for (auto &round : sends_by_round) {
        std::vector<const Row *> pending = round.second;
        for (bool progress = true; progress && !pending.empty();) {
            progress = false;
            std::vector<const Row *> left;
            for (const Row *r : pending) {
                bool ready = true;
                for (long long id : r->blocks)
                    ready = ready && holders[id].count(r->rank);
                if (!ready) {
                    left.push_back(r);
                    continue;
                }
                progress = true;
                for (long long id : r->blocks) {
                    forwarded[id].insert(r->rank);
                    auto seen = came_from[id].find(r->to);
                    if (seen != came_from[id].end()) {
                        if (seen->second != r->rank)
                            return "block " + str(id / p) + ">" + str(id % p) + " delivered to rank " + str(r->to) +
                                   " twice (from " + str(seen->second) + " and " + str(r->rank) + ")";
                        continue;  // another piece of it
                    }
                    if (holders[id].count(r->to))
                        return "block " + str(id / p) + ">" + str(id % p) + " sent back to rank " + str(r->to) +
                               ", which held it: " + row_text(*r);
                    came_from[id][r->to] = r->rank;
                    holders[id].insert(r->to);
                }
            }
            pending.swap(left);
        }
        if (!pending.empty()) {
            const Row &r = *pending.front();
            for (long long id : r.blocks)
                if (!holders[id].count(r.rank))
                    return "rank " + str(r.rank) + " sends block " + str(id / p) + ">" + str(id % p) +
                           " in round " + str(r.round) + " without holding it: " + row_text(r);
        }
    }
    for (const auto &h : holders) {
        const long long id = h.first;
        for (int at : h.second)
            if (at != id % p && at != id / p && !forwarded[id].count(at))
                return "block " + str(id / p) + ">" + str(id % p) + " stranded at rank " + str(at);
    }
    for (long long id : nonempty)
        if (!holders[id].count(static_cast<int>(id % p)))
            return "block " + str(id / p) + ">" + str(id % p) + " never reaches its destination";
    return "";
}

// The rows of every rank for trace prefix `prefix`, replayed on rank 0; records a failure.
void check_replay(const std::string &prefix, const std::string &what, const std::set<long long> &exists,
                  const std::set<long long> &nonempty, bool expect_rows = true)
{
    std::vector<Row> rows = gather_rows(prefix);
    if (mpixtest::rank() != 0)
        return;
    const int p = mpixtest::size();
    std::string wrong = replay(rows, p, exists, nonempty);
    MPIX_EXPECT(wrong.empty(), what + ": " + wrong);
    MPIX_EXPECT(!expect_rows || nonempty.empty() || !rows.empty(), what + ": no trace rows");
}

// Sets the row (key `coll`_algorithm) and the trace prefix on the communicator.
void select_traced(MPIX_Comm *xcomm, const std::string &coll, const char *algo, const std::string &prefix)
{
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, (coll + "_algorithm").c_str(), algo);
    MPIX_Info_set(info, "trace", prefix.c_str());
    MPIX_Info_set(info, "segment_size", "8");  // segmented rows send pieces of the larger blocks
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
}

std::set<long long> dense_blocks(const std::function<int(int, int)> &bytes, bool only_nonempty)
{
    const int p = mpixtest::size();
    std::set<long long> ids;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (s != d && (!only_nonempty || bytes(s, d) > 0))
                ids.insert(static_cast<long long>(s) * p + d);
    return ids;
}

// The sparse pattern: distinct destinations of rank r (itself included).
std::vector<int> sparse_dests(int r, int p)
{
    std::vector<int> d;
    for (int q : {r, (r + 1) % p, (r + 3) % p, (r * 5 + 2) % p})
        if (std::find(d.begin(), d.end(), q) == d.end())
            d.push_back(q);
    return d;
}
int sparse_count(int s, int d) { return static_cast<int>(mpixtest::mix(s, d, 11) % 3); }  // alltoallv_crs

// One sparse call of row `algo`; checks the sources and counts it reports.
void run_sparse(MPIX_Comm *xcomm, bool uniform, const std::string &what)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::vector<int> dest = sparse_dests(me, p), counts, displs;
    std::vector<int> vals;
    for (int d : dest) {
        int n = uniform ? 2 : sparse_count(me, d);
        counts.push_back(n);
        displs.push_back(static_cast<int>(vals.size()));
        for (int e = 0; e < n; ++e)
            vals.push_back(me * 1000 + d * 10 + e);
    }
    std::vector<int> want_src;
    for (int s = 0; s < p; ++s) {
        std::vector<int> ds = sparse_dests(s, p);
        if (std::find(ds.begin(), ds.end(), me) != ds.end())
            want_src.push_back(s);
    }
    int nnz = p, size = 3 * p;
    std::vector<int> src(p), rcounts(p), rdispls(p), rvals(3 * p);
    int rc = uniform ? MPIX_Alltoall_crs(static_cast<int>(dest.size()), dest.data(), 2, MPI_INT, vals.data(), &nnz,
                                         src.data(), 2, MPI_INT, rvals.data(), nullptr, xcomm)
                     : MPIX_Alltoallv_crs(static_cast<int>(dest.size()), static_cast<int>(vals.size()), dest.data(),
                                          counts.data(), displs.data(), MPI_INT, vals.data(), &nnz, &size, src.data(),
                                          rcounts.data(), rdispls.data(), MPI_INT, rvals.data(), nullptr, xcomm);
    MPIX_EXPECT(rc == MPI_SUCCESS, what + ": call failed");
    src.resize(rc == MPI_SUCCESS ? nnz : 0);
    MPIX_EXPECT(rc != MPI_SUCCESS || src == want_src, what + ": wrong sources");
    for (int i = 0; rc == MPI_SUCCESS && !uniform && i < nnz; ++i) {
        MPIX_EXPECT(rcounts[i] == sparse_count(src[i], me), what + ": wrong count");
        for (int e = 0; e < rcounts[i] && rcounts[i] == sparse_count(src[i], me); ++e)
            MPIX_EXPECT(rvals[rdispls[i] + e] == src[i] * 1000 + me * 10 + e, what + ": wrong value");
    }
}

// The neighbour graph: rank r's destinations, repeats and a self loop included.
std::vector<int> neighbor_dests(int r, int p)
{
    return {(r + 1) % p, (r + 1) % p, r, (r + 2) % p, (r + p / 2) % p};
}
int neighbor_count(int r, int k) { return static_cast<int>(mpixtest::mix(r, k, 21) % 4); }  // k-th destination

// One neighbour exchange of row `algo` (blocking, or persistent with global
// indices: element e of every block of rank r has index r*100+e); checks the data.
void run_neighbor(MPIX_Comm *xcomm, bool indexed, const std::string &what, std::set<long long> *exists,
                  std::set<long long> *nonempty)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::vector<int> sources, in_counts;  // k-th occurrence of s pairs with s's k-th occurrence of me
    for (int s = 0; s < p; ++s) {
        std::vector<int> d = neighbor_dests(s, p);
        for (std::size_t k = 0; k < d.size(); ++k) {
            const int n = neighbor_count(s, static_cast<int>(k));
            if (d[k] == me) {
                sources.push_back(s);
                in_counts.push_back(n);
            }
            if (s != d[k]) {
                exists->insert(static_cast<long long>(s) * p + d[k]);
                if (n > 0)
                    nonempty->insert(static_cast<long long>(s) * p + d[k]);
            }
        }
    }
    std::vector<int> dests = neighbor_dests(me, p), sc, sd, rd;
    std::vector<long long> sidx, ridx;
    std::vector<int> sbuf, rbuf;
    for (std::size_t k = 0; k < dests.size(); ++k) {
        sc.push_back(neighbor_count(me, static_cast<int>(k)));
        sd.push_back(static_cast<int>(sbuf.size()));
        for (int e = 0; e < sc.back(); ++e) {
            sbuf.push_back(me * 100 + e);
            sidx.push_back(me * 100 + e);
        }
    }
    for (std::size_t j = 0; j < sources.size(); ++j) {
        rd.push_back(static_cast<int>(rbuf.size()));
        for (int e = 0; e < in_counts[j]; ++e) {
            rbuf.push_back(-1);
            ridx.push_back(sources[j] * 100 + e);
        }
    }
    MPIX_Topo *topo = nullptr;
    int rc = MPIX_Topo_init(static_cast<int>(sources.size()), sources.data(), MPI_UNWEIGHTED,
                            static_cast<int>(dests.size()), dests.data(), MPI_UNWEIGHTED, xcomm, &topo);
    MPIX_EXPECT(rc == MPI_SUCCESS, what + ": MPIX_Topo_init failed");
    if (!indexed) {
        rc = MPIX_Neighbor_alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_INT, rbuf.data(), in_counts.data(),
                                     rd.data(), MPI_INT, topo, xcomm);
    } else {
        MPIX_Request *req = nullptr;
        rc = MPIX_Neighbor_alltoallv_init_indexed(sbuf.data(), sc.data(), sd.data(), MPI_INT, rbuf.data(),
                                                  in_counts.data(), rd.data(), MPI_INT, sidx.data(), ridx.data(), topo,
                                                  xcomm, nullptr, &req);
        if (rc == MPI_SUCCESS) {
            rc = MPIX_Start(req);
            if (rc == MPI_SUCCESS)
                rc = MPIX_Wait(&req, MPI_STATUS_IGNORE);
            MPIX_Request_free(&req);
        }
    }
    MPIX_EXPECT(rc == MPI_SUCCESS, what + ": exchange failed");
    for (std::size_t j = 0; j < sources.size(); ++j)
        for (int e = 0; e < in_counts[j]; ++e)
            MPIX_EXPECT(rbuf[rd[j] + e] == sources[j] * 100 + e, what + ": wrong value");
    MPIX_Topo_free(&topo);
}

// The replay itself fails on broken traces (synthetic rows, P = 3, rank 0 only):
// the blocks 0>2 and 1>2 relayed through rank 1, 2>0 direct.
void test_replay_rejects_broken_traces()
{
    if (mpixtest::rank() == 0) {
        const int p = 3;
        const std::set<long long> exists{0 * p + 2, 1 * p + 2, 2 * p + 0}, nonempty = exists;
        const std::vector<Row> good{
            {0, 0, 1, -1, {2}, 4, 0},       // 0 sends 0>2 to 1
            {1, 0, -1, 0, {2}, 0, 4},       // 1 receives it
            {1, 1, 2, -1, {2, 5}, 8, 0},    // 1 forwards 0>2 with its own 1>2
            {2, 1, -1, 1, {2, 5}, 0, 8},
            {2, 0, 0, -1, {6}, 3, 0},       // 2>0 direct, no receive row (as a row with both peers)
        };
        MPIX_EXPECT(replay(good, p, exists, nonempty).empty(), "replay rejects a valid trace: " +
                                                                   replay(good, p, exists, nonempty));
        auto broken = [&](const char *why, const std::function<void(std::vector<Row> &)> &edit) {
            std::vector<Row> rows = good;
            edit(rows);
            MPIX_EXPECT(!replay(rows, p, exists, nonempty).empty(), std::string("replay accepts a trace with ") + why);
        };
        broken("a block that never arrives", [](std::vector<Row> &r) { r.pop_back(); });
        broken("a relay sending before it holds", [](std::vector<Row> &r) { r[0].round = r[1].round = 2; });
        broken("a receive row not matching its send", [](std::vector<Row> &r) { r[3].blocks = {2}; });
        broken("bytes received not matching bytes sent", [](std::vector<Row> &r) { r[1].recv = 5; });
        broken("a block delivered twice", [](std::vector<Row> &r) { r.push_back({0, 1, 2, -1, {2}, 4, 0}); });
        broken("a block stranded at a relay", [](std::vector<Row> &r) { r.push_back({2, 2, 1, -1, {6}, 3, 0}); });
        broken("a block sent back to its source", [](std::vector<Row> &r) { r.push_back({2, 2, 1, -1, {5}, 3, 0}); });
        broken("a self block", [](std::vector<Row> &r) { r[4].blocks = {8}; });
        broken("a block not in the call", [](std::vector<Row> &r) { r[4].blocks = {7}; });
        broken("a send to oneself", [](std::vector<Row> &r) { r[4].to = 2; });
    }
    MPIX_CHECK_ALL("the replay rejects broken traces");
}

void test_replay_every_row()
{
    const int p = mpixtest::size();
    std::string dir = mpixtest::shared_temp_dir();
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    if (p >= 4)
        MPIX_Comm_update_locality(xcomm, 2);
    int case_no = 0;
    auto prefix_for = [&](const std::string &coll, const char *algo) {
        return dir + "/" + std::to_string(case_no++) + "-" + coll + "-" + algo;
    };
    // alltoall: uniform blocks; alltoallv: small blocks with zeros, and larger ones
    // cut into 8-byte pieces by the segmented rows.
    const std::function<int(int, int)> uniform = [](int, int) { return 3; };
    const std::function<int(int, int)> zeros = [](int s, int d) {
        return static_cast<int>(mpixtest::mix(s, d, 3) % 4);
    };
    const std::function<int(int, int)> larger = [](int s, int d) {
        return 5 + static_cast<int>(mpixtest::mix(s, d, 4) % 20);
    };
    for (const char *coll : {"alltoall", "alltoallv"}) {
        const bool a2a = std::string(coll) == "alltoall";
        for (int i = 0; const char *algo = MPIX_Algorithm_name(coll, i); ++i)
            for (const auto *bytes : a2a ? std::vector<const std::function<int(int, int)> *>{&uniform}
                                         : std::vector<const std::function<int(int, int)> *>{&zeros, &larger}) {
                std::string prefix = prefix_for(coll, algo);
                std::string what = std::string(coll) + " " + algo + " P=" + std::to_string(p) +
                                   (bytes == &zeros ? " (zero blocks)" : "");
                select_traced(xcomm, coll, algo, prefix);
                mpixtest::exchange_and_check(xcomm, a2a, *bytes, what);
                check_replay(prefix, what, dense_blocks(*bytes, false), dense_blocks(*bytes, true));
                MPIX_CHECK_ALL(what.c_str());
            }
    }
    for (const char *coll : {"alltoall_crs", "alltoallv_crs"}) {
        const bool uniform_crs = std::string(coll) == "alltoall_crs";
        std::set<long long> exists, nonempty;
        for (int s = 0; s < p; ++s)
            for (int d : sparse_dests(s, p))
                if (d != s) {
                    exists.insert(static_cast<long long>(s) * p + d);
                    if (uniform_crs || sparse_count(s, d) > 0)
                        nonempty.insert(static_cast<long long>(s) * p + d);
                }
        for (int i = 0; const char *algo = MPIX_Algorithm_name(coll, i); ++i) {
            std::string prefix = prefix_for(coll, algo);
            std::string what = std::string(coll) + " " + algo + " P=" + std::to_string(p);
            select_traced(xcomm, coll, algo, prefix);
            run_sparse(xcomm, uniform_crs, what);
            check_replay(prefix, what, exists, nonempty);
            MPIX_CHECK_ALL(what.c_str());
        }
    }
    for (int i = 0; const char *algo = MPIX_Algorithm_name("neighbor_alltoallv", i); ++i)
        for (bool indexed : {false, true}) {
            std::string prefix = prefix_for("neighbor", algo);
            std::string what = std::string("neighbor_alltoallv ") + algo + " P=" + std::to_string(p) +
                               (indexed ? " (indexed, persistent)" : "");
            select_traced(xcomm, "neighbor_alltoallv", algo, prefix);
            std::set<long long> exists, nonempty;
            run_neighbor(xcomm, indexed, what, &exists, &nonempty);
            check_replay(prefix, what, exists, nonempty);
            MPIX_CHECK_ALL(what.c_str());
        }
    MPIX_Comm_free(&xcomm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpixtest::rank() == 0)
        rmdir(dir.c_str());
}

// The trace file tag of a communicator whose MPI_COMM_WORLD ranks are `world_ranks`
// in order, computed here independently: FNV-1a over each rank's four bytes,
// lowest first, as "g" and eight hex digits.
std::string expected_group_tag(const std::vector<int> &world_ranks)
{
    unsigned long hash = 2166136261ul;
    for (int w : world_ranks)
        for (int b = 0; b < 4; ++b) {
            hash ^= (static_cast<unsigned long>(static_cast<unsigned>(w)) >> (8 * b)) & 0xfful;
            hash = (hash * 16777619ul) & 0xfffffffful;
        }
    char text[16];
    std::snprintf(text, sizeof text, "g%08lx", hash);
    return text;
}

// Lines in `file` (0 when it does not exist).
std::size_t line_count(const std::string &file)
{
    return read_trace(file).size();
}

// Communicators over other groups than MPI_COMM_WORLD's trace to their own
// files, PREFIX.g<hash of their world ranks>.<rank>.jsonl, so a program's row
// and column communicators (or halves) never append to one file: MPI_COMM_WORLD's
// duplicate keeps PREFIX.<rank>.jsonl, the world in reverse order and (P >= 2)
// two halves each get theirs, and every file holds exactly its own call's rows.
void test_sub_communicator_trace_files()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    const std::string prefix = mpixtest::shared_temp_dir() + "/t";
    const std::function<int(int, int)> bytes = [](int s, int d) { return 1 + (s + 2 * d) % 3; };
    MPI_Comm reversed, half;
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &reversed);
    MPI_Comm_split(MPI_COMM_WORLD, me < p / 2, me, &half);
    struct Case {
        const char *what;
        MPI_Comm comm;
        std::string file;
    };
    std::vector<Case> cases;
    cases.push_back({"MPI_COMM_WORLD's duplicate", MPI_COMM_WORLD, prefix + "." + std::to_string(me) + ".jsonl"});
    std::vector<int> reversed_world(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r)
        reversed_world[static_cast<std::size_t>(r)] = p - 1 - r;
    const std::string reversed_tag = expected_group_tag(reversed_world);
    if (p >= 2)  // one rank: the world's own group and order
        cases.push_back({"the world in reverse order", reversed,
                         prefix + "." + reversed_tag + "." + std::to_string(p - 1 - me) + ".jsonl"});
    std::vector<int> half_world;
    for (int r = 0; r < p; ++r)
        if ((r < p / 2) == (me < p / 2))
            half_world.push_back(r);
    const int half_rank = static_cast<int>(std::find(half_world.begin(), half_world.end(), me) - half_world.begin());
    const std::string half_tag = expected_group_tag(half_world);
    if (p >= 2)
        cases.push_back(
            {"a half of the world", half, prefix + "." + half_tag + "." + std::to_string(half_rank) + ".jsonl"});
    if (p >= 2)
        MPIX_EXPECT(expected_group_tag({0}) != expected_group_tag({1}), "the tags of two halves differ");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        MPI_Comm comm;
        MPI_Comm_dup(cases[i].comm, &comm);
        MPIX_Comm *xcomm;
        CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, comm), MPI_SUCCESS);
        select_traced(xcomm, "alltoallv", "pairwise", prefix);
        std::vector<std::size_t> before(cases.size());
        for (std::size_t k = 0; k < cases.size(); ++k)
            before[k] = line_count(cases[k].file);
        mpixtest::exchange_and_check(xcomm, false, bytes, cases[i].what);
        int q = 0;
        MPI_Comm_size(comm, &q);
        MPIX_Comm_free(&xcomm);
        MPI_Comm_free(&comm);
        MPI_Barrier(MPI_COMM_WORLD);  // every rank's file is written
        for (std::size_t k = 0; k < cases.size(); ++k) {
            const std::size_t grown = line_count(cases[k].file) - before[k];
            if (k == i) {
                // pairwise: one round per other rank of the communicator
                MPIX_EXPECT(grown == static_cast<std::size_t>(q - 1),
                            std::string(cases[i].what) + ": " + cases[k].file + " got " + std::to_string(grown) +
                                " lines, expected " + std::to_string(q - 1));
                for (const Line &l : read_trace(cases[k].file))
                    MPIX_EXPECT(l.send_peer >= 0 && l.send_peer < q && l.recv_peer >= 0 && l.recv_peer < q,
                                std::string(cases[i].what) + ": a peer outside the communicator");
            } else if (cases[k].file != cases[i].file) {
                MPIX_EXPECT(grown == 0, std::string(cases[i].what) + " wrote into " + cases[k].file);
            }
        }
        MPIX_CHECK_ALL(cases[i].what);
    }
    for (const Case &c : cases)
        std::remove(c.file.c_str());
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        rmdir(prefix.substr(0, prefix.size() - 2).c_str());
}

// The sizes that travel in front of blocks (bundle_bruck's headers, node_bruck's
// and ParLinNa's size lists): each as wide as the list's largest needs, so 16-byte
// blocks carry a byte of size each, not eight; every width round-trips, and a
// header that is not a valid encoding is refused, never read past its end.
void test_size_headers()
{
    struct Case {
        std::vector<std::size_t> sizes;
        unsigned width;
    };
    const Case cases[] = {
        {{}, 1},
        {{0, 7, 255}, 1},
        {{0, 256}, 2},
        {{65535, 3}, 2},
        {{65536}, 4},
        {{0xffffffffu, 1}, 4},
        {{std::size_t(1) << 32, 0, 300}, 8},
        {{~std::size_t(0)}, 8},
    };
    for (const Case &c : cases) {
        std::vector<unsigned char> out(3, 0xee);  // longer than some encodings: must shrink
        mpix::encode_sizes(c.sizes, &out);
        std::string what = "encode_sizes of " + std::to_string(c.sizes.size()) + " sizes, width " +
                           std::to_string(c.width);
        MPIX_EXPECT(out.size() == 1 + c.sizes.size() * c.width, what + ": length");
        MPIX_EXPECT(!out.empty() && out[0] == c.width, what + ": width byte");
        std::vector<std::size_t> back{99};
        std::size_t used = 0;
        const char *p = reinterpret_cast<const char *>(out.data());
        MPIX_EXPECT(mpix::decode_sizes(p, out.size(), c.sizes.size(), &back, &used) && back == c.sizes &&
                            used == out.size(),
                        what + ": round trip");
        if (!c.sizes.empty())
            MPIX_EXPECT(!mpix::decode_sizes(p, out.size() - 1, c.sizes.size(), &back, &used),
                            what + ": one byte short is refused");
    }
    std::vector<std::size_t> back;
    std::size_t used = 0;
    for (unsigned char width : {0, 3, 5, 16}) {
        const char bad[9] = {static_cast<char>(width), 1, 2, 3, 4, 5, 6, 7, 8};
        MPIX_EXPECT(!mpix::decode_sizes(bad, sizeof bad, 1, &back, &used),
                        "decode_sizes refuses width " + std::to_string(width));
    }
    MPIX_EXPECT(!mpix::decode_sizes(nullptr, 0, 0, &back, &used), "decode_sizes refuses an empty header");
    MPIX_CHECK_ALL("size headers");
}

const mpixtest::TestCase kTests[] = {
    {"ParLogNa K against an independent digit count, P <= 64", test_round_count_formula},
    {"round positions by runs of each digit value, against each position's digit (n <= 300)", test_round_positions_without_division},
    {"size headers: each size as narrow as the largest, round trip, malformed headers refused", test_size_headers},
    {"ParLogNa traces: K, D, temporary bound, each block once", test_parlogna_every_radix},
    {"node-aware family and node_bruck traces: each block once, one message per unit pair", test_relay_family},
    {"node_bruck's MPIX_Alltoallv mode follows the agreed volume: every 8th direct call on one node, every call between nodes", test_node_bruck_modes},
    {"node_bruck's mode under skew follows the largest node mean, not the largest rank", test_node_bruck_skew_mode},
    {"ParLinNa's radix follows the volume its node agreed in the previous call", test_parlinna_radix_follows_volume},
    {"node_bruck: a rank past direct_above receives its last phase in place, in any layout", test_node_bruck_in_place},
    {"node_bruck's direct mode sends only the non-empty blocks where the agreed count says so",
     test_node_bruck_direct_nonempty},
    {"node_bruck_adaptive's rule on hand-made volumes", test_node_bruck_adaptive_rule},
    {"node_bruck_adaptive picks by the agreed rank volumes where they decide, else by node_bruck's node means, refreshed every 8th call and after a 2x volume change",
     test_node_bruck_adaptive_picks},
    {"the trace replay rejects broken traces", test_replay_rejects_broken_traces},
    {"every row of every collective: its trace replays, each block ends at its destination", test_replay_every_row},
    {"sub-communicators trace to files of their own group", test_sub_communicator_trace_files},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "trace", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
