// Rows with a `prepare` (two_phase_bruck, parlogna, node_aware for alltoallv),
// driven by hand as the persistent driver does: byte views with random per-peer
// sizes (zeros included), prepare once, then `run` five times with the plan, a
// fresh tag and new send data each time. Every received byte and the guard bytes
// around each block are checked. The MPI calls the library makes are counted
// here (this program defines MPI_Isend, MPI_Probe, ... over their PMPI_ forms):
// with a plan no probe may happen and the bytes sent must be exactly the blocks'
// bytes the trace records, so any size header or size message fails the test.
// Mismatched sizes must be reported with a plan as without one. Then the same
// rows through MPIX_Alltoallv_init / MPIX_Start / MPIX_Wait.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "alltoallv/bruck_nonuniform.hpp"
#include "alltoallv/parlinna.hpp"
#include "alltoallv/parlogna.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/exchange.hpp"
#include "core/trace.hpp"
#include "harness.hpp"
#include "mpix.h"
#include "select/registry.hpp"

namespace {

// What the library sent from this rank while counting was on.
struct Wire {
    bool on = false;
    unsigned long long bytes = 0, messages = 0, probes = 0;
};
Wire &wire()
{
    static Wire w;  // test-only: the interposed MPI functions below have no other way in
    return w;
}

void count_send(int count, MPI_Datatype type)
{
    if (!wire().on)
        return;
    MPI_Count size = 0;
    PMPI_Type_size_x(type, &size);
    wire().bytes += static_cast<unsigned long long>(size) * static_cast<unsigned long long>(count);
    ++wire().messages;
}

void count_probe()
{
    if (wire().on)
        ++wire().probes;
}

}  // namespace

extern "C" {
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    count_send(count, type);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}
int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    count_send(count, type);
    return PMPI_Issend(buf, count, type, dest, tag, comm, req);
}
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    count_send(count, type);
    return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    count_send(scount, stype);
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
}
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    count_probe();
    return PMPI_Probe(source, tag, comm, status);
}
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    count_probe();
    return PMPI_Iprobe(source, tag, comm, flag, status);
}
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    count_probe();
    return PMPI_Mprobe(source, tag, comm, message, status);
}
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    count_probe();
    return PMPI_Improbe(source, tag, comm, flag, message, status);
}
}

namespace {

constexpr std::size_t kGuard = 7;  // bytes before and after every receive block
constexpr unsigned char kGuardByte = 0xA5;

std::uint64_t mix(std::uint64_t v)
{
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ULL;
    return v ^ (v >> 33);
}

// Block s -> d: zero in about a quarter of the pairs, sometimes a few hundred bytes.
std::size_t block_bytes(int s, int d, unsigned seed)
{
    std::uint64_t h = mix((static_cast<std::uint64_t>(seed) << 40) ^ (static_cast<std::uint64_t>(s) << 20) ^ d);
    if (h % 4 == 0)
        return 0;
    return h % 7 == 0 ? 200 + h % 300 : 1 + h % 40;
}

unsigned char pattern(int s, int d, std::size_t i, int gen)
{
    return static_cast<unsigned char>(mix(static_cast<std::uint64_t>(s) * 1000003u + d * 7919u + i * 31u + gen) & 0xff);
}

// One hand-built exchange on xcomm: contiguous send blocks, receive blocks in
// reverse rank order with guards around each. `sizes(s, d)` is what s sends d;
// `recv_sizes(s, d)` what d expects from s (differs only in mismatch cases).
class Buffers {
public:
    template <class Sizes>
    Buffers(MPIX_Comm *xcomm, const mpix::Hints *hints, Sizes sizes, Sizes recv_sizes)
    {
        const int p = xcomm->size, me = xcomm->rank;
        sendbytes.resize(p);
        sdispls.resize(p);
        recvbytes.resize(p);
        rdispls.resize(p);
        std::size_t at = 0;
        for (int d = 0; d < p; ++d) {
            sendbytes[d] = sizes(me, d);
            sdispls[d] = static_cast<MPI_Aint>(at);
            at += sendbytes[d];
        }
        send.assign(at, 0);
        at = kGuard;
        for (int s = p - 1; s >= 0; --s) {
            recvbytes[s] = recv_sizes(s, me);
            rdispls[s] = static_cast<MPI_Aint>(at);
            at += recvbytes[s] + kGuard;
        }
        recv.assign(at, kGuardByte);
        x.xcomm = xcomm;
        x.comm = xcomm->comm;
        x.size = p;
        x.rank = me;
        x.sendbuf = send.data();
        x.sendbytes = sendbytes.data();
        x.sdispls = sdispls.data();
        x.recvbuf = recv.data();
        x.recvbytes = recvbytes.data();
        x.rdispls = rdispls.data();
        x.uniform = false;
        x.block_bytes = 0;
        x.hints = hints;
        x.trace = nullptr;
        x.mismatch = &mismatch;
        x.work = &xcomm->work;
    }

    void fill(int gen)
    {
        for (int d = 0; d < x.size; ++d)
            for (std::size_t i = 0; i < sendbytes[d]; ++i)
                send[sdispls[d] + i] = static_cast<char>(pattern(x.rank, d, i, gen));
        std::fill(recv.begin(), recv.end(), static_cast<char>(kGuardByte));
    }

    // Every block of generation `gen` where it belongs, every guard intact.
    bool check(int gen, std::string *why) const
    {
        std::vector<bool> in_block(recv.size(), false);
        for (int s = 0; s < x.size; ++s)
            for (std::size_t i = 0; i < recvbytes[s]; ++i) {
                in_block[rdispls[s] + i] = true;
                if (static_cast<unsigned char>(recv[rdispls[s] + i]) != pattern(s, x.rank, i, gen)) {
                    *why = "byte " + std::to_string(i) + " of the block from " + std::to_string(s) + " is wrong";
                    return false;
                }
            }
        for (std::size_t k = 0; k < recv.size(); ++k)
            if (!in_block[k] && static_cast<unsigned char>(recv[k]) != kGuardByte) {
                *why = "guard byte at offset " + std::to_string(k) + " was written";
                return false;
            }
        return true;
    }

    bool untouched() const
    {
        for (char c : recv)
            if (static_cast<unsigned char>(c) != kGuardByte)
                return false;
        return true;
    }

    mpix::Exchange x{};
    int mismatch = MPI_SUCCESS;

private:
    std::vector<std::size_t> sendbytes, recvbytes;
    std::vector<MPI_Aint> sdispls, rdispls;
    std::vector<char> send, recv;
};

// Bytes the trace file at `path` says this rank sent (block bytes only).
unsigned long long traced_bytes_sent(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    unsigned long long total = 0;
    const std::string key = "\"bytes_sent\":";
    while (std::getline(in, line)) {
        std::size_t at = line.find(key);
        if (at != std::string::npos)
            total += std::stoull(line.substr(at + key.size()));
    }
    return total;
}

struct RunResult {
    int rc_class = MPI_SUCCESS;
    Wire wire;
    unsigned long long traced = 0;
};

// One run of `row` on b (with b.x.plan as set), counted and traced.
RunResult counted_run(const mpix::Algorithm *row, Buffers &b, const std::string &trace_path)
{
    RunResult r;
    b.x.tag = mpix::allocate_tags(b.x.xcomm);
    b.mismatch = MPI_SUCCESS;
    int rc;
    {
        std::remove(trace_path.c_str());
        mpix::Trace trace(trace_path, "alltoallv", row->name);
        b.x.trace = &trace;
        wire() = Wire();
        wire().on = true;
        // As the library's dispatch runs a row: a truncated receive comes back as a code.
        mpix::WorldErrorsReturn world_returns(b.x.xcomm->world_available);
        rc = row->run(b.x);
        wire().on = false;
        b.x.trace = nullptr;
    }
    r.rc_class = mpixtest::error_class(rc != MPI_SUCCESS ? rc : b.mismatch);
    r.wire = wire();
    r.traced = traced_bytes_sent(trace_path);
    std::remove(trace_path.c_str());
    return r;
}

std::string trace_path()
{
    return "/tmp/mpix-prepared." + std::to_string(getpid()) + "." + std::to_string(mpixtest::rank()) + ".jsonl";
}

// Whether a call of `row` (no plan) probes at p ranks. Receives of a length the
// receiver knows are posted, not probed: two_phase_bruck's rounds whose blocks all
// land home (every round below 4 ranks) and ParLogNa's last digit (every round
// when its radix reaches p).
bool call_probes(const char *row, const mpix::Hints &hints, int p)
{
    const std::string name = row;
    if (name == "two_phase_bruck")
        return p >= 4;
    if (name == "parlogna")
        return mpix::parlogna_radix(p, hints.radix) < p;
    return p > 1;
}

// prepare once, five planned runs and one without a plan, on random sizes.
// `relocate`: a locality to switch to between prepare and the runs (the plan
// must keep the node map it was made with); -1: none.
void check_row(MPIX_Comm *xcomm, const char *name, const mpix::Hints &hints, unsigned seed, int relocate,
               const std::string &what)
{
    const mpix::Algorithm *row = mpix::find_algorithm(mpix::Collective::alltoallv, name);
    MPIX_EXPECT(row && row->prepare, what + ": the row has no prepare");
    if (!row || !row->prepare)
        return;
    auto sizes = [seed](int s, int d) { return block_bytes(s, d, seed); };
    Buffers b(xcomm, &hints, sizes, sizes);
    const std::string path = trace_path();

    // Prepare: sizes only; meaningless contents, receive side untouched.
    b.fill(-1);
    std::unique_ptr<mpix::ExchangePlan> plan;
    b.x.tag = mpix::allocate_tags(xcomm);
    b.x.plan = nullptr;
    int rc = row->prepare(b.x, &plan);
    MPIX_EXPECT(rc == MPI_SUCCESS && plan, what + ": prepare failed");
    if (rc != MPI_SUCCESS || !plan)
        return;
    MPIX_EXPECT(b.untouched(), what + ": prepare wrote into the receive buffer");
    if (relocate >= 0)
        MPIX_Comm_update_locality(xcomm, relocate);

    unsigned long long unplanned_probes = 0;
    for (int gen = 0; gen < 6; ++gen) {
        const bool planned = gen < 5;  // the last run: without a plan, as a call
        b.fill(gen);
        b.x.plan = planned ? plan.get() : nullptr;
        RunResult r = counted_run(row, b, path);
        const std::string at = what + (planned ? " planned run " + std::to_string(gen) : " without plan");
        std::string why;
        MPIX_EXPECT(r.rc_class == MPI_SUCCESS, at + ": error class " + std::to_string(r.rc_class));
        if (!b.check(gen, &why))
            mpixtest::fail(at + ": " + why);
        if (planned) {
            MPIX_EXPECT(r.wire.probes == 0, at + ": " + std::to_string(r.wire.probes) + " probes");
            MPIX_EXPECT(r.wire.bytes == r.traced, at + ": " + std::to_string(r.wire.bytes) + " bytes sent, " +
                                                      std::to_string(r.traced) + " of them block bytes");
        } else {
            MPIX_EXPECT(r.wire.bytes >= r.traced, at + ": fewer bytes sent than traced");
            unplanned_probes = r.wire.probes;
        }
    }
    // The counting sees sizes where they do travel: a call probes exactly there.
    unsigned long long any = 0;
    MPI_Allreduce(&unplanned_probes, &any, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (call_probes(name, hints, mpixtest::size()))
        MPIX_EXPECT(any > 0, what + ": a call without plan probed nowhere");
    else
        MPIX_EXPECT(any == 0, what + ": a call without plan probed for messages of known length");
    if (relocate >= 0)
        MPIX_Comm_update_locality(xcomm, 0);
}

// Rank 0's block to rank 1 is `delta` bytes longer (or shorter) than rank 1
// expects: every planned run reports what a call reports, on every rank.
void check_mismatch(MPIX_Comm *xcomm, const char *name, const mpix::Hints &hints, long delta, const std::string &what)
{
    const mpix::Algorithm *row = mpix::find_algorithm(mpix::Collective::alltoallv, name);
    if (!row || !row->prepare || mpixtest::size() < 2)
        return;
    auto recv_sizes = [](int s, int d) { return block_bytes(s, d, 77) + (s == 0 && d == 1 ? 20 : 0); };
    auto send_sizes = [&](int s, int d) {
        return s == 0 && d == 1 ? static_cast<std::size_t>(static_cast<long>(recv_sizes(s, d)) + delta)
                                : recv_sizes(s, d);
    };
    Buffers b(xcomm, &hints, std::function<std::size_t(int, int)>(send_sizes),
              std::function<std::size_t(int, int)>(recv_sizes));
    const std::string path = trace_path();
    b.fill(0);
    b.x.plan = nullptr;
    RunResult call = counted_run(row, b, path);
    const int expected = mpixtest::rank() == 1 ? (delta > 0 ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT) : MPI_SUCCESS;
    MPIX_EXPECT(call.rc_class == expected, what + ": a call reports class " + std::to_string(call.rc_class));
    std::unique_ptr<mpix::ExchangePlan> plan;
    b.x.tag = mpix::allocate_tags(xcomm);
    int rc = row->prepare(b.x, &plan);
    MPIX_EXPECT(rc == MPI_SUCCESS && plan, what + ": prepare failed on mismatched sizes");
    if (rc != MPI_SUCCESS || !plan)
        return;
    for (int gen = 1; gen <= 2; ++gen) {
        b.fill(gen);
        b.x.plan = plan.get();
        RunResult r = counted_run(row, b, path);
        MPIX_EXPECT(r.rc_class == call.rc_class, what + ": planned run reports class " + std::to_string(r.rc_class) +
                                                     ", a call " + std::to_string(call.rc_class));
        MPIX_EXPECT(r.wire.probes == 0, what + ": planned run probed");
    }
}

struct Setting {
    const char *row;
    int ppn;  // emulated node size; 0: real nodes
    int radix, batch;
};

const Setting kSettings[] = {
    {"two_phase_bruck", 0, 0, 32},
    {"parlogna", 0, 0, 32},
    {"parlogna", 0, 2, 32},
    {"parlogna", 0, 3, 1},  // batches of one round: probes per peer in a call
    {"node_aware", 0, 0, 32},
    {"node_aware", 2, 0, 32},
    {"node_aware", 3, 0, 32},
};

std::string describe(const Setting &s)
{
    return std::string(s.row) + " ppn=" + std::to_string(s.ppn) + " radix=" + std::to_string(s.radix) +
           " batch=" + std::to_string(s.batch);
}

void test_planned_runs()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    for (const Setting &s : kSettings) {
        MPIX_Comm_update_locality(xcomm, s.ppn);
        mpix::Hints hints = xcomm->hints;
        hints.radix = s.radix;
        hints.batch_size = s.batch;
        for (unsigned seed = 1; seed <= 2; ++seed)
            check_row(xcomm, s.row, hints, seed, -1, describe(s) + " seed " + std::to_string(seed));
        for (int inner = 0; inner < 2 && s.ppn > 0; ++inner) {
            // The other inner mode, and a node map changed after prepare.
            hints.inner = inner ? mpix::Inner::pairwise : mpix::Inner::nonblocking;
            check_row(xcomm, s.row, hints, 9, s.ppn == 2 ? 3 : 2,
                      describe(s) + (inner ? " pairwise" : "") + " relocated after prepare");
        }
        MPIX_CHECK_ALL(describe(s).c_str());
    }
    MPIX_Comm_update_locality(xcomm, 0);
    MPIX_Comm_free(&xcomm);
}

// The agreeing forms of two_phase_bruck and parlinna_coalesced
// (node_bruck_adaptive's growth check): the blocks arrive as the rows' own do,
// and every rank returns the largest of each of two values any rank gave,
// wherever those ranks sit (the second's on another rank than the first's). two_phase_bruck: the value must ride every round, the last too, whose
// bundles all arrive home and whose messages carry no sizes. parlinna_coalesced:
// phase 1 spreads it inside the node, the messages between nodes carry each
// node's; on one node, nodes of 2 and of 3 (a rank reached only inside its node,
// or only in early rounds, would return a smaller value).
void test_agreeing_rows()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    const int p = xcomm->size, me = xcomm->rank;
    const std::uint64_t top = std::uint64_t(1) << 40;
    struct Case {
        const char *row;
        int ppn;
        int (*run)(const mpix::Exchange &, std::uint64_t *, int);
    };
    const Case cases[] = {{"two_phase_bruck", 0, mpix::two_phase_bruck_agreeing},
                          {"parlinna_coalesced", 0, mpix::parlinna_coalesced_agreeing},
                          {"parlinna_coalesced", 2, mpix::parlinna_coalesced_agreeing},
                          {"parlinna_coalesced", 3, mpix::parlinna_coalesced_agreeing}};
    for (const Case &c : cases) {
        MPIX_Comm_update_locality(xcomm, c.ppn);
        for (int holder = 0; holder < p; ++holder) {
            auto sizes = [holder](int s, int d) { return block_bytes(s, d, static_cast<unsigned>(holder) + 3); };
            Buffers b(xcomm, &xcomm->hints, sizes, sizes);
            b.fill(holder);
            b.x.tag = mpix::allocate_tags(xcomm);
            const int second = (holder + p / 2 + 1) % p;
            std::uint64_t values[2] = {me == holder ? top : 1000 + static_cast<std::uint64_t>(me),
                                       me == second ? top + 1 : 7 + static_cast<std::uint64_t>(me)};
            const int rc = c.run(b.x, values, 2);
            const std::string what = std::string(c.row) + ", ppn " + std::to_string(c.ppn) + ", P=" +
                                     std::to_string(p) + ", largest on rank " + std::to_string(holder);
            MPIX_EXPECT(rc == MPI_SUCCESS && b.mismatch == MPI_SUCCESS, what + ": rc " + std::to_string(rc));
            MPIX_EXPECT(values[0] == top && values[1] == top + 1,
                        what + ": rank " + std::to_string(me) + " returned " + std::to_string(values[0]) + ", " +
                            std::to_string(values[1]));
            std::string why;
            MPIX_EXPECT(b.check(holder, &why), what + ": " + why);
        }
        MPIX_CHECK_ALL((std::string(c.row) + " agreeing, ppn " + std::to_string(c.ppn)).c_str());
    }
    MPIX_Comm_update_locality(xcomm, 0);
    MPIX_Comm_free(&xcomm);
}

void test_mismatch()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    for (const Setting &s : kSettings) {
        MPIX_Comm_update_locality(xcomm, s.ppn);
        mpix::Hints hints = xcomm->hints;
        hints.radix = s.radix;
        hints.batch_size = s.batch;
        check_mismatch(xcomm, s.row, hints, 9, describe(s) + " longer block");
        check_mismatch(xcomm, s.row, hints, -9, describe(s) + " shorter block");
        MPIX_CHECK_ALL(describe(s).c_str());
    }
    MPIX_Comm_update_locality(xcomm, 0);
    MPIX_Comm_free(&xcomm);
}

// The same rows through the public persistent calls: 4 starts with new data,
// fewer bytes on the wire per start than a blocking call moves, no probes.
void test_public_persistent()
{
    MPIX_Comm *xcomm;
    CU_ASSERT_EQUAL_FATAL(MPIX_Comm_init(&xcomm, MPI_COMM_WORLD), MPI_SUCCESS);
    const int p = mpixtest::size(), me = mpixtest::rank();
    for (const Setting &s : kSettings) {
        if (s.radix || s.batch != 32)
            continue;
        MPIX_Comm_update_locality(xcomm, s.ppn);
        const std::string what = describe(s) + " MPIX_Alltoallv_init";
        std::vector<int> scounts(p), sdispls(p), rcounts(p), rdispls(p);
        int stotal = 0, rtotal = 0;
        for (int j = 0; j < p; ++j) {
            scounts[j] = static_cast<int>(block_bytes(me, j, 5));
            sdispls[j] = stotal;
            stotal += scounts[j];
            rcounts[j] = static_cast<int>(block_bytes(j, me, 5));
            rdispls[j] = rtotal;
            rtotal += rcounts[j];
        }
        std::vector<char> sbuf(stotal + 1), rbuf(rtotal + 1);
        MPIX_Info *info;
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "alltoallv_algorithm", s.row);
        MPIX_Request *req = nullptr;
        wire() = Wire();
        wire().on = true;
        int rc = MPIX_Alltoallv_init(sbuf.data(), scounts.data(), sdispls.data(), MPI_BYTE, rbuf.data(),
                                     rcounts.data(), rdispls.data(), MPI_BYTE, xcomm, info, &req);
        wire().on = false;
        MPIX_EXPECT(rc == MPI_SUCCESS, what + ": init failed");
        for (int gen = 0; gen < 4 && rc == MPI_SUCCESS; ++gen) {
            for (int j = 0; j < p; ++j)
                for (int i = 0; i < scounts[j]; ++i)
                    sbuf[sdispls[j] + i] = static_cast<char>(pattern(me, j, i, gen));
            std::fill(rbuf.begin(), rbuf.end(), static_cast<char>(kGuardByte));
            wire() = Wire();
            wire().on = true;
            rc = MPIX_Start(req);
            if (rc == MPI_SUCCESS)
                rc = MPIX_Wait(&req, MPI_STATUS_IGNORE);
            wire().on = false;
            MPIX_EXPECT(rc == MPI_SUCCESS, what + ": start " + std::to_string(gen) + " failed");
            MPIX_EXPECT(wire().probes == 0, what + ": a start probed");
            bool right = static_cast<unsigned char>(rbuf[rtotal]) == kGuardByte;
            for (int j = 0; j < p; ++j)
                for (int i = 0; i < rcounts[j]; ++i)
                    right = right && static_cast<unsigned char>(rbuf[rdispls[j] + i]) == pattern(j, me, i, gen);
            MPIX_EXPECT(right, what + ": start " + std::to_string(gen) + " received wrong bytes");
        }
        if (req)
            MPIX_Request_free(&req);
        MPIX_Info_free(&info);
        MPIX_CHECK_ALL(what.c_str());
    }
    MPIX_Comm_update_locality(xcomm, 0);
    MPIX_Comm_free(&xcomm);
}

const mpixtest::TestCase kTests[] = {
    {"prepare once, 5 planned runs: every byte right, no probe, only block bytes sent", test_planned_runs},
    {"a block longer or shorter than its receive block: reported with a plan as without", test_mismatch},
    {"two_phase_bruck and parlinna_coalesced agreeing: the blocks, and the largest value on every rank",
     test_agreeing_rows},
    {"MPIX_Alltoallv_init / MPIX_Start / MPIX_Wait on the rows with prepare", test_public_persistent},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "prepared", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
