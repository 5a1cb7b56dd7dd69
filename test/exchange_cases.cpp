#include "exchange_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "core/comm.hpp"
#include "harness_mix.hpp"
#include "placed_type.hpp"

namespace mpixtest {

namespace {

const unsigned char kGuard = 0x7E;
const size_t kFrontGuard = 64, kBackGuard = 64;

// One side's element type: where its data components sit inside an element.
struct SideType {
    MPI_Datatype type;
    MPI_Aint extent;
    int ncomp;          // data components per element
    MPI_Aint comp_off[2];
    bool is_double;
    bool owned;         // freed after the case
};

SideType make_type(char kind)
{
    SideType t{};
    if (kind == 'i') {
        t = SideType{MPI_INT, (MPI_Aint)sizeof(int), 1, {0, 0}, false, false};
    } else if (kind == 'd') {
        t = SideType{MPI_DOUBLE, (MPI_Aint)sizeof(double), 1, {0, 0}, true, false};
    } else {
        // Two ints with a one-int hole between them, resized to a negative lower
        // bound (-1 int) and an extent of 4 ints: holes inside and between elements.
        MPI_Datatype vec;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_create_resized(vec, -(MPI_Aint)sizeof(int), 4 * (MPI_Aint)sizeof(int), &t.type);
        MPI_Type_free(&vec);
        MPI_Type_commit(&t.type);
        t.extent = 4 * sizeof(int);
        t.ncomp = 2;
        t.comp_off[0] = 0;
        t.comp_off[1] = 2 * sizeof(int);
        t.is_double = false;
        t.owned = true;
    }
    return t;
}

// `gen`: the start of a persistent request (0 for a one-off call), so every
// start carries other data.
int value(int src, int dst, long idx, int gen = 0)
{
    return (int)((src * 7919L + dst * 131L + idx * 3L + 1 + gen * 40503L) & 0x3fffffff);
}

// Items (vector elements, or ints/doubles) from src to dst.
int items(const ExchangeCase &c, int p, int src, int dst)
{
    if (c.uniform) {
        switch (c.dist) {
        case Dist::all_zero: return 0;
        case Dist::uniform: return 3;
        case Dist::random_with_zeros: return 1 + (int)(c.seed % 5);
        case Dist::skewed: return 7;
        }
    }
    if (c.in_place && src > dst)
        std::swap(src, dst);  // MPI_IN_PLACE needs symmetric counts
    std::uint64_t h = mix(c.seed, (std::uint64_t)src, (std::uint64_t)dst);
    switch (c.dist) {
    case Dist::all_zero: return 0;
    case Dist::uniform: return 3;
    case Dist::random_with_zeros: return h % 100 < 35 ? 0 : 1 + (int)(h % 6);
    case Dist::skewed: return (src == 0 || dst == p - 1) ? 17 + (int)(h % 5) : (int)(h % 2);
    }
    return 0;
}

struct Side {
    SideType t;
    std::vector<int> counts, displs;  // elements of t, extents
    std::vector<unsigned char> mem;
    std::vector<char> is_data;  // byte is a data byte of some element
    // MPI_BOTTOM cases: t's element placed at buf()'s absolute address (made by
    // make_absolute once mem no longer moves; each copy of a Side makes its own).
    MPI_Datatype absolute = MPI_DATATYPE_NULL;

    char *buf() { return (char *)mem.data() + kFrontGuard; }
    // What a call passes: the buffer and element type, or MPI_BOTTOM and the
    // absolute type.
    void *arg() { return absolute != MPI_DATATYPE_NULL ? MPI_BOTTOM : (void *)buf(); }
    MPI_Datatype type() const { return absolute != MPI_DATATYPE_NULL ? absolute : t.type; }
    MPI_Aint offset(int peer, int elem, int comp) const
    {
        return (MPI_Aint)kFrontGuard + ((MPI_Aint)displs[peer] + elem) * t.extent + t.comp_off[comp];
    }
    size_t comp_size() const { return t.is_double ? sizeof(double) : sizeof(int); }
};

void make_absolute(Side &s) { s.absolute = placed_at(s.t.type, s.buf()); }

void free_absolute(Side &s)
{
    if (s.absolute != MPI_DATATYPE_NULL)
        MPI_Type_free(&s.absolute);
}

void layout(Side &s, int p, Layout l, bool uniform)
{
    s.displs.assign(p, 0);
    long next = l == Layout::packed || uniform ? 0 : 1;
    int gap = l == Layout::packed || uniform ? 0 : (l == Layout::gapped ? 2 : 1);
    for (int k = 0; k < p; ++k) {
        int peer = (l == Layout::reversed && !uniform) ? p - 1 - k : k;
        s.displs[peer] = (int)next;
        next += s.counts[peer] + gap;
    }
    size_t span = (size_t)std::max<long>(next, 1) * (size_t)s.t.extent;
    s.mem.assign(kFrontGuard + span + kBackGuard, kGuard);
    s.is_data.assign(s.mem.size(), 0);
    for (int peer = 0; peer < p; ++peer)
        for (int e = 0; e < s.counts[peer]; ++e)
            for (int k = 0; k < s.t.ncomp; ++k)
                std::fill_n(s.is_data.begin() + s.offset(peer, e, k), s.comp_size(), 1);
}

void put(Side &s, int peer, int src, int dst, int gen = 0)
{
    for (int e = 0; e < s.counts[peer]; ++e)
        for (int k = 0; k < s.t.ncomp; ++k) {
            int v = value(src, dst, (long)e * s.t.ncomp + k, gen);
            unsigned char *at = s.mem.data() + s.offset(peer, e, k);
            if (s.t.is_double) {
                double d = v;
                std::memcpy(at, &d, sizeof d);
            } else {
                std::memcpy(at, &v, sizeof v);
            }
        }
}

bool verify(const Side &s, int peer, int src, int dst, std::string *detail, int gen = 0)
{
    for (int e = 0; e < s.counts[peer]; ++e)
        for (int k = 0; k < s.t.ncomp; ++k) {
            int want = value(src, dst, (long)e * s.t.ncomp + k, gen);
            const unsigned char *at = s.mem.data() + s.offset(peer, e, k);
            long got;
            if (s.t.is_double) {
                double d;
                std::memcpy(&d, at, sizeof d);
                got = (long)d;
            } else {
                int i;
                std::memcpy(&i, at, sizeof i);
                got = i;
            }
            if (got != want) {
                std::ostringstream o;
                o << (gen ? "start " + std::to_string(gen) + ": " : std::string()) << "block from rank " << src
                  << " element " << e << "." << k << ": got " << got << ", expected "
                  << want;
                *detail = o.str();
                return false;
            }
        }
    return true;
}

// The receive buffer's data as sent, and every other byte still a guard.
bool check_received(const Side &recv, int p, int me, int gen, std::string *detail)
{
    for (int j = 0; j < p; ++j)
        if (!verify(recv, j, j, me, detail, gen))
            return false;
    for (size_t b = 0; b < recv.mem.size(); ++b)
        if (!recv.is_data[b] && recv.mem[b] != kGuard) {
            *detail = (gen ? "start " + std::to_string(gen) + ": " : std::string()) + "guard byte " +
                      std::to_string((long)b - (long)kFrontGuard) + " of the receive buffer changed";
            return false;
        }
    return true;
}

// One blocking call.
bool run_once(MPIX_Comm *xcomm, const ExchangeCase &c, int p, int me, Side &send, Side &recv, std::string *detail)
{
    std::vector<unsigned char> send_before = send.mem;
    int rc;
    const void *sbuf = c.in_place ? MPI_IN_PLACE : (const void *)send.arg();
    if (c.uniform && c.large_count)
        rc = MPIX_Alltoall_c(sbuf, send.counts.empty() ? 0 : send.counts[0], send.type(), recv.arg(),
                             recv.counts[0], recv.type(), xcomm);
    else if (c.uniform)
        rc = MPIX_Alltoall(sbuf, send.counts.empty() ? 0 : send.counts[0], send.type(), recv.arg(), recv.counts[0],
                           recv.type(), xcomm);
    else if (c.large_count) {
        std::vector<MPI_Count> sc(send.counts.begin(), send.counts.end()), rc_(recv.counts.begin(), recv.counts.end());
        std::vector<MPI_Aint> sd(send.displs.begin(), send.displs.end()), rd(recv.displs.begin(), recv.displs.end());
        rc = MPIX_Alltoallv_c(sbuf, sc.data(), sd.data(), send.type(), recv.arg(), rc_.data(), rd.data(),
                              recv.type(), xcomm);
    } else
        rc = MPIX_Alltoallv(sbuf, send.counts.data(), send.displs.data(), send.type(), recv.arg(), recv.counts.data(),
                            recv.displs.data(), recv.type(), xcomm);
    if (rc != MPI_SUCCESS) {
        *detail = "call returned error " + std::to_string(rc);
        return false;
    }
    if (!check_received(recv, p, me, 0, detail))
        return false;
    if (send.mem != send_before) {
        *detail = "send buffer changed";
        return false;
    }
    return true;
}

// A persistent request: init once (the count arrays are then scribbled over:
// the request must have copied them), then c.starts starts with new send data
// each time in the same buffers, completed by MPIX_Wait or an MPIX_Test loop.
bool run_persistent(MPIX_Comm *xcomm, const ExchangeCase &c, int p, int me, Side &send, Side &recv,
                    MPIX_Info *xinfo, std::string *detail)
{
    MPIX_Request *req = nullptr;
    const void *sbuf = c.in_place ? MPI_IN_PLACE : (const void *)send.arg();
    std::vector<int> sc = send.counts, sd = send.displs, rc_ = recv.counts, rd = recv.displs;
    if (c.in_place)
        sc = rc_, sd = rd;
    int rc = c.uniform ? MPIX_Alltoall_init(sbuf, sc.empty() ? 0 : sc[0], send.type(), recv.arg(), rc_[0],
                                            recv.type(), xcomm, xinfo, &req)
                       : MPIX_Alltoallv_init(sbuf, sc.data(), sd.data(), send.type(), recv.arg(), rc_.data(),
                                             rd.data(), recv.type(), xcomm, xinfo, &req);
    if (rc != MPI_SUCCESS) {
        *detail = "init returned error " + std::to_string(rc);
        return false;
    }
    std::fill(sc.begin(), sc.end(), -1);
    std::fill(sd.begin(), sd.end(), -1);
    std::fill(rc_.begin(), rc_.end(), -1);
    std::fill(rd.begin(), rd.end(), -1);
    bool ok = true;
    for (int gen = 1; gen <= c.starts; ++gen) {
        // New contents, same buffers.
        std::fill(recv.mem.begin(), recv.mem.end(), kGuard);
        for (int j = 0; j < p; ++j) {
            if (c.in_place)
                put(recv, j, me, j, gen);
            else
                put(send, j, me, j, gen);
        }
        std::vector<unsigned char> send_before = send.mem;
        rc = MPIX_Start(req);
        if (rc == MPI_SUCCESS && gen % 2 == 0) {
            int flag = 0;
            while (rc == MPI_SUCCESS && !flag)
                rc = MPIX_Test(&req, &flag, MPI_STATUS_IGNORE);
        } else if (rc == MPI_SUCCESS) {
            MPI_Status status;
            rc = MPIX_Wait(&req, &status);
            if (rc == MPI_SUCCESS && status.MPI_ERROR != MPI_SUCCESS) {
                *detail = "MPIX_Wait's status holds an error";
                ok = false;
                break;
            }
        }
        if (rc != MPI_SUCCESS) {
            *detail = "start " + std::to_string(gen) + " returned error " + std::to_string(rc);
            ok = false;
            break;
        }
        // Wrong data: noted, and the remaining starts still run (the other
        // ranks expect them).
        std::string wrong;
        if (!check_received(recv, p, me, gen, &wrong) ||
            (send.mem != send_before && !(wrong = "start " + std::to_string(gen) + ": send buffer changed").empty())) {
            if (ok)
                *detail = wrong;
            ok = false;
        }
    }
    if (MPIX_Request_free(&req) != MPI_SUCCESS || req != nullptr) {
        if (ok)
            *detail = "MPIX_Request_free failed";
        ok = false;
    }
    return ok;
}

// c.in_flight nonblocking calls started at once (copy k carries data of
// generation k + 1 in buffers of its own), a blocking MPIX_Alltoall and the
// user's own MPI_ANY_SOURCE/MPI_ANY_TAG receive on the user communicator in
// between (library traffic must never match it), then completion.
bool run_nonblocking(MPIX_Comm *xcomm, MPI_Comm comm, const ExchangeCase &c, int p, int me, const Side &send0,
                     const Side &recv0, std::string *detail)
{
    const int k = c.in_flight;
    std::vector<Side> sends(k, send0), recvs(k, recv0);
    // Each copy's absolute type names its own buffer (made before its call).
    struct FreeCopies {
        std::vector<Side> &a, &b;
        ~FreeCopies()
        {
            for (Side &s : a)
                free_absolute(s);
            for (Side &s : b)
                free_absolute(s);
        }
    } free_copies{sends, recvs};
    for (int i = 0; i < k; ++i) {
        sends[i].absolute = MPI_DATATYPE_NULL;
        recvs[i].absolute = MPI_DATATYPE_NULL;
        if (send0.absolute != MPI_DATATYPE_NULL)
            make_absolute(sends[i]);
        if (recv0.absolute != MPI_DATATYPE_NULL)
            make_absolute(recvs[i]);
    }
    std::vector<std::vector<unsigned char>> send_before(k);
    std::vector<MPIX_Request *> reqs(k, nullptr);
    std::vector<std::vector<MPI_Count>> scc(k), rcc(k);
    std::vector<std::vector<MPI_Aint>> sdc(k), rdc(k);
    // The user's wildcard receive, posted before any library traffic.
    int user_msg = -1;
    MPI_Request user_req;
    MPI_Irecv(&user_msg, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &user_req);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < k && rc == MPI_SUCCESS; ++i) {
        Side &send = sends[i], &recv = recvs[i];
        const int gen = i + 1;
        std::fill(recv.mem.begin(), recv.mem.end(), kGuard);
        for (int j = 0; j < p; ++j)
            put(c.in_place ? recv : send, j, me, j, gen);
        send_before[i] = send.mem;
        const void *sbuf = c.in_place ? MPI_IN_PLACE : (const void *)send.arg();
        const Side &cs = c.in_place ? recv : send;
        if (c.uniform && c.large_count)
            rc = MPIX_Ialltoall_c(sbuf, cs.counts[0], send.type(), recv.arg(), recv.counts[0], recv.type(), xcomm,
                                  &reqs[i]);
        else if (c.uniform)
            rc = MPIX_Ialltoall(sbuf, cs.counts[0], send.type(), recv.arg(), recv.counts[0], recv.type(), xcomm,
                                &reqs[i]);
        else if (c.large_count) {
            scc[i].assign(cs.counts.begin(), cs.counts.end());
            rcc[i].assign(recv.counts.begin(), recv.counts.end());
            sdc[i].assign(cs.displs.begin(), cs.displs.end());
            rdc[i].assign(recv.displs.begin(), recv.displs.end());
            rc = MPIX_Ialltoallv_c(sbuf, scc[i].data(), sdc[i].data(), send.type(), recv.arg(), rcc[i].data(),
                                   rdc[i].data(), recv.type(), xcomm, &reqs[i]);
        } else
            rc = MPIX_Ialltoallv(sbuf, cs.counts.data(), cs.displs.data(), send.type(), recv.arg(),
                                 recv.counts.data(), recv.displs.data(), recv.type(), xcomm, &reqs[i]);
    }
    if (rc != MPI_SUCCESS) {
        *detail = "MPIX_Ialltoall(v) returned error " + std::to_string(rc);
        MPI_Cancel(&user_req);
        MPI_Wait(&user_req, MPI_STATUS_IGNORE);
        return false;
    }
    // A blocking call of the same comm while they are in flight.
    std::vector<int> bsend(p), brecv(p, -1);
    for (int j = 0; j < p; ++j)
        bsend[j] = 100000 + 100 * me + j;
    bool ok = MPIX_Alltoall(bsend.data(), 1, MPI_INT, brecv.data(), 1, MPI_INT, xcomm) == MPI_SUCCESS;
    for (int j = 0; j < p && ok; ++j)
        ok = brecv[j] == 100000 + 100 * j + me;
    if (!ok)
        *detail = "the blocking MPIX_Alltoall between start and completion got wrong data";
    // The user's own message, to the next rank.
    const int user_value = 777000 + me;
    MPI_Send(&user_value, 1, MPI_INT, (me + 1) % p, 4242, comm);
    // Completion; the order of MPIX_Wait differs between ranks.
    const int how = static_cast<int>(c.seed % 4);
    if (how == 0) {
        std::vector<int> order(k);
        for (int i = 0; i < k; ++i)
            order[i] = (i + me) % k;
        for (int i : order) {
            MPI_Status st;
            int w = MPIX_Wait(&reqs[i], &st);
            if (w != MPI_SUCCESS || st.MPI_ERROR != MPI_SUCCESS || reqs[i] != nullptr)
                rc = w != MPI_SUCCESS ? w : MPI_ERR_OTHER;
        }
    } else if (how == 1) {
        for (int left = k; left > 0 && rc == MPI_SUCCESS;) {
            for (int i = (me % k); i < k + (me % k) && rc == MPI_SUCCESS; ++i) {
                MPIX_Request *&r = reqs[i % k];
                if (!r)
                    continue;
                int flag = 0;
                rc = MPIX_Test(&r, &flag, MPI_STATUS_IGNORE);
                if (flag && r != nullptr)
                    rc = MPI_ERR_OTHER;  // a completed nonblocking request must be NULL
                if (flag)
                    --left;
            }
        }
    } else if (how == 2) {
        std::vector<MPI_Status> st(k);
        rc = MPIX_Waitall(k, reqs.data(), st.data());
    } else {
        int flag = 0;
        while (rc == MPI_SUCCESS && !flag)
            rc = MPIX_Testall(k, reqs.data(), &flag, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < k && rc == MPI_SUCCESS; ++i)
        if (reqs[i] != nullptr)
            rc = MPI_ERR_OTHER;
    MPI_Status ust;
    MPI_Wait(&user_req, &ust);
    if (rc != MPI_SUCCESS) {
        *detail = "completion (" + std::to_string(how) + ") returned error " + std::to_string(rc);
        return false;
    }
    if (ok && (user_msg != 777000 + (me + p - 1) % p || ust.MPI_TAG != 4242)) {
        *detail = "the user's wildcard receive matched something else";
        ok = false;
    }
    for (int i = 0; i < k && ok; ++i) {
        std::string wrong;
        if (!check_received(recvs[i], p, me, i + 1, &wrong)) {
            *detail = "request " + std::to_string(i) + " of " + std::to_string(k) + ": " + wrong;
            ok = false;
        } else if (sends[i].mem != send_before[i]) {
            *detail = "request " + std::to_string(i) + ": send buffer changed";
            ok = false;
        }
    }
    return ok;
}

}  // namespace

std::string ExchangeCase::describe() const
{
    static const char *dn[] = {"random-with-zeros", "all-zero", "uniform", "skewed"};
    static const char *ln[] = {"packed", "gapped", "reversed"};
    static const char *tn[] = {"int/int", "double/double", "vector/int", "int/vector"};
    std::ostringstream o;
    o << (uniform ? "alltoall " : "alltoallv ") << dn[(int)dist] << " " << ln[(int)layout] << " "
      << tn[(int)types] << (in_place ? " in-place" : "") << (large_count && !starts ? " large-count" : "")
      << (starts ? " persistent x" + std::to_string(starts) : "")
      << (in_flight ? " nonblocking x" + std::to_string(in_flight) + " completion " + std::to_string(seed % 4) : "")
      << (bottom ? " MPI_BOTTOM" : "") << " ppn=" << ppn
      << " seed=" << seed;
    return o.str();
}

// SimGrid SMPI's MPI_BOTTOM is not address 0 (smpi.h), so its datatypes cannot
// reach absolute addresses from it: no MPI_BOTTOM cases there (sim/check_sim).
#ifdef SMPI_H
constexpr bool kBottomCases = false;
#else
constexpr bool kBottomCases = true;
#endif

std::vector<ExchangeCase> exchange_cases(bool uniform)
{
    std::vector<ExchangeCase> cases;
    const int ppns[] = {0, 1, 2, 3};
    unsigned n = 0;
    const Dist dists[] = {Dist::random_with_zeros, Dist::all_zero, Dist::uniform, Dist::skewed};
    const Layout layouts[] = {Layout::packed, Layout::gapped, Layout::reversed};
    const Types types[] = {Types::int_int, Types::double_double, Types::vector_int, Types::int_vector};
    for (Dist d : dists)
        for (Layout l : layouts) {
            if (uniform && l != Layout::packed)
                continue;  // MPI_Alltoall has no displacements
            // Every third case goes through the large-count entry point (3 is
            // coprime with the rotations of node sizes and datatypes).
            // Every seventh (from the fourth) passes MPI_BOTTOM and absolute types.
            for (Types t : types) {
                cases.push_back(ExchangeCase{uniform, d, l, t, false, ppns[n % 4], 1000 + n, n % 3 == 1});
                cases.back().bottom = kBottomCases && n % 7 == 3;
                ++n;
            }
            // MPI_IN_PLACE with the receive type (contiguous, and non-contiguous).
            Types inplace_type = (n % 2) ? Types::int_vector : Types::int_int;
            cases.push_back(ExchangeCase{uniform, d, l, inplace_type, true, ppns[n % 4], 1000 + n, n % 3 == 1});
            cases.back().bottom = kBottomCases && n % 7 == 3;
            ++n;
        }
    return cases;
}

bool run_exchange_case(MPIX_Comm *xcomm, MPI_Comm comm, const ExchangeCase &c, std::string *detail,
                       MPIX_Info *xinfo)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    // ppn < 0: keep the node map the caller installed (test/test_locality.cpp).
    if (c.ppn >= 0 && MPIX_Comm_update_locality(xcomm, c.ppn) != MPI_SUCCESS) {
        *detail = "MPIX_Comm_update_locality failed";
        return false;
    }
    char skind = "idvi"[(int)c.types], rkind = "idiv"[(int)c.types];
    Side send, recv;
    send.t = make_type(skind);
    recv.t = make_type(rkind);
    // A vector element carries two ints: the int side counts twice as many.
    int sfactor = (skind == 'i' && rkind == 'v') ? 2 : 1;
    int rfactor = (rkind == 'i' && skind == 'v') ? 2 : 1;
    send.counts.resize(p);
    recv.counts.resize(p);
    for (int j = 0; j < p; ++j) {
        send.counts[j] = items(c, p, me, j) * sfactor;
        recv.counts[j] = items(c, p, j, me) * rfactor;
    }
    layout(recv, p, c.layout, c.uniform);
    if (c.in_place) {
        for (int j = 0; j < p; ++j)
            put(recv, j, me, j);  // what this rank sends to j, in the receive layout
    } else {
        layout(send, p, c.layout == Layout::packed ? Layout::packed : (c.layout == Layout::gapped ? Layout::reversed : Layout::gapped), c.uniform);
        for (int j = 0; j < p; ++j)
            put(send, j, me, j);
    }
    if (c.bottom) {
        if (!c.in_place)
            make_absolute(send);
        make_absolute(recv);
    }
    bool ok = c.starts > 0      ? run_persistent(xcomm, c, p, me, send, recv, xinfo, detail)
              : c.in_flight > 0 ? run_nonblocking(xcomm, comm, c, p, me, send, recv, detail)
                                : run_once(xcomm, c, p, me, send, recv, detail);
    if (!ok)
        *detail = c.describe() + ": " + *detail;
    free_absolute(send);
    free_absolute(recv);
    if (send.t.owned)
        MPI_Type_free(&send.t.type);
    if (recv.t.owned)
        MPI_Type_free(&recv.t.type);
    return ok;
}

std::vector<HintList> hint_variants(const char *hint_keys, int p)
{
    std::string keys = std::string(",") + hint_keys + ",";
    auto reads = [&](const char *key) { return keys.find(std::string(",") + key + ",") != std::string::npos; };
    std::vector<HintList> variants{{}};
    if (reads("radix")) {
        // Each value once: the edges coincide at small P (2, 3, 2, 3, 4 at P = 4;
        // 3 twice at P = 5 to 9), and a repeat ran the same cases again.
        int sq = (int)std::ceil(std::sqrt((double)p));
        std::vector<int> radices;
        for (int r : {2, 3, sq, p - 1, p})
            if (r >= 2 && std::find(radices.begin(), radices.end(), r) == radices.end()) {
                radices.push_back(r);
                variants.push_back({{"radix", std::to_string(r)}});
            }
    }
    if (reads("batch_size"))
        for (int b : {1, 3})
            variants.push_back({{"batch_size", std::to_string(b)}});
    if (reads("inner"))
        variants.push_back({{"inner", "pairwise"}});
    // Both shapes of node_aware / locality_aware whatever auto picks on a layout
    // (two steps on these small layouts, mostly, so inner=pairwise above covers
    // them paired; three steps pair by another key).
    if (reads("relay_steps")) {
        variants.push_back({{"relay_steps", "2"}});
        variants.push_back({{"relay_steps", "3"}});
        variants.push_back({{"relay_steps", "3"}, {"inner", "pairwise"}});
    }
    if (reads("leaders_per_node"))
        for (int l : {1, 2})
            variants.push_back({{"leaders_per_node", std::to_string(l)}});
    if (reads("locality"))
        variants.push_back({{"locality", "socket"}});
    if (reads("random_seed"))
        variants.push_back({{"random_seed", "7"}});
    // Queues of 1 (one step at a time), 3 and 2 (odd and even, with pieces);
    // randomized.test runs more lengths on fewer cases.
    if (reads("max_queue"))
        variants.push_back({{"max_queue", "1"}});
    // Pieces shorter than most blocks (3 bytes: odd, not a multiple of any
    // element), and longer than every block of the cases.
    if (reads("segment_size"))
        for (int s : {3, 4096})
            variants.push_back({{"segment_size", std::to_string(s)}, {"max_queue", s == 3 ? "3" : "2"}});
    // node_bruck's direct mode from any byte: every alltoall case, and every
    // alltoallv case after one that moved a byte (the previous call's volume);
    // all-zero cases return to Bruck at the direct mode's agreement (every 8th
    // call), so long case lists run both modes (trace.test checks the switch).
    if (reads("direct_above"))
        variants.push_back({{"direct_above", "1"}});
    // node_bruck's groups of 2 ranks: emulated nodes of 3 split into 2 + 1 (and
    // 3,3,2 nodes in locality.test into five groups), so phases A-C run between
    // groups of one node as between nodes.
    if (reads("group_size"))
        variants.push_back({{"group_size", "2"}});
    return variants;
}

bool left_behind(MPIX_Comm *xcomm, MPI_Comm comm, std::string *detail)
{
    // Every rank has returned from its calls once the barrier completes, so
    // every message of those calls has been sent; the probes progress delivery.
    MPI_Barrier(comm);
    int found = 0;
    MPI_Status st;
    for (int attempt = 0; attempt < 16 && !found; ++attempt)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, xcomm->comm, &found, &st);
    if (found) {
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        std::ostringstream what;
        what << "a message left unreceived on the library's communicator (from rank " << st.MPI_SOURCE << ", tag "
             << st.MPI_TAG << ", " << bytes << " bytes)";
        *detail = what.str();
        // Taken off the queue, so that the rows tested next are not blamed.
        for (int more = 1; more;) {
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            std::vector<char> discard(static_cast<std::size_t>(bytes > 0 ? bytes : 1));
            MPI_Recv(discard.data(), bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, xcomm->comm, MPI_STATUS_IGNORE);
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, xcomm->comm, &more, &st);
        }
    }
    // Every rank probes before any rank's next call can send.
    MPI_Barrier(comm);
    return found != 0;
}

int check_algorithm(MPIX_Comm *xcomm, MPI_Comm comm, bool uniform, const char *algorithm,
                    const std::vector<std::pair<std::string, std::string>> &hints, std::string *first_failure,
                    int stride, int starts, int in_flight)
{
    MPIX_Info *info;
    MPIX_Info_init(&info);
    std::string key = std::string(uniform ? "alltoall" : "alltoallv") + "_algorithm";
    int failures = 0;
    if (MPIX_Info_set(info, key.c_str(), algorithm) != MPI_SUCCESS) {
        *first_failure = std::string("cannot select ") + algorithm;
        failures = 1;
    }
    for (const auto &kv : hints)
        if (MPIX_Info_set(info, kv.first.c_str(), kv.second.c_str()) != MPI_SUCCESS) {
            *first_failure = "cannot set hint " + kv.first + "=" + kv.second;
            failures = 1;
        }
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
    if (failures)
        return failures;
    std::vector<ExchangeCase> cases = exchange_cases(uniform);
    for (size_t i = 0; i < cases.size(); i += (stride > 0 ? stride : 1)) {
        ExchangeCase c = cases[i];
        c.starts = starts;
        c.in_flight = starts == 0 && in_flight > 0 ? 1 + static_cast<int>(i % in_flight) : 0;
        std::string detail;
        if (!run_exchange_case(xcomm, comm, c, &detail)) {
            if (failures++ == 0)
                *first_failure = std::string(algorithm) + ": " + detail;
        }
    }
    std::string stray;
    if (left_behind(xcomm, comm, &stray) && failures++ == 0)
        *first_failure = std::string(algorithm) + ": " + stray;
    MPIX_Comm_set_info(xcomm, nullptr);
    MPIX_Comm_update_locality(xcomm, 0);
    return failures;
}

}  // namespace mpixtest
