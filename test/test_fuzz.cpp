// Randomized differential checks ("fuzz"): each case draws, from its seed, a
// registry row (MPIX_Alltoall(v), the sparse MPIX_Alltoall(v)_crs, or
// MPIX_Neighbor_alltoallv over a random multigraph) and random values of the
// hints that row reads, a communicator (a duplicate, reversed or shuffled rank
// order, halves), emulated nodes of any size, the API form (blocking, _c,
// nonblocking with 1-3 in flight, persistent restarted with new data) and
// MPI_IN_PLACE; each rank draws its own send and
// receive datatypes, built from MPI's constructors (contiguous, vector with
// negative strides, hvector, indexed blocks in shuffled order, hindexed,
// struct, subarray, dup, nested, resized with lower bounds below zero), so the
// ranks of one call use different types of the same signature (ints). Each
// received int is checked against a formula of source, destination and index;
// every other int of the receive buffer (holes, gaps, guards) and the whole
// send buffer must be untouched. A quarter of the nonblocking and persistent
// cases run a blocking all-to-all on the same communicator before completing;
// a third of the persistent neighbour cases give global element indices
// (MPIX_Neighbor_alltoallv_init_indexed). A tenth of the alltoall(v) cases get
// one argument wrong on every rank (a negative count, recvbuf NULL or
// MPI_IN_PLACE, recvtype MPI_DATATYPE_NULL or never committed): the call must
// return its class with a text, write nothing and leave no request.
//
// MPIX_FUZZ_CASES sets the number of cases (default 200), MPIX_FUZZ_SEED the
// first case's seed (default 1): case k uses seed + k, so a failure names the
// seed that repeats it (MPIX_FUZZ_SEED=s MPIX_FUZZ_CASES=1). MPIX_FUZZ_THREADS=1
// initialises MPI_THREAD_MULTIPLE and runs a third of the cases with the
// progress thread (hint async_progress). MPIX_FUZZ_VERBOSE=1 prints each case.
// make check runs 300 cases at 3 ranks and 200 at 4 with threads (test/fuzz.sh);
// make check-stress 1,000 more of each.
//
// Built with MPIX_FUZZ_DROPIN (test/fuzz-dropin, linked with libmpix_pmpi
// before the MPI library), the cases go through the drop-in instead: MPI's own
// MPI_Alltoall(v), _c, MPI_Ialltoall(v)(_c), MPI_Alltoall(v)_init (1-3
// requests, MPI_Start or MPI_Startall) and MPI_(I)Neighbor_alltoallv(_init) on
// a distributed graph. The row, hints and MPIX_PPN are environment variables,
// set before each case makes its communicator (MPI_Comm_dup), whose first call
// makes the drop-in's wrapper; a sixth of the nonblocking and persistent cases
// name no row (the MPI library's own calls). Requests complete together with a
// point-to-point message from the previous rank on the same communicator,
// through any of MPI's completion calls (Wait, Test, their all, any and some
// forms), which must then find no active request left. The sparse exchanges
// have no MPI call to intercept.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "config.h"  // MPIX_HAVE_LARGE_COUNT
#include "harness.hpp"
#include "mpix.h"
#ifdef MPIX_FUZZ_DROPIN
#include "core/hints.hpp"  // Collective only: this build sees mpix's public API
#else
#include "select/registry.hpp"
#endif

namespace {

using Rng = std::mt19937;

int pick(Rng &rng, int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); }

// A datatype of `offs.size()` ints: its ints lie at `offs` (in ints from the
// element's origin, in type-map order); lb and extent in ints.
struct TypeDesc {
    MPI_Datatype type = MPI_INT;
    std::vector<long> offs{0};
    long lb = 0, extent = 1;
    std::string name = "MPI_INT";
    bool owned = false;
};

void commit(TypeDesc *t)
{
    MPI_Type_commit(&t->type);
    t->owned = true;
}

void release(TypeDesc *t)
{
    if (t->owned)
        MPI_Type_free(&t->type);
    t->owned = false;
}

void set_bounds(TypeDesc *t)
{
    long lo = *std::min_element(t->offs.begin(), t->offs.end());
    long hi = *std::max_element(t->offs.begin(), t->offs.end());
    t->lb = lo;
    t->extent = hi - lo + 1;
}

std::vector<int> divisors_above_one(int n)
{
    std::vector<int> d;
    for (int k = 2; k <= n; ++k)
        if (n % k == 0)
            d.push_back(k);
    return d;
}

// Distinct positions in [0, n + spare), shuffled.
std::vector<long> scattered_positions(Rng &rng, int n, int spare)
{
    std::vector<long> all(static_cast<std::size_t>(n + spare));
    std::iota(all.begin(), all.end(), 0L);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(static_cast<std::size_t>(n));
    return all;
}

TypeDesc make_type(Rng &rng, int n, int depth);

TypeDesc make_plain(Rng &rng, int n, int depth)
{
    TypeDesc t;
    const int kinds = 9;
    switch (rng() % kinds) {
    case 0:
        if (n == 1)
            return t;  // MPI_INT
        if (n == 2 && rng() % 2) {
            t.type = MPI_2INT;
            t.offs = {0, 1};
            t.extent = 2;
            t.name = "MPI_2INT";
            return t;
        }
        [[fallthrough]];
    case 1: {
        MPI_Type_contiguous(n, MPI_INT, &t.type);
        t.offs.resize(static_cast<std::size_t>(n));
        std::iota(t.offs.begin(), t.offs.end(), 0L);
        t.name = "contiguous(" + std::to_string(n) + ")";
        break;
    }
    case 2:
    case 3: {  // vector / hvector of count x blocklen, stride may be negative
        std::vector<int> ds = divisors_above_one(n);
        int count = ds.empty() || rng() % 4 == 0 ? 1 : ds[rng() % ds.size()];
        int blen = n / count;
        int stride = blen + pick(rng, 0, 3);
        if (rng() % 3 == 0)
            stride = -stride;
        bool h = rng() % 2;
        if (h)
            MPI_Type_create_hvector(count, blen, static_cast<MPI_Aint>(stride) * 4, MPI_INT, &t.type);
        else
            MPI_Type_vector(count, blen, stride, MPI_INT, &t.type);
        t.offs.clear();
        for (int i = 0; i < count; ++i)
            for (int j = 0; j < blen; ++j)
                t.offs.push_back(static_cast<long>(i) * stride + j);
        t.name = std::string(h ? "hvector(" : "vector(") + std::to_string(count) + "," + std::to_string(blen) + "," +
                 std::to_string(stride) + ")";
        break;
    }
    case 4: {  // indexed blocks of one int, shuffled
        std::vector<long> pos = scattered_positions(rng, n, pick(rng, 0, 4));
        std::vector<int> d(pos.begin(), pos.end());
        MPI_Type_create_indexed_block(n, 1, d.data(), MPI_INT, &t.type);
        t.offs = pos;
        t.name = "indexed_block(" + std::to_string(n) + ")";
        break;
    }
    case 5:
    case 6: {  // hindexed / struct: runs of ints at shuffled, disjoint places
        std::vector<int> lens;
        for (int left = n; left > 0;) {
            int l = pick(rng, 1, left);
            lens.push_back(l);
            left -= l;
        }
        std::vector<long> starts;
        long at = 0;
        for (int l : lens) {
            at += pick(rng, 0, 2);
            starts.push_back(at);
            at += l;
        }
        std::vector<std::size_t> order(lens.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<int> bl;
        std::vector<MPI_Aint> bd;
        t.offs.clear();
        for (std::size_t k : order) {
            bl.push_back(lens[k]);
            bd.push_back(static_cast<MPI_Aint>(starts[k]) * 4);
            for (int j = 0; j < lens[k]; ++j)
                t.offs.push_back(starts[k] + j);
        }
        const int nb = static_cast<int>(bl.size());
        if (rng() % 2) {
            MPI_Type_create_hindexed(nb, bl.data(), bd.data(), MPI_INT, &t.type);
            t.name = "hindexed(" + std::to_string(nb) + " runs)";
        } else {
            std::vector<MPI_Datatype> types(bl.size(), MPI_INT);
            MPI_Type_create_struct(nb, bl.data(), bd.data(), types.data(), &t.type);
            t.name = "struct(" + std::to_string(nb) + " runs)";
        }
        break;
    }
    case 7: {  // subarray of a 2-D array, C order (its extent is the whole array)
        std::vector<int> ds = divisors_above_one(n);
        int rows = ds.empty() ? 1 : ds[rng() % ds.size()];
        int cols = n / rows;
        int sizes[2] = {rows + pick(rng, 0, 2), cols + pick(rng, 0, 2)};
        int subs[2] = {rows, cols};
        int starts[2] = {pick(rng, 0, sizes[0] - rows), pick(rng, 0, sizes[1] - cols)};
        MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t.type);
        t.offs.clear();
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                t.offs.push_back(static_cast<long>(starts[0] + i) * sizes[1] + starts[1] + j);
        commit(&t);
        t.lb = 0;
        t.extent = static_cast<long>(sizes[0]) * sizes[1];
        t.name = "subarray(" + std::to_string(rows) + "x" + std::to_string(cols) + " of " +
                 std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]) + ")";
        return t;
    }
    default: {  // nested: contiguous or vector of an inner type of n / k ints
        std::vector<int> ds = divisors_above_one(n);
        if (ds.empty() || depth >= 2)
            return make_plain(rng, n, 2);
        int k = ds[rng() % ds.size()];
        TypeDesc inner = make_type(rng, n / k, depth + 1);
        int stride = pick(rng, 1, 2);
        if (rng() % 2) {
            MPI_Type_contiguous(k, inner.type, &t.type);
            stride = 1;
            t.name = "contiguous(" + std::to_string(k) + ", " + inner.name + ")";
        } else {
            MPI_Type_vector(k, 1, stride, inner.type, &t.type);
            t.name = "vector(" + std::to_string(k) + ",1," + std::to_string(stride) + ", " + inner.name + ")";
        }
        t.offs.clear();
        for (int i = 0; i < k; ++i)
            for (long o : inner.offs)
                t.offs.push_back(static_cast<long>(i) * stride * inner.extent + o);
        t.lb = inner.lb;
        t.extent = static_cast<long>(k - 1) * stride * inner.extent + inner.extent;
        release(&inner);
        commit(&t);
        return t;
    }
    }
    commit(&t);
    set_bounds(&t);
    return t;
}

TypeDesc make_type(Rng &rng, int n, int depth)
{
    TypeDesc t = make_plain(rng, n, depth);
    if (rng() % 3 == 0) {  // resized: lower bound moved down (below zero too), extent widened
        TypeDesc r = t;
        r.lb = t.lb - pick(rng, 0, 2);
        r.extent = (t.lb + t.extent - r.lb) + pick(rng, 0, 3);
        MPI_Type_create_resized(t.type, static_cast<MPI_Aint>(r.lb) * 4, static_cast<MPI_Aint>(r.extent) * 4, &r.type);
        release(&t);
        r.name = "resized(" + t.name + ", lb " + std::to_string(r.lb) + ", extent " + std::to_string(r.extent) + ")";
        commit(&r);
        return r;
    }
    if (rng() % 8 == 0) {
        TypeDesc d = t;
        MPI_Type_dup(t.type, &d.type);
        release(&t);
        d.owned = true;
        d.name = "dup(" + t.name + ")";
        return d;
    }
    return t;
}

int value(unsigned seed, int gen, int src, int dst, long idx)
{
    std::uint32_t h = seed * 2654435761u + static_cast<std::uint32_t>(gen) * 97u;
    h ^= static_cast<std::uint32_t>(src) * 40503u + static_cast<std::uint32_t>(dst) * 9973u;
    h = h * 16777619u + static_cast<std::uint32_t>(idx);
    return static_cast<int>(h & 0x3fffffff);  // never the sentinel -1
}

constexpr int kSentinel = -1;
constexpr long kGuard = 16;  // ints on both sides of every buffer's data

// One side of one rank: a buffer of ints holding blocks of `t` elements.
struct Side {
    const TypeDesc *t = nullptr;
    std::vector<long> counts, displs;  // in elements and extents
    std::vector<int> store;
    long origin = 0;  // index in store of the buffer's address
    void layout(const std::vector<long> &c, const std::vector<long> &d)
    {
        counts = c;
        displs = d;
        long lo = 0, hi = 0;
        for (std::size_t j = 0; j < c.size(); ++j)
            for (long e = 0; e < c[j]; ++e)
                for (long o : t->offs) {
                    long at = (d[j] + e) * t->extent + o;
                    lo = std::min(lo, at);
                    hi = std::max(hi, at + 1);
                }
        origin = kGuard - lo;
        store.assign(static_cast<std::size_t>(hi - lo + 2 * kGuard), kSentinel);
    }
    void *forced = nullptr;  // a bad-argument case's buffer argument (NULL, MPI_IN_PLACE)
    bool use_forced = false;
    void *buf() { return use_forced ? forced : static_cast<void *>(store.data() + origin); }
    template <class F> void each(int peer, F f) const  // f(index in store, stream index)
    {
        const long n = static_cast<long>(t->offs.size());
        for (long e = 0; e < counts[static_cast<std::size_t>(peer)]; ++e)
            for (std::size_t u = 0; u < t->offs.size(); ++u)
                f(origin + (displs[static_cast<std::size_t>(peer)] + e) * t->extent + t->offs[u],
                  e * n + static_cast<long>(u));
    }
};

struct Comms {
    std::vector<MPI_Comm> user;
    std::vector<MPIX_Comm *> x;
    std::vector<std::string> names;
};

Comms make_comms()
{
    Comms c;
    const int p = mpixtest::size(), me = mpixtest::rank();
    Rng shared(4242);
    std::vector<int> shuffled(static_cast<std::size_t>(p));
    std::iota(shuffled.begin(), shuffled.end(), 0);
    std::shuffle(shuffled.begin(), shuffled.end(), shared);
    struct Split {
        int color, key;
        const char *name;
    };
    const Split splits[] = {{0, me, "a duplicate of MPI_COMM_WORLD"},
                            {0, p - me, "the reversed rank order"},
                            {0, shuffled[static_cast<std::size_t>(me)], "a shuffled rank order"},
                            {me < (p + 1) / 2, me, "halves of MPI_COMM_WORLD"}};
    for (const Split &s : splits) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, s.color, s.key, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);  // bad-argument cases get their error back
        MPIX_Comm *x = nullptr;
#ifndef MPIX_FUZZ_DROPIN  // through the drop-in, each case makes its own communicator
        MPIX_EXPECT(MPIX_Comm_init(&x, comm) == MPI_SUCCESS, "MPIX_Comm_init");
#endif
        c.user.push_back(comm);
        c.x.push_back(x);
        c.names.push_back(s.name);
    }
    return c;
}

void free_comms(Comms *c)
{
    for (MPIX_Comm *&x : c->x)
        if (x)
            MPIX_Comm_free(&x);
    for (MPI_Comm &u : c->user)
        MPI_Comm_free(&u);
}

// A random valid value for each hint the row reads, each with probability 1/2.
std::vector<std::pair<std::string, std::string>> random_hints(Rng &rng, const char *keys, int p)
{
    std::vector<std::pair<std::string, std::string>> h;
    std::string list = std::string(keys ? keys : "") + ",";
    for (std::size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1) {
        std::string key = list.substr(at, comma - at);
        if (key.empty() || rng() % 2)
            continue;
        std::string v;
        if (key == "radix")
            v = std::to_string(pick(rng, 2, p + 2));
        else if (key == "batch_size")
            v = std::to_string(pick(rng, 1, 5));
        else if (key == "locality")
            v = rng() % 2 ? "node" : "socket";
        else if (key == "inner")
            v = rng() % 2 ? "pairwise" : "nonblocking";
        else if (key == "relay_steps")
            v = std::vector<const char *>{"auto", "2", "3"}[rng() % 3];
        else if (key == "leaders_per_node")
            v = std::to_string(pick(rng, 1, 4));
        else if (key == "random_seed")
            v = std::to_string(pick(rng, 0, 1000));
        else if (key == "max_queue")
            v = std::to_string(pick(rng, 0, 4));
        else if (key == "segment_size")
            v = std::to_string(std::vector<int>{0, 1, 3, 8, 100, 4096}[rng() % 6]);
        else if (key == "direct_above")
            v = std::to_string(std::vector<int>{0, 1, 48, 1000, 100000}[rng() % 5]);
        else if (key == "group_size")
            v = std::to_string(pick(rng, 0, 4));
        else
            continue;  // a key this program does not know: left at its default
        h.emplace_back(key, v);
    }
    return h;
}

// A registry row of `coll` or auto, and random values of the hints it reads.
struct DrawnRow {
    const char *name;
    std::vector<std::pair<std::string, std::string>> hints;
};

#ifndef MPIX_FUZZ_DROPIN
DrawnRow draw_row(Rng &shared, mpix::Collective coll, int p)
{
    std::vector<const mpix::Algorithm *> rows{nullptr};  // nullptr: auto
    for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
        rows.push_back(a);
    const mpix::Algorithm *row = rows[shared() % rows.size()];
    return {row ? row->name : "auto", random_hints(shared, row ? row->hint_keys : "", p)};
}
#else
// Through the drop-in, which sees mpix's public API only: the rows from
// MPIX_Algorithm_name (the registry's order) and any of the hint keys this
// program knows (a row ignores the keys it does not read).
DrawnRow draw_row(Rng &shared, mpix::Collective coll, int p)
{
    const char *collective = coll == mpix::Collective::alltoall    ? "alltoall"
                             : coll == mpix::Collective::alltoallv ? "alltoallv"
                                                                   : "neighbor_alltoallv";
    std::vector<const char *> rows{"auto"};
    for (int i = 0; const char *name = MPIX_Algorithm_name(collective, i); ++i)
        rows.push_back(name);
    const char *row = rows[shared() % rows.size()];
    return {row, random_hints(shared,
                              "radix,batch_size,locality,inner,relay_steps,leaders_per_node,random_seed,max_queue,"
                              "segment_size,direct_above,group_size",
                              p)};
}

// The drop-in reads its rows, hints and MPIX_PPN from the environment when a
// communicator's first call makes its wrapper: a case sets its variables and
// then makes a new communicator; they are unset when the case ends.
class CaseEnvironment {
  public:
    CaseEnvironment() = default;
    CaseEnvironment(const CaseEnvironment &) = delete;
    CaseEnvironment &operator=(const CaseEnvironment &) = delete;
    ~CaseEnvironment()
    {
        for (const std::string &v : set_)
            unsetenv(v.c_str());
    }
    void set(const std::string &variable, const std::string &value)
    {
        setenv(variable.c_str(), value.c_str(), 1);
        set_.push_back(variable);
    }
    void set_hints(const std::vector<std::pair<std::string, std::string>> &hints)
    {
        for (const auto &h : hints) {
            std::string variable = "MPIX_";
            for (char ch : h.first)
                variable += static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
            set(variable, h.second);
        }
    }

  private:
    std::vector<std::string> set_;
};
#endif

enum class Form { blocking, blocking_c, nonblocking, nonblocking_c, persistent };
const char *form_name(Form f)
{
    switch (f) {
    case Form::blocking: return "blocking";
    case Form::blocking_c: return "blocking _c";
    case Form::nonblocking: return "nonblocking";
    case Form::nonblocking_c: return "nonblocking _c";
    default: return "persistent";
    }
}

struct Call {  // one exchange's buffers and arguments on this rank (read until completion)
    Side send, recv;
    std::vector<int> send_copy;
    std::vector<int> sc, sd, rc, rd;
    std::vector<MPI_Count> scc, rcc;
    std::vector<MPI_Aint> sdc, rdc;
    MPIX_Request *req = nullptr;
    MPI_Request mreq = MPI_REQUEST_NULL;  // through the drop-in
};

// Fills `c` with generation `gen`'s data: the send side, or the receive side in place.
void fill(Call *c, bool in_place, unsigned seed, int gen, int me, int p, const std::vector<int> &world_of)
{
    Side &s = in_place ? c->recv : c->send;
    std::fill(s.store.begin(), s.store.end(), kSentinel);
    if (in_place)
        std::fill(c->recv.store.begin(), c->recv.store.end(), kSentinel);
    for (int j = 0; j < p; ++j)
        s.each(j, [&](long at, long idx) {
            s.store[static_cast<std::size_t>(at)] = value(seed, gen, world_of[me], world_of[j], idx);
        });
    c->send_copy = c->send.store;
}

// Checks the receive side (and that the send side is untouched); false with a
// detail on the first difference.
bool verify(const Call &c, bool in_place, unsigned seed, int gen, int me, int p, const std::vector<int> &world_of,
            std::string *detail)
{
    std::vector<int> expect(c.recv.store.size(), kSentinel);
    std::vector<int> peer_of(c.recv.store.size(), -1);
    for (int j = 0; j < p; ++j)
        c.recv.each(j, [&](long at, long idx) {
            expect[static_cast<std::size_t>(at)] = value(seed, gen, world_of[j], world_of[me], idx);
            peer_of[static_cast<std::size_t>(at)] = j;
        });
    for (std::size_t i = 0; i < expect.size(); ++i)
        if (c.recv.store[i] != expect[i]) {
            *detail = "receive buffer int " + std::to_string(static_cast<long>(i) - c.recv.origin) + " is " +
                      std::to_string(c.recv.store[i]) + ", expected " + std::to_string(expect[i]) +
                      (peer_of[i] < 0 ? " (not a received int)" : " (from rank " + std::to_string(peer_of[i]) + ")");
            return false;
        }
    if (!in_place && c.send.store != c.send_copy) {
        *detail = "the send buffer was written";
        return false;
    }
    return true;
}

template <class T> std::vector<T> as(const std::vector<long> &v) { return std::vector<T>(v.begin(), v.end()); }

// A call's arguments as both builds pass them (MPI_IN_PLACE: the receive side is
// also the send side): buffers, types and MPIX_Alltoall's counts; the count and
// displacement arrays of both widths go into `c`, which keeps them until the
// call completes.
struct CallArgs {
    const void *sbuf;
    MPI_Datatype st;
    void *rbuf;
    MPI_Datatype rt;
    int scount, rcount;
};

CallArgs call_arguments(Call *c, bool in_place)
{
    const Side &s = in_place ? c->recv : c->send;
    const Side &r = c->recv;
    c->sc = as<int>(s.counts), c->sd = as<int>(s.displs), c->rc = as<int>(r.counts), c->rd = as<int>(r.displs);
    c->scc = as<MPI_Count>(s.counts), c->rcc = as<MPI_Count>(r.counts);
    c->sdc = as<MPI_Aint>(s.displs), c->rdc = as<MPI_Aint>(r.displs);
    return {in_place ? MPI_IN_PLACE : static_cast<const void *>(c->send.buf()), s.t->type, c->recv.buf(), r.t->type,
            static_cast<int>(s.counts[0]), static_cast<int>(r.counts[0])};
}

#ifndef MPIX_FUZZ_DROPIN
int start_call(Call *c, Form form, bool uniform, bool in_place, MPIX_Comm *xcomm, MPIX_Info *init_info)
{
    const CallArgs a = call_arguments(c, in_place);
    const void *sbuf = a.sbuf;
    void *rbuf = a.rbuf;
    MPI_Datatype st = a.st, rt = a.rt;
    if (uniform) {
        const int sc = a.scount, rc = a.rcount;
        switch (form) {
        case Form::blocking: return MPIX_Alltoall(sbuf, sc, st, rbuf, rc, rt, xcomm);
        case Form::blocking_c: return MPIX_Alltoall_c(sbuf, sc, st, rbuf, rc, rt, xcomm);
        case Form::nonblocking: return MPIX_Ialltoall(sbuf, sc, st, rbuf, rc, rt, xcomm, &c->req);
        case Form::nonblocking_c: return MPIX_Ialltoall_c(sbuf, sc, st, rbuf, rc, rt, xcomm, &c->req);
        default: return MPIX_Alltoall_init(sbuf, sc, st, rbuf, rc, rt, xcomm, init_info, &c->req);
        }
    }
    std::vector<int> &sc = c->sc, &sd = c->sd, &rc = c->rc, &rd = c->rd;
    std::vector<MPI_Count> &scc = c->scc, &rcc = c->rcc;
    std::vector<MPI_Aint> &sdc = c->sdc, &rdc = c->rdc;
    switch (form) {
    case Form::blocking: return MPIX_Alltoallv(sbuf, sc.data(), sd.data(), st, rbuf, rc.data(), rd.data(), rt, xcomm);
    case Form::blocking_c:
        return MPIX_Alltoallv_c(sbuf, scc.data(), sdc.data(), st, rbuf, rcc.data(), rdc.data(), rt, xcomm);
    case Form::nonblocking:
        return MPIX_Ialltoallv(sbuf, sc.data(), sd.data(), st, rbuf, rc.data(), rd.data(), rt, xcomm, &c->req);
    case Form::nonblocking_c:
        return MPIX_Ialltoallv_c(sbuf, scc.data(), sdc.data(), st, rbuf, rcc.data(), rdc.data(), rt, xcomm, &c->req);
    default:
        return MPIX_Alltoallv_init(sbuf, sc.data(), sd.data(), st, rbuf, rc.data(), rd.data(), rt, xcomm, init_info,
                                   &c->req);
    }
}

#else
// The same call through MPI's own names, which the drop-in intercepts.
int start_call_mpi(Call *c, Form form, bool uniform, bool in_place, MPI_Comm comm)
{
    const CallArgs a = call_arguments(c, in_place);
    const void *sbuf = a.sbuf;
    void *rbuf = a.rbuf;
    MPI_Datatype st = a.st, rt = a.rt;
    MPI_Request *r = &c->mreq;
    if (uniform) {
        const int sc = a.scount, rc = a.rcount;
        switch (form) {
        case Form::blocking: return MPI_Alltoall(sbuf, sc, st, rbuf, rc, rt, comm);
        case Form::nonblocking: return MPI_Ialltoall(sbuf, sc, st, rbuf, rc, rt, comm, r);
#if MPIX_HAVE_LARGE_COUNT
        case Form::blocking_c: return MPI_Alltoall_c(sbuf, sc, st, rbuf, rc, rt, comm);
        case Form::nonblocking_c: return MPI_Ialltoall_c(sbuf, sc, st, rbuf, rc, rt, comm, r);
#else
        case Form::blocking_c: return MPI_Alltoall(sbuf, sc, st, rbuf, rc, rt, comm);
        case Form::nonblocking_c: return MPI_Ialltoall(sbuf, sc, st, rbuf, rc, rt, comm, r);
#endif
        default: return MPI_Alltoall_init(sbuf, sc, st, rbuf, rc, rt, comm, MPI_INFO_NULL, r);
        }
    }
    const int *sc = c->sc.data(), *sd = c->sd.data(), *rc = c->rc.data(), *rd = c->rd.data();
    switch (form) {
    case Form::blocking: return MPI_Alltoallv(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm);
    case Form::nonblocking: return MPI_Ialltoallv(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm, r);
#if MPIX_HAVE_LARGE_COUNT
    case Form::blocking_c:
        return MPI_Alltoallv_c(sbuf, c->scc.data(), c->sdc.data(), st, rbuf, c->rcc.data(), c->rdc.data(), rt, comm);
    case Form::nonblocking_c:
        return MPI_Ialltoallv_c(sbuf, c->scc.data(), c->sdc.data(), st, rbuf, c->rcc.data(), c->rdc.data(), rt, comm,
                                r);
#else
    case Form::blocking_c: return MPI_Alltoallv(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm);
    case Form::nonblocking_c: return MPI_Ialltoallv(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm, r);
#endif
    default: return MPI_Alltoallv_init(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm, MPI_INFO_NULL, r);
    }
}

// Completes `reqs` with one of MPI's completion calls, drawn from `local`:
// Wait in a shuffled order, a Test loop, Waitall, Testall, or loops of
// Waitany, Waitsome, Testany and Testsome, which must then find no active
// request left (MPI_UNDEFINED). `few`: only Wait, Test and Waitall (MPICH
// 4.0.2's own persistent collectives break in its Waitany, Testany and Testall:
// docs/drop-in.md). False with a detail where MPI's rules were broken.
bool complete_mpi(std::vector<MPI_Request> *reqs, Rng &local, bool few, std::string *detail)
{
    const int n = static_cast<int>(reqs->size());
    MPI_Request *r = reqs->data();
    std::vector<MPI_Status> st(reqs->size());
    std::vector<int> done(reqs->size(), 0), idx(reqs->size());
    int rc = MPI_SUCCESS, left = n;
    const char *how = "";
    // Marks one completion; false where a request completed twice.
    auto mark = [&](int i) {
        if (i < 0 || i >= n || done[static_cast<std::size_t>(i)]) {
            *detail = std::string(how) + " returned index " + std::to_string(i) + " twice or out of range";
            return false;
        }
        done[static_cast<std::size_t>(i)] = 1;
        --left;
        return true;
    };
    const unsigned how_drawn = local() % (few ? 3 : 8);
    switch (how_drawn) {
    case 0: {
        how = "MPI_Wait";
        std::vector<int> order(reqs->size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), local);
        for (int i : order)
            if (int e = MPI_Wait(&r[i], &st[static_cast<std::size_t>(i)]))
                rc = e;
        return rc == MPI_SUCCESS || (*detail = "MPI_Wait returned " + std::to_string(rc), false);
    }
    case 1:
        how = "MPI_Test";
        for (int i = 0; i < n && rc == MPI_SUCCESS; ++i)
            for (int flag = 0; !flag && rc == MPI_SUCCESS;)
                rc = MPI_Test(&r[i], &flag, &st[static_cast<std::size_t>(i)]);
        return rc == MPI_SUCCESS || (*detail = "MPI_Test returned " + std::to_string(rc), false);
    case 2:
        how = "MPI_Waitall";
        rc = MPI_Waitall(n, r, st.data());
        return rc == MPI_SUCCESS || (*detail = "MPI_Waitall returned " + std::to_string(rc), false);
    case 3:
        how = "MPI_Testall";
        for (int flag = 0; !flag && rc == MPI_SUCCESS;)
            rc = MPI_Testall(n, r, &flag, st.data());
        return rc == MPI_SUCCESS || (*detail = "MPI_Testall returned " + std::to_string(rc), false);
    case 4:
        how = "MPI_Waitany";
        while (left > 0 && rc == MPI_SUCCESS) {
            int i = MPI_UNDEFINED;
            rc = MPI_Waitany(n, r, &i, st.data());
            if (rc == MPI_SUCCESS && !mark(i))
                return false;
        }
        if (rc == MPI_SUCCESS) {
            int i = 0;
            rc = MPI_Waitany(n, r, &i, st.data());
            if (rc == MPI_SUCCESS && i != MPI_UNDEFINED) {
                *detail = "MPI_Waitany found request " + std::to_string(i) + " active after all had completed";
                return false;
            }
        }
        break;
    case 5:
    case 7: {
        const bool wait = how_drawn == 5;
        how = wait ? "MPI_Waitsome" : "MPI_Testsome";
        while (left > 0 && rc == MPI_SUCCESS) {
            int out = MPI_UNDEFINED;
            rc = wait ? MPI_Waitsome(n, r, &out, idx.data(), st.data())
                      : MPI_Testsome(n, r, &out, idx.data(), st.data());
            if (rc == MPI_SUCCESS && out == MPI_UNDEFINED) {
                *detail = std::string(how) + " found no active request with " + std::to_string(left) + " left";
                return false;
            }
            for (int k = 0; rc == MPI_SUCCESS && k < out; ++k)
                if (!mark(idx[static_cast<std::size_t>(k)]))
                    return false;
        }
        if (rc == MPI_SUCCESS) {
            int out = 0;
            rc = MPI_Waitsome(n, r, &out, idx.data(), st.data());
            if (rc == MPI_SUCCESS && out != MPI_UNDEFINED) {
                *detail = "MPI_Waitsome found " + std::to_string(out) + " active requests after all had completed";
                return false;
            }
        }
        break;
    }
    default:
        how = "MPI_Testany";
        while (left > 0 && rc == MPI_SUCCESS) {
            int i = MPI_UNDEFINED, flag = 0;
            rc = MPI_Testany(n, r, &i, &flag, st.data());
            if (rc == MPI_SUCCESS && flag && i == MPI_UNDEFINED) {
                *detail = "MPI_Testany found no active request with " + std::to_string(left) + " left";
                return false;
            }
            if (rc == MPI_SUCCESS && flag && !mark(i))
                return false;
        }
    }
    return rc == MPI_SUCCESS || (*detail = std::string(how) + " returned " + std::to_string(rc), false);
}
#endif

#ifndef MPIX_FUZZ_DROPIN
// Completes every call's request: Wait in a shuffled order, a Test loop, Waitall or Testall.
int complete(std::vector<Call> *calls, Rng &local)
{
    std::vector<MPIX_Request *> reqs;
    for (Call &c : *calls)
        reqs.push_back(c.req);
    int rc = MPI_SUCCESS;
    switch (local() % 4) {
    case 0: {
        std::vector<std::size_t> order(reqs.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::shuffle(order.begin(), order.end(), local);
        for (std::size_t i : order)
            if (int r = MPIX_Wait(&reqs[i], MPI_STATUS_IGNORE))
                rc = r;
        break;
    }
    case 1:
        for (std::size_t i = 0; i < reqs.size(); ++i)
            for (int flag = 0; !flag;)
                if (int r = MPIX_Test(&reqs[i], &flag, MPI_STATUS_IGNORE)) {
                    rc = r;
                    break;
                }
        break;
    case 2: rc = MPIX_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE); break;
    default:
        for (int flag = 0; !flag;)
            if ((rc = MPIX_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, MPI_STATUSES_IGNORE)))
                break;
    }
    for (std::size_t i = 0; i < reqs.size(); ++i)
        (*calls)[i].req = reqs[i];
    return rc;
}

// MPIX_Alltoall_crs / MPIX_Alltoallv_crs: a random pattern (self included,
// zero-length messages too), each rank's own send and receive types, the send
// blocks of the v form in a shuffled order with gaps, capacities exact or
// larger; sources must come back ascending, each block at its place, and no
// int outside the received data (holes, unused capacity, guards) written.
void fuzz_sparse_case(unsigned seed, Rng &shared, MPIX_Comm *xcomm, const std::string &comm_name, int p, int me,
                      const std::vector<int> &world_of)
{
    const bool constant = shared() % 2;
    const mpix::Collective coll = constant ? mpix::Collective::alltoall_crs : mpix::Collective::alltoallv_crs;
    DrawnRow drawn = draw_row(shared, coll, p);
    const char *row_name = drawn.name;
    auto &hints = drawn.hints;
    const int ppn = pick(shared, 0, p);
    const unsigned density = std::vector<unsigned>{0, 20, 50, 100}[shared() % 4];
    const int scale = std::vector<int>{0, 1, 3, 40}[shared() % 4];
    const bool known = shared() % 3 == 0;  // crs_recv_nnz_known with exact capacities
    const bool per_call = shared() % 2;    // hints per call (xinfo) or on the comm
    std::vector<long> ints(static_cast<std::size_t>(p) * p, -1);  // -1: no message
    const long constant_ints = 12L * pick(shared, 0, scale);
    for (std::size_t i = 0; i < ints.size(); ++i)
        if (shared() % 100 < density)
            ints[i] = constant ? constant_ints : 12L * pick(shared, 0, scale);

    Rng local(seed * 7919u + static_cast<unsigned>(world_of[me]) * 104729u);
    const int sizes[] = {1, 2, 3, 4, 6, 12};
    TypeDesc st = make_type(local, sizes[local() % 6], 0);
    TypeDesc rt = make_type(local, sizes[local() % 6], 0);
    const long ns = static_cast<long>(st.offs.size()), nr = static_cast<long>(rt.offs.size());
    std::string what = "seed " + std::to_string(seed) + ": " + (constant ? "alltoall_crs " : "alltoallv_crs ") +
                       row_name;
    for (const auto &h : hints)
        what += " " + h.first + "=" + h.second;
    what += std::string(known ? ", crs_recv_nnz_known" : "") + (per_call ? ", hints per call" : "") + ", " +
            comm_name + " (" + std::to_string(p) + " ranks), ppn " + std::to_string(ppn) + ", density " +
            std::to_string(density) + " %, ints/block <= " + std::to_string(12 * scale) + "; on world rank " +
            std::to_string(world_of[me]) + ": send " + st.name + ", receive " + rt.name;
    if (std::getenv("MPIX_FUZZ_VERBOSE"))
        std::fprintf(stderr, "%s\n", what.c_str());
    MPIX_EXPECT(MPIX_Comm_update_locality(xcomm, ppn) == MPI_SUCCESS, what + ": MPIX_Comm_update_locality");
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, constant ? "alltoall_crs_algorithm" : "alltoallv_crs_algorithm", row_name);
    for (const auto &h : hints)
        MPIX_Info_set(info, h.first.c_str(), h.second.c_str());
    if (known)
        MPIX_Info_set(info, "crs_recv_nnz_known", "true");
    if (!per_call) {
        int rc = MPIX_Comm_set_info(xcomm, info);
        MPIX_EXPECT(rc == MPI_SUCCESS, what + ": MPIX_Comm_set_info returned " + std::to_string(rc));
    }

    // Send side: destinations in a shuffled order, blocks in another, with gaps.
    std::vector<int> dest;
    for (int j = 0; j < p; ++j)
        if (ints[static_cast<std::size_t>(me) * p + j] >= 0)
            dest.push_back(j);
    std::shuffle(dest.begin(), dest.end(), local);
    const int nd = static_cast<int>(dest.size());
    Side send;
    send.t = &st;
    std::vector<long> scount(dest.size()), sdispl(dest.size());
    {
        std::vector<std::size_t> order(dest.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        if (!constant)
            std::shuffle(order.begin(), order.end(), local);
        long at = constant ? 0 : pick(local, 0, 2);
        for (std::size_t i : order) {
            scount[i] = ints[static_cast<std::size_t>(me) * p + dest[i]] / ns;
            sdispl[i] = at;
            at += scount[i] + (constant ? 0 : pick(local, 0, 2));
        }
        send.layout(scount, sdispl);
        for (int i = 0; i < nd; ++i)
            send.each(i, [&](long pos, long idx) {
                send.store[static_cast<std::size_t>(pos)] = value(seed, 0, world_of[me], world_of[dest[i]], idx);
            });
    }
    const std::vector<int> send_copy = send.store;
    long send_size = 0;
    for (int i = 0; i < nd; ++i)
        send_size = std::max(send_size, sdispl[i] + scount[i]);
    send_size += constant ? 0 : pick(local, 0, 2);

    // Expected: sources ascending, blocks packed in that order.
    std::vector<int> srcs;
    std::vector<long> rcount, rdispl;
    long total = 0;
    for (int i = 0; i < p; ++i)
        if (ints[static_cast<std::size_t>(i) * p + me] >= 0) {
            srcs.push_back(i);
            rcount.push_back(ints[static_cast<std::size_t>(i) * p + me] / nr);
            rdispl.push_back(total);
            total += rcount.back();
        }
    const int exact = static_cast<int>(srcs.size());
    const int cap = known ? exact : exact + pick(local, 0, 3);
    const long recvcount = constant ? constant_ints / nr : 0;
    const long cap_elems = constant ? cap * recvcount : (known ? total : total + pick(local, 0, 5));
    // The receive buffer spans the whole capacity; its received part is checked
    // per block, everything else must stay the sentinel.
    Side recv;
    recv.t = &rt;
    recv.layout({cap_elems}, {0});
    std::vector<int> src(static_cast<std::size_t>(cap) + 4, kSentinel), rc_(src.size(), kSentinel),
        rd_(src.size(), kSentinel);
    int nnz = cap, size = static_cast<int>(cap_elems);
    std::vector<int> dest_i(dest.begin(), dest.end()), sc(scount.begin(), scount.end()),
        sd(sdispl.begin(), sdispl.end());
    int rc;
    if (constant)
        rc = MPIX_Alltoall_crs(nd, dest_i.data(), static_cast<int>(constant_ints / ns), st.type,
                               send.buf(), &nnz, src.data(), static_cast<int>(recvcount), rt.type, recv.buf(),
                               per_call ? info : nullptr, xcomm);
    else
        rc = MPIX_Alltoallv_crs(nd, static_cast<int>(send_size), dest_i.data(), sc.data(), sd.data(), st.type,
                                send.buf(), &nnz, &size, src.data(), rc_.data(), rd_.data(), rt.type, recv.buf(),
                                per_call ? info : nullptr, xcomm);
    std::string detail;
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPIX_Error_string(rc, text, &len);
        detail = std::string("the call returned ") + text;
    } else if (nnz != exact || (!constant && size != total)) {
        detail = "recv_nnz " + std::to_string(nnz) + " (expected " + std::to_string(exact) + ")" +
                 (constant ? "" : ", recv_size " + std::to_string(size) + " (expected " + std::to_string(total) + ")");
    } else {
        std::vector<int> expect(recv.store.size(), kSentinel);
        Side got = recv;  // the expected blocks, in recvtype elements from recvvals
        got.counts.clear();
        got.displs.clear();
        for (int k = 0; k < exact; ++k) {
            got.counts.push_back(constant ? recvcount : rcount[static_cast<std::size_t>(k)]);
            got.displs.push_back(constant ? k * recvcount : rdispl[static_cast<std::size_t>(k)]);
        }
        for (int k = 0; k < exact; ++k)
            got.each(k, [&](long pos, long idx) {
                expect[static_cast<std::size_t>(pos)] = value(seed, 0, world_of[srcs[k]], world_of[me], idx);
            });
        for (int k = 0; k < exact && detail.empty(); ++k)
            if (src[k] != srcs[k] ||
                (!constant && (rc_[k] != rcount[static_cast<std::size_t>(k)] ||
                               rd_[k] != rdispl[static_cast<std::size_t>(k)])))
                detail = "entry " + std::to_string(k) + ": source " + std::to_string(src[k]) + " (expected " +
                         std::to_string(srcs[k]) + ")" +
                         (constant ? "" : ", count " + std::to_string(rc_[k]) + ", displacement " +
                                              std::to_string(rd_[k]));
        for (std::size_t k = static_cast<std::size_t>(cap); k < src.size() && detail.empty(); ++k)
            if (src[k] != kSentinel || rc_[k] != kSentinel || rd_[k] != kSentinel)
                detail = "src, recvcounts or rdispls written past the capacity";
        for (std::size_t i = 0; i < expect.size() && detail.empty(); ++i)
            if (recv.store[i] != expect[i])
                detail = "recvvals int " + std::to_string(static_cast<long>(i) - recv.origin) + " is " +
                         std::to_string(recv.store[i]) + ", expected " + std::to_string(expect[i]);
        if (detail.empty() && send.store != send_copy)
            detail = "the send buffer was written";
    }
    MPIX_EXPECT(detail.empty(), what + ": " + detail);
    MPIX_Info_free(&info);
    MPIX_Comm_set_info(xcomm, nullptr);
    release(&st);
    release(&rt);
}
#endif

// MPIX_Neighbor_alltoallv over a random multigraph (self loops, an edge up to
// twice: the k-th listing of d among s's destinations meets the k-th listing of s
// among d's sources), each rank's lists in its own shuffled order, its own types
// and shuffled, gapped blocks; blocking, or persistent restarted with new data.
#ifdef MPIX_FUZZ_DROPIN
using CaseComm = MPI_Comm;  // MPI's communicator: the drop-in makes its own wrappers
#else
using CaseComm = MPIX_Comm *;
#endif

// One int to every peer through a blocking MPIX_Alltoall (through the drop-in:
// MPI_Alltoall) while requests are in flight on the same communicator, which
// must not take their messages nor theirs its own; "" or what went wrong.
std::string interleaved_alltoall(unsigned seed, int gen, CaseComm comm, int me, int p,
                                 const std::vector<int> &world_of)
{
    std::vector<int> out(static_cast<std::size_t>(p)), in(static_cast<std::size_t>(p) + 1, kSentinel);
    for (int j = 0; j < p; ++j)
        out[static_cast<std::size_t>(j)] = value(seed, 900 + gen, world_of[me], world_of[j], 0);
#ifdef MPIX_FUZZ_DROPIN
    const int rc = MPI_Alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, comm);
#else
    const int rc = MPIX_Alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, comm);
#endif
    if (rc != MPI_SUCCESS)
        return "the blocking alltoall in between returned " + std::to_string(rc);
    for (int j = 0; j < p; ++j)
        if (in[static_cast<std::size_t>(j)] != value(seed, 900 + gen, world_of[j], world_of[me], 0))
            return "the blocking alltoall in between received " + std::to_string(in[static_cast<std::size_t>(j)]) +
                   " from rank " + std::to_string(j);
    if (in[static_cast<std::size_t>(p)] != kSentinel)
        return "the blocking alltoall in between wrote past its buffer";
    return "";
}

void fuzz_neighbor_case(unsigned seed, Rng &shared, CaseComm xcomm, const std::string &comm_name, int p, int me,
                        const std::vector<int> &world_of)
{
    DrawnRow drawn = draw_row(shared, mpix::Collective::neighbor_alltoallv, p);
    const char *row_name = drawn.name;
    auto &hints = drawn.hints;
    const int ppn = pick(shared, 0, p);
    const unsigned density = std::vector<unsigned>{0, 30, 70, 100}[shared() % 4];
    const int scale = std::vector<int>{0, 1, 3, 40}[shared() % 4];
    const bool persistent = shared() % 2;
    const int starts = persistent ? pick(shared, 1, 3) : 1;
    const bool hints_at_init = persistent && shared() % 2;
#ifdef MPIX_FUZZ_DROPIN
    const bool nonblocking = !persistent && shared() % 2;  // MPI_Ineighbor_alltoallv
#endif
    std::vector<int> multiplicity(static_cast<std::size_t>(p) * p, 0);
    for (int &m : multiplicity)
        m = shared() % 100 < density ? (shared() % 5 == 0 ? 2 : 1) : 0;
    // Ints on edge (s, d, k), drawn in a fixed order so every rank knows them.
    std::vector<long> edge_ints(static_cast<std::size_t>(p) * p * 2, 0);
    for (long &n : edge_ints)
        n = 12L * pick(shared, 0, scale);
    auto ints_of = [&](int s, int d, int k) {
        return edge_ints[(static_cast<std::size_t>(s) * p + d) * 2 + static_cast<std::size_t>(k)];
    };
#ifndef MPIX_FUZZ_DROPIN
    // A third of the persistent cases: MPIX_Neighbor_alltoallv_init_indexed, every
    // element with a global index (elements of `indexed_ints` ints on every rank).
    const bool indexed = persistent && shared() % 3 == 0;
    const long long pool = std::vector<long long>{1, 3, 0}[shared() % 3];  // 0: every index distinct
    const int indexed_ints = std::vector<int>{1, 2, 3, 4, 6, 12}[shared() % 6];
#else
    const bool indexed = false;  // no MPI call takes global indices
    const long long pool = 1;
    const int indexed_ints = 1;
#endif
    // Element e of edge (s, d, k)'s global index in an indexed case: its
    // source's, from a pool of `pool` per source (so equal indices go to several
    // ranks of a node and twice in one block) or distinct. Equal indices carry
    // equal values: an int's value depends on the source, index and place.
    auto global_index = [&](int s, int d, int k, long e) -> long long {
        const long long own = pool ? static_cast<long long>(value(seed, 7, s, d * 2 + k, e)) % pool
                                   : (static_cast<long long>(d) * 2 + k) * 1000000LL + e;
        return static_cast<long long>(s) * 100000000000LL + own;
    };
    // The value of stream int idx on edge (s, d, k) at start `gen`.
    auto edge_value = [&](int gen, int s, int d, int k, long idx) {
        if (!indexed)
            return value(seed, gen * 2 + k, world_of[s], world_of[d], idx);
        const long long index = global_index(s, d, k, idx / indexed_ints);
        return value(seed, gen * 2, world_of[s], -1, static_cast<long>(index * 16 + idx % indexed_ints));
    };

    Rng local(seed * 7919u + static_cast<unsigned>(world_of[me]) * 104729u);
    const int sizes[] = {1, 2, 3, 4, 6, 12};
    const int send_ints = sizes[local() % 6];
    TypeDesc st = make_type(local, indexed ? indexed_ints : send_ints, 0);
    const int recv_ints = sizes[local() % 6];
    TypeDesc rt = make_type(local, indexed ? indexed_ints : recv_ints, 0);
    const long ns = static_cast<long>(st.offs.size()), nr = static_cast<long>(rt.offs.size());
    std::vector<int> dests, sources;
    for (int j = 0; j < p; ++j) {
        for (int k = 0; k < multiplicity[static_cast<std::size_t>(me) * p + j]; ++k)
            dests.push_back(j);
        for (int k = 0; k < multiplicity[static_cast<std::size_t>(j) * p + me]; ++k)
            sources.push_back(j);
    }
    std::shuffle(dests.begin(), dests.end(), local);
    std::shuffle(sources.begin(), sources.end(), local);
    // The occurrence index of each entry among equal ranks of its list.
    auto occurrences = [&](const std::vector<int> &list) {
        std::vector<int> seen(static_cast<std::size_t>(p), 0), k(list.size());
        for (std::size_t i = 0; i < list.size(); ++i)
            k[i] = seen[static_cast<std::size_t>(list[i])]++;
        return k;
    };
    const std::vector<int> dest_k = occurrences(dests), source_k = occurrences(sources);

#ifdef MPIX_FUZZ_DROPIN
    std::string what = "seed " + std::to_string(seed) + ": MPI_" +
                       (persistent    ? "Neighbor_alltoallv_init "
                        : nonblocking ? "Ineighbor_alltoallv "
                                      : "Neighbor_alltoallv ") +
                       row_name;
#else
    std::string what = "seed " + std::to_string(seed) + ": neighbor_alltoallv " + row_name;
#endif
    for (const auto &h : hints)
        what += " " + h.first + "=" + h.second;
    what += std::string(persistent ? ", persistent, " + std::to_string(starts) + " starts" : "") +
            (hints_at_init ? ", hints at init" : "") +
            (indexed ? ", indexed (" + (pool ? std::to_string(pool) + " indices a source" : std::string("distinct")) +
                           ", " + std::to_string(indexed_ints) + " ints an element)"
                     : "") +
            ", " + comm_name + " (" + std::to_string(p) + " ranks), ppn " +
            std::to_string(ppn) + ", density " + std::to_string(density) + " %, ints/block <= " +
            std::to_string(12 * scale) + "; on world rank " + std::to_string(world_of[me]) + ": send " + st.name +
            ", receive " + rt.name;
    if (std::getenv("MPIX_FUZZ_VERBOSE"))
        std::fprintf(stderr, "%s\n", what.c_str());
#ifdef MPIX_FUZZ_DROPIN
    CaseEnvironment env;  // read when the graph communicator's first exchange makes its wrapper
    env.set(persistent || nonblocking ? "MPIX_INEIGHBOR_ALLTOALLV_ALGORITHM" : "MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM",
            row_name);
    env.set_hints(hints);
    if (ppn > 0)
        env.set("MPIX_PPN", std::to_string(ppn));
#else
    MPIX_EXPECT(MPIX_Comm_update_locality(xcomm, ppn) == MPI_SUCCESS, what + ": MPIX_Comm_update_locality");
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "neighbor_alltoallv_algorithm", row_name);
    for (const auto &h : hints)
        MPIX_Info_set(info, h.first.c_str(), h.second.c_str());
    if (!hints_at_init) {
        int rc = MPIX_Comm_set_info(xcomm, info);
        MPIX_EXPECT(rc == MPI_SUCCESS, what + ": MPIX_Comm_set_info returned " + std::to_string(rc));
    }
#endif

    auto gapped = [&](Side *side, const std::vector<long> &counts) {
        std::vector<std::size_t> order(counts.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::shuffle(order.begin(), order.end(), local);
        std::vector<long> displs(counts.size());
        long at = pick(local, 0, 2);
        for (std::size_t i : order) {
            displs[i] = at;
            at += counts[i] + pick(local, 0, 2);
        }
        side->layout(counts, displs);
    };
    Side send, recv;
    send.t = &st;
    recv.t = &rt;
    std::vector<long> scount(dests.size()), rcount(sources.size());
    for (std::size_t i = 0; i < dests.size(); ++i)
        scount[i] = ints_of(me, dests[i], dest_k[i]) / ns;
    for (std::size_t i = 0; i < sources.size(); ++i)
        rcount[i] = ints_of(sources[i], me, source_k[i]) / nr;
    gapped(&send, scount);
    gapped(&recv, rcount);
    std::vector<int> sc = as<int>(send.counts), sd = as<int>(send.displs), rc_ = as<int>(recv.counts),
                     rd = as<int>(recv.displs);

#ifdef MPIX_FUZZ_DROPIN
    // MPI's graph in the lists' order (a dummy entry where a list is empty).
    MPI_Comm graph = MPI_COMM_NULL;
    int dummy = 0;
    int rc = MPI_Dist_graph_create_adjacent(xcomm, static_cast<int>(sources.size()),
                                            sources.empty() ? &dummy : sources.data(), MPI_UNWEIGHTED,
                                            static_cast<int>(dests.size()), dests.empty() ? &dummy : dests.data(),
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    std::string detail;
    if (rc != MPI_SUCCESS)
        detail = "MPI_Dist_graph_create_adjacent returned " + std::to_string(rc);
    MPI_Request req = MPI_REQUEST_NULL;
#else
    MPIX_Topo *topo = nullptr;
    int rc = MPIX_Topo_init(static_cast<int>(sources.size()), sources.data(), MPI_UNWEIGHTED,
                            static_cast<int>(dests.size()), dests.data(), MPI_UNWEIGHTED, xcomm, &topo);
    std::string detail;
    if (rc != MPI_SUCCESS)
        detail = "MPIX_Topo_init returned " + std::to_string(rc);
    MPIX_Request *req = nullptr;
    std::vector<long long> sidx, ridx;  // an indexed case's, alive as its request is (as MPI's arrays)
#endif
    for (int gen = 0; gen < starts && rc == MPI_SUCCESS; ++gen) {  // every start, as the other ranks do
        std::fill(send.store.begin(), send.store.end(), kSentinel);
        std::fill(recv.store.begin(), recv.store.end(), kSentinel);
        for (std::size_t i = 0; i < dests.size(); ++i)
            send.each(static_cast<int>(i), [&](long pos, long idx) {
                send.store[static_cast<std::size_t>(pos)] = edge_value(gen, me, dests[i], dest_k[i], idx);
            });
        const std::vector<int> send_copy = send.store;
#ifdef MPIX_FUZZ_DROPIN
        if (persistent) {
            rc = gen > 0 ? MPI_SUCCESS
                         : MPI_Neighbor_alltoallv_init(send.buf(), sc.data(), sd.data(), st.type, recv.buf(),
                                                       rc_.data(), rd.data(), rt.type, graph, MPI_INFO_NULL, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Start(&req);
        } else if (nonblocking) {
            rc = MPI_Ineighbor_alltoallv(send.buf(), sc.data(), sd.data(), st.type, recv.buf(), rc_.data(), rd.data(),
                                         rt.type, graph, &req);
        } else {
            rc = MPI_Neighbor_alltoallv(send.buf(), sc.data(), sd.data(), st.type, recv.buf(), rc_.data(), rd.data(),
                                        rt.type, graph);
        }
        if (rc == MPI_SUCCESS && (persistent || nonblocking))
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
#else
        if (!persistent)
            rc = MPIX_Neighbor_alltoallv(send.buf(), sc.data(), sd.data(), st.type, recv.buf(), rc_.data(), rd.data(),
                                         rt.type, topo, xcomm);
        else {
            if (gen == 0 && indexed) {  // the global index of every element, in block order
                for (std::size_t i = 0; i < dests.size(); ++i)
                    for (long e = 0; e < scount[i]; ++e)
                        sidx.push_back(global_index(me, dests[i], dest_k[i], e));
                for (std::size_t i = 0; i < sources.size(); ++i)
                    for (long e = 0; e < rcount[i]; ++e)
                        ridx.push_back(global_index(sources[i], me, source_k[i], e));
                rc = MPIX_Neighbor_alltoallv_init_indexed(send.buf(), sc.data(), sd.data(), st.type, recv.buf(),
                                                          rc_.data(), rd.data(), rt.type, sidx.data(), ridx.data(),
                                                          topo, xcomm, hints_at_init ? info : nullptr, &req);
            } else {
                rc = gen > 0 ? MPI_SUCCESS
                             : MPIX_Neighbor_alltoallv_init(send.buf(), sc.data(), sd.data(), st.type, recv.buf(),
                                                            rc_.data(), rd.data(), rt.type, topo, xcomm,
                                                            hints_at_init ? info : nullptr, &req);
            }
            if (rc == MPI_SUCCESS)
                rc = MPIX_Start(req);
            if (rc == MPI_SUCCESS)
                rc = MPIX_Wait(&req, MPI_STATUS_IGNORE);
        }
#endif
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPIX_Error_string(rc, text, &len);
            if (detail.empty())
                detail = "start " + std::to_string(gen) + " returned " + text;
            break;
        }
        std::vector<int> expect(recv.store.size(), kSentinel);
        for (std::size_t i = 0; i < sources.size(); ++i)
            recv.each(static_cast<int>(i), [&](long pos, long idx) {
                expect[static_cast<std::size_t>(pos)] =
                    edge_value(gen, sources[i], me, source_k[i], idx);
            });
        for (std::size_t i = 0; i < expect.size() && detail.empty(); ++i)
            if (recv.store[i] != expect[i])
                detail = "start " + std::to_string(gen) + ": receive buffer int " +
                         std::to_string(static_cast<long>(i) - recv.origin) + " is " + std::to_string(recv.store[i]) +
                         ", expected " + std::to_string(expect[i]);
        if (detail.empty() && send.store != send_copy)
            detail = "the send buffer was written";
    }
#ifdef MPIX_FUZZ_DROPIN
    if (req != MPI_REQUEST_NULL && MPI_Request_free(&req) != MPI_SUCCESS && detail.empty())
        detail = "MPI_Request_free of the inactive persistent request failed";
    if (graph != MPI_COMM_NULL)
        MPI_Comm_free(&graph);
    MPIX_EXPECT(detail.empty(), what + ": " + detail);
#else
    if (req)
        MPIX_Request_free(&req);
    if (topo)
        MPIX_Topo_free(&topo);
    MPIX_EXPECT(detail.empty(), what + ": " + detail);
    MPIX_Info_free(&info);
    MPIX_Comm_set_info(xcomm, nullptr);
#endif
    release(&st);
    release(&rt);
}

enum class BadArgument { none, negative_count, null_recvbuf, null_type, uncommitted_type, in_place_recvbuf };

const char *bad_name(BadArgument b)
{
    switch (b) {
    case BadArgument::negative_count: return "a negative count";
    case BadArgument::null_recvbuf: return "recvbuf NULL";
    case BadArgument::null_type: return "recvtype MPI_DATATYPE_NULL";
    case BadArgument::uncommitted_type: return "recvtype never committed";
    case BadArgument::in_place_recvbuf: return "recvbuf MPI_IN_PLACE";
    default: return "";
    }
}

// Makes call `c` one with `bad` wrong (`spare` holds a replacement type) and
// returns the error class MPI asks for.
int spoil(Call *c, BadArgument bad, bool in_place, TypeDesc *spare)
{
    switch (bad) {
    case BadArgument::negative_count:
        (in_place ? c->recv.counts : c->send.counts)[0] = -1;
        return MPI_ERR_COUNT;
    case BadArgument::null_recvbuf:
        c->recv.use_forced = true;
        c->recv.forced = nullptr;
        return MPI_ERR_BUFFER;
    case BadArgument::in_place_recvbuf:
        c->recv.use_forced = true;
        c->recv.forced = MPI_IN_PLACE;
        return MPI_ERR_BUFFER;
    case BadArgument::null_type:
        spare->type = MPI_DATATYPE_NULL;
        c->recv.t = spare;
        return MPI_ERR_TYPE;
    case BadArgument::uncommitted_type:
        MPI_Type_contiguous(static_cast<int>(c->recv.t->offs.size()), MPI_INT, &spare->type);
        spare->owned = true;  // freed by release(), never committed
        c->recv.t = spare;
        return MPI_ERR_TYPE;
    default: return MPI_SUCCESS;
    }
}

void fuzz_case(unsigned seed, const Comms &comms)
{
    Rng shared(seed);  // the same draws on every rank of the chosen communicator
    const std::size_t k = shared() % comms.x.size();
    MPIX_Comm *xcomm = comms.x[k];
    MPI_Comm comm = comms.user[k];
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    std::vector<int> world_of(static_cast<std::size_t>(p));
    const int world_me = mpixtest::rank();
    MPI_Allgather(&world_me, 1, MPI_INT, world_of.data(), 1, MPI_INT, comm);

#ifndef MPIX_FUZZ_DROPIN
    switch (shared() % 6) {  // a third of the cases: the sparse exchanges, a sixth: neighbour exchanges
    case 0:
    case 1: fuzz_sparse_case(seed, shared, xcomm, comms.names[k], p, me, world_of); return;
    case 2: fuzz_neighbor_case(seed, shared, xcomm, comms.names[k], p, me, world_of); return;
    default: break;
    }
#else
    // The sparse exchanges have no MPI call to intercept: a sixth of the cases
    // are neighbour exchanges on a distributed graph, the rest MPI_Alltoall(v).
    if (shared() % 6 == 2) {
        fuzz_neighbor_case(seed, shared, comm, comms.names[k], p, me, world_of);
        return;
    }
#endif
    const bool uniform = shared() % 2;
    const mpix::Collective coll = uniform ? mpix::Collective::alltoall : mpix::Collective::alltoallv;
    DrawnRow drawn = draw_row(shared, coll, p);
    const char *row_name = drawn.name;
    auto &hints = drawn.hints;
    const int ppn = pick(shared, 0, p);  // 0: the real node map
    const Form form = static_cast<Form>(shared() % 5);
#ifndef MPIX_FUZZ_DROPIN
    const int in_flight = form == Form::nonblocking || form == Form::nonblocking_c ? pick(shared, 1, 3) : 1;
#else  // several persistent requests too, started by MPI_Startall or one by one
    const int in_flight = form == Form::blocking || form == Form::blocking_c ? 1 : pick(shared, 1, 3);
    // Nonblocking and persistent calls: a named row, or (a sixth) none, which
    // leaves them to the MPI library unless the progress thread is on.
    const bool row_named = form == Form::blocking || form == Form::blocking_c || shared() % 6 != 0;
#endif
    const int starts = form == Form::persistent ? pick(shared, 1, 3) : 1;
    const bool in_place = shared() % 5 == 0;
    const bool hints_at_init = form == Form::persistent && shared() % 2;
    // The progress thread on this comm (MPIX_FUZZ_THREADS=1: MPI_THREAD_MULTIPLE).
    const bool async = std::getenv("MPIX_FUZZ_THREADS") && !hints_at_init && shared() % 3 == 0;
    // Ints from rank i to rank j: multiples of 12, so every type of 1, 2, 3, 4, 6
    // or 12 ints divides them; symmetric in place; some blocks large.
    const int scale = std::vector<int>{0, 1, 2, 5, 40, 300}[shared() % 6];
    std::vector<long> ints(static_cast<std::size_t>(p) * p);
    for (int i = 0; i < p; ++i)
        for (int j = 0; j < p; ++j) {
            long m = uniform ? scale : (shared() % 4 == 0 ? 0 : pick(shared, 0, std::max(scale, 0)));
            ints[static_cast<std::size_t>(i) * p + j] = 12 * m;
        }
    if (uniform)
        std::fill(ints.begin(), ints.end(), 12L * scale);
    if (in_place)
        for (int i = 0; i < p; ++i)
            for (int j = 0; j < i; ++j)
                ints[static_cast<std::size_t>(i) * p + j] = ints[static_cast<std::size_t>(j) * p + i];
    // A quarter of the nonblocking and persistent cases: a blocking all-to-all on
    // the same communicator between the starts and the completion.
    const bool interleaved = form != Form::blocking && form != Form::blocking_c && shared() % 4 == 0;
    // A tenth of the cases: one argument wrong on every rank (so that every
    // rank returns at once); the call must return its error class, write
    // nothing and leave no request, and the communicator must keep working.
    BadArgument bad = shared() % 10 == 0 ? static_cast<BadArgument>(1 + shared() % 5) : BadArgument::none;
#ifdef MPIX_FUZZ_DROPIN
    // The nonblocking and persistent calls the drop-in hands to the MPI library
    // unchanged (the row pmpi, or none named without the progress thread) get
    // that library's checks.
    const bool library_call = form != Form::blocking && form != Form::blocking_c &&
                              (row_named ? !strcmp(row_name, "pmpi") : !async);
    if (library_call)
        bad = BadArgument::none;
#endif

    Rng local(seed * 7919u + static_cast<unsigned>(world_me) * 104729u);  // this rank's own draws
    const int sizes[] = {1, 2, 3, 4, 6, 12};
    TypeDesc st = make_type(local, sizes[local() % 6], 0);
    TypeDesc rt = make_type(local, sizes[local() % 6], 0);
    if (bad == BadArgument::null_recvbuf) {
        // A NULL recvbuf is wrong only where blocks hold data and the type's data
        // does not lie at absolute addresses (true lower bound 0): on every rank,
        // or that rank would go on and wait for the others. Otherwise a count.
        long receives = 0;
        for (int j = 0; j < p; ++j)
            receives += ints[static_cast<std::size_t>(j) * p + me];
        int everywhere = receives > 0 && *std::min_element(rt.offs.begin(), rt.offs.end()) == 0;
        MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_LAND, comm);
        if (!everywhere)
            bad = BadArgument::negative_count;
    }

#ifdef MPIX_FUZZ_DROPIN
    std::string what = "seed " + std::to_string(seed) + ": MPI_" + (uniform ? "Alltoall " : "Alltoallv ") +
                       (row_named ? row_name : "(no row named)") + (async ? " MPIX_ASYNC_PROGRESS=1" : "");
#else
    std::string what = "seed " + std::to_string(seed) + ": " + (uniform ? "alltoall " : "alltoallv ") + row_name +
                       (async ? " async_progress=true" : "");
#endif
    for (const auto &h : hints)
        what += " " + h.first + "=" + h.second;
    what += ", " + std::string(form_name(form));
    if (in_flight > 1)
        what += " x" + std::to_string(in_flight);
    if (starts > 1)
        what += ", " + std::to_string(starts) + " starts";
    if (interleaved)
        what += ", a blocking alltoall in between";
    if (bad != BadArgument::none)
        what += std::string(", bad argument: ") + bad_name(bad);
    what += std::string(in_place ? ", in place" : "") + ", " + comms.names[k] + " (" + std::to_string(p) +
            " ranks), ppn " + std::to_string(ppn) + ", ints/block <= " + std::to_string(12 * scale) +
            "; on world rank " + std::to_string(world_me) + ": send " + st.name + ", receive " + rt.name;

    if (std::getenv("MPIX_FUZZ_VERBOSE"))
        std::fprintf(stderr, "%s\n", what.c_str());
#ifdef MPIX_FUZZ_DROPIN
    (void)xcomm;
    CaseEnvironment env;  // the row for the form's calls, hints, MPIX_PPN; then a new communicator
    const bool blocking = form == Form::blocking || form == Form::blocking_c;
    if (row_named)
        env.set(std::string(blocking ? "MPIX_" : "MPIX_I") + (uniform ? "ALLTOALL" : "ALLTOALLV") + "_ALGORITHM",
                row_name);
    if (interleaved && uniform && row_named)  // the blocking call in between on the same row
        env.set("MPIX_ALLTOALL_ALGORITHM", row_name);
    env.set_hints(hints);
    if (async)
        env.set("MPIX_ASYNC_PROGRESS", "1");
    if (ppn > 0)
        env.set("MPIX_PPN", std::to_string(ppn));
    MPI_Comm case_comm;
    MPI_Comm_dup(comm, &case_comm);  // its error handler returns, as comm's
    // MPICH's own persistent collectives break in some completion calls (complete_mpi).
    const bool library_persistent = form == Form::persistent && library_call;
#else
    MPIX_EXPECT(MPIX_Comm_update_locality(xcomm, ppn) == MPI_SUCCESS, what + ": MPIX_Comm_update_locality");
#endif
#ifndef MPIX_FUZZ_DROPIN
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, uniform ? "alltoall_algorithm" : "alltoallv_algorithm", row_name);
    if (async)
        hints.emplace_back("async_progress", "true");
    for (const auto &h : hints)
        MPIX_Info_set(info, h.first.c_str(), h.second.c_str());
    if (!hints_at_init) {
        int rc = MPIX_Comm_set_info(xcomm, info);
        MPIX_EXPECT(rc == MPI_SUCCESS, what + ": MPIX_Comm_set_info returned " + std::to_string(rc));
    }
#endif

    // Layouts: alltoall packed; alltoallv blocks in a shuffled order with gaps.
    auto side_layout = [&](Side *s, const TypeDesc *t, bool send_side) {
        s->t = t;
        const long n = static_cast<long>(t->offs.size());
        std::vector<long> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p));
        for (int j = 0; j < p; ++j)
            counts[static_cast<std::size_t>(j)] =
                (send_side ? ints[static_cast<std::size_t>(me) * p + j] : ints[static_cast<std::size_t>(j) * p + me]) /
                n;
        if (uniform) {
            for (int j = 0; j < p; ++j)
                displs[static_cast<std::size_t>(j)] = j * counts[0];
        } else {
            std::vector<int> order(static_cast<std::size_t>(p));
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), local);
            long at = pick(local, 0, 3);
            for (int j : order) {
                displs[static_cast<std::size_t>(j)] = at;
                at += counts[static_cast<std::size_t>(j)] + pick(local, 0, 2);
            }
        }
        s->layout(counts, displs);
    };
    std::vector<Call> calls(static_cast<std::size_t>(in_flight));
    for (Call &c : calls) {
        side_layout(&c.recv, &rt, false);
        if (!in_place)
            side_layout(&c.send, &st, true);
        else
            c.send.t = &rt;
    }

    bool ok = true;
    std::string detail;
    auto fail = [&](const std::string &why) {  // the first failure's detail
        if (ok && !why.empty()) {
            detail = why;
            ok = false;
        }
    };
    auto check = [&](int gen, int rc, const char *when) {
        if (!ok)
            return;
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPIX_Error_string(rc, text, &len);
            detail = std::string(when) + " returned " + text;
            ok = false;
            return;
        }
        for (std::size_t i = 0; i < calls.size() && ok; ++i)
            if (!verify(calls[i], in_place, seed, gen + static_cast<int>(i), me, p, world_of, &detail)) {
                detail = "call " + std::to_string(i) + ": " + detail;
                ok = false;
            }
    };

    if (bad != BadArgument::none) {
        Call &c = calls[0];
        fill(&c, in_place, seed, 0, me, p, world_of);
        TypeDesc spare;
        const int want = spoil(&c, bad, in_place, &spare);
        const std::vector<int> recv_before = c.recv.store;
#ifdef MPIX_FUZZ_DROPIN
        const int rc = start_call_mpi(&c, form, uniform, in_place, case_comm);
        const bool left_request = c.mreq != MPI_REQUEST_NULL;
#else
        const int rc = start_call(&c, form, uniform, in_place, xcomm, hints_at_init ? info : nullptr);
        const bool left_request = c.req != nullptr;
#endif
        int error_class = MPI_SUCCESS;
        MPI_Error_class(rc, &error_class);
        char text[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        if (rc != MPI_SUCCESS)
            MPIX_Error_string(rc, text, &len);
        if (error_class != want)
            fail("error class " + std::to_string(error_class) + ", expected " + std::to_string(want) + " (" + text +
                 ")");
        else if (len == 0)
            fail("the error has no text");
        if (left_request)
            fail("the failed call left a request");
        if (c.recv.store != recv_before)
            fail("the failed call wrote to the receive buffer");
        if (!in_place && c.send.store != c.send_copy)
            fail("the failed call wrote to the send buffer");
        release(&spare);
    }
#ifdef MPIX_FUZZ_DROPIN
    else if (blocking) {
        fill(&calls[0], in_place, seed, 0, me, p, world_of);
        check(0, start_call_mpi(&calls[0], form, uniform, in_place, case_comm), "the call");
    } else {
        // Persistent requests are made once; start s fills call i with
        // generation 4 s + i. Each round's completion call also completes a
        // message from the previous rank on the same communicator, which the
        // exchanges must not take.
        const bool persistent = form == Form::persistent;
        int rc = MPI_SUCCESS;
        for (std::size_t i = 0; persistent && i < calls.size() && rc == MPI_SUCCESS; ++i) {
            fill(&calls[i], in_place, seed, static_cast<int>(i), me, p, world_of);
            rc = start_call_mpi(&calls[i], form, uniform, in_place, case_comm);
        }
        if (rc != MPI_SUCCESS)
            check(0, rc, "MPI_Alltoall(v)_init");
        const int prev = (me + p - 1) % p, next = (me + 1) % p;
        // A failure on this rank alone is recorded, and the calls go on as on
        // the other ranks, which would otherwise wait for this one.
        for (int s = 0; s < starts; ++s) {
            const int gen = 4 * s;
            std::vector<MPI_Request> mine;
            for (std::size_t i = 0; i < calls.size() && rc == MPI_SUCCESS; ++i) {
                if (!persistent || s > 0)
                    fill(&calls[i], in_place, seed, gen + static_cast<int>(i), me, p, world_of);
                if (!persistent)
                    rc = start_call_mpi(&calls[i], form, uniform, in_place, case_comm);
                mine.push_back(calls[i].mreq);
            }
            if (rc == MPI_SUCCESS && persistent && local() % 2)
                rc = MPI_Startall(static_cast<int>(mine.size()), mine.data());
            else
                for (std::size_t i = 0; persistent && i < mine.size() && rc == MPI_SUCCESS; ++i)
                    rc = MPI_Start(&mine[i]);
            if (rc != MPI_SUCCESS) {
                check(gen, rc, persistent ? "MPI_Startall" : "the nonblocking call");
                break;
            }
            if (interleaved)
                fail(interleaved_alltoall(seed, s, case_comm, me, p, world_of));
            int halo_in = kSentinel, halo_out = value(seed, 1000 + s, world_of[me], world_of[next], 0);
            MPI_Request halo[2];
            MPI_Irecv(&halo_in, 1, MPI_INT, prev, 7, case_comm, &halo[0]);
            MPI_Isend(&halo_out, 1, MPI_INT, next, 7, case_comm, &halo[1]);
            std::vector<MPI_Request> all(mine.size() + 2);
            std::vector<std::size_t> at(all.size());
            std::iota(at.begin(), at.end(), std::size_t{0});
            std::shuffle(at.begin(), at.end(), local);
            for (std::size_t i = 0; i < mine.size(); ++i)
                all[at[i]] = mine[i];
            all[at[mine.size()]] = halo[0];
            all[at[mine.size() + 1]] = halo[1];
            std::string why;
            if (!complete_mpi(&all, local, library_persistent, &why)) {
                fail("start " + std::to_string(s) + ": " + why);
                MPI_Waitall(static_cast<int>(all.size()), all.data(), MPI_STATUSES_IGNORE);  // what is left
            }
            for (std::size_t i = 0; i < calls.size(); ++i)
                calls[i].mreq = all[at[i]];
            if (halo_in != value(seed, 1000 + s, world_of[prev], world_of[me], 0))
                fail("start " + std::to_string(s) + ": the point-to-point message beside the exchanges is " +
                     std::to_string(halo_in));
            check(gen, MPI_SUCCESS, "completion");
        }
        for (Call &c : calls)
            if (persistent && c.mreq != MPI_REQUEST_NULL && MPI_Request_free(&c.mreq) != MPI_SUCCESS)
                fail("MPI_Request_free of an inactive persistent request failed");
    }
    MPI_Comm_free(&case_comm);
#else
    else if (form == Form::blocking || form == Form::blocking_c) {
        fill(&calls[0], in_place, seed, 0, me, p, world_of);
        check(0, start_call(&calls[0], form, uniform, in_place, xcomm, nullptr), "the call");
    } else if (form == Form::persistent) {
        fill(&calls[0], in_place, seed, 0, me, p, world_of);
        int rc = start_call(&calls[0], form, uniform, in_place, xcomm, hints_at_init ? info : nullptr);
        for (int s = 0; s < starts && rc == MPI_SUCCESS; ++s) {  // every start, as the other ranks do
            if (s > 0)
                fill(&calls[0], in_place, seed, s, me, p, world_of);
            rc = MPIX_Start(calls[0].req);
            if (rc == MPI_SUCCESS && interleaved)
                fail(interleaved_alltoall(seed, s, xcomm, me, p, world_of));
            if (rc == MPI_SUCCESS)
                rc = complete(&calls, local);
            check(s, rc, "start and completion");
        }
        if (rc != MPI_SUCCESS)
            check(0, rc, "MPIX_Alltoall(v)_init");
        if (calls[0].req)
            MPIX_Request_free(&calls[0].req);
    } else {
        int rc = MPI_SUCCESS;
        for (std::size_t i = 0; i < calls.size() && rc == MPI_SUCCESS; ++i) {
            fill(&calls[i], in_place, seed, static_cast<int>(i), me, p, world_of);
            rc = start_call(&calls[i], form, uniform, in_place, xcomm, nullptr);
        }
        if (rc == MPI_SUCCESS && interleaved)
            fail(interleaved_alltoall(seed, 0, xcomm, me, p, world_of));
        if (rc == MPI_SUCCESS)
            rc = complete(&calls, local);
        check(0, rc, "start and completion");
    }
    MPIX_Info_free(&info);
    MPIX_Comm_set_info(xcomm, nullptr);
#endif
    MPIX_EXPECT(ok, what + ": " + detail);
    release(&st);
    release(&rt);
}

void test_fuzz()
{
    const char *env_cases = std::getenv("MPIX_FUZZ_CASES");
    const char *env_seed = std::getenv("MPIX_FUZZ_SEED");
    const int cases = env_cases ? std::atoi(env_cases) : 200;
    const unsigned first = env_seed ? static_cast<unsigned>(std::strtoul(env_seed, nullptr, 10)) : 1u;
    Comms comms = make_comms();
    for (int c = 0; c < cases; ++c) {
        fuzz_case(first + static_cast<unsigned>(c), comms);
        if ((c + 1) % 25 == 0 || c + 1 == cases)
            MPIX_CHECK_ALL(("fuzz cases up to seed " + std::to_string(first + static_cast<unsigned>(c))).c_str());
    }
    free_comms(&comms);
}

const mpixtest::TestCase kTests[] = {
    {"fuzz: random rows, hints, types per rank, layouts, forms, communicators", test_fuzz},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "fuzz", kTests, sizeof(kTests) / sizeof(kTests[0]),
                               std::getenv("MPIX_FUZZ_THREADS") ? MPI_THREAD_MULTIPLE : -1);
}
