// MPIX_Alltoall_c / MPIX_Alltoallv_c beyond what int counts can say, on every
// registry row, at 1 and 2 ranks (test/large-count.sh; the two whole-block cases
// at 2 ranks in make check-stress):
//  - offsets past 2^31 bytes: blocks placed beyond 2 GiB into sparse buffers
//    (reserved address space, only the touched pages use memory);
//  - byte totals past 2^31: one MPIX_Alltoallv_c block of 2^31 + 8 bytes (a
//    count above INT_MAX), and MPIX_Alltoall_c blocks of 2^30 + 64 bytes (each
//    block fits an int, the buffer does not).
// Checked at sampled positions (a pattern every 1 MiB, the first and last bytes
// of every block) and guard bytes around every block.
#include <sys/mman.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

constexpr std::size_t kGiB = std::size_t(1) << 30;
constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr unsigned char kGuard = 0x7E;

// Address space that costs memory only where it is touched.
struct SparseBuffer {
    char *base = nullptr;
    std::size_t bytes = 0;
    explicit SparseBuffer(std::size_t n) : bytes(n)
    {
        void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        base = p == MAP_FAILED ? nullptr : static_cast<char *>(p);
    }
    ~SparseBuffer()
    {
        if (base)
            munmap(base, bytes);
    }
    SparseBuffer(const SparseBuffer &) = delete;
    SparseBuffer &operator=(const SparseBuffer &) = delete;
};

unsigned char pattern(int src, int dst, std::size_t index)
{
    return static_cast<unsigned char>((src * 71 + dst * 13 + index * 7 + index / 4099) % 251 + 1);
}

// Byte positions of a block of `bytes` that are written and checked.
std::vector<std::size_t> samples(std::size_t bytes)
{
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < bytes && i < 64; ++i)
        at.push_back(i);
    for (std::size_t i = kMiB; i < bytes; i += kMiB)
        at.push_back(i);
    for (std::size_t i = bytes > 64 ? bytes - 64 : 64; i < bytes; ++i)
        at.push_back(i);
    return at;
}

void fill_send(char *block, std::size_t bytes, int src, int dst)
{
    for (std::size_t i : samples(bytes))
        block[i] = static_cast<char>(pattern(src, dst, i));
}

// Guards around a receive block and a poison value at its sampled positions
// (the call must overwrite every one of them).
void prepare_recv(char *block, std::size_t bytes)
{
    std::memset(block - 64, kGuard, 64);
    std::memset(block + bytes, kGuard, 64);
    for (std::size_t i : samples(bytes))
        block[i] = static_cast<char>(0xEE);
}

bool check_recv(const char *block, std::size_t bytes, int src, int dst, std::string *detail)
{
    for (std::size_t i : samples(bytes)) {
        // The send side's unsampled bytes are zero pages; sampled ones the pattern.
        unsigned char want = pattern(src, dst, i);
        if (static_cast<unsigned char>(block[i]) != want) {
            *detail = "block from rank " + std::to_string(src) + " byte " + std::to_string(i) + ": got " +
                      std::to_string(static_cast<unsigned char>(block[i])) + ", expected " + std::to_string(want);
            return false;
        }
    }
    for (int g = 1; g <= 64; ++g)
        if (static_cast<unsigned char>(block[-g]) != kGuard ||
            static_cast<unsigned char>(block[bytes + static_cast<std::size_t>(g) - 1]) != kGuard) {
            *detail = "a guard byte around the block from rank " + std::to_string(src) + " changed";
            return false;
        }
    return true;
}

using mpixtest::select_row;

// The whole-block cases at 2 ranks run in make check-stress only
// (MPIX_TEST_LEVEL=full): true, and rank 0 says so, where this run leaves them.
bool whole_blocks_left_to_check_stress()
{
    if (mpixtest::size() == 1 || mpixtest::full_level())
        return false;
    if (mpixtest::rank() == 0)
        std::printf("  (make check-stress runs this case at 2 ranks: MPIX_TEST_LEVEL=full)\n");
    return true;
}

// Rounded up to whole pages, plus a page: room for the guards between blocks.
std::size_t slot(std::size_t bytes) { return (bytes + 4095) / 4096 * 4096 + 4096; }

// MPIX_Alltoallv_c of MPI_BYTE on every row: block s -> d has bytes(s, d) bytes.
// Both buffers hold their blocks in peer order, each in its own page-aligned
// slot, the first one `offset` bytes in.
void alltoallv_c_every_row(const std::function<std::size_t(int, int)> &bytes, std::size_t offset,
                           const std::string &what, bool padded_rows = true)
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    std::vector<MPI_Count> sc(p), rc(p);
    std::vector<MPI_Aint> sd(p), rd(p);
    std::size_t send_span = offset + 4096, recv_span = offset + 4096;
    for (int j = 0; j < p; ++j) {
        sc[j] = static_cast<MPI_Count>(bytes(me, j));
        rc[j] = static_cast<MPI_Count>(bytes(j, me));
        sd[j] = static_cast<MPI_Aint>(send_span);
        rd[j] = static_cast<MPI_Aint>(recv_span);
        send_span += slot(bytes(me, j));
        recv_span += slot(bytes(j, me));
    }
    SparseBuffer send(send_span), recv(recv_span);
    MPIX_EXPECT(send.base && recv.base, what + ": cannot reserve the buffers' address space");
    MPIX_CHECK_ALL(what.c_str());
    if (!send.base || !recv.base)
        return;
    for (int j = 0; j < p; ++j)
        fill_send(send.base + sd[j], bytes(me, j), me, j);
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    for (int i = 0; const char *row = MPIX_Algorithm_name("alltoallv", i); ++i) {
        if (!padded_rows && !std::strncmp(row, "padded_", 7))
            continue;
        select_row(xcomm, "alltoallv", row);
        if (me == 0 && std::getenv("MPIX_TEST_VERBOSE"))
            std::fprintf(stderr, "%s: %s\n", what.c_str(), row);
        for (int j = 0; j < p; ++j)
            prepare_recv(recv.base + rd[j], bytes(j, me));
        int code = MPIX_Alltoallv_c(send.base, sc.data(), sd.data(), MPI_BYTE, recv.base, rc.data(), rd.data(),
                                    MPI_BYTE, xcomm);
        std::string detail;
        MPIX_EXPECT(code == MPI_SUCCESS, what + ", " + row + ": error " + std::to_string(code));
        for (int j = 0; code == MPI_SUCCESS && j < p; ++j)
            if (!check_recv(recv.base + rd[j], bytes(j, me), j, me, &detail)) {
                MPIX_EXPECT(false, what + ", " + row + ": " + detail);
                break;
            }
        MPIX_CHECK_ALL((what + ", " + row).c_str());
    }
    MPIX_Comm_free(&xcomm);
}

// Blocks of a few hundred bytes placed past 2^31 bytes into both buffers.
void test_alltoallv_c_offsets_past_2g()
{
    auto bytes = [](int s, int d) { return std::size_t(100 + 7 * s + 3 * d); };
    alltoallv_c_every_row(bytes, 2 * kGiB, "MPIX_Alltoallv_c, offsets past 2 GiB");
}

// A block of 2^31 + 8 + s bytes (a count above INT_MAX) from each rank s to the
// next (at 1 rank: to itself); every other block 16 bytes. The padded rows pad
// every block to the largest and hold three padded buffers, 3 x P x 2 GiB per
// rank: more than this test's machine has at 2 ranks, so they take this case
// at 1 rank. At 2 ranks, MPIX_TEST_LEVEL=full only (make check-stress): fresh
// pages fault in at about 300 MB/s on the two-core machine, and this case and
// the next took 150 of make check's seconds there.
void test_alltoallv_c_block_past_2g()
{
    const int p = mpixtest::size();
    auto bytes = [p](int s, int d) {
        return (p == 1 || s != d) && (s + 1) % p == d ? 2 * kGiB + 8 + std::size_t(s) : 16;
    };
    if (whole_blocks_left_to_check_stress())
        return;
    if (p > 1 && mpixtest::rank() == 0)
        std::printf("  (padded_bruck and padded_alltoall take this case at 1 rank: 3 x P x 2 GiB per rank)\n");
    alltoallv_c_every_row(bytes, 0, "MPIX_Alltoallv_c, a block past 2 GiB", p == 1);
}

// MPIX_Alltoall_c on every row, blocks of 2^30 + 64 bytes: every block fits an
// int, the P blocks together do not. The send side is a contiguous type of 64
// bytes, the receive side MPI_BYTE (equal signatures, different counts).
void test_alltoall_c_total_past_2g()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    if (whole_blocks_left_to_check_stress())
        return;
    const std::size_t block = kGiB + 64;
    SparseBuffer send(block * p + 4096), recv(block * p + 8192);
    MPIX_EXPECT(send.base && recv.base, "cannot reserve the buffers");
    MPIX_CHECK_ALL("MPIX_Alltoall_c buffers");
    if (!send.base || !recv.base)
        return;
    MPI_Datatype chunk;
    MPI_Type_contiguous(64, MPI_BYTE, &chunk);
    MPI_Type_commit(&chunk);
    for (int j = 0; j < p; ++j)
        fill_send(send.base + block * j, block, me, j);
    char *rbase = recv.base + 4096;  // room for the first block's front guard
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    for (int i = 0; const char *row = MPIX_Algorithm_name("alltoall", i); ++i) {
        select_row(xcomm, "alltoall", row);
        if (me == 0 && std::getenv("MPIX_TEST_VERBOSE"))
            std::fprintf(stderr, "MPIX_Alltoall_c: %s\n", row);
        // Adjacent blocks: guards only before the first and after the last.
        std::memset(rbase - 64, kGuard, 64);
        std::memset(rbase + block * p, kGuard, 64);
        for (int j = 0; j < p; ++j)
            for (std::size_t s : samples(block))
                rbase[block * j + s] = static_cast<char>(0xEE);
        int code = MPIX_Alltoall_c(send.base, static_cast<MPI_Count>(block / 64), chunk, rbase,
                                   static_cast<MPI_Count>(block), MPI_BYTE, xcomm);
        std::string what = std::string("MPIX_Alltoall_c, blocks of 2^30 + 64 bytes, ") + row;
        MPIX_EXPECT(code == MPI_SUCCESS, what + ": error " + std::to_string(code));
        for (int j = 0; code == MPI_SUCCESS && j < p; ++j) {
            const char *b = rbase + block * j;
            bool ok = true;
            for (std::size_t s : samples(block))
                if (static_cast<unsigned char>(b[s]) != pattern(j, me, s)) {
                    MPIX_EXPECT(false, what + ": block from rank " + std::to_string(j) + " byte " + std::to_string(s));
                    ok = false;
                    break;
                }
            if (!ok)
                break;
        }
        for (int g = 1; g <= 64; ++g)
            MPIX_EXPECT(static_cast<unsigned char>(rbase[-g]) == kGuard &&
                            static_cast<unsigned char>(rbase[block * p + static_cast<std::size_t>(g) - 1]) == kGuard,
                        what + ": a guard byte outside the receive buffer changed");
        MPIX_CHECK_ALL(what.c_str());
    }
    MPIX_Comm_free(&xcomm);
    MPI_Type_free(&chunk);
}

// A communicator on MPI_COMM_WORLD whose MPIX_Alltoall(v) run the pmpi row.
MPIX_Comm *comm_on_pmpi_row()
{
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "alltoall_algorithm", "pmpi");
    MPIX_Info_set(info, "alltoallv_algorithm", "pmpi");
    MPIX_Comm_set_info(xcomm, info);
    MPIX_Info_free(&info);
    return xcomm;
}

// The pmpi row where ranks differ in layout: rank 0 receives through a
// non-contiguous type (its call takes mpix's byte path) while the others hand
// MPI their own contiguous arguments; rank 0's blocks lie past 2 GiB (v form)
// or its total is past 2 GiB (uniform form, 2 ranks). Every rank must call the
// MPI library's same collective: rank 0 through MPI's large-count form (it
// took the spread-out exchange before and hung against the others).
void test_pmpi_mixed_layouts_past_2g()
{
    const int p = mpixtest::size(), me = mpixtest::rank();
    MPIX_Comm *xcomm = comm_on_pmpi_row();
    {
        const std::size_t block = 100, offset = me == 0 ? 2 * kGiB + 4096 : 4096;
        // `block` bytes, every second one of 2 * block - 1; extent 1, so that
        // the displacements count bytes
        MPI_Datatype vector, strided;
        MPI_Type_vector(static_cast<int>(block), 1, 2, MPI_BYTE, &vector);
        MPI_Type_create_resized(vector, 0, 1, &strided);
        MPI_Type_commit(&strided);
        MPI_Type_free(&vector);
        const std::size_t stride = me == 0 ? 2 : 1, span = me == 0 ? 2 * block - 1 : block;
        SparseBuffer send(offset + slot(block) * p), recv(4096 + slot(span) * p);
        MPIX_EXPECT(send.base && recv.base, "cannot reserve the buffers");
        MPIX_CHECK_ALL("pmpi mixed layouts: buffers");
        std::vector<MPI_Count> sc(p, static_cast<MPI_Count>(block)), rc(p, me == 0 ? 1 : static_cast<MPI_Count>(block));
        std::vector<MPI_Aint> sd(p), rd(p);
        for (int j = 0; j < p; ++j) {
            sd[j] = static_cast<MPI_Aint>(offset + slot(block) * j);
            rd[j] = static_cast<MPI_Aint>(4096 + slot(span) * j);
            fill_send(send.base + sd[j], block, me, j);
        }
        for (bool nonblocking : {false, true}) {
            const std::string what = nonblocking ? "MPIX_Ialltoallv_c" : "MPIX_Alltoallv_c";
            for (int j = 0; j < p; ++j)
                std::memset(recv.base + rd[j] - 64, kGuard, 64 + span + 64);  // guards, and the gaps between bytes
            const MPI_Datatype rtype = me == 0 ? strided : MPI_BYTE;
            int code = MPI_SUCCESS;
            if (nonblocking) {
                MPIX_Request *request = nullptr;
                code = MPIX_Ialltoallv_c(send.base, sc.data(), sd.data(), MPI_BYTE, recv.base, rc.data(), rd.data(),
                                         rtype, xcomm, &request);
                if (code == MPI_SUCCESS)
                    code = MPIX_Wait(&request, MPI_STATUS_IGNORE);
            } else {
                code = MPIX_Alltoallv_c(send.base, sc.data(), sd.data(), MPI_BYTE, recv.base, rc.data(), rd.data(),
                                        rtype, xcomm);
            }
            MPIX_EXPECT(code == MPI_SUCCESS, "pmpi mixed layouts, " + what + ": error " + std::to_string(code));
            for (int j = 0; code == MPI_SUCCESS && j < p; ++j) {
                const unsigned char *b = reinterpret_cast<unsigned char *>(recv.base + rd[j]);
                for (std::size_t i = 0; i < span + 64; ++i) {
                    const bool data = i < span && i % stride == 0;
                    const unsigned char want = data ? pattern(j, me, i / stride) : kGuard;
                    if (b[i] != want || b[-1 - static_cast<long>(i % 64)] != kGuard) {
                        MPIX_EXPECT(false, "pmpi mixed layouts, " + what + ": block from rank " + std::to_string(j) +
                                               " byte " + std::to_string(i) + (data ? "" : " (a gap or guard)"));
                        break;
                    }
                }
            }
            MPIX_CHECK_ALL(("pmpi mixed layouts, " + what + ", offsets past 2 GiB on rank 0").c_str());
        }
        MPI_Type_free(&strided);
    }
    if (p == 2) {
        // Blocks of 2^30 + 2048 bytes (each fits an int, the two do not): rank 0
        // receives them as 2 KiB pieces a page apart, staging a total past 2 GiB;
        // rank 1 passes its contiguous arguments through.
        const std::size_t big = kGiB + 2048, piece = 2048;
        MPI_Datatype pieces;
        MPI_Type_vector(static_cast<int>(big / piece), static_cast<int>(piece), static_cast<int>(2 * piece), MPI_BYTE,
                        &pieces);
        MPI_Type_commit(&pieces);
        const std::size_t extent = me == 0 ? 2 * big - piece : big;  // of a received block
        SparseBuffer send(big * 2), recv(4096 + extent * 2 + 4096);
        MPIX_EXPECT(send.base && recv.base, "cannot reserve the buffers");
        MPIX_CHECK_ALL("pmpi mixed layouts: uniform buffers");
        for (int j = 0; j < 2; ++j)
            fill_send(send.base + big * j, big, me, j);
        unsigned char *rbase = reinterpret_cast<unsigned char *>(recv.base + 4096);
        std::memset(rbase - 64, kGuard, 64);
        std::memset(rbase + extent * 2, kGuard, 64);
        const int code = me == 0 ? MPIX_Alltoall_c(send.base, static_cast<MPI_Count>(big), MPI_BYTE, rbase, 1,
                                                   pieces, xcomm)
                                 : MPIX_Alltoall_c(send.base, static_cast<MPI_Count>(big), MPI_BYTE, rbase,
                                                   static_cast<MPI_Count>(big), MPI_BYTE, xcomm);
        MPIX_EXPECT(code == MPI_SUCCESS, "pmpi mixed layouts, MPIX_Alltoall_c: error " + std::to_string(code));
        for (int j = 0; code == MPI_SUCCESS && j < 2; ++j)
            for (std::size_t at : samples(big)) {
                const std::size_t where = me == 0 ? at / piece * 2 * piece + at % piece : at;  // byte `at` lies here
                if (rbase[extent * j + where] != pattern(j, me, at)) {
                    MPIX_EXPECT(false, "pmpi mixed layouts, MPIX_Alltoall_c: block from rank " + std::to_string(j) +
                                           " byte " + std::to_string(at));
                    break;
                }
            }
        for (int g = 1; g <= 64; ++g)
            MPIX_EXPECT(rbase[-g] == kGuard && rbase[extent * 2 + static_cast<std::size_t>(g) - 1] == kGuard,
                        "pmpi mixed layouts, MPIX_Alltoall_c: a guard byte outside the blocks changed");
        MPIX_CHECK_ALL("pmpi mixed layouts, MPIX_Alltoall_c, a staged total past 2 GiB on rank 0");
        MPI_Type_free(&pieces);
    }
    MPIX_Comm_free(&xcomm);
}

// Persistent requests on the pmpi row whose packed (staged) side holds a block
// past 2^31 bytes: MPIX_Alltoall_init and MPIX_Alltoallv_init take int counts,
// but a count of a large datatype is more bytes than an int. The receive side
// is 2^19 + 1 pages, each in the first half of two pages (non-contiguous, so
// mpix stages it) and MPI's persistent collective gets it through its
// large-count form. They failed with MPI_ERR_COUNT, and past that, MPI_Type_size
// (an int) and MPI_Pack/MPI_Unpack (int sizes) could not describe the element.
// At 1 rank and MPIX_TEST_LEVEL=full only (make check-stress): the staging and
// the unpacked block are 2 GiB each, 30 s on the two-core machine.
void test_pmpi_persistent_staged_past_2g()
{
    if (mpixtest::size() != 1 || !mpixtest::full_level()) {
        if (mpixtest::rank() == 0)
            std::printf("  (make check-stress runs this case: MPIX_TEST_LEVEL=full at 1 rank)\n");
        return;
    }
    const std::size_t page = 4096, n = (std::size_t(1) << 19) + 1, bytes = n * page;
    MPI_Datatype pages, spread;
    MPI_Type_contiguous(static_cast<int>(page), MPI_BYTE, &pages);
    MPI_Type_vector(static_cast<int>(n), static_cast<int>(page), static_cast<int>(2 * page), MPI_BYTE, &spread);
    MPI_Type_commit(&pages);
    MPI_Type_commit(&spread);
    SparseBuffer send(bytes), recv(page + 2 * bytes + page);
    MPIX_EXPECT(send.base && recv.base, "cannot reserve the buffers");
    MPIX_CHECK_ALL("pmpi persistent staged past 2 GiB: buffers");
    fill_send(send.base, bytes, 0, 0);
    unsigned char *rbase = reinterpret_cast<unsigned char *>(recv.base + page);
    MPIX_Comm *xcomm = comm_on_pmpi_row();
    for (bool v : {false, true}) {
        const std::string what = std::string(v ? "MPIX_Alltoallv_init" : "MPIX_Alltoall_init") +
                                 ", a staged block of 2^31 + 4096 bytes";
        std::memset(rbase - 64, kGuard, 64);
        std::memset(rbase + 2 * bytes - page, kGuard, 64);  // past the last page
        for (std::size_t at : samples(bytes))  // and in the gap after each sampled page
            rbase[at / page * 2 * page + page + at % page] = kGuard;
        MPIX_Request *request = nullptr;
        const int one = 1, zero = 0, count = static_cast<int>(n);
        int code = v ? MPIX_Alltoallv_init(send.base, &count, &zero, pages, rbase, &one, &zero, spread, xcomm,
                                           nullptr, &request)
                     : MPIX_Alltoall_init(send.base, count, pages, rbase, 1, spread, xcomm, nullptr, &request);
        if (code == MPI_SUCCESS)
            code = MPIX_Start(request);
        if (code == MPI_SUCCESS)
            code = MPIX_Wait(&request, MPI_STATUS_IGNORE);
        MPIX_EXPECT(code == MPI_SUCCESS, what + ": error " + std::to_string(code));
        for (std::size_t at : samples(bytes)) {
            const std::size_t where = at / page * 2 * page + at % page;
            if (code == MPI_SUCCESS && (rbase[where] != pattern(0, 0, at) || rbase[where + page] != kGuard)) {
                MPIX_EXPECT(false, what + ": byte " + std::to_string(at) +
                                       (rbase[where] != pattern(0, 0, at) ? " wrong" : ": the gap after it changed"));
                break;
            }
        }
        for (int g = 0; g < 64; ++g)
            MPIX_EXPECT(rbase[-1 - g] == kGuard && rbase[2 * bytes - page + static_cast<std::size_t>(g)] == kGuard,
                        what + ": a guard byte outside the block changed");
        if (request)
            MPIX_Request_free(&request);
        MPIX_CHECK_ALL(what.c_str());
    }
    MPIX_Comm_free(&xcomm);
    MPI_Type_free(&pages);
    MPI_Type_free(&spread);
}

// Counts whose bytes or offsets overflow the address space: MPI_ERR_COUNT /
// MPI_ERR_ARG on every rank before anything moves, never a wrapped size.
void test_overflowing_counts()
{
    const int p = mpixtest::size();
    MPI_Comm user;
    MPI_Comm_dup(MPI_COMM_WORLD, &user);
    MPI_Comm_set_errhandler(user, MPI_ERRORS_RETURN);
    MPIX_Comm *xcomm;
    MPIX_Comm_init(&xcomm, user);
    MPI_Datatype big;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &big);
    MPI_Type_commit(&big);
    char buf[16];
    std::vector<MPI_Count> counts(p, 0);
    std::vector<MPI_Aint> displs(p, 0);
    counts[0] = LLONG_MAX / 2;  // times 1 MiB: past any address space
    int code = MPIX_Alltoallv_c(buf, counts.data(), displs.data(), big, buf, counts.data(), displs.data(), big, xcomm);
    int cls = MPI_SUCCESS;
    MPI_Error_class(code, &cls);
    MPIX_EXPECT(cls == MPI_ERR_COUNT, "an overflowing count gave class " + std::to_string(cls));
    counts[0] = 0;
    displs[0] = PTRDIFF_MAX / 2;
    code = MPIX_Alltoallv_c(buf, counts.data(), displs.data(), big, buf, counts.data(), displs.data(), big, xcomm);
    MPI_Error_class(code, &cls);
    MPIX_EXPECT(cls == MPI_ERR_ARG, "an overflowing displacement gave class " + std::to_string(cls));
    code = MPIX_Alltoall_c(buf, LLONG_MAX / 4, big, buf, LLONG_MAX / 4, big, xcomm);
    MPI_Error_class(code, &cls);
    MPIX_EXPECT(cls == MPI_ERR_COUNT, "an overflowing MPIX_Alltoall_c count gave class " + std::to_string(cls));
    code = MPIX_Alltoall_c(buf, -1, MPI_BYTE, buf, 1, MPI_BYTE, xcomm);
    MPI_Error_class(code, &cls);
    MPIX_EXPECT(cls == MPI_ERR_COUNT, "a negative MPIX_Alltoall_c count gave class " + std::to_string(cls));
    MPIX_CHECK_ALL("overflowing large counts");
    MPI_Type_free(&big);
    MPIX_Comm_free(&xcomm);
    MPI_Comm_free(&user);
}

const mpixtest::TestCase kTests[] = {
    {"MPIX_Alltoallv_c: offsets past 2 GiB, every row", test_alltoallv_c_offsets_past_2g},
    {"MPIX_Alltoallv_c: a block past 2 GiB, every row", test_alltoallv_c_block_past_2g},
    {"MPIX_Alltoall_c: 2^30 + 64 byte blocks, every row", test_alltoall_c_total_past_2g},
    {"pmpi row, ranks of different layouts: offsets and totals past 2 GiB beside pass-through calls",
     test_pmpi_mixed_layouts_past_2g},
    {"pmpi row, persistent: a staged block past 2 GiB (1 rank, check-stress)", test_pmpi_persistent_staged_past_2g},
    {"overflowing large counts are MPI errors", test_overflowing_counts},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "large_count", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
