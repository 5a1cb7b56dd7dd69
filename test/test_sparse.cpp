// MPIX_Alltoall_crs / MPIX_Alltoallv_crs: every registry backend against patterns
// every rank computes in full by itself (halo patterns of the shared Matrix Market
// matrices, random patterns), with guard values past every capacity; datatypes,
// truncation, back-to-back calls, NULL xinfo, the *_known hints and bad input.
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "placed_type.hpp"
#include "mpix.h"
#include "select/registry.hpp"
#include "select/sparse_dispatch.hpp"
#include "topo/topology.hpp"

namespace {

using mpix::Collective;

constexpr int kGuard = -77;

// The whole exchange: msgs[s] = what rank s sends, in its send order.
struct Message {
    int dest;
    std::vector<int> data;
};
using Pattern = std::vector<std::vector<Message>>;

struct Expected {
    std::vector<int> src;
    std::vector<std::vector<int>> data;
};

Expected expected_for(const Pattern &pat, int me)
{
    Expected e;
    for (std::size_t s = 0; s < pat.size(); ++s)
        for (const Message &m : pat[s])
            if (m.dest == me) {
                e.src.push_back(static_cast<int>(s));
                e.data.push_back(m.data);
            }
    return e;
}

// Options of one call.
struct Call {
    const char *algorithm = nullptr;  // nullptr: NULL xinfo (comm/env/auto decide)
    bool known = false;               // crs_recv_nnz_known + crs_recv_size_known, exact amounts
    int slack = 2;                    // capacity beyond the exact amount (negative: too small)
};

MPIX_Info *call_info(Collective c, const Call &call)
{
    if (!call.algorithm && !call.known)
        return nullptr;
    MPIX_Info *info;
    MPIX_Info_init(&info);
    if (call.algorithm)
        MPIX_Info_set(info, c == Collective::alltoall_crs ? "alltoall_crs_algorithm" : "alltoallv_crs_algorithm",
                      call.algorithm);
    if (call.known) {
        MPIX_Info_set(info, "crs_recv_nnz_known", "true");
        MPIX_Info_set(info, "crs_recv_size_known", "true");
    }
    return info;
}

std::string where(const Call &call, const std::string &what)
{
    return std::string(call.algorithm ? call.algorithm : "(NULL xinfo)") + (call.known ? " known" : "") + ": " +
           what;
}

// MPIX_Alltoall_crs with `count` ints per message; returns the error code, checks
// outputs (and guards) against the pattern into `fail`.
int run_uniform(MPIX_Comm *xc, const Pattern &pat, int count, const Call &call, std::string *fail)
{
    int me = mpixtest::rank();
    const std::vector<Message> &mine = pat[me];
    std::vector<int> dest, vals;
    for (const Message &m : mine) {
        dest.push_back(m.dest);
        vals.insert(vals.end(), m.data.begin(), m.data.end());
    }
    Expected e = expected_for(pat, me);
    int exact = static_cast<int>(e.src.size());
    int cap = std::max(0, exact + call.slack);
    std::vector<int> src(cap + 4, kGuard), recv(static_cast<std::size_t>(cap + 4) * count, kGuard);
    int nnz = call.known ? exact : cap;
    MPIX_Info *info = call_info(Collective::alltoall_crs, call);
    int rc = MPIX_Alltoall_crs(static_cast<int>(dest.size()), dest.data(), count, MPI_INT, vals.data(), &nnz,
                               src.data(), count, MPI_INT, recv.data(), info, xc);
    if (info)
        MPIX_Info_free(&info);
    if (nnz != exact)
        *fail = where(call, "recv_nnz " + std::to_string(nnz) + " expected " + std::to_string(exact));
    for (int k = 0; k < exact && k < cap && fail->empty(); ++k) {
        if (src[k] != e.src[k])
            *fail = where(call, "src[" + std::to_string(k) + "] = " + std::to_string(src[k]) + " expected " +
                                    std::to_string(e.src[k]));
        for (int j = 0; j < count && fail->empty(); ++j)
            if (recv[static_cast<std::size_t>(k) * count + j] != e.data[k][j])
                *fail = where(call, "wrong value from " + std::to_string(e.src[k]));
    }
    for (std::size_t k = cap; k < src.size() && fail->empty(); ++k)
        if (src[k] != kGuard)
            *fail = where(call, "src written past capacity");
    for (std::size_t k = static_cast<std::size_t>(cap) * count; k < recv.size() && fail->empty(); ++k)
        if (recv[k] != kGuard)
            *fail = where(call, "recvvals written past capacity");
    return rc;
}

// MPIX_Alltoallv_crs; send blocks laid out reversed with gaps (sdispls honoured).
int run_varying(MPIX_Comm *xc, const Pattern &pat, const Call &call, std::string *fail)
{
    int me = mpixtest::rank();
    const std::vector<Message> &mine = pat[me];
    int n = static_cast<int>(mine.size());
    std::vector<int> dest(n), counts(n), displs(n), vals;
    for (int i = n - 1; i >= 0; --i) {
        dest[i] = mine[i].dest;
        counts[i] = static_cast<int>(mine[i].data.size());
        vals.push_back(-5);  // gap
        displs[i] = static_cast<int>(vals.size());
        vals.insert(vals.end(), mine[i].data.begin(), mine[i].data.end());
    }
    Expected e = expected_for(pat, me);
    int exact = static_cast<int>(e.src.size());
    int exact_size = 0;
    for (const auto &d : e.data)
        exact_size += static_cast<int>(d.size());
    int cap = std::max(0, exact + call.slack), cap_size = std::max(0, exact_size + call.slack);
    std::vector<int> src(cap + 4, kGuard), rc_(cap + 4, kGuard), rd(cap + 4, kGuard), recv(cap_size + 4, kGuard);
    int nnz = call.known ? exact : cap, size = call.known ? exact_size : cap_size;
    MPIX_Info *info = call_info(Collective::alltoallv_crs, call);
    int rc = MPIX_Alltoallv_crs(n, static_cast<int>(vals.size()), dest.data(), counts.data(), displs.data(), MPI_INT,
                                vals.data(), &nnz, &size, src.data(), rc_.data(), rd.data(), MPI_INT, recv.data(),
                                info, xc);
    if (info)
        MPIX_Info_free(&info);
    if (nnz != exact || size != exact_size)
        *fail = where(call, "recv_nnz/recv_size " + std::to_string(nnz) + "/" + std::to_string(size) + " expected " +
                                std::to_string(exact) + "/" + std::to_string(exact_size));
    int displ = 0;
    for (int k = 0; k < exact && fail->empty(); ++k) {
        int cnt = static_cast<int>(e.data[k].size());
        if (k < cap && (src[k] != e.src[k] || rc_[k] != cnt || rd[k] != displ))
            *fail = where(call, "src/recvcounts/rdispls[" + std::to_string(k) + "] = " + std::to_string(src[k]) +
                                    "/" + std::to_string(rc_[k]) + "/" + std::to_string(rd[k]));
        if (k < cap && displ + cnt <= cap_size)
            for (int j = 0; j < cnt && fail->empty(); ++j)
                if (recv[displ + j] != e.data[k][j])
                    *fail = where(call, "wrong value from " + std::to_string(e.src[k]));
        displ += cnt;
    }
    for (std::size_t k = cap; k < src.size() && fail->empty(); ++k)
        if (src[k] != kGuard || rc_[k] != kGuard || rd[k] != kGuard)
            *fail = where(call, "src/recvcounts/rdispls written past capacity");
    for (std::size_t k = cap_size; k < recv.size() && fail->empty(); ++k)
        if (recv[k] != kGuard)
            *fail = where(call, "recvvals written past capacity");
    return rc;
}

// Registry names of one collective; with `topology_only` just those whose result
// path depends on the node map (they read the `locality` hint). Others are run at
// ppn=0 only: emulated nodes cannot change what they do, and calls are costly
// when 8 ranks share 2 cores.
std::vector<const char *> backends(Collective c, bool topology_only = false)
{
    std::vector<const char *> names;
    for (int i = 0;; ++i) {
        const mpix::Algorithm *a = mpix::algorithm_at(c, i);
        if (!a)
            break;
        if (!topology_only || std::string(a->hint_keys).find("locality") != std::string::npos)
            names.push_back(a->name);
    }
    return names;
}

// Every backend (and auto, and NULL xinfo) on one pattern; uniform uses `count` ints.
void check_all_backends(MPIX_Comm *xc, const Pattern &pat, int count, const std::string &what,
                        bool topology_only = false)
{
    for (Collective c : {Collective::alltoall_crs, Collective::alltoallv_crs}) {
        std::vector<const char *> names = backends(c, topology_only);
        names.push_back("auto");
        names.push_back(nullptr);
        for (const char *name : names)
            for (bool known : {false, true}) {
                if (known && name && std::strcmp(name, "personalized") && std::strcmp(name, "nonblocking"))
                    continue;  // the hints matter to these two; others ignore them
                Call call;
                call.algorithm = name;
                call.known = known;
                std::string fail;
                int rc = c == Collective::alltoall_crs ? run_uniform(xc, pat, count, call, &fail)
                                                       : run_varying(xc, pat, call, &fail);
                MPIX_EXPECT(rc == MPI_SUCCESS, what + ": " + where(call, "rc " + std::to_string(rc)));
                MPIX_EXPECT(fail.empty(), what + " " + mpix::collective_name(c) + ": " + fail);
            }
    }
}

// ---- matrices -------------------------------------------------------------

std::string matrix_dir()
{
    const char *env = std::getenv("MPIX_MATRIX_DIR");
    return env && *env ? env : MPIX_MATRIX_DIR;
}

std::vector<std::string> matrix_files()
{
    std::vector<std::string> files;
    std::string dir = matrix_dir();
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 4 && n.compare(n.size() - 4, 4, ".mtx") == 0)
                files.push_back(dir + "/" + n);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

struct Matrix {
    int rows = 0, cols = 0;
    std::vector<std::pair<int, int>> entries;  // 0-based (row, col), symmetry expanded
};

bool read_matrix(const std::string &path, Matrix *m)
{
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line) || line.find("%%MatrixMarket") != 0)
        return false;
    bool sym = line.find("symmetric") != std::string::npos || line.find("hermitian") != std::string::npos;
    while (std::getline(in, line) && (line.empty() || line[0] == '%'))
        ;
    long long nnz = 0;
    std::istringstream(line) >> m->rows >> m->cols >> nnz;
    for (long long k = 0; k < nnz && std::getline(in, line); ++k) {
        int i = 0, j = 0;
        std::istringstream(line) >> i >> j;
        m->entries.emplace_back(i - 1, j - 1);
        if (sym && i != j)
            m->entries.emplace_back(j - 1, i - 1);
    }
    return m->rows > 0 && m->cols > 0;
}

int owner(int index, int n, int p)
{
    // Block partition: rank r owns [r*n/p, (r+1)*n/p).
    int r = static_cast<int>(static_cast<long long>(index) * p / n);
    while (static_cast<long long>(r + 1) * n / p <= index)
        ++r;
    while (static_cast<long long>(r) * n / p > index)
        --r;
    return r;
}

// The halo pattern: rank s asks each owner of a column it needs (and does not
// own) for those columns: message = the sorted column indices.
Pattern halo_pattern(const Matrix &m, int p)
{
    std::vector<std::set<std::pair<int, int>>> need(p);  // s -> (owner, col)
    for (const auto &e : m.entries) {
        int s = owner(e.first, m.rows, p), o = owner(e.second, m.cols, p);
        if (o != s)
            need[s].insert({o, e.second});
    }
    Pattern pat(p);
    for (int s = 0; s < p; ++s)
        for (const auto &oc : need[s]) {
            if (pat[s].empty() || pat[s].back().dest != oc.first)
                pat[s].push_back(Message{oc.first, {}});
            pat[s].back().data.push_back(oc.second);
        }
    return pat;
}

// The counts message of alltoall_crs: one int per message (how many columns).
Pattern counts_of(const Pattern &pat)
{
    Pattern c(pat.size());
    for (std::size_t s = 0; s < pat.size(); ++s)
        for (const Message &msg : pat[s])
            c[s].push_back(Message{msg.dest, {static_cast<int>(msg.data.size())}});
    return c;
}

void test_matrices()
{
    std::vector<std::string> files = matrix_files();
    // Missing test data is a failure, not a skip.
    MPIX_EXPECT(!files.empty(), "no .mtx files in " + matrix_dir() + " (set MPIX_MATRIX_DIR)");
    MPIX_CHECK_ALL("shared matrices found");
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    for (const std::string &f : files) {
        Matrix m;
        MPIX_EXPECT(read_matrix(f, &m), "cannot read " + f);
        Pattern halo = halo_pattern(m, mpixtest::size());
        Pattern counts = counts_of(halo);
        for (int ppn : {0, 1, 2, 3}) {
            MPIX_Comm_update_locality(xc, ppn);
            std::string what = f.substr(f.rfind('/') + 1) + " ppn=" + std::to_string(ppn);
            // Emulated nodes: the halo itself (alltoallv_crs) through the node-aware backends.
            for (Collective c : {Collective::alltoall_crs, Collective::alltoallv_crs})
                for (const char *name : backends(c, ppn != 0)) {
                    if (ppn != 0 && c == Collective::alltoall_crs)
                        continue;
                    Call call;
                    call.algorithm = name;
                    std::string fail;
                    int rc = c == Collective::alltoall_crs ? run_uniform(xc, counts, 1, call, &fail)
                                                           : run_varying(xc, halo, call, &fail);
                    MPIX_EXPECT(rc == MPI_SUCCESS && fail.empty(),
                                what + " " + mpix::collective_name(c) + ": rc " + std::to_string(rc) + " " + fail);
                }
        }
        MPIX_CHECK_ALL(f.c_str());
    }
    MPIX_Comm_free(&xc);
}

// ---- random patterns -------------------------------------------------------

// Every rank draws the same pattern from `seed`: some ranks send nothing, some
// send to themselves, rank `dense` sends to everyone; message lengths 0..max_len
// (uniform: exactly `uniform_len`).
Pattern random_pattern(unsigned seed, int p, int uniform_len, int max_len)
{
    std::mt19937 rng(seed);
    Pattern pat(p);
    int dense = static_cast<int>(rng() % p);
    for (int s = 0; s < p; ++s) {
        int mode = static_cast<int>(rng() % 4);  // 0: empty, 1: self only, 2-3: random
        std::vector<int> dests;
        if (s == dense) {
            for (int d = 0; d < p; ++d)
                dests.push_back(d);
        } else if (mode == 1) {
            dests.push_back(s);
        } else if (mode >= 2) {
            for (int d = 0; d < p; ++d)
                if (rng() % 3 == 0)
                    dests.push_back(d);
        }
        std::shuffle(dests.begin(), dests.end(), rng);  // send order is the caller's
        for (int d : dests) {
            int len = uniform_len >= 0 ? uniform_len : static_cast<int>(rng() % (max_len + 1));
            Message msg{d, {}};
            for (int k = 0; k < len; ++k)
                msg.data.push_back(k % 3 == 0 ? 0 : static_cast<int>(1000000 * s + 1000 * d + k));
            pat[s].push_back(msg);
        }
    }
    return pat;
}

void test_random_patterns()
{
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    int p = mpixtest::size();
    for (unsigned seed = 1; seed <= 2; ++seed)
        for (int ppn : {0, 3}) {
            MPIX_Comm_update_locality(xc, ppn);
            std::string what = "seed " + std::to_string(seed) + " ppn=" + std::to_string(ppn);
            // Uniform messages of 3 ints, one of them all zeros; varying 0..6 ints.
            Pattern u = random_pattern(seed, p, 3, 0), v = random_pattern(seed + 100, p, -1, 6);
            for (auto &msgs : u)
                if (!msgs.empty())
                    msgs[0].data.assign(3, 0);  // an all-zero payload is a message too
            check_all_backends(xc, u, 3, what + " uniform", ppn != 0);
            for (Collective c : {Collective::alltoallv_crs})
                for (const char *name : backends(c, ppn != 0)) {
                    Call call;
                    call.algorithm = name;
                    std::string fail;
                    int rc = run_varying(xc, v, call, &fail);
                    MPIX_EXPECT(rc == MPI_SUCCESS && fail.empty(), what + " varying " + name + ": " + fail);
                }
            MPIX_CHECK_ALL(what.c_str());
        }
    MPIX_Comm_free(&xc);
}

// Zero-length messages are sent and reported: a neighbour with nothing to send is a neighbour.
void test_zero_length()
{
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    int p = mpixtest::size();
    Pattern pat(p);
    for (int s = 0; s < p; ++s) {
        pat[s].push_back(Message{(s + 1) % p, {}});
        if (p > 2)
            pat[s].push_back(Message{(s + p - 1) % p, {}});
    }
    check_all_backends(xc, pat, 0, "zero-length messages");
    MPIX_CHECK_ALL("zero-length messages are reported");
    MPIX_Comm_free(&xc);
}

// ---- datatypes ---------------------------------------------------------------

// A non-contiguous element (2 ints, stride 2, extent 3 ints) on both sides; the
// skipped ints must be left alone. Then the same through MPI_BOTTOM, each
// side's element placed at its buffer's absolute address.
void test_noncontiguous()
{
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    int p = mpixtest::size(), me = mpixtest::rank();
    MPI_Datatype vec, elem;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &elem);
    MPI_Type_commit(&elem);
    // Rank s sends to s+1 and s+2 (mod p, distinct): 2 elements of value 100 s + 10 d + k.
    auto dests_of = [p](int s) {
        std::vector<int> d;
        for (int k = 1; k <= 2; ++k)
            if (std::find(d.begin(), d.end(), (s + k) % p) == d.end())
                d.push_back((s + k) % p);
        return d;
    };
    std::vector<int> dest = dests_of(me);
    int n = static_cast<int>(dest.size());
    std::vector<int> send(static_cast<std::size_t>(n) * 6, -9);
    for (int i = 0; i < n; ++i)
        for (int e = 0; e < 2; ++e) {
            send[i * 6 + e * 3 + 0] = 100 * me + 10 * dest[i] + 2 * e;
            send[i * 6 + e * 3 + 2] = 100 * me + 10 * dest[i] + 2 * e + 1;
        }
    std::vector<int> srcs_expected;
    for (int s = 0; s < p; ++s) {
        std::vector<int> d = dests_of(s);
        if (std::find(d.begin(), d.end(), me) != d.end())
            srcs_expected.push_back(s);
    }
    for (bool bottom : {false, true}) {
        for (Collective c : {Collective::alltoall_crs, Collective::alltoallv_crs})
            for (const char *name : backends(c)) {
                Call call;
                call.algorithm = name;
                MPIX_Info *info = call_info(c, call);
                int cap = p;
                std::vector<int> src(cap, kGuard), recv(static_cast<std::size_t>(cap) * 6 + 3, kGuard);
                MPI_Datatype stype = bottom ? mpixtest::placed_at(elem, send.data()) : elem;
                MPI_Datatype rtype = bottom ? mpixtest::placed_at(elem, recv.data()) : elem;
                void *sbuf = bottom ? MPI_BOTTOM : send.data(), *rbuf = bottom ? MPI_BOTTOM : recv.data();
                int nnz = cap, rc;
                if (c == Collective::alltoall_crs) {
                    rc = MPIX_Alltoall_crs(n, dest.data(), 2, stype, sbuf, &nnz, src.data(), 2, rtype, rbuf, info,
                                           xc);
                } else {
                    std::vector<int> counts(n, 2), displs(n), rcounts(cap), rdispls(cap);
                    for (int i = 0; i < n; ++i)
                        displs[i] = 2 * i;
                    int size = 2 * cap;
                    rc = MPIX_Alltoallv_crs(n, 2 * n, dest.data(), counts.data(), displs.data(), stype, sbuf, &nnz,
                                            &size, src.data(), rcounts.data(), rdispls.data(), rtype, rbuf, info,
                                            xc);
                    MPIX_EXPECT(size == 2 * nnz, std::string(name) + ": recv_size");
                }
                if (bottom) {
                    MPI_Type_free(&stype);
                    MPI_Type_free(&rtype);
                }
                MPIX_Info_free(&info);
                MPIX_EXPECT(rc == MPI_SUCCESS, std::string(name) + (bottom ? " MPI_BOTTOM" : "") + ": rc");
                MPIX_EXPECT(nnz == static_cast<int>(srcs_expected.size()), std::string(name) + ": recv_nnz");
                for (int k = 0; k < nnz && k < static_cast<int>(srcs_expected.size()); ++k) {
                    int s = srcs_expected[k];
                    MPIX_EXPECT(src[k] == s, std::string(name) + ": src");
                    for (int e = 0; e < 2; ++e) {
                        MPIX_EXPECT(recv[k * 6 + e * 3 + 0] == 100 * s + 10 * me + 2 * e,
                                    std::string(name) + ": value");
                        MPIX_EXPECT(recv[k * 6 + e * 3 + 1] == kGuard, std::string(name) + ": gap written");
                        MPIX_EXPECT(recv[k * 6 + e * 3 + 2] == 100 * s + 10 * me + 2 * e + 1,
                                    std::string(name) + ": value");
                    }
                }
                for (std::size_t k = static_cast<std::size_t>(nnz) * 6; k < recv.size(); ++k)
                    MPIX_EXPECT(recv[k] == kGuard, std::string(name) + ": written past the data");
            }
    }
    MPIX_CHECK_ALL("non-contiguous datatype on both sides");
    MPI_Type_free(&elem);
    MPI_Type_free(&vec);
    MPIX_Comm_free(&xc);
}

// ---- truncation, back-to-back, hints, errors -------------------------------------

// Every backend, calls after the first with 256 KiB messages to every other rank
// in a strided type (so the send side is packed): the library's staging and its
// received messages must be warm buffers of the communicator's pool, not fresh
// memory that faults in again on every call (glibc gives blocks past its mmap
// threshold back to the kernel). At most a quarter of a message's pages a call,
// as conformance allows the alltoall(v) rows, counted from the fifth call: the
// pool's buffers reach the sizes a call asks for, in its order, within a few
// calls (at 8 ranks `rma` still faulted 17-27 pages in the third and fourth).
void test_repeated_large_calls_fault_in_no_fresh_buffers()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    MPI_Datatype vec, elem;  // 2 of every 3 ints: 8 bytes of data in 12
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &elem);
    MPI_Type_commit(&elem);
    const int count = (256 << 10) / 8;  // elements a message: 256 KiB of data
    const long allowed = (256 << 10) / 4096 / 4;
    std::vector<int> dest;
    for (int d = 0; d < p; ++d)
        if (d != me)
            dest.push_back(d);
    const int n = static_cast<int>(dest.size());
    std::vector<int> send(static_cast<std::size_t>(n) * count * 3), recv(static_cast<std::size_t>(p) * count * 3);
    for (int i = 0; i < n; ++i)
        for (int e = 0; e < count * 3; ++e)
            send[static_cast<std::size_t>(i) * count * 3 + e] = 1000 * me + 10 * dest[i] + e % 7;
    const int warm = 4, counted = 6;
    for (const char *name : backends(Collective::alltoall_crs)) {
        Call call;
        call.algorithm = name;
        MPIX_Info *info = call_info(Collective::alltoall_crs, call);
        std::vector<int> src(static_cast<std::size_t>(p), kGuard);
        long before = 0;
        bool ok = true;
        int nnz = 0;
        for (int k = 0; k < warm + counted; ++k) {
            if (k == warm)
                before = mpixtest::minor_faults();
            nnz = p;
            ok = ok && MPIX_Alltoall_crs(n, dest.data(), count, elem, send.data(), &nnz, src.data(), count, elem,
                                         recv.data(), info, xc) == MPI_SUCCESS;
        }
        const long per_call = (mpixtest::minor_faults() - before) / counted;
        MPIX_Info_free(&info);
        const std::string what = std::string(name) + ", rank " + std::to_string(me);
        MPIX_EXPECT(ok && nnz == n, what + ": a call failed or reported " + std::to_string(nnz) + " sources");
        for (int i = 0; ok && i < n; ++i)
            for (int e = 0; e < count * 3; e += 3 * 997) {
                const int s = src[static_cast<std::size_t>(i)];
                const std::size_t at = static_cast<std::size_t>(i) * count * 3 + e;
                if (recv[at] != 1000 * s + 10 * me + e % 7 || recv[at + 2] != 1000 * s + 10 * me + (e + 2) % 7) {
                    MPIX_EXPECT(false, what + ": the message from rank " + std::to_string(s) + " differs");
                    ok = false;
                    break;
                }
            }
        MPIX_EXPECT(per_call <= allowed, what + ": " + std::to_string(per_call) +
                                             " page faults a call after the first (at most " +
                                             std::to_string(allowed) + ")");
        MPIX_CHECK_ALL(what.c_str());
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&elem);
    MPIX_Comm_free(&xc);
}

void test_truncation()
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    int p = mpixtest::size();
    // Everyone sends to everyone: every rank receives p messages.
    Pattern pat(p);
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            pat[s].push_back(Message{d, {s, d, 7}});
    for (Collective c : {Collective::alltoall_crs, Collective::alltoallv_crs})
        for (const char *name : backends(c)) {
            for (int slack : {-1, -2}) {
                if (p + slack < 0)
                    continue;
                Call call;
                call.algorithm = name;
                call.slack = slack;
                std::string fail;
                int rc = c == Collective::alltoall_crs ? run_uniform(xc, pat, 3, call, &fail)
                                                       : run_varying(xc, pat, call, &fail);
                MPIX_EXPECT(mpixtest::error_class(rc) == MPI_ERR_TRUNCATE, std::string(name) + ": expected MPI_ERR_TRUNCATE, rc " +
                                                                     std::to_string(rc));
                MPIX_EXPECT(fail.empty(), std::string(name) + " truncated: " + fail);
            }
            // The communicator is still usable.
            Call call;
            call.algorithm = name;
            std::string fail;
            int rc = c == Collective::alltoall_crs ? run_uniform(xc, pat, 3, call, &fail)
                                                   : run_varying(xc, pat, call, &fail);
            MPIX_EXPECT(rc == MPI_SUCCESS && fail.empty(), std::string(name) + " after truncation: " + fail);
        }
    MPIX_CHECK_ALL("truncation: MPI_ERR_TRUNCATE, nothing past capacity, comm usable");
    MPIX_Comm_free(&xc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

// Different patterns and backends one after another, no barrier between them,
// while user traffic with the same tags is in flight on the user communicator.
void test_back_to_back()
{
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    int p = mpixtest::size(), me = mpixtest::rank();
    int token = me, got = -1;
    MPI_Request user[2];
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &user[0]);
    MPI_Isend(&token, 1, MPI_INT, (me + 1) % p, 8, MPI_COMM_WORLD, &user[1]);
    for (int round = 0; round < 2; ++round)
        for (Collective c : {Collective::alltoall_crs, Collective::alltoallv_crs}) {
            std::vector<const char *> names = backends(c);
            for (std::size_t i = 0; i < names.size(); ++i) {
                Pattern pat = random_pattern(31 * round + static_cast<unsigned>(i), p,
                                             c == Collective::alltoall_crs ? 2 : -1, 4);
                Call call;
                call.algorithm = names[(i + round) % names.size()];
                std::string fail;
                int rc = c == Collective::alltoall_crs ? run_uniform(xc, pat, 2, call, &fail)
                                                       : run_varying(xc, pat, call, &fail);
                MPIX_EXPECT(rc == MPI_SUCCESS && fail.empty(), "back-to-back " + fail);
            }
        }
    MPI_Waitall(2, user, MPI_STATUSES_IGNORE);
    MPIX_EXPECT(got == (me + p - 1) % p, "user message crossed with library traffic");
    MPIX_CHECK_ALL("back-to-back calls without barriers");
    MPIX_Comm_free(&xc);
}

// NULL xinfo uses the MPIX_Comm_set_info default; per-call info overrides it.
void test_comm_info_default()
{
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    int p = mpixtest::size();
    Pattern pat = random_pattern(77, p, 2, 0);
    for (const char *name : backends(Collective::alltoall_crs)) {
        MPIX_Info *info;
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "alltoall_crs_algorithm", name);
        MPIX_Comm_set_info(xc, info);
        MPIX_Info_free(&info);
        Call call;  // NULL xinfo
        std::string fail;
        int rc = run_uniform(xc, pat, 2, call, &fail);
        MPIX_EXPECT(rc == MPI_SUCCESS && fail.empty(), std::string("comm info ") + name + ": " + fail);
    }
    MPIX_CHECK_ALL("NULL xinfo with comm-level hints");
    MPIX_Comm_free(&xc);
}

void test_auto_rule()
{
    mpix::Hints h;
    h.algorithm[static_cast<int>(Collective::alltoall_crs)] = "auto";
    auto pick = [&](int nodes, long long max_remote_sends) {
        return std::string(mpix::select_sparse_algorithm(Collective::alltoall_crs, h, 64, nodes, max_remote_sends)->name);
    };
    CU_ASSERT(pick(1, 0) == "nonblocking");
    CU_ASSERT(pick(1, 100) == "nonblocking");  // one node: nothing to aggregate
    CU_ASSERT(pick(3, 100) == "nonblocking");  // below 4 nodes
    CU_ASSERT(pick(4, 17) == "nonblocking_locality");
    CU_ASSERT(pick(16, 16) == "nonblocking");  // the threshold itself
    CU_ASSERT(pick(64, 444) == "nonblocking_locality");
    CU_ASSERT(!mpix::sparse_auto_needs_stats(3) && mpix::sparse_auto_needs_stats(4));
    h.crs_recv_nnz_known = true;
    CU_ASSERT(pick(8, 100) == "personalized");
    h.crs_recv_nnz_known = false;
    h.algorithm[static_cast<int>(Collective::alltoall_crs)] = "rma";
    CU_ASSERT(pick(8, 100) == "rma");
}

// The statistic every rank agrees on: the most off-node sends of any rank, here
// on nodes of 2 ranks with rank 0 sending to every other node's ranks.
void test_auto_statistic()
{
    int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Comm *xc;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xc, MPI_COMM_WORLD), MPI_SUCCESS);
    MPIX_Comm_update_locality(xc, 2);
    const mpix::Regions *reg = nullptr;
    MPIX_EXPECT(mpix::get_regions(xc, mpix::Locality::node, &reg) == MPI_SUCCESS && reg, "no node regions");
    std::vector<int> dests;
    if (me == 0)
        for (int d = 2; d < p; ++d)
            dests.push_back(d);  // p - 2 off-node destinations
    else if (me == 1)
        dests.push_back(0);  // on its own node: not counted
    long long got = -1;
    if (reg)
        MPIX_EXPECT(mpix::agreed_max_remote_sends(dests.data(), dests.size(), reg, MPI_COMM_WORLD, &got) ==
                        MPI_SUCCESS,
                    "allreduce failed");
    long long want = p > 2 ? p - 2 : 0;
    MPIX_EXPECT(got == want, "max off-node sends " + std::to_string(got) + ", want " + std::to_string(want));
    MPIX_Comm_update_locality(xc, 0);
    MPIX_Comm_free(&xc);
    MPIX_CHECK_ALL("agreed max off-node sends");
}

void test_errors()
{
    mpixtest::errors_return();
    MPIX_Comm *xc;
    MPIX_Comm_init(&xc, MPI_COMM_WORLD);
    int p = mpixtest::size();
    int dest[2] = {0, 0}, bad_dest[1] = {p}, neg_dest[1] = {-1};
    int vals[4] = {1, 2, 3, 4}, src[4] = {kGuard, kGuard, kGuard, kGuard}, recv[4] = {kGuard, kGuard, kGuard, kGuard};
    int one[2] = {1, 1}, zero[2] = {0, 1}, cnts[4], dspl[4];
    int nnz = 4, size = 4;
    auto crs = [&](int send_nnz, const int *d, int sc, MPI_Datatype st, const void *sv, int *rn, int *s, int rcount,
                   MPI_Datatype rt, void *rv, MPIX_Comm *x) {
        return mpixtest::error_class(MPIX_Alltoall_crs(send_nnz, d, sc, st, sv, rn, s, rcount, rt, rv, nullptr, x));
    };
    CU_ASSERT_EQUAL(crs(-1, dest, 1, MPI_INT, vals, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(crs(1, dest, -1, MPI_INT, vals, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(crs(1, bad_dest, 1, MPI_INT, vals, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_RANK);
    CU_ASSERT_EQUAL(crs(1, neg_dest, 1, MPI_INT, vals, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_RANK);
    CU_ASSERT_EQUAL(crs(2, dest, 1, MPI_INT, vals, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_ARG);  // duplicate
    CU_ASSERT_EQUAL(crs(1, nullptr, 1, MPI_INT, vals, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crs(1, dest, 1, MPI_INT, vals, &nnz, nullptr, 1, MPI_INT, recv, xc), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crs(1, dest, 1, MPI_INT, vals, nullptr, src, 1, MPI_INT, recv, xc), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crs(1, dest, 1, MPI_DATATYPE_NULL, vals, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(crs(1, dest, 1, MPI_INT, vals, &nnz, src, 1, MPI_DATATYPE_NULL, recv, xc), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(crs(1, dest, 1, MPI_INT, nullptr, &nnz, src, 1, MPI_INT, recv, xc), MPI_ERR_BUFFER);
    CU_ASSERT_EQUAL(crs(1, dest, 1, MPI_INT, vals, &nnz, src, 1, MPI_INT, recv, nullptr), MPI_ERR_ARG);
    int neg = -1;
    CU_ASSERT_EQUAL(crs(1, dest, 1, MPI_INT, vals, &neg, src, 1, MPI_INT, recv, xc), MPI_ERR_COUNT);

    auto crsv = [&](int send_nnz, int send_size, const int *d, const int *sc, const int *sd, MPI_Datatype st,
                    int *rn, int *rs, MPI_Datatype rt, MPIX_Comm *x) {
        return mpixtest::error_class(MPIX_Alltoallv_crs(send_nnz, send_size, d, sc, sd, st, vals, rn, rs, src, cnts, dspl, rt,
                                              recv, nullptr, x));
    };
    int negc[1] = {-1}, far[1] = {4};
    CU_ASSERT_EQUAL(crsv(-1, 4, dest, one, zero, MPI_INT, &nnz, &size, MPI_INT, xc), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(crsv(1, -1, dest, one, zero, MPI_INT, &nnz, &size, MPI_INT, xc), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, negc, zero, MPI_INT, &nnz, &size, MPI_INT, xc), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, one, far, MPI_INT, &nnz, &size, MPI_INT, xc), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crsv(1, 4, bad_dest, one, zero, MPI_INT, &nnz, &size, MPI_INT, xc), MPI_ERR_RANK);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, nullptr, zero, MPI_INT, &nnz, &size, MPI_INT, xc), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, one, nullptr, MPI_INT, &nnz, &size, MPI_INT, xc), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, one, zero, MPI_INT, &nnz, nullptr, MPI_INT, xc), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, one, zero, MPI_DATATYPE_NULL, &nnz, &size, MPI_INT, xc), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, one, zero, MPI_INT, &nnz, &size, MPI_DATATYPE_NULL, xc), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, one, zero, MPI_INT, &nnz, &size, MPI_INT, nullptr), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(crsv(1, 4, dest, one, zero, MPI_INT, &neg, &size, MPI_INT, xc), MPI_ERR_COUNT);
    for (int k = 0; k < 4; ++k)
        MPIX_EXPECT(src[k] == kGuard && recv[k] == kGuard, "an erroneous call wrote output");
    MPIX_CHECK_ALL("bad input: MPI error classes, nothing written");

    // Still usable afterwards.
    std::string fail;
    Call call;
    int rc = run_uniform(xc, random_pattern(5, p, 1, 0), 1, call, &fail);
    MPIX_EXPECT(rc == MPI_SUCCESS && fail.empty(), "after errors: " + fail);
    MPIX_CHECK_ALL("usable after errors");
    MPIX_Comm_free(&xc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

void test_registry()
{
    CU_ASSERT(backends(Collective::alltoall_crs).size() == 5);
    CU_ASSERT(backends(Collective::alltoallv_crs).size() == 4);
    CU_ASSERT_STRING_EQUAL(MPIX_Algorithm_name("alltoall_crs", 2), "rma");
}

const mpixtest::TestCase kTests[] = {
    {"registry rows", test_registry},
    {"auto rule", test_auto_rule},
    {"auto statistic: max off-node sends", test_auto_statistic},
    {"every backend on every shared matrix's halo pattern", test_matrices},
    {"random patterns: empty ranks, self messages, dense rows", test_random_patterns},
    {"zero-length messages", test_zero_length},
    {"non-contiguous datatype", test_noncontiguous},
    {"truncation", test_truncation},
    {"back-to-back calls", test_back_to_back},
    {"every backend: large calls after the first fault in no fresh buffers (256 KiB messages)",
     test_repeated_large_calls_fault_in_no_fresh_buffers},
    {"NULL xinfo with MPIX_Comm_set_info", test_comm_info_default},
    {"bad input", test_errors},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "sparse", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
