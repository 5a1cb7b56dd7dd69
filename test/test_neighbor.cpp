// MPIX_Topo and MPIX_Neighbor_alltoallv(_init, _init_indexed): random graphs
// (zero-degree ranks, self loops, repeated neighbours) on real and emulated
// uneven nodes, every registry row and auto, blocking and persistent, int and a
// non-contiguous resized vector; every received element checked against a
// formula, guard bytes around and between receive blocks; then the errors.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "harness.hpp"
#include "placed_type.hpp"
#include "select/neighbor_dispatch.hpp"
#include "select/registry.hpp"

namespace {

using mpixtest::mix;

const int kGuard = -7777;

// A directed multigraph every rank computes whole from the seed.
struct Graph {
    std::vector<std::vector<int>> out;  // out[s]: destinations of s, in s's order
    std::vector<std::vector<int>> in;   // in[d]: sources of d, in d's order
};

Graph random_graph(std::uint64_t seed, int p)
{
    Graph g;
    g.out.resize(p);
    g.in.resize(p);
    for (int s = 0; s < p; ++s) {
        // About one rank in four sends nothing; repeats and self loops happen.
        const int degree = mix(seed, s, 1) % 4 == 0 ? 0 : 1 + (int)(mix(seed, s, 2) % 5);
        for (int i = 0; i < degree; ++i)
            g.out[s].push_back((int)(mix(seed, s, 100 + i) % p));
        if (mix(seed, s, 3) % 3 == 0)
            g.out[s].push_back(s);  // a self loop
        if (!g.out[s].empty() && mix(seed, s, 4) % 2 == 0)
            g.out[s].push_back(g.out[s][0]);  // a repeated neighbour
    }
    for (int s = 0; s < p; ++s)
        for (int d : g.out[s])
            g.in[d].push_back(s);
    // Each rank lists its sources in its own order (occurrences of one source keep theirs).
    for (int d = 0; d < p; ++d)
        std::stable_sort(g.in[d].begin(), g.in[d].end(),
                         [&](int a, int b) { return mix(seed, d, a) % 97 < mix(seed, d, b) % 97; });
    return g;
}

// The k-th occurrence of `who` among list[0..i).
int occurrence(const std::vector<int> &list, std::size_t i)
{
    return (int)std::count(list.begin(), list.begin() + i, list[i]);
}

int elements(std::uint64_t seed, int s, int d, int occ) { return (int)(mix(seed, s, d * 16 + occ) % 5); }

int value(int s, int d, int occ, int e, int round)
{
    return (int)((s * 7919L + d * 131L + occ * 17L + e * 3L + round * 100003L + 1) & 0x3fffffff);
}

// One side's element type: data components per element and their int offsets.
struct ElemType {
    MPI_Datatype type;
    int stride;  // ints per extent
    int ncomp;
    int comp[2];
    bool owned;
};

ElemType make_type(bool vector)
{
    if (!vector)
        return ElemType{MPI_INT, 1, 1, {0, 0}, false};
    // Two ints with a hole between, resized to a -1 int lower bound and a 4-int
    // extent: holes inside and between elements.
    MPI_Datatype vec, t;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, -(MPI_Aint)sizeof(int), 4 * (MPI_Aint)sizeof(int), &t);
    MPI_Type_free(&vec);
    MPI_Type_commit(&t);
    return ElemType{t, 4, 2, {0, 2}, true};
}

int component(int v, int c) { return c == 0 ? v : v ^ 0x5555; }

// One rank's buffers for a graph: blocks separated by guard gaps.
struct Buffers {
    std::vector<int> scounts, sdispls, rcounts, rdispls;
    std::vector<int> sendbuf, recvbuf;
    std::vector<int> sendocc, recvocc;
};

Buffers make_buffers(const Graph &g, std::uint64_t seed, int me, const ElemType &t)
{
    Buffers b;
    const auto &out = g.out[me], &in = g.in[me];
    int at = 1;  // in extents; one extent of guard in front (the type's lb is negative)
    for (std::size_t i = 0; i < out.size(); ++i) {
        b.sendocc.push_back(occurrence(out, i));
        b.scounts.push_back(elements(seed, me, out[i], b.sendocc[i]));
        b.sdispls.push_back(at);
        at += b.scounts[i] + 1;
    }
    b.sendbuf.assign((std::size_t)(at + 1) * t.stride, kGuard);
    at = 1;
    for (std::size_t j = 0; j < in.size(); ++j) {
        b.recvocc.push_back(occurrence(in, j));
        b.rcounts.push_back(elements(seed, in[j], me, b.recvocc[j]));
        b.rdispls.push_back(at);
        at += b.rcounts[j] + 1;  // a guard extent between blocks
    }
    b.recvbuf.assign((std::size_t)(at + 1) * t.stride, kGuard);
    return b;
}

void fill_send(Buffers &b, const Graph &g, int me, const ElemType &t, int round)
{
    for (std::size_t i = 0; i < b.scounts.size(); ++i)
        for (int e = 0; e < b.scounts[i]; ++e)
            for (int c = 0; c < t.ncomp; ++c)
                b.sendbuf[(std::size_t)(b.sdispls[i] + e) * t.stride + t.comp[c]] =
                    component(value(me, g.out[me][i], b.sendocc[i], e, round), c);
}

// Every element as the formula says, every other int still the guard; resets
// the receive buffer to guards for the next round.
void check_recv(Buffers &b, const Graph &g, int me, const ElemType &t, int round, const std::string &what)
{
    std::vector<int> expect(b.recvbuf.size(), kGuard);
    for (std::size_t j = 0; j < b.rcounts.size(); ++j)
        for (int e = 0; e < b.rcounts[j]; ++e)
            for (int c = 0; c < t.ncomp; ++c)
                expect[(std::size_t)(b.rdispls[j] + e) * t.stride + t.comp[c]] =
                    component(value(g.in[me][j], me, b.recvocc[j], e, round), c);
    for (std::size_t k = 0; k < expect.size(); ++k)
        if (b.recvbuf[k] != expect[k]) {
            MPIX_EXPECT(false, what + " round " + std::to_string(round) + ": int " + std::to_string(k) + " is " +
                                   std::to_string(b.recvbuf[k]) + ", expected " + std::to_string(expect[k]));
            break;
        }
    std::fill(b.recvbuf.begin(), b.recvbuf.end(), kGuard);
}

std::vector<std::string> backends()
{
    std::vector<std::string> names;
    for (int i = 0; const char *n = MPIX_Algorithm_name("neighbor_alltoallv", i); ++i)
        names.push_back(n);
    names.push_back("auto");
    return names;
}

// bottom: buffers passed as MPI_BOTTOM with types at their absolute addresses.
void run_graph(MPIX_Comm *xcomm, std::uint64_t seed, bool vector, bool persistent, bool use_test,
               const std::string &backend, const std::string &what, bool bottom = false)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    const Graph g = random_graph(seed, p);
    const ElemType t = make_type(vector);
    Buffers b = make_buffers(g, seed, me, t);
    MPI_Datatype stype = bottom ? mpixtest::placed_at(t.type, b.sendbuf.data()) : t.type;
    MPI_Datatype rtype = bottom ? mpixtest::placed_at(t.type, b.recvbuf.data()) : t.type;
    void *sbuf = bottom ? MPI_BOTTOM : b.sendbuf.data();
    void *rbuf = bottom ? MPI_BOTTOM : b.recvbuf.data();
    MPIX_Topo *topo = nullptr;
    int rc = MPIX_Topo_init((int)g.in[me].size(), g.in[me].data(), MPI_UNWEIGHTED, (int)g.out[me].size(),
                            g.out[me].data(), MPI_UNWEIGHTED, xcomm, &topo);
    MPIX_EXPECT(rc == MPI_SUCCESS, what + ": MPIX_Topo_init failed");
    mpixtest::select_row(xcomm, "neighbor_alltoallv", backend.c_str());
    if (!persistent) {
        for (int round = 0; round < 2; ++round) {
            fill_send(b, g, me, t, round);
            rc = MPIX_Neighbor_alltoallv(sbuf, b.scounts.data(), b.sdispls.data(), stype, rbuf, b.rcounts.data(),
                                         b.rdispls.data(), rtype, topo, xcomm);
            MPIX_EXPECT(rc == MPI_SUCCESS, what + ": MPIX_Neighbor_alltoallv failed");
            check_recv(b, g, me, t, round, what);
        }
    } else {
        MPIX_Request *req = nullptr;
        rc = MPIX_Neighbor_alltoallv_init(sbuf, b.scounts.data(), b.sdispls.data(), stype, rbuf, b.rcounts.data(),
                                          b.rdispls.data(), rtype, topo, xcomm, nullptr, &req);
        MPIX_EXPECT(rc == MPI_SUCCESS, what + ": MPIX_Neighbor_alltoallv_init failed");
        for (int round = 0; req && round < 5; ++round) {
            fill_send(b, g, me, t, round);
            MPIX_EXPECT(MPIX_Start(req) == MPI_SUCCESS, what + ": MPIX_Start failed");
            if (use_test) {
                int flag = 0;
                while (!flag)
                    MPIX_EXPECT(MPIX_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS, what + ": MPIX_Test failed");
            } else {
                MPIX_EXPECT(MPIX_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, what + ": MPIX_Wait failed");
            }
            check_recv(b, g, me, t, round, what);
        }
        if (req)
            MPIX_Request_free(&req);
    }
    if (topo)
        MPIX_Topo_free(&topo);
    if (bottom) {
        MPI_Type_free(&stype);
        MPI_Type_free(&rtype);
    }
    MPI_Datatype type = t.type;
    if (t.owned)
        MPI_Type_free(&type);
}

void test_random_graphs()
{
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    const std::vector<std::string> names = backends();
    for (int ppn : {0, 2, 3}) {
        MPIX_Comm_update_locality(xcomm, ppn);
        for (std::uint64_t seed : {11, 12, 13})
            for (const std::string &name : names)
                for (int mode = 0; mode < 3; ++mode) {  // blocking, persistent + wait, persistent + test
                    const bool vector = (seed + mode) % 2 == 1;
                    // MPI_BOTTOM and absolute types on one seed, every backend and mode.
                    const bool bottom = seed == 13;
                    const std::string what = "ppn " + std::to_string(ppn) + " seed " + std::to_string(seed) + " " +
                                             name + (mode == 0 ? " blocking" : mode == 1 ? " wait" : " test") +
                                             (vector ? " vector" : " int") + (bottom ? " MPI_BOTTOM" : "");
                    run_graph(xcomm, seed, vector, mode > 0, mode == 2, name, what, bottom);
                }
        MPIX_CHECK_ALL(("random graphs, ppn " + std::to_string(ppn)).c_str());
    }
    MPIX_Comm_free(&xcomm);
}

// Every rank sends to every other rank blocks that share most of their global
// indices: the locality backend sends each shared value across nodes once.
void test_indexed()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    MPIX_Comm_update_locality(xcomm, 2);
    std::vector<int> peers;
    for (int q = 0; q < p; ++q)
        if (q != me)
            peers.push_back(q);
    const int n = (int)peers.size(), shared = 4;
    // Block to d: shared indices me*1000 + 0..3, then d-specific me*1000 + 100 + d.
    std::vector<int> counts(n, shared + 1), displs(n);
    std::vector<long long> sidx, ridx;
    std::vector<int> sendbuf, recvbuf((std::size_t)n * (shared + 2), kGuard);
    auto val = [](long long gi, int round) { return (int)((gi * 31 + round * 7 + 5) & 0x3fffffff); };
    for (int i = 0; i < n; ++i) {
        displs[i] = i * (shared + 2);  // a guard int after every block
        for (int e = 0; e <= shared; ++e) {
            sidx.push_back(me * 1000LL + (e < shared ? e : 100 + peers[i]));
            ridx.push_back(peers[i] * 1000LL + (e < shared ? e : 100 + me));
        }
    }
    sendbuf.assign(recvbuf.size(), kGuard);
    MPIX_Topo *topo;
    MPIX_Topo_init(n, peers.data(), MPI_UNWEIGHTED, n, peers.data(), MPI_UNWEIGHTED, xcomm, &topo);
    unsigned long long bytes[3] = {0, 0, 0};  // total off-node bytes: standard, locality, locality indexed
    for (int variant = 0; variant < 3; ++variant) {
        mpixtest::select_row(xcomm, "neighbor_alltoallv", variant == 0 ? "standard" : "locality");
        MPIX_Request *req = nullptr;
        int rc = variant < 2 ? MPIX_Neighbor_alltoallv_init(sendbuf.data(), counts.data(), displs.data(), MPI_INT,
                                                          recvbuf.data(), counts.data(), displs.data(), MPI_INT, topo,
                                                          xcomm, nullptr, &req)
                             : MPIX_Neighbor_alltoallv_init_indexed(sendbuf.data(), counts.data(), displs.data(),
                                                                   MPI_INT, recvbuf.data(), counts.data(),
                                                                   displs.data(), MPI_INT, sidx.data(), ridx.data(),
                                                                   topo, xcomm, nullptr, &req);
        MPIX_EXPECT(rc == MPI_SUCCESS, "indexed init failed");
        if (!req)
            continue;
        unsigned long long mine = mpix::neighbor_internode_bytes(req);
        MPI_Allreduce(&mine, &bytes[variant], 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (int round = 0; round < 5; ++round) {
            for (int i = 0; i < n; ++i)
                for (int e = 0; e <= shared; ++e)
                    sendbuf[displs[i] + e] = val(sidx[(std::size_t)i * (shared + 1) + e], round);
            MPIX_Start(req);
            MPIX_Wait(&req, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; ++i) {
                for (int e = 0; e <= shared; ++e) {
                    const int got = recvbuf[displs[i] + e], want = val(ridx[(std::size_t)i * (shared + 1) + e], round);
                    MPIX_EXPECT(got == want, "indexed variant " + std::to_string(variant) + ": element " +
                                                 std::to_string(e) + " from " + std::to_string(peers[i]) + " is " +
                                                 std::to_string(got) + ", expected " + std::to_string(want));
                }
                MPIX_EXPECT(recvbuf[displs[i] + shared + 1] == kGuard, "indexed: guard overwritten");
            }
            std::fill(recvbuf.begin(), recvbuf.end(), kGuard);
        }
        MPIX_Request_free(&req);
    }
    MPIX_EXPECT(bytes[1] == bytes[0], "locality moved " + std::to_string(bytes[1]) + " bytes across nodes, standard " +
                                          std::to_string(bytes[0]));
    // With two ranks on a remote node, its 4 shared values cross once, not twice.
    if (p >= 4)
        MPIX_EXPECT(bytes[2] < bytes[1], "indexed locality moved " + std::to_string(bytes[2]) +
                                             " bytes across nodes, not fewer than " + std::to_string(bytes[1]));
    MPIX_Topo_free(&topo);
    MPIX_Comm_free(&xcomm);
    MPIX_CHECK_ALL("indexed exchange");
}

// The sparse-solver case: requests discovered by MPIX_Alltoallv_crs, answers
// sent back over the reversed pattern (and the same pattern forward).
void test_topo_from_crs()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    std::vector<int> dest;
    for (int q = 0; q < p; ++q)
        if (mix(5, me, q) % 2 == 0)
            dest.push_back(q);
    std::vector<int> sendcounts(dest.size(), 1), sdispls(dest.size()), sendvals(dest.size(), me);
    std::iota(sdispls.begin(), sdispls.end(), 0);
    int recv_nnz = p, recv_size = p;
    std::vector<int> src(p), recvcounts(p), rdispls(p), recvvals(p);
    int rc = MPIX_Alltoallv_crs((int)dest.size(), (int)dest.size(), dest.data(), sendcounts.data(), sdispls.data(),
                                MPI_INT, sendvals.data(), &recv_nnz, &recv_size, src.data(), recvcounts.data(),
                                rdispls.data(), MPI_INT, recvvals.data(), nullptr, xcomm);
    MPIX_EXPECT(rc == MPI_SUCCESS, "MPIX_Alltoallv_crs failed");
    for (int reply = 0; reply < 2; ++reply) {
        MPIX_Topo *topo = nullptr;
        rc = MPIX_Topo_init_crs((int)dest.size(), dest.data(), recv_nnz, src.data(), reply, xcomm, &topo);
        MPIX_EXPECT(rc == MPI_SUCCESS, "MPIX_Topo_init_crs failed");
        if (!topo)
            continue;
        const std::vector<int> &to = reply ? std::vector<int>(src.begin(), src.begin() + recv_nnz) : dest;
        const std::vector<int> &from = reply ? dest : std::vector<int>(src.begin(), src.begin() + recv_nnz);
        std::vector<int> sc(to.size(), 2), sd(to.size()), rcnt(from.size(), 2), rd(from.size());
        std::vector<int> sb(2 * to.size()), rb(2 * from.size() + 1, kGuard);
        for (std::size_t i = 0; i < to.size(); ++i) {
            sd[i] = 2 * (int)i;
            sb[2 * i] = me * 100 + to[i];
            sb[2 * i + 1] = reply;
        }
        for (std::size_t j = 0; j < from.size(); ++j)
            rd[j] = 2 * (int)j;
        for (const char *name : {"standard", "locality"}) {
            mpixtest::select_row(xcomm, "neighbor_alltoallv", name);
            MPIX_Comm_update_locality(xcomm, 2);
            rc = MPIX_Neighbor_alltoallv(sb.data(), sc.data(), sd.data(), MPI_INT, rb.data(), rcnt.data(), rd.data(),
                                         MPI_INT, topo, xcomm);
            MPIX_EXPECT(rc == MPI_SUCCESS, "neighbour exchange over the crs topology failed");
            for (std::size_t j = 0; j < from.size(); ++j)
                MPIX_EXPECT(rb[2 * j] == from[j] * 100 + me && rb[2 * j + 1] == reply,
                            std::string(name) + ": crs topology, wrong value from " + std::to_string(from[j]));
            MPIX_EXPECT(rb.back() == kGuard, "crs topology: guard overwritten");
        }
        MPIX_Topo_free(&topo);
    }
    MPIX_Comm_free(&xcomm);
    MPIX_CHECK_ALL("MPIX_Topo_init_crs from MPIX_Alltoallv_crs");
}

#define EXPECT_CLASS(call, cls)                                                                            \
    do {                                                                                                   \
        int rc_ = mpixtest::error_class(call);                                                                       \
        MPIX_EXPECT(rc_ == (cls), std::string(#call) + " gave class " + std::to_string(rc_) + ", expected " #cls); \
    } while (0)

void test_errors()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    mpixtest::errors_return();
    MPIX_Comm *xcomm, *other;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    MPIX_Comm_init(&other, MPI_COMM_WORLD);
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    MPIX_Topo *topo = nullptr, *bad = nullptr;
    const int out_of_range = p;
    EXPECT_CLASS(MPIX_Topo_init(1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, nullptr, &topo), MPI_ERR_ARG);
    EXPECT_CLASS(MPIX_Topo_init(-1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, xcomm, &bad), MPI_ERR_ARG);
    EXPECT_CLASS(MPIX_Topo_init(1, nullptr, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, xcomm, &bad), MPI_ERR_ARG);
    EXPECT_CLASS(MPIX_Topo_init(1, &left, MPI_UNWEIGHTED, 1, &out_of_range, MPI_UNWEIGHTED, xcomm, &bad),
                 MPI_ERR_RANK);
    // Only rank 0 has a wrong list: every rank gets an error.
    const int wrong = me == 0 ? p : right;
    const int expect_wrong = me == 0 ? MPI_ERR_RANK : MPI_ERR_TOPOLOGY;
    EXPECT_CLASS(MPIX_Topo_init(1, &left, MPI_UNWEIGHTED, 1, &wrong, MPI_UNWEIGHTED, xcomm, &bad), expect_wrong);
    if (p > 1)  // rank 0 sends to itself, its right neighbour no longer hears from it
        EXPECT_CLASS(MPIX_Topo_init(1, me == 1 ? &left : &left, MPI_UNWEIGHTED, 1, me == 0 ? &me : &right,
                                    MPI_UNWEIGHTED, xcomm, &bad),
                     MPI_ERR_TOPOLOGY);
    MPIX_EXPECT(bad == nullptr, "a failed MPIX_Topo_init returned a topology");
    MPIX_Topo_init(1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, xcomm, &topo);
    MPIX_Topo *topo_other = nullptr;
    MPIX_Topo_init(1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, other, &topo_other);

    int sc = 2, sd = 0, rcnt = 2, rd = 0, neg = -1;
    std::vector<int> sb(4, 1), rb(4, kGuard);
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    const char *fn = "MPIX_Neighbor_alltoallv";
    (void)fn;
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &sc, &sd, MPI_INT, rb.data(), &rcnt, &rd, MPI_INT, nullptr, xcomm),
                 MPI_ERR_ARG);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &sc, &sd, MPI_INT, rb.data(), &rcnt, &rd, MPI_INT, topo, nullptr),
                 MPI_ERR_ARG);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &sc, &sd, MPI_INT, rb.data(), &rcnt, &rd, MPI_INT, topo_other,
                                         xcomm),
                 MPI_ERR_TOPOLOGY);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &neg, &sd, MPI_INT, rb.data(), &rcnt, &rd, MPI_INT, topo, xcomm),
                 MPI_ERR_COUNT);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &sc, &sd, MPI_INT, rb.data(), &neg, &rd, MPI_INT, topo, xcomm),
                 MPI_ERR_COUNT);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &sc, &sd, MPI_DATATYPE_NULL, rb.data(), &rcnt, &rd, MPI_INT, topo,
                                         xcomm),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &sc, &sd, MPI_INT, rb.data(), &rcnt, &rd, uncommitted, topo,
                                         xcomm),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(MPI_IN_PLACE, &sc, &sd, MPI_INT, rb.data(), &rcnt, &rd, MPI_INT, topo, xcomm),
                 MPI_ERR_BUFFER);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &sc, &sd, MPI_INT, MPI_IN_PLACE, &rcnt, &rd, MPI_INT, topo, xcomm),
                 MPI_ERR_BUFFER);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), nullptr, &sd, MPI_INT, rb.data(), &rcnt, &rd, MPI_INT, topo,
                                         xcomm),
                 MPI_ERR_ARG);
    MPIX_Request *req = nullptr;
    EXPECT_CLASS(MPIX_Neighbor_alltoallv_init(sb.data(), &sc, &sd, MPI_INT, MPI_IN_PLACE, &rcnt, &rd, MPI_INT, topo,
                                              xcomm, nullptr, &req),
                 MPI_ERR_BUFFER);
    EXPECT_CLASS(MPIX_Neighbor_alltoallv_init_indexed(sb.data(), &sc, &sd, MPI_INT, rb.data(), &rcnt, &rd, MPI_INT,
                                                      nullptr, nullptr, topo, xcomm, nullptr, &req),
                 MPI_ERR_ARG);
    MPIX_EXPECT(req == nullptr, "a failed init returned a request");
    // A block longer than its receive block, on every backend, blocking and
    // persistent: MPI_ERR_TRUNCATE, every rank completes, the guard survives.
    int three = 3, one = 1;
    for (const std::string &name : backends()) {
        mpixtest::select_row(xcomm, "neighbor_alltoallv", name.c_str());
        for (int ppn : {0, 1}) {
            MPIX_Comm_update_locality(xcomm, ppn);
            std::fill(rb.begin(), rb.end(), kGuard);
            EXPECT_CLASS(MPIX_Neighbor_alltoallv(sb.data(), &three, &sd, MPI_INT, rb.data(), &one, &rd, MPI_INT, topo,
                                                 xcomm),
                         MPI_ERR_TRUNCATE);
            MPIX_EXPECT(rb[1] == kGuard, name + ": a truncated block wrote past its receive block");
            req = nullptr;
            EXPECT_CLASS(MPIX_Neighbor_alltoallv_init(sb.data(), &three, &sd, MPI_INT, rb.data(), &one, &rd, MPI_INT,
                                                      topo, xcomm, nullptr, &req),
                         MPI_SUCCESS);
            if (req) {
                MPIX_Start(req);
                EXPECT_CLASS(MPIX_Request_free(&req), MPI_ERR_REQUEST);
                EXPECT_CLASS(MPIX_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
                MPIX_EXPECT(rb[1] == kGuard, name + ": a truncated block wrote past its receive block (persistent)");
                // The request starts again after a truncated start (none of its
                // point-to-point requests may be left active), completed by a Test loop.
                EXPECT_CLASS(MPIX_Start(req), MPI_SUCCESS);
                int flag = 0, rc = MPI_SUCCESS;
                while (rc == MPI_SUCCESS && !flag)
                    rc = MPIX_Test(&req, &flag, MPI_STATUS_IGNORE);
                EXPECT_CLASS(rc, MPI_ERR_TRUNCATE);
                MPIX_Request_free(&req);
            }
        }
    }
    EXPECT_CLASS(MPIX_Comm_free(&other), MPI_ERR_COMM);  // topo_other still lives
    MPIX_Topo_free(&topo_other);
    EXPECT_CLASS(MPIX_Comm_free(&other), MPI_SUCCESS);
    EXPECT_CLASS(MPIX_Topo_free(nullptr), MPI_ERR_ARG);
    MPIX_Topo_free(&topo);
    MPI_Type_free(&uncommitted);
    MPIX_Comm_free(&xcomm);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPIX_CHECK_ALL("neighbour errors");
}

void test_algorithm_names()
{
    MPIX_EXPECT(backends().size() >= 3, "MPIX_Algorithm_name lists no neighbour backends");
    MPIX_EXPECT(std::string(MPIX_Algorithm_name("neighbor_alltoallv", 0)) == "standard", "first row is not standard");
    MPIX_CHECK_ALL("MPIX_Algorithm_name(\"neighbor_alltoallv\", i)");
}

const mpixtest::TestCase kTests[] = {
    {"algorithm names", test_algorithm_names},
    {"random graphs, every backend", test_random_graphs},
    {"indexed exchange and deduplication", test_indexed},
    {"topology from MPIX_Alltoallv_crs", test_topo_from_crs},
    {"errors", test_errors},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "neighbor", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
