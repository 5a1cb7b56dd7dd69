// mpix-bench: verifies and times every registry algorithm of one collective on a
// chosen workload, beside the MPI library's own collective in the same run.
// Times are MPI_Wtime only (the one clock SimGrid SMPI simulates): per iteration
// the slowest rank's time (max-reduce), then median/min/max over iterations.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#ifdef __linux__
#include <sched.h>
#endif
#include "core/comm.hpp"
#include "harness_mix.hpp"
#include "workload.hpp"
#include "bound.hpp"
#if MPIX_SMPI
#include <simgrid/s4u.hpp>

#include "bound_simgrid.hpp"
#endif
#include "mpix.h"
#include "select/registry.hpp"
#include "select/sparse_dispatch.hpp"
#include "topo/topology.hpp"

namespace {

using mpix::Collective;
using mpixbench::Workload;

const char *const kUsage =
    "usage: mpix-bench [options]\n"
    "  --coll alltoall|alltoallv|alltoall_crs|alltoallv_crs|neighbor_alltoallv   collective (alltoallv)\n"
    "  --algo NAME[,NAME]|all|auto   registry algorithms to run (all = every one, then auto;\n"
    "                                all,-NAME drops one)\n"
    "  --size BYTES[,...]            S: block size scale (16,256,4096,65536)\n"
    "  --dist uniform|equal|normal|powerlaw|fft1|fft2|matrix:PATH|traffic:PATH|graph:D   (uniform)\n"
    "      uniform: block bytes uniform in 0..S; equal: every block S bytes (osu_alltoallv's\n"
    "      exchange); normal: mean S/2, sd S/8, clipped to 0..S;\n"
    "      powerlaw: S*x^2, x = (i+1)/P over a shuffled order of destinations;\n"
    "      fft1: ranks below ceil(0.625P) send S bytes (default 64 = 8 doubles) to the\n"
    "            first ceil(0.78125P) ranks, others nothing;\n"
    "      fft2: every rank sends S bytes (default 512 = 64 doubles), the last rank S/4;\n"
    "      matrix:PATH  SpMV halo of a Matrix Market file, row-block partition, S bytes\n"
    "                   per vector value (default 8);\n"
    "      traffic:PATH P x P counts (one row per source rank) times S bytes (default 1).\n"
    "      graph:D      S bytes on each edge of a random graph: every rank sends to D\n"
    "                   distinct other ranks (neighbor_alltoallv's default: graph:6)\n"
    "      MPIX_Alltoall always sends S bytes per block.\n"
    "  --matrix PATH  --degree D     the same as --dist matrix:PATH / --dist graph:D\n"
    "                                (neighbor_alltoallv: the halo of an SpMV with a row-block\n"
    "                                partition, or a random graph, as a neighbour topology;\n"
    "                                baseline mpi = MPI_Neighbor_alltoallv on\n"
    "                                MPI_Dist_graph_create_adjacent, not under SimGrid SMPI)\n"
    "  --persistent                  also time each algorithm as a persistent request (init\n"
    "                                once, MPIX_Start + MPIX_Wait per call; alltoall, alltoallv,\n"
    "                                neighbor_alltoallv): rows with params ...;persistent\n"
    "  --radix R[,...]|sweep         radix values for algorithms that read `radix`\n"
    "  --batch B[,...]|sweep         batch_size values for algorithms that read it\n"
    "  --ppn N                       emulate nodes of N consecutive ranks\n"
    "  --hint KEY=VALUE              any other hint for every algorithm (README, Hints),\n"
    "                                e.g. inner=pairwise; repeatable; shown in params\n"
    "  --iters N --warmup N          timed / untimed calls per parameter set\n"
    "  --seed N                      workload seed (1)\n"
    "  --baseline mpi|NAME|none      what speedup is relative to (mpi = MPI_Alltoall(v),\n"
    "                                MPI_Neighbor_alltoallv;\n"
    "                                crs collectives: the `personalized` backend)\n"
    "  --csv FILE --json FILE        machine-readable results (appended CSV keeps one header)\n"
    "  --workload-out FILE           after the run, rank 0 writes the exact bytes of every block\n"
    "                                the run moved as JSON: {\"collective\", \"P\", \"ppn\" (ranks\n"
    "                                on the largest node), \"nodes\", \"dist\", \"size\", \"seed\",\n"
    "                                \"node_of\": [node of each rank as the library sees it],\n"
    "                                \"bytes\": [[bytes src sends to dst] for each src]}; sparse\n"
    "                                collectives: each message's bytes, 0 where none. Needs\n"
    "                                exactly one size (--size S); not written when the run\n"
    "                                could not start; a file that cannot be written exits 2\n"
    "  --format table|osu            table (default), or the OSU micro-benchmarks' layout\n"
    "                                (osu_alltoall / osu_alltoallv) for exactly one --algo: a\n"
    "                                registry name, auto (the default there) or mpi (the MPI\n"
    "                                library's own collective); alltoallv's default --dist: equal\n"
    "  -m [MIN:]MAX  -i N  -x N  -f  -c   with --format osu, OSU's options: message sizes\n"
    "                                (powers of two from MIN to MAX, default 1:1048576),\n"
    "                                iterations and warm-up calls (default 1000 and 100, above\n"
    "                                8 KiB 100 and 10), full (min, max, iterations columns),\n"
    "                                validation column (Pass/Fail; any Fail exits 1)\n"
    "  --no-verify                   skip the check against the expected bytes\n"
    "  --list                        print the registry and exit\n"
    "  --auto-map                    print, as JSON on stdout, what `auto` picks for alltoall\n"
    "                                and alltoallv over a grid (the library's own rule\n"
    "                                functions), and exit; runs no exchange, needs no mpiexec:\n"
    "                                {\"rule\":\"auto\",\"collectives\":{COLL:{\"algorithms\":[names\n"
    "                                that appear],\"ppn\":{PPN:{\"P\":[...],\"bytes\":[...],\n"
    "                                \"pick\":[[name per bytes] per P]}}}},\"note\":...};\n"
    "                                nodes = ceil(P/ppn); alltoallv's bytes: the agreed largest\n"
    "                                per-rank mean block. Grid lists are sorted, duplicates dropped:\n"
    "  --map-ranks LIST              P values (2,4,8,...,4096)\n"
    "  --map-sizes LIST              bytes (powers of two from 1 to 1048576)\n"
    "  --map-ppn LIST                ranks per node (1,4,16)\n"
    "  --help\n";

struct Options {
    Collective coll = Collective::alltoallv;
    std::vector<std::string> algos{"all"};
    std::vector<long long> sizes;
    std::string dist = "uniform";
    std::vector<int> radix;  // empty: default; {-1}: sweep
    std::vector<int> batch;
    int ppn = 0;
    int iters = MPIX_SMPI ? 1 : 20;  // simulated time is deterministic
    // Under SMPI no warm-up for the dense collectives (their cached node
    // communicators are set up before timing), one for the sparse ones (the rma
    // backend creates its window on first use).
    int warmup = -1;
    unsigned long long seed = 1;
    std::string baseline = "mpi";
    std::string csv, json;
    std::string workload_out;  // --workload-out FILE: the run's bytes per (src, dst), JSON
    std::vector<std::pair<std::string, std::string>> hints;  // --hint KEY=VALUE
    bool verify = true;
    bool list = false;
    // --auto-map and its grid (--map-ranks, --map-sizes, --map-ppn).
    bool auto_map = false;
    std::string map_option;  // the first --map-* option given (refused without --auto-map)
    std::vector<long long> map_ranks, map_sizes, map_ppn;
    bool persistent = false;  // --persistent: persistent-request rows beside the blocking ones
    // --format osu and its OSU-style options (-m -i -x -f -c).
    bool osu = false;
    bool osu_full = false, osu_validate = false;
    bool osu_range = false;  // sizes from -m (or its default): OSU's memory limit applies
    std::string osu_option;  // the first OSU-style option given (refused without --format osu)
    bool algo_given = false, dist_given = false, iters_given = false;
};

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty())
            out.push_back(item);
    return out;
}

bool parse_ll(const std::string &s, long long *v)
{
    char *end = nullptr;
    errno = 0;
    long long x = std::strtoll(s.c_str(), &end, 10);
    if (errno || end == s.c_str() || *end)
        return false;
    *v = x;
    return true;
}

bool parse_int_list(const std::string &s, std::vector<int> *out, long long min)
{
    out->clear();
    if (s == "sweep") {
        out->push_back(-1);
        return true;
    }
    for (const std::string &t : split(s, ',')) {
        long long v;
        if (!parse_ll(t, &v) || v < min || v > 1 << 30)
            return false;
        out->push_back((int)v);
    }
    return !out->empty();
}

// OSU's -m [MIN:]MAX (or MIN:): powers of two from MIN to MAX, MIN 0 giving 0 then 1.
bool parse_osu_range(const std::string &v, std::vector<long long> *sizes)
{
    long long lo = 1, hi = 1 << 20;
    std::size_t colon = v.find(':');
    if (colon == std::string::npos) {
        if (!parse_ll(v, &hi))
            return false;
    } else if (!parse_ll(v.substr(0, colon), &lo) ||
               (colon + 1 < v.size() && !parse_ll(v.substr(colon + 1), &hi))) {
        return false;
    }
    if (lo < 0 || hi < lo || hi > (1LL << 30))
        return false;
    sizes->clear();
    long long s = lo;
    if (s == 0) {
        sizes->push_back(0);
        s = 1;
    }
    for (; s <= hi; s *= 2)
        sizes->push_back(s);
    return !sizes->empty();
}

// A --map-* list: comma-separated integers in [min, max], sorted, duplicates dropped.
bool parse_grid_list(const std::string &s, long long min, long long max, std::vector<long long> *out)
{
    out->clear();
    for (const std::string &t : split(s, ',')) {
        long long v;
        if (!parse_ll(t, &v) || v < min || v > max)
            return false;
        out->push_back(v);
    }
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
    return !out->empty();
}

// --workload-out describes one exchange: exactly one size.
std::string workload_out_check(const Options &o)
{
    if (!o.workload_out.empty() && o.sizes.size() != 1)
        return "--workload-out writes one size's workload: give exactly one size (--size S), not " +
               std::to_string(o.sizes.size());
    return "";
}

// Returns an error text, or empty on success.
std::string parse(int argc, char **argv, Options *o)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](std::string *v) {
            if (i + 1 >= argc)
                return false;
            *v = argv[++i];
            return true;
        };
        std::string v;
        long long n;
        if (a == "--help" || a == "-h")
            return "help";
        bool osu_style = a == "-m" || a == "--message-size" || a == "-i" || a == "--iterations" || a == "-x" ||
                         a == "-f" || a == "--full" || a == "-c" || a == "--validation";
        if (osu_style && o->osu_option.empty())
            o->osu_option = a;
        if (a == "--list") {
            o->list = true;
        } else if (a == "--auto-map") {
            o->auto_map = true;
        } else if (a == "--persistent") {
            o->persistent = true;
        } else if (a == "--no-verify") {
            o->verify = false;
        } else if (a == "-f" || a == "--full") {
            o->osu_full = true;
        } else if (a == "-c" || a == "--validation") {
            o->osu_validate = true;
        } else if (!value(&v)) {
            return "unknown option or missing value: " + a;
        } else if (a == "--coll") {
            if (!mpix::collective_from_name(v.c_str(), &o->coll))
                return "unknown collective " + v;
        } else if (a == "--algo") {
            o->algos = split(v, ',');
            o->algo_given = true;
            if (o->algos.empty())
                return "empty --algo";
        } else if (a == "--size") {
            o->sizes.clear();
            for (const std::string &t : split(v, ','))
                if (!parse_ll(t, &n) || n < 0 || n > (1LL << 30))
                    return "bad --size " + t;
                else
                    o->sizes.push_back(n);
            o->osu_range = false;
        } else if (a == "-m" || a == "--message-size") {
            if (!parse_osu_range(v, &o->sizes))
                return "bad " + a + " " + v + " ([MIN:]MAX, 0 <= MIN <= MAX <= 2^30)";
            o->osu_range = true;
        } else if (a == "--format") {
            if (v != "table" && v != "osu")
                return "unknown --format " + v + " (table or osu)";
            o->osu = v == "osu";
        } else if (a == "--dist") {
            o->dist = v;
            o->dist_given = true;
            static const char *known[] = {"uniform", "equal", "normal", "powerlaw", "fft1", "fft2"};
            bool ok = v.rfind("matrix:", 0) == 0 || v.rfind("traffic:", 0) == 0;
            for (const char *k : known)
                ok = ok || v == k;
            if (v.rfind("graph:", 0) == 0) {
                if (!parse_ll(v.substr(6), &n) || n < 1 || n > 1 << 20)
                    return "bad --dist " + v + " (graph:D, D >= 1)";
                ok = true;
            }
            if (!ok)
                return "unknown --dist " + v;
        } else if (a == "--matrix") {
            o->dist = "matrix:" + v;
            o->dist_given = true;
        } else if (a == "--degree") {
            if (!parse_ll(v, &n) || n < 1 || n > 1 << 20)
                return "bad --degree " + v + " (D >= 1)";
            o->dist = "graph:" + v;
            o->dist_given = true;
        } else if (a == "--radix") {
            if (!parse_int_list(v, &o->radix, 2))
                return "bad --radix " + v;
        } else if (a == "--batch") {
            if (!parse_int_list(v, &o->batch, 1))
                return "bad --batch " + v;
        } else if (a == "--ppn") {
            if (!parse_ll(v, &n) || n < 0 || n > 1 << 20)
                return "bad --ppn " + v;
            o->ppn = (int)n;
        } else if (a == "--iters" || a == "-i" || a == "--iterations") {
            if (!parse_ll(v, &n) || n < 1 || n > 1000000)
                return "bad " + a + " " + v;
            o->iters = (int)n;
            o->iters_given = true;
        } else if (a == "--warmup" || a == "-x") {
            if (!parse_ll(v, &n) || n < 0 || n > 1000000)
                return "bad " + a + " " + v;
            o->warmup = (int)n;
        } else if (a == "--seed") {
            if (!parse_ll(v, &n) || n < 0)
                return "bad --seed " + v;
            o->seed = (unsigned long long)n;
        } else if (a == "--hint") {
            std::size_t eq = v.find('=');
            if (eq == std::string::npos || eq == 0)
                return "bad --hint " + v + " (KEY=VALUE)";
            std::string key = v.substr(0, eq), val = v.substr(eq + 1);
            bool ours = key.size() > 10 && key.compare(key.size() - 10, 10, "_algorithm") == 0;
            if (ours || key == "radix" || key == "batch_size")
                return "--hint " + key + ": use --algo, --radix or --batch";
            // MPIX_Info_set validates key and value, raising errors on MPI_COMM_SELF.
            MPI_Errhandler old;
            MPI_Comm_get_errhandler(MPI_COMM_SELF, &old);
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
            MPIX_Info *info;
            MPIX_Info_init(&info);
            int rc = MPIX_Info_set(info, key.c_str(), val.c_str());
            MPIX_Info_free(&info);
            MPI_Comm_set_errhandler(MPI_COMM_SELF, old);
            MPI_Errhandler_free(&old);
            if (rc != MPI_SUCCESS)
                return "bad --hint " + v + " (unknown key or malformed value)";
            o->hints.emplace_back(key, val);
        } else if (a == "--baseline") {
            o->baseline = v;
        } else if (a == "--csv") {
            o->csv = v;
        } else if (a == "--json") {
            o->json = v;
        } else if (a == "--map-ranks" || a == "--map-sizes" || a == "--map-ppn") {
            const bool sizes = a == "--map-sizes";
            std::vector<long long> *list = a == "--map-ranks" ? &o->map_ranks : sizes ? &o->map_sizes : &o->map_ppn;
            if (!parse_grid_list(v, sizes ? 0 : 1, sizes ? 1LL << 40 : 1 << 30, list))
                return "bad " + a + " " + v + (sizes ? " (bytes, 0 <= B <= 2^40)" : " (values >= 1, <= 2^30)");
            if (o->map_option.empty())
                o->map_option = a;
        } else if (a == "--workload-out") {
            if (v.empty())
                return "empty --workload-out";
            o->workload_out = v;
        } else {
            return "unknown option " + a;
        }
    }
    if (!o->osu_option.empty() && !o->osu)
        return o->osu_option + " is an OSU-style option: use it with --format osu (or see --help)";
    if (!o->map_option.empty() && !o->auto_map)
        return o->map_option + " sets the grid of --auto-map: use it with --auto-map";
    if (o->auto_map) {
        if (!o->workload_out.empty())
            return "--auto-map runs no exchange: --workload-out would have nothing to write";
        if (o->map_ranks.empty())
            for (long long r = 2; r <= 4096; r *= 2)
                o->map_ranks.push_back(r);
        if (o->map_sizes.empty())
            for (long long b = 1; b <= 1048576; b *= 2)
                o->map_sizes.push_back(b);
        if (o->map_ppn.empty())
            o->map_ppn = {1, 4, 16};
        return "";
    }
    if (o->persistent && (o->coll == Collective::alltoall_crs || o->coll == Collective::alltoallv_crs))
        return "--persistent: alltoall, alltoallv or neighbor_alltoallv (the crs collectives have no persistent form)";
    if (o->persistent && o->osu)
        return "--persistent needs the table format (--format osu measures one call form)";
    if (o->coll == Collective::neighbor_alltoallv && !o->dist_given)
        o->dist = "graph:6";
    if (o->osu) {
        if (o->coll != Collective::alltoall && o->coll != Collective::alltoallv)
            return "--format osu: --coll alltoall or alltoallv (OSU has no crs or neighbour benchmark here)";
        if (!o->algo_given)
            o->algos = {"auto"};
        if (o->algos.size() != 1 || o->algos[0] == "all" || o->algos[0][0] == '-')
            return "--format osu measures one algorithm per run: --algo NAME, auto or mpi (not all or a list)";
        if (o->radix.size() > 1 || (!o->radix.empty() && o->radix[0] == -1) || o->batch.size() > 1 ||
            (!o->batch.empty() && o->batch[0] == -1))
            return "--format osu measures one parameter set per run: one --radix and one --batch value";
        if (!o->csv.empty() || !o->json.empty())
            return "--format osu writes OSU's layout only: --csv and --json need the table format";
        if (o->osu_validate && !o->verify)
            return "-c (validation) needs the verification that --no-verify turns off";
        if (o->sizes.empty()) {
            parse_osu_range("1:1048576", &o->sizes);
            o->osu_range = true;
        }
        if (o->coll == Collective::alltoallv && !o->dist_given)
            o->dist = "equal";  // osu_alltoallv: every block the same size
        // Without -i / -x: OSU's defaults by size (iters_for / warmup_for), natively;
        // under SMPI, where simulated time is deterministic, 1 and 0.
        if (!o->iters_given)
            o->iters = MPIX_SMPI ? 1 : -1;
        if (o->warmup < 0)
            o->warmup = MPIX_SMPI ? 0 : -1;
        return workload_out_check(*o);
    }
    if (o->sizes.empty()) {
        if (o->dist == "fft1")
            o->sizes = {64};
        else if (o->dist == "fft2")
            o->sizes = {512};
        else if (o->dist.rfind("matrix:", 0) == 0)
            o->sizes = {8};
        else if (o->dist.rfind("traffic:", 0) == 0)
            o->sizes = {1};
        else
            o->sizes = {16, 256, 4096, 65536};
    }
    if (o->warmup < 0) {
        bool sparse = o->coll == Collective::alltoall_crs || o->coll == Collective::alltoallv_crs;
        o->warmup = MPIX_SMPI ? (sparse ? 1 : 0) : 3;
    }
    return workload_out_check(*o);
}

// The byte every block carries at index k: a function of source, destination and
// index, so a misplaced or shifted block is caught.
inline unsigned char pattern(int src, int dst, std::size_t k)
{
    return (unsigned char)(src * 251u + dst * 241u + k * 239u + (k >> 8) * 13u + 7u);
}

// Buffers: ordinary memory, or under SMPI SMPI_SHARED_MALLOC for large ones
// (content then shared by all simulated ranks, so it cannot be verified).
struct Buffer {
    char *ptr = nullptr;
    bool shared = false;
    void allocate(std::size_t bytes, bool use_shared)
    {
        release();
#if MPIX_SMPI
        if (use_shared) {
            ptr = (char *)SMPI_SHARED_MALLOC(bytes ? bytes : 1);
            shared = true;
            return;
        }
#else
        (void)use_shared;
#endif
        ptr = (char *)malloc(bytes ? bytes : 1);
        shared = false;
    }
    void release()
    {
#if MPIX_SMPI
        if (shared && ptr) {
            SMPI_SHARED_FREE(ptr);
            ptr = nullptr;
        }
#endif
        free(ptr);
        ptr = nullptr;
    }
    ~Buffer() { release(); }
};

// One exchange's layout for this rank: byte counts and displacements (int, as the
// MPI interfaces take them with MPI_BYTE).
struct Layout {
    std::vector<int> scounts, sdispls, rcounts, rdispls;
    // crs and neighbor_alltoallv: peers with a non-empty block, self excluded (the
    // neighbour topology's destinations and sources, in rank order)
    std::vector<int> dest, src;
    std::vector<int> crs_scounts, crs_sdispls, crs_rcounts, crs_rdispls;
    long long sbytes = 0, rbytes = 0, crs_sbytes = 0, crs_rbytes = 0;
};

struct Row {
    std::string algorithm, params;
    long long size = 0;
    double median = 0, min = 0, max = 0, speedup = 0;
    std::string verified;
    double bound = 0;  // us, the exchange's lower bound (simulated runs only; 0: none)
    // --format osu: OSU's statistics, each rank's mean over the timed calls, then the
    // mean, min and max of those over ranks (rank 0 only).
    double osu_avg = 0, osu_min = 0, osu_max = 0;
    int iters = 0;
};

// The lower bound of one size's exchange on the simulated platform (sim/bound.hpp).
struct SizeBound {
    mpix::sim::Bound terms;
    double us() const { return terms.seconds() * 1e6; }
};

class Bench {
public:
    Bench(const Options &o, MPIX_Comm *xcomm, int p, int me) : o_(o), xcomm_(xcomm), p_(p), me_(me) {}

    int run();

private:
    int setup();
    int prepare(long long s, Layout *l);
    int run_table();
    int run_osu();
    // Timed and untimed calls per parameter set: the options, or OSU's defaults by size.
    int iters_for(long long s) const { return o_.iters >= 0 ? o_.iters : s > 8192 ? 100 : 1000; }
    int warmup_for(long long s) const { return o_.warmup >= 0 ? o_.warmup : s > 8192 ? 10 : 100; }
    bool crs() const { return o_.coll == Collective::alltoall_crs || o_.coll == Collective::alltoallv_crs; }
    bool neighbor() const { return o_.coll == Collective::neighbor_alltoallv; }
    // Blocks to and from the peers with data only (crs and neighbour collectives).
    bool sparse_view() const { return crs() || neighbor(); }
    // The MPI library's collective: MPI_Neighbor_alltoallv needs
    // MPI_Dist_graph_create_adjacent, which SimGrid SMPI does not implement.
    bool mpi_baseline_available() const { return !(neighbor() && MPIX_SMPI); }
    const char *mpi_name() const
    {
        return neighbor() ? "MPI_Neighbor_alltoallv" : o_.coll == Collective::alltoall ? "MPI_Alltoall" : "MPI_Alltoallv";
    }
    int topology(const Layout &l);
    void free_topology();
    int init_persistent(const std::string &algo, int radix, int batch, const Layout &l, long long s, bool mpi,
                        MPIX_Request **xreq, MPI_Request *mreq);
    bool uniform() const { return o_.coll == Collective::alltoall || o_.coll == Collective::alltoall_crs; }
    std::string layout_for(long long s, Layout *l);
    int call(const std::string &algo, int radix, int batch, const Layout &l, long long s, bool baseline_mpi);
    bool check(const Layout &l, long long s);
    bool measure(const std::string &label, const std::string &algo, int radix, int batch, const Layout &l,
                 long long s, Row *row, bool persistent = false);
    std::string picked(const Layout &l, long long s);
    bool bound_for(long long s, SizeBound *out);
    void emit(const std::vector<Row> &rows);
    int write_workload();

    const Options &o_;
    MPIX_Comm *xcomm_;
    int p_, me_;
    int nodes_ = 1, ppn_ = 1;
    std::vector<int> lib_node_of_;  // rank -> node as the library sees it (real or --ppn)
    int lib_max_ppn_ = 1;           // ranks on the library's largest node
    Workload w_;
    Buffer sbuf_, rbuf_;
    bool shared_ = false;
    MPI_Comm world_ = MPI_COMM_NULL;  // the baseline's communicator
    int crs_recv_nnz_ = 0, crs_recv_size_ = 0;
    std::vector<int> crs_src_out_, crs_rcounts_out_, crs_rdispls_out_;
    int last_rc_ = MPI_SUCCESS;
    MPIX_Topo *topo_ = nullptr;       // neighbor_alltoallv: this size's topology
    MPI_Comm graph_ = MPI_COMM_NULL;  // ... and the MPI library's (natively)
    std::map<long long, SizeBound> bounds_;  // by size, rank 0
#if MPIX_SMPI
    std::vector<int> node_of_;  // rank -> simulated host (node), by first appearance
    mpix::sim::Network net_;    // rank 0
    double lat_in_ = 0, lat_out_ = 0;
    mpix::sim::OverheadModel model_;
    std::map<std::pair<long long, long long>, double> path_memo_;
#endif
};

// Under SMPI: the bound of the exchange of size s from this run's own bytes
// (every rank contributes its row, gathered by node on rank 0) and the simulated
// platform's routes. False natively (there is no model to bound).
bool Bench::bound_for(long long s, SizeBound *out)
{
#if MPIX_SMPI
    if (node_of_.empty()) {
        std::vector<simgrid::s4u::Host *> hosts = simgrid::s4u::Engine::get_instance()->get_all_hosts();
        int mine = (int)(std::find(hosts.begin(), hosts.end(), simgrid::s4u::this_actor::get_host()) - hosts.begin());
        std::vector<int> host_of(p_);
        MPI_Allgather(&mine, 1, MPI_INT, host_of.data(), 1, MPI_INT, world_);
        std::map<int, int> node_index;
        std::vector<simgrid::s4u::Host *> node_hosts;
        for (int h : host_of)
            if (node_index.emplace(h, (int)node_hosts.size()).second)
                node_hosts.push_back(hosts[h]);
        for (int h : host_of)
            node_of_.push_back(node_index[h]);
        double lat[2] = {0, 0};
        if (me_ == 0) {
            net_ = mpix::sim::network_of(node_hosts);
            mpix::sim::min_latencies(net_, &lat[0], &lat[1]);
        }
        MPI_Bcast(lat, 2, MPI_DOUBLE, 0, world_);
        lat_in_ = lat[0];
        lat_out_ = lat[1];
        model_ = mpix::sim::smpi_overhead_model();
    }
    const int nodes = *std::max_element(node_of_.begin(), node_of_.end()) + 1;
    auto bytes = [&](int src, int dst) {
        return uniform() ? (double)s : (double)w_.bytes(src, dst, s, o_.seed, me_);
    };
    std::vector<double> row(nodes, 0);
    long long local = 0, remote = 0;
    for (int j = 0; j < p_; ++j) {
        if (j == me_)
            continue;
        row[node_of_[j]] += bytes(me_, j);
        if (bytes(j, me_) > 0)
            ++(node_of_[j] == node_of_[me_] ? local : remote);
    }
    auto memo = path_memo_.find({local, remote});
    if (memo == path_memo_.end())
        memo = path_memo_.emplace(std::make_pair(local, remote),
                                  mpix::sim::path_time(local, remote, lat_in_, lat_out_, model_)).first;
    double path = memo->second, worst = 0;
    MPI_Reduce(&path, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, world_);
    std::vector<double> rows(me_ == 0 ? (std::size_t)p_ * nodes : 0);
    MPI_Gather(row.data(), nodes, MPI_DOUBLE, rows.data(), nodes, MPI_DOUBLE, 0, world_);
    if (me_ != 0)
        return false;
    std::vector<double> pair((std::size_t)nodes * nodes, 0);
    for (int r = 0; r < p_; ++r)
        for (int v = 0; v < nodes; ++v)
            pair[(std::size_t)node_of_[r] * nodes + v] += rows[(std::size_t)r * nodes + v];
    out->terms.path = worst;
    mpix::sim::link_terms(net_, pair, &out->terms.link, &out->terms.nic);
    return true;
#else
    (void)s;
    (void)out;
    return false;
#endif
}

std::string Bench::layout_for(long long s, Layout *l)
{
    l->scounts.assign(p_, 0);
    l->rcounts.assign(p_, 0);
    l->sdispls.assign(p_, 0);
    l->rdispls.assign(p_, 0);
    l->dest.clear();
    l->src.clear();
    l->crs_scounts.clear();
    l->crs_sdispls.clear();
    l->crs_rcounts.clear();
    l->crs_rdispls.clear();
    long long so = 0, ro = 0;
    for (int j = 0; j < p_; ++j) {
        std::size_t sb = uniform() ? (std::size_t)s : w_.bytes(me_, j, s, o_.seed, me_);
        std::size_t rb = uniform() ? (std::size_t)s : w_.bytes(j, me_, s, o_.seed, me_);
        if (so + (long long)sb > INT32_MAX || ro + (long long)rb > INT32_MAX)
            return "a rank's data exceeds 2^31-1 bytes (int displacements)";
        l->scounts[j] = (int)sb;
        l->rcounts[j] = (int)rb;
        l->sdispls[j] = (int)so;
        l->rdispls[j] = (int)ro;
        so += (long long)sb;
        ro += (long long)rb;
    }
    l->sbytes = so;
    l->rbytes = ro;
    // Sparse view: the non-empty blocks to and from other ranks, packed in rank order.
    if (sparse_view()) {
        long long cs = 0, cr = 0;
        for (int j = 0; j < p_; ++j) {
            if (j == me_)
                continue;
            bool to = uniform() ? w_.bytes(me_, j, s, o_.seed, me_) > 0 : l->scounts[j] > 0;
            bool from = uniform() ? w_.bytes(j, me_, s, o_.seed, me_) > 0 : l->rcounts[j] > 0;
            if (to) {
                l->dest.push_back(j);
                l->crs_scounts.push_back(l->scounts[j]);
                l->crs_sdispls.push_back((int)cs);
                cs += l->scounts[j];
            }
            if (from) {
                l->src.push_back(j);
                l->crs_rcounts.push_back(l->rcounts[j]);
                l->crs_rdispls.push_back((int)cr);
                cr += l->rcounts[j];
            }
        }
        l->crs_sbytes = cs;
        l->crs_rbytes = cr;
    }
    return "";
}

void set_hints(MPIX_Info *info, const Options &o, const std::string &algo, int radix, int batch)
{
    for (const auto &kv : o.hints)
        MPIX_Info_set(info, kv.first.c_str(), kv.second.c_str());
    MPIX_Info_set(info, (std::string(mpix::collective_name(o.coll)) + "_algorithm").c_str(), algo.c_str());
    if (radix > 0)
        MPIX_Info_set(info, "radix", std::to_string(radix).c_str());
    if (batch > 0)
        MPIX_Info_set(info, "batch_size", std::to_string(batch).c_str());
}

// One call of the collective with the given algorithm (or the MPI library's own).
int Bench::call(const std::string &algo, int radix, int batch, const Layout &l, long long s, bool baseline_mpi)
{
    const char *sb = sbuf_.ptr;
    char *rb = rbuf_.ptr;
    if (neighbor()) {
        if (baseline_mpi)
            return MPI_Neighbor_alltoallv(sb, l.crs_scounts.data(), l.crs_sdispls.data(), MPI_BYTE, rb,
                                          l.crs_rcounts.data(), l.crs_rdispls.data(), MPI_BYTE, graph_);
        return MPIX_Neighbor_alltoallv(sb, l.crs_scounts.data(), l.crs_sdispls.data(), MPI_BYTE, rb,
                                       l.crs_rcounts.data(), l.crs_rdispls.data(), MPI_BYTE, topo_, xcomm_);
    }
    if (baseline_mpi) {
        if (o_.coll == Collective::alltoall)
            return MPI_Alltoall(sb, (int)s, MPI_BYTE, rb, (int)s, MPI_BYTE, world_);
        return MPI_Alltoallv(sb, l.scounts.data(), l.sdispls.data(), MPI_BYTE, rb, l.rcounts.data(),
                             l.rdispls.data(), MPI_BYTE, world_);
    }
    if (!crs()) {
        if (o_.coll == Collective::alltoall)
            return MPIX_Alltoall(sb, (int)s, MPI_BYTE, rb, (int)s, MPI_BYTE, xcomm_);
        return MPIX_Alltoallv(sb, l.scounts.data(), l.sdispls.data(), MPI_BYTE, rb, l.rcounts.data(),
                              l.rdispls.data(), MPI_BYTE, xcomm_);
    }
    MPIX_Info *info;
    MPIX_Info_init(&info);
    set_hints(info, o_, algo, radix, batch);
    int rc;
    crs_recv_nnz_ = p_;
    crs_src_out_.assign(p_, -1);
    if (o_.coll == Collective::alltoall_crs) {
        rc = MPIX_Alltoall_crs((int)l.dest.size(), l.dest.data(), (int)s, MPI_BYTE, sb, &crs_recv_nnz_,
                               crs_src_out_.data(), (int)s, MPI_BYTE, rb, info, xcomm_);
    } else {
        crs_recv_size_ = (int)l.crs_rbytes;
        crs_rcounts_out_.assign(p_, -1);
        crs_rdispls_out_.assign(p_, -1);
        rc = MPIX_Alltoallv_crs((int)l.dest.size(), (int)l.crs_sbytes, l.dest.data(), l.crs_scounts.data(),
                                l.crs_sdispls.data(), MPI_BYTE, sb, &crs_recv_nnz_, &crs_recv_size_,
                                crs_src_out_.data(), crs_rcounts_out_.data(), crs_rdispls_out_.data(), MPI_BYTE,
                                rb, info, xcomm_);
    }
    MPIX_Info_free(&info);
    return rc;
}

// Fills the send buffer with the pattern and the receive buffer with its complement.
void fill(const Layout &l, bool crs, int me, char *sb, char *rb)
{
    if (crs) {
        for (std::size_t i = 0; i < l.dest.size(); ++i)
            for (int k = 0; k < l.crs_scounts[i]; ++k)
                sb[l.crs_sdispls[i] + k] = (char)pattern(me, l.dest[i], k);
        for (std::size_t i = 0; i < l.src.size(); ++i)
            for (int k = 0; k < l.crs_rcounts[i]; ++k)
                rb[l.crs_rdispls[i] + k] = (char)~pattern(l.src[i], me, k);
        return;
    }
    int p = (int)l.scounts.size();
    for (int j = 0; j < p; ++j) {
        for (int k = 0; k < l.scounts[j]; ++k)
            sb[l.sdispls[j] + k] = (char)pattern(me, j, k);
        for (int k = 0; k < l.rcounts[j]; ++k)
            rb[l.rdispls[j] + k] = (char)~pattern(j, me, k);
    }
}

// Element-by-element check of the last call's output against the bytes every
// correct MPI_Alltoallv delivers for this layout.
bool Bench::check(const Layout &l, long long s)
{
    const char *rb = rbuf_.ptr;
    if (neighbor()) {
        for (std::size_t i = 0; i < l.src.size(); ++i)
            for (int k = 0; k < l.crs_rcounts[i]; ++k)
                if ((unsigned char)rb[l.crs_rdispls[i] + k] != pattern(l.src[i], me_, k))
                    return false;
        return true;
    }
    if (!crs()) {
        for (int j = 0; j < p_; ++j)
            for (int k = 0; k < l.rcounts[j]; ++k)
                if ((unsigned char)rb[l.rdispls[j] + k] != pattern(j, me_, k))
                    return false;
        return true;
    }
    if (crs_recv_nnz_ != (int)l.src.size())
        return false;
    for (std::size_t i = 0; i < l.src.size(); ++i) {
        if (crs_src_out_[i] != l.src[i])
            return false;
        int off = l.crs_rdispls[i];
        int count = uniform() ? (int)s : l.crs_rcounts[i];
        if (o_.coll == Collective::alltoallv_crs) {
            if (crs_rcounts_out_[i] != l.crs_rcounts[i])
                return false;
            off = crs_rdispls_out_[i];
        }
        for (int k = 0; k < count; ++k)
            if ((unsigned char)rb[off + k] != pattern(l.src[i], me_, k))
                return false;
    }
    return o_.coll != Collective::alltoallv_crs || crs_recv_size_ == (int)l.crs_rbytes;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A persistent request for one parameter set (collective): mpix's *_init with the
// algorithm's hints, or (mpi) the MPI library's MPI_*_init where it has them
// (MPI-4; not SimGrid SMPI). MPI_ERR_UNSUPPORTED_OPERATION when there is none.
int Bench::init_persistent(const std::string &algo, int radix, int batch, const Layout &l, long long s, bool mpi,
                           MPIX_Request **xreq, MPI_Request *mreq)
{
    const char *sb = sbuf_.ptr;
    char *rb = rbuf_.ptr;
    if (mpi) {
#if MPI_VERSION >= 4 && !MPIX_SMPI
        if (neighbor())
            return MPI_Neighbor_alltoallv_init(sb, l.crs_scounts.data(), l.crs_sdispls.data(), MPI_BYTE, rb,
                                               l.crs_rcounts.data(), l.crs_rdispls.data(), MPI_BYTE, graph_,
                                               MPI_INFO_NULL, mreq);
        if (o_.coll == Collective::alltoall)
            return MPI_Alltoall_init(sb, (int)s, MPI_BYTE, rb, (int)s, MPI_BYTE, world_, MPI_INFO_NULL, mreq);
        return MPI_Alltoallv_init(sb, l.scounts.data(), l.sdispls.data(), MPI_BYTE, rb, l.rcounts.data(),
                                  l.rdispls.data(), MPI_BYTE, world_, MPI_INFO_NULL, mreq);
#else
        (void)mreq;
        return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
    }
    MPIX_Info *info;
    MPIX_Info_init(&info);
    set_hints(info, o_, algo, radix, batch);
    int rc;
    if (neighbor())
        rc = MPIX_Neighbor_alltoallv_init(sb, l.crs_scounts.data(), l.crs_sdispls.data(), MPI_BYTE, rb,
                                          l.crs_rcounts.data(), l.crs_rdispls.data(), MPI_BYTE, topo_, xcomm_, info,
                                          xreq);
    else if (o_.coll == Collective::alltoall)
        rc = MPIX_Alltoall_init(sb, (int)s, MPI_BYTE, rb, (int)s, MPI_BYTE, xcomm_, info, xreq);
    else
        rc = MPIX_Alltoallv_init(sb, l.scounts.data(), l.sdispls.data(), MPI_BYTE, rb, l.rcounts.data(),
                                 l.rdispls.data(), MPI_BYTE, xcomm_, info, xreq);
    MPIX_Info_free(&info);
    return rc;
}

// Verifies (first call) and times one parameter set; returns false on a wrong
// result or an error code on any rank. persistent: the request is made once,
// before the timed loop, and each call is MPIX_Start + MPIX_Wait (MPI_Start +
// MPI_Wait for the MPI library's); the last call is verified too (the receive
// buffer refilled with the complement first, outside the timing), so a request
// that only works once is caught.
bool Bench::measure(const std::string &label, const std::string &algo, int radix, int batch, const Layout &l,
                    long long s, Row *row, bool persistent)
{
    bool mpi = algo.empty();
    if (!mpi && !crs()) {
        MPIX_Info *info;
        MPIX_Info_init(&info);
        set_hints(info, o_, algo, radix, batch);
        MPIX_Comm_set_info(xcomm_, info);
        MPIX_Info_free(&info);
    }
    bool verify = o_.verify && !shared_;
    if (verify)
        fill(l, sparse_view(), me_, sbuf_.ptr, rbuf_.ptr);
    std::vector<double> times;
    int ok = 1;
    const int warmup = warmup_for(s), iters = iters_for(s);
    MPIX_Request *xreq = nullptr;
    MPI_Request mreq = MPI_REQUEST_NULL;
    if (persistent) {
        // Collective: every rank knows whether every init succeeded before starting.
        int init_ok = init_persistent(algo, radix, batch, l, s, mpi, &xreq, &mreq) == MPI_SUCCESS, all_init = 0;
        MPI_Allreduce(&init_ok, &all_init, 1, MPI_INT, MPI_MIN, world_);
        ok = all_init;
    }
    const int calls = ok ? warmup + iters : 0;  // none when a persistent init failed
    for (int it = 0; it < calls; ++it) {
        bool last = persistent && it > 0 && it == calls - 1;
        if (last && verify)
            fill(l, sparse_view(), me_, sbuf_.ptr, rbuf_.ptr);
        MPI_Barrier(world_);
        double t0 = MPI_Wtime();
        int rc;
        if (!persistent) {
            rc = call(algo, radix, batch, l, s, mpi);
        } else if (mpi) {
            rc = MPI_Start(&mreq);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&mreq, MPI_STATUS_IGNORE);
        } else {
            rc = MPIX_Start(xreq);
            if (rc == MPI_SUCCESS)
                rc = MPIX_Wait(xreq, MPI_STATUS_IGNORE);
        }
        double t = MPI_Wtime() - t0;
        if (rc != MPI_SUCCESS)
            ok = 0;
        if ((it == 0 || last) && verify && ok)
            ok = check(l, s) ? 1 : 0;
        if (it >= warmup)
            times.push_back(t);
    }
    if (xreq)
        ok &= MPIX_Request_free(&xreq) == MPI_SUCCESS;
    if (mreq != MPI_REQUEST_NULL)
        MPI_Request_free(&mreq);
    if (times.empty())
        times.push_back(0.0);  // the init failed: no timing, the row says FAILED
    if (o_.osu) {
        // OSU: this rank's mean, then the mean, min and max over ranks.
        double mean = std::accumulate(times.begin(), times.end(), 0.0) / (double)times.size() * 1e6;
        MPI_Reduce(&mean, &row->osu_avg, 1, MPI_DOUBLE, MPI_SUM, 0, world_);
        MPI_Reduce(&mean, &row->osu_min, 1, MPI_DOUBLE, MPI_MIN, 0, world_);
        MPI_Reduce(&mean, &row->osu_max, 1, MPI_DOUBLE, MPI_MAX, 0, world_);
        row->osu_avg /= p_;
    }
    row->iters = iters;
    std::vector<double> slowest(times.size());
    MPI_Allreduce(times.data(), slowest.data(), (int)times.size(), MPI_DOUBLE, MPI_MAX, world_);
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world_);
    if (!mpi && !crs())
        MPIX_Comm_set_info(xcomm_, nullptr);
    row->algorithm = label;
    row->size = s;
    row->median = median(slowest) * 1e6;
    row->min = *std::min_element(slowest.begin(), slowest.end()) * 1e6;
    row->max = *std::max_element(slowest.begin(), slowest.end()) * 1e6;
    row->verified = !all_ok ? "FAILED" : verify ? "yes" : "skipped";
    return all_ok;
}

// neighbor_alltoallv: this size's topology, from the layout's sources and
// destinations (rank order); natively also the MPI library's distributed graph.
// Collective; 2 when it fails on any rank.
int Bench::topology(const Layout &l)
{
    free_topology();
    int rc = MPIX_Topo_init((int)l.src.size(), l.src.data(), MPI_UNWEIGHTED, (int)l.dest.size(), l.dest.data(),
                            MPI_UNWEIGHTED, xcomm_, &topo_);
#if !MPIX_SMPI
    if (rc == MPI_SUCCESS)
        rc = MPI_Dist_graph_create_adjacent(world_, (int)l.src.size(), l.src.data(), MPI_UNWEIGHTED,
                                            (int)l.dest.size(), l.dest.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                            &graph_);
#endif
    int bad = rc != MPI_SUCCESS, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, world_);
    if (any_bad && me_ == 0)
        std::fprintf(stderr, "mpix-bench: cannot create the neighbour topology\n");
    return any_bad ? 2 : 0;
}

void Bench::free_topology()
{
    if (topo_)
        MPIX_Topo_free(&topo_);
    if (graph_ != MPI_COMM_NULL)
        MPI_Comm_free(&graph_);
}

// What `auto` picks for this call (the library's own selection rule).
std::string Bench::picked(const Layout &l, long long s)
{
    (void)s;
    mpix::Hints hints = mpix::resolve_hints(xcomm_, nullptr);
    const mpix::Algorithm *a;
    if (crs()) {
        // The same statistics the library's rule agrees on (src/select/sparse_dispatch.cpp).
        const mpix::Regions *reg = nullptr;
        long long max_remote_sends = 0;
        int count = 0;
        if (hints.algorithm_for(o_.coll) == "auto" && !hints.crs_recv_nnz_known &&
            mpix::get_regions(xcomm_, hints.locality, &reg) == MPI_SUCCESS && reg) {
            count = reg->count;
            if (mpix::sparse_auto_needs_stats(count))
                mpix::agreed_max_remote_sends(l.dest.data(), l.dest.size(), reg, world_, &max_remote_sends);
        }
        a = mpix::select_sparse_algorithm(o_.coll, hints, p_, count, max_remote_sends);
    } else {
        // What the library ran in the last call (`auto`'s own pick, agreed by the
        // library; asking the rule again here would take part in its agreement).
        const char *name = xcomm_->last_algorithm[static_cast<int>(o_.coll)];
        return name ? name : "?";
    }
    return a ? a->name : "?";
}

std::vector<int> sweep_values(const std::vector<int> &given, bool radix, int p)
{
    if (given.empty())
        return {0};  // the algorithm's default
    if (given[0] != -1)
        return given;
    std::vector<int> v;
    if (radix) {
        // 2, 3, 4, 6, 8, 12, 16, ... up to P, then P itself.
        for (int b = 2; b <= p; b *= 2) {
            v.push_back(b);
            if (b + b / 2 <= p && b >= 2)
                v.push_back(b + b / 2);
        }
        if (v.empty() || v.back() != p)
            v.push_back(std::max(2, p));
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    } else {
        for (int b = 1; b <= std::max(1, p); b *= 2)
            v.push_back(b);
    }
    return v;
}

bool reads(const mpix::Algorithm *a, const char *key)
{
    std::string keys = std::string(",") + a->hint_keys + ",";
    return keys.find(std::string(",") + key + ",") != std::string::npos;
}

std::string params_text(int radix, int batch, const Options &o)
{
    std::string t;
    if (radix > 0)
        t += "radix=" + std::to_string(radix);
    if (batch > 0)
        t += std::string(t.empty() ? "" : ";") + "batch_size=" + std::to_string(batch);
    for (const auto &kv : o.hints)
        t += std::string(t.empty() ? "" : ";") + kv.first + "=" + kv.second;
    return t.empty() ? "default" : t;
}

int Bench::run()
{
    int rc = setup();
    if (rc == 0)
        rc = o_.osu ? run_osu() : run_table();
    // The exchange ran (1: some row failed verification, its bytes are still these).
    if ((rc == 0 || rc == 1) && !o_.workload_out.empty()) {
        int wrc = write_workload();
        if (wrc)
            rc = wrc;
    }
    free_topology();
    MPI_Comm_free(&world_);
    return rc;
}

// The baseline's communicator, the library's node communicators, the workload.
int Bench::setup()
{
    MPI_Comm_dup(MPI_COMM_WORLD, &world_);
    // Nodes as the library sees them (real, or emulated by --ppn).
    const mpix::Regions *regions = nullptr;
    if (mpix::get_regions(xcomm_, mpix::Locality::node, &regions) == MPI_SUCCESS && regions) {
        nodes_ = regions->count;
        lib_node_of_ = regions->region_of;  // the same on every rank
        lib_max_ppn_ = regions->max_size;
    } else {
        lib_node_of_.assign(p_, 0);
        lib_max_ppn_ = p_;
    }
    ppn_ = (p_ + nodes_ - 1) / nodes_;
    // Steady state, not first use: create the node communicators the library
    // caches, and run one collective on each (SimGrid sets a communicator up on
    // its first collective, in simulated time). Otherwise the first row that
    // needs them pays for it (measured under SMPI: 449 us instead of 72 us).
    MPI_Comm node_comm = MPI_COMM_NULL, cross_comm = MPI_COMM_NULL;
    if (mpix::get_region_comms(xcomm_, mpix::Locality::node, &node_comm, &cross_comm) == MPI_SUCCESS) {
        MPI_Barrier(node_comm);
        MPI_Barrier(cross_comm);
    }

    std::string err = w_.load(o_.dist, p_, me_);
    int bad = err.empty() ? 0 : 1, any_bad;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, world_);
    if (any_bad) {
        if (bad)
            std::fprintf(stderr, "mpix-bench: rank %d: %s\n", me_, err.c_str());
        return 2;
    }
    return 0;
}

// This rank's layout for size s, and buffers for it; 2 when any rank cannot.
int Bench::prepare(long long s, Layout *l)
{
    std::string err = layout_for(s, l);
    int bad = err.empty() ? 0 : 1, any_bad;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, world_);
    if (any_bad) {
        if (bad)
            std::fprintf(stderr, "mpix-bench: rank %d: %s\n", me_, err.c_str());
        return 2;
    }
    long long sbytes = std::max(l->sbytes, l->crs_sbytes), rbytes = std::max(l->rbytes, l->crs_rbytes);
    // Under SMPI large buffers are shared between simulated ranks (memory of
    // one process holds all P ranks); their content is then meaningless.
    int big = sbytes + rbytes > (64LL << 20) / std::max(1, p_ / 64) ? 1 : 0, any_big = 0;
    MPI_Allreduce(&big, &any_big, 1, MPI_INT, MPI_MAX, world_);
    shared_ = MPIX_SMPI && any_big;
    sbuf_.allocate((std::size_t)sbytes, shared_);
    rbuf_.allocate((std::size_t)rbytes, shared_);
    return neighbor() ? topology(*l) : 0;
}

int Bench::run_table()
{
    // Algorithms to run, in registry order; `auto` last.
    std::vector<const mpix::Algorithm *> algos;
    bool with_auto = false;
    for (const std::string &name : o_.algos) {
        if (name == "all") {
            for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(o_.coll, i); ++i)
                algos.push_back(a);
            with_auto = true;
        } else if (name == "auto") {
            with_auto = true;
        } else if (name[0] == '-') {  // all,-linear: drop one again
            if (name == "-auto")
                with_auto = false;
            algos.erase(std::remove_if(algos.begin(), algos.end(),
                                       [&](const mpix::Algorithm *a) { return name.substr(1) == a->name; }),
                        algos.end());
        } else if (const mpix::Algorithm *a = mpix::find_algorithm(o_.coll, name.c_str())) {
            algos.push_back(a);
        } else {
            if (me_ == 0)
                std::fprintf(stderr, "mpix-bench: no %s algorithm named %s (see --list)\n",
                             mpix::collective_name(o_.coll), name.c_str());
            return 2;
        }
    }

    // The baseline: the MPI collective (dense), or the `personalized` backend (crs).
    std::string base = o_.baseline;
    const mpix::Algorithm *base_algo = nullptr;
    if (crs() && base == "mpi")
        base = "personalized";
    if (base != "mpi" && base != "none") {
        base_algo = mpix::find_algorithm(o_.coll, base.c_str());
        if (!base_algo) {
            if (me_ == 0)
                std::fprintf(stderr, "mpix-bench: baseline %s is not a %s algorithm\n", base.c_str(),
                             mpix::collective_name(o_.coll));
            return 2;
        }
    }
    if (base == "mpi" && !mpi_baseline_available()) {
        if (me_ == 0)
            std::fprintf(stderr, "mpix-bench: note: no %s row: SimGrid SMPI does not implement MPI_Dist_graph_create*"
                                 " or MPI_Neighbor_* (they abort); no speedup column (--baseline NAME gives one)\n",
                         mpi_name());
        base = "none";
    }
    std::string base_label = base == "mpi" ? mpi_name() : base == "none" ? "" : "baseline:" + base;
    // --persistent: the MPI library's own persistent form beside its blocking one, where it has one.
    const bool mpi_persistent = o_.persistent && base == "mpi" && MPI_VERSION >= 4 && !MPIX_SMPI;
    auto persistent_params = [](const std::string &params) {
        return params == "default" ? std::string("persistent") : params + ";persistent";
    };

    std::vector<int> radixes = sweep_values(o_.radix, true, p_), batches = sweep_values(o_.batch, false, p_);
    // Progress total.
    int total = 0;
    for (const mpix::Algorithm *a : algos)
        total += (reads(a, "radix") ? (int)radixes.size() : 1) * (reads(a, "batch_size") ? (int)batches.size() : 1);
    total = (total + (with_auto ? 1 : 0)) * (o_.persistent ? 2 : 1) + (base_label.empty() ? 0 : 1) + mpi_persistent;
    total *= (int)o_.sizes.size();

    std::vector<Row> rows;
    bool all_ok = true;
    int done = 0;
    auto progress = [&](const std::string &what, long long s) {
        ++done;
        if (me_ == 0)
            std::fprintf(stderr, "[%d/%d] %s S=%lld\n", done, total, what.c_str(), s), std::fflush(stderr);
    };
    // Each row's result as soon as it is known: long simulations that are
    // stopped early still leave their figures in the log.
    auto measured = [&](const Row &row) {
        if (me_ == 0)
            std::fprintf(stderr, "    %s %s S=%lld: median %.2f us, verified %s\n", row.algorithm.c_str(),
                         row.params.c_str(), row.size, row.median, row.verified.c_str()),
                std::fflush(stderr);
    };
    for (long long s : o_.sizes) {
        Layout l;
        if (prepare(s, &l))
            return 2;

        SizeBound sb;
        bool have_bound = bound_for(s, &sb);
        if (have_bound)
            bounds_[s] = sb;
        std::size_t first = rows.size();
        Row base_row;
        if (!base_label.empty()) {
            progress(base_label, s);
            all_ok &= measure(base_label, base_algo ? base_algo->name : "", 0, 0, l, s, &base_row);
            base_row.params = base_algo ? "default (baseline)" : "(baseline)";
            rows.push_back(base_row);
            measured(base_row);
        }
        if (mpi_persistent) {
            Row row;
            std::string what = std::string(mpi_name()) + "_init";
            progress(what, s);
            all_ok &= measure(mpi_name(), "", 0, 0, l, s, &row, true);
            row.params = "persistent";  // MPI_*_init, MPI_Start + MPI_Wait
            rows.push_back(row);
            measured(row);
        }
        for (const mpix::Algorithm *a : algos) {
            for (int r : reads(a, "radix") ? radixes : std::vector<int>{0})
                for (int b : reads(a, "batch_size") ? batches : std::vector<int>{0}) {
                    Row row;
                    std::string params = params_text(r, b, o_);
                    progress(std::string(a->name) + " " + params, s);
                    all_ok &= measure(a->name, a->name, r, b, l, s, &row);
                    row.params = params;
                    rows.push_back(row);
                    measured(row);
                    if (!o_.persistent)
                        continue;
                    Row prow;
                    progress(std::string(a->name) + " " + persistent_params(params), s);
                    all_ok &= measure(a->name, a->name, r, b, l, s, &prow, true);
                    prow.params = persistent_params(params);
                    rows.push_back(prow);
                    measured(prow);
                }
        }
        if (with_auto) {
            Row row;
            progress("auto", s);
            all_ok &= measure("auto", "auto", 0, 0, l, s, &row);
            std::string pick = picked(l, s);
            row.params = "picked=" + pick;
            rows.push_back(row);
            measured(row);
            if (o_.persistent) {
                Row prow;
                progress("auto persistent", s);
                all_ok &= measure("auto", "auto", 0, 0, l, s, &prow, true);
                prow.params = "persistent";
                rows.push_back(prow);
                measured(prow);
            }
        }
        for (std::size_t i = first; i < rows.size(); ++i) {
            rows[i].speedup = base_label.empty() || rows[i].median <= 0 ? 0 : base_row.median / rows[i].median;
            rows[i].bound = have_bound ? sb.us() : 0;
        }
    }
    emit(rows);
    return all_ok ? 0 : 1;
}

// --format osu: the OSU micro-benchmarks' osu_alltoall / osu_alltoallv layout, one
// algorithm, rows printed as they are measured. Columns as OSU 7.x prints them:
// size left-aligned in 10, numbers right-aligned in 18 with 2 decimals,
// Iterations in 12, Validation in 18.
int Bench::run_osu()
{
    const std::string &name = o_.algos[0];
    const mpix::Algorithm *a = nullptr;
    if (name != "mpi" && name != "auto" && !(a = mpix::find_algorithm(o_.coll, name.c_str()))) {
        if (me_ == 0)
            std::fprintf(stderr, "mpix-bench: no %s algorithm named %s (see --list; or auto, mpi)\n",
                         mpix::collective_name(o_.coll), name.c_str());
        return 2;
    }
    const bool alltoall = o_.coll == Collective::alltoall;
    const char *mpi_name = alltoall ? "MPI_Alltoall" : "MPI_Alltoallv";
    int radix = a && reads(a, "radix") && !o_.radix.empty() ? o_.radix[0] : 0;
    int batch = a && reads(a, "batch_size") && !o_.batch.empty() ? o_.batch[0] : 0;
    // OSU's memory limit for its size range: a buffer of size * P bytes at most 512 MiB.
    const long long mem_limit = 512LL << 20;
    std::vector<long long> sizes;
    for (long long s : o_.sizes)
        if (!o_.osu_range || s * p_ <= mem_limit)
            sizes.push_back(s);
    if (me_ == 0 && sizes.size() < o_.sizes.size())
        std::fprintf(stderr,
                     "mpix-bench: sizes above %lld bytes left out: size x %d ranks exceeds 512 MiB per buffer"
                     " (OSU's default limit; --size lists sizes without it)\n",
                     sizes.empty() ? 0LL : sizes.back(), p_);

    if (me_ == 0) {
        std::printf("\n# OSU MPI %s Personalized Exchange Latency Test\n", alltoall ? "All-to-All" : "All-to-Allv");
        if (name == "mpi")
            std::printf("# mpix algorithm: mpi (%s itself on a duplicate of MPI_COMM_WORLD, no mpix)\n", mpi_name);
        else if (name == "auto")
            std::printf("# mpix algorithm: auto (the library's pick per size, listed below the table)%s%s\n",
                        o_.hints.empty() ? "" : "  params: ", o_.hints.empty() ? "" : params_text(0, 0, o_).c_str());
        else
            std::printf("# mpix algorithm: %s  params: %s\n", a->name, params_text(radix, batch, o_).c_str());
        std::printf("# mpix-bench --format osu: P=%d nodes=%d ppn=%d dist=%s seed=%llu%s; latency: each rank's"
                    " mean over the timed calls, averaged (min, max) over ranks\n",
                    p_, nodes_, ppn_, alltoall ? "equal" : o_.dist.c_str(), o_.seed,
                    MPIX_SMPI ? " (SimGrid SMPI)" : "");
        std::printf("# Datatype: MPI_BYTE.\n");
        std::printf("%-*s%*s", 10, "# Size", 18, "Avg Latency(us)");
        if (o_.osu_full)
            std::printf("%*s%*s%*s", 18, "Min Latency(us)", 18, "Max Latency(us)", 12, "Iterations");
        if (o_.osu_validate)
            std::printf("%*s", 18, "Validation");
        std::printf("\n");
        std::fflush(stdout);
    }
    bool all_ok = true;
    std::vector<std::pair<long long, std::string>> picks;
    for (long long s : sizes) {
        Layout l;
        if (prepare(s, &l))
            return 2;
        Row row;
        bool ok = name == "mpi" ? measure(mpi_name, "", 0, 0, l, s, &row)
                                : measure(name, name, radix, batch, l, s, &row);
        all_ok &= ok;
        if (name == "auto")
            picks.emplace_back(s, picked(l, s));
        if (me_ != 0)
            continue;
        std::printf("%-*lld%*.*f", 10, s, 18, 2, row.osu_avg);
        if (o_.osu_full)
            std::printf("%*.*f%*.*f%*d", 18, 2, row.osu_min, 18, 2, row.osu_max, 12, row.iters);
        if (o_.osu_validate)
            std::printf("%*s", 18, row.verified == "yes" ? "Pass" : row.verified == "FAILED" ? "Fail" : "Skipped");
        std::printf("\n");
        std::fflush(stdout);
        if (!ok)
            std::fprintf(stderr, "mpix-bench: %s size %lld: a wrong byte or an error code on some rank\n",
                         name.c_str(), s);
    }
    if (me_ == 0 && !picks.empty()) {
        // Runs of sizes with the same pick: "1-64 nonblocking, 128-1048576 scattered".
        std::string text;
        for (std::size_t i = 0, j; i < picks.size(); i = j) {
            for (j = i + 1; j < picks.size() && picks[j].second == picks[i].second;)
                ++j;
            text += (text.empty() ? "" : ", ") + std::to_string(picks[i].first) +
                    (j - 1 > i ? "-" + std::to_string(picks[j - 1].first) : "") + " " + picks[i].second;
        }
        std::printf("# mpix auto picked: %s\n", text.c_str());
        std::fflush(stdout);
    }
    return all_ok ? 0 : 1;
}

std::string csv_field(const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// A JSON string literal: quotes and backslashes escaped, control characters as \u00XX.
std::string json_string(const std::string &s)
{
    std::string q = "\"";
    for (char c : s) {
        if ((unsigned char)c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", (unsigned)(unsigned char)c);
            q += esc;
            continue;
        }
        if (c == '"' || c == '\\')
            q += '\\';
        q += c;
    }
    return q + "\"";
}

// --workload-out: every rank's row of bytes (what it sends to each rank in the
// exchange of the one size: the layout the run used; sparse collectives their
// messages only), gathered on rank 0 and written as JSON with the library's node of
// each rank. Collective; 2 on every rank when rank 0 cannot write the file.
int Bench::write_workload()
{
    const long long s = o_.sizes.front();
    Layout l;
    std::string err = layout_for(s, &l);  // succeeded for the run, so it does here
    std::vector<long long> row(p_, 0);
    if (err.empty()) {
        if (sparse_view()) {
            for (std::size_t i = 0; i < l.dest.size(); ++i)
                row[l.dest[i]] = l.crs_scounts[i];
        } else {
            for (int j = 0; j < p_; ++j)
                row[j] = l.scounts[j];
        }
    }
    std::vector<long long> all(me_ == 0 ? (std::size_t)p_ * p_ : 0);
    MPI_Gather(row.data(), p_, MPI_LONG_LONG, all.data(), p_, MPI_LONG_LONG, 0, world_);
    int ok = 1;
    if (me_ == 0) {
        FILE *f = std::fopen(o_.workload_out.c_str(), "w");
        if (!f) {
            std::fprintf(stderr, "mpix-bench: --workload-out: cannot write %s: %s\n", o_.workload_out.c_str(),
                         std::strerror(errno));
            ok = 0;
        } else {
            std::fprintf(f, "{\"collective\":\"%s\",\"P\":%d,\"ppn\":%d,\"nodes\":%d,\"dist\":%s,\"size\":%lld,"
                            "\"seed\":%llu,\"node_of\":[",
                         mpix::collective_name(o_.coll), p_, lib_max_ppn_, nodes_, json_string(o_.dist).c_str(), s,
                         o_.seed);
            for (int r = 0; r < p_; ++r)
                std::fprintf(f, "%s%d", r ? "," : "", lib_node_of_[r]);
            std::fprintf(f, "],\"bytes\":[");
            for (int r = 0; r < p_; ++r) {
                std::fprintf(f, "%s\n[", r ? "," : "");
                for (int j = 0; j < p_; ++j)
                    std::fprintf(f, "%s%lld", j ? "," : "", all[(std::size_t)r * p_ + j]);
                std::fprintf(f, "]");
            }
            std::fprintf(f, "\n]}\n");
            const bool bad = std::ferror(f) != 0;
            if (std::fclose(f) != 0 || bad) {
                std::fprintf(stderr, "mpix-bench: --workload-out: error writing %s: %s\n", o_.workload_out.c_str(),
                             std::strerror(errno));
                ok = 0;
            }
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, world_);
    return ok ? 0 : 2;
}

void Bench::emit(const std::vector<Row> &rows)
{
    if (me_ != 0)
        return;
    const char *coll = mpix::collective_name(o_.coll);
    std::string base = crs() && o_.baseline == "mpi" ? "the personalized backend" : o_.baseline;
    std::printf("# mpix-bench %s  P=%d  nodes=%d  ppn=%d  dist=%s  iters=%d  warmup=%d  seed=%llu%s\n", coll, p_,
                nodes_, ppn_, o_.dist.c_str(), o_.iters, o_.warmup, o_.seed, MPIX_SMPI ? "  (SimGrid SMPI)" : "");
    if (base == "mpi" && !mpi_baseline_available())
        std::printf("# no %s row: SimGrid SMPI does not implement it (no speedup column)\n", mpi_name());
    else
        std::printf("# times: microseconds, slowest rank per iteration, median/min/max over iterations;"
                    " speedup vs %s in the same run\n",
                    base == "mpi" ? mpi_name() : base.c_str());
    if (o_.persistent)
        std::printf("# params ...persistent: a persistent request made once outside the timing, each call"
                    " MPIX_Start + MPIX_Wait (MPI_Start + MPI_Wait for the MPI library's *_init)\n");
    for (const auto &kv : bounds_) {
        const mpix::sim::Bound &b = kv.second.terms;
        std::printf("# bound S=%lld: %.2f us = max(path %.2f us, busiest link %.2f us: %s); node link %.2f us\n",
                    kv.first, kv.second.us(), b.path * 1e6, b.link.seconds * 1e6, b.link.name.c_str(),
                    b.nic.seconds * 1e6);
    }
    const bool bounded = !bounds_.empty();
    std::printf("%-16s %-28s %9s %12s %12s %12s %8s %s%s\n", "algorithm", "params", "size", "median_us", "min_us",
                "max_us", "speedup", bounded ? "x_bound " : "", "verified");
    for (const Row &r : rows) {
        char xb[32] = "";
        if (bounded)
            std::snprintf(xb, sizeof xb, "%7.2f ", r.bound > 0 ? r.median / r.bound : 0.0);
        std::printf("%-16s %-28s %9lld %12.2f %12.2f %12.2f %8.2f %s%s\n", r.algorithm.c_str(), r.params.c_str(),
                    r.size, r.median, r.min, r.max, r.speedup, xb, r.verified.c_str());
    }
    std::fflush(stdout);
    if (!o_.csv.empty()) {
        bool fresh = true;
        if (FILE *f = std::fopen(o_.csv.c_str(), "r")) {
            fresh = std::fgetc(f) == EOF;
            std::fclose(f);
        }
        if (FILE *f = std::fopen(o_.csv.c_str(), "a")) {
            if (fresh)
                std::fprintf(f, "collective,algorithm,params,P,nodes,ppn,size,dist,median_us,min_us,max_us,"
                                "speedup_vs_mpi,verified,bound_us,x_bound\n");
            for (const Row &r : rows) {
                std::fprintf(f, "%s,%s,%s,%d,%d,%d,%lld,%s,%.3f,%.3f,%.3f,%.4f,%s,", coll,
                             csv_field(r.algorithm).c_str(), csv_field(r.params).c_str(), p_, nodes_, ppn_, r.size,
                             csv_field(o_.dist).c_str(), r.median, r.min, r.max, r.speedup, r.verified.c_str());
                if (r.bound > 0)
                    std::fprintf(f, "%.3f,%.3f\n", r.bound, r.median / r.bound);
                else
                    std::fprintf(f, ",\n");
            }
            std::fclose(f);
        } else {
            std::fprintf(stderr, "mpix-bench: cannot write %s\n", o_.csv.c_str());
        }
    }
    if (!o_.json.empty()) {
        if (FILE *f = std::fopen(o_.json.c_str(), "w")) {
            std::fprintf(f, "[\n");
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const Row &r = rows[i];
                std::fprintf(f,
                             "  {\"collective\": \"%s\", \"algorithm\": %s, \"params\": %s, \"P\": %d, \"nodes\": %d, "
                             "\"ppn\": %d, \"size\": %lld, \"dist\": %s, \"median_us\": %.3f, \"min_us\": %.3f, "
                             "\"max_us\": %.3f, \"speedup_vs_mpi\": %.4f, \"verified\": \"%s\", \"bound_us\": %s, "
                             "\"x_bound\": %s}%s\n",
                             coll, json_string(r.algorithm).c_str(), json_string(r.params).c_str(), p_, nodes_, ppn_,
                             r.size, json_string(o_.dist).c_str(), r.median, r.min, r.max, r.speedup,
                             r.verified.c_str(), r.bound > 0 ? std::to_string(r.bound).c_str() : "null",
                             r.bound > 0 ? std::to_string(r.median / r.bound).c_str() : "null",
                             i + 1 < rows.size() ? "," : "");
            }
            std::fprintf(f, "]\n");
            std::fclose(f);
        } else {
            std::fprintf(stderr, "mpix-bench: cannot write %s\n", o_.json.c_str());
        }
    }
}

void list_registry()
{
    for (int c = 0; c < mpix::kCollectives; ++c) {
        Collective coll = (Collective)c;
        std::printf("%s:\n", mpix::collective_name(coll));
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
            std::printf("  %-16s hints: %-28s %s\n", a->name, *a->hint_keys ? a->hint_keys : "-", a->summary);
    }
}

// --auto-map: what `auto` picks for MPIX_Alltoall and MPIX_Alltoallv over the grid
// P x bytes for each ppn (nodes = ceil(P/ppn)), from the registry's own rule
// functions (select/registry.hpp), so the map cannot drift from the library.
void print_auto_map(const Options &o)
{
    const Collective colls[] = {Collective::alltoall, Collective::alltoallv};
    std::printf("{\"rule\":\"auto\",\"collectives\":{");
    for (int c = 0; c < 2; ++c) {
        const Collective coll = colls[c];
        auto rule = [&](long long p, long long ppn, long long bytes) {
            const int nodes = (int)((p + ppn - 1) / ppn);
            return coll == Collective::alltoall
                       ? mpix::auto_alltoall_rule((int)p, nodes, (std::size_t)bytes)
                       : mpix::auto_alltoallv_rule((int)p, nodes, (unsigned long long)bytes);
        };
        std::set<const mpix::Algorithm *> seen;
        for (long long ppn : o.map_ppn)
            for (long long p : o.map_ranks)
                for (long long b : o.map_sizes)
                    seen.insert(rule(p, ppn, b));
        std::printf("%s\n\"%s\":{\"algorithms\":[", c ? "," : "", mpix::collective_name(coll));
        bool first = true;  // in registry order
        for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
            if (seen.count(a)) {
                std::printf("%s\"%s\"", first ? "" : ",", a->name);
                first = false;
            }
        std::printf("],\"ppn\":{");
        for (std::size_t k = 0; k < o.map_ppn.size(); ++k) {
            const long long ppn = o.map_ppn[k];
            std::printf("%s\n\"%lld\":{\"P\":[", k ? "," : "", ppn);
            for (std::size_t i = 0; i < o.map_ranks.size(); ++i)
                std::printf("%s%lld", i ? "," : "", o.map_ranks[i]);
            std::printf("],\"bytes\":[");
            for (std::size_t j = 0; j < o.map_sizes.size(); ++j)
                std::printf("%s%lld", j ? "," : "", o.map_sizes[j]);
            std::printf("],\"pick\":[");
            for (std::size_t i = 0; i < o.map_ranks.size(); ++i) {
                std::printf("%s\n[", i ? "," : "");
                for (std::size_t j = 0; j < o.map_sizes.size(); ++j)
                    std::printf("%s\"%s\"", j ? "," : "", rule(o.map_ranks[i], ppn, o.map_sizes[j])->name);
                std::printf("]");
            }
            std::printf("]}");
        }
        std::printf("}}");
    }
    std::printf("},\n\"note\":\"alltoallv: bytes = the agreed largest per-rank mean block\"}\n");
    std::fflush(stdout);
}

#if !MPIX_SMPI
// Cores the ranks of this host may run on: the union of their affinity masks
// (hardware_concurrency where the mask cannot be read).
int host_cores(MPI_Comm host)
{
    int have = 1, all_have = 0;
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    have = sched_getaffinity(0, sizeof set, &set) == 0 ? 1 : 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, host);
    if (all_have) {
        const int words = (int)(sizeof set / sizeof(unsigned long));
        std::vector<unsigned long> mine(words), any(words);
        std::memcpy(mine.data(), &set, sizeof set);
        MPI_Allreduce(mine.data(), any.data(), words, MPI_UNSIGNED_LONG, MPI_BOR, host);
        std::memcpy(&set, any.data(), sizeof set);
        return CPU_COUNT(&set);
    }
#else
    (void)have;
    (void)all_have;
    (void)host;
#endif
    return (int)std::max(1u, std::thread::hardware_concurrency());
}

// More ranks than cores on a host: a rank waits for the scheduler's tick, and
// native times measure that, not the network. Rank 0 says so once on stderr.
void warn_oversubscribed(int me)
{
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    int mine[3] = {0, 0, 0};  // host leader, its ranks, its cores
    int host_rank;
    MPI_Comm_rank(host, &host_rank);
    MPI_Comm_size(host, &mine[1]);
    mine[2] = host_cores(host);
    mine[0] = host_rank == 0;
    MPI_Comm_free(&host);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    std::vector<int> all(me == 0 ? 3 * (std::size_t)p : 0);
    MPI_Gather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, 0, MPI_COMM_WORLD);
    if (me != 0)
        return;
    int hosts = 0, crowded = 0, worst = -1;
    for (int r = 0; r < p; ++r) {
        const int *h = &all[3 * (std::size_t)r];
        if (!h[0])
            continue;
        ++hosts;
        if (h[1] <= h[2])
            continue;
        ++crowded;
        if (worst < 0 || (double)h[1] / h[2] > (double)all[3 * worst + 1] / all[3 * worst + 2])
            worst = r;
    }
    if (worst < 0)
        return;
    const char *tail = "native timings measure the scheduler, not the network";
    if (hosts == 1)
        std::fprintf(stderr, "mpix-bench: warning: %d ranks share %d %s on this host; %s\n", all[3 * worst + 1],
                     all[3 * worst + 2], all[3 * worst + 2] == 1 ? "core" : "cores", tail);
    else
        std::fprintf(stderr, "mpix-bench: warning: %d ranks share %d %s on a host (%d of %d hosts have more ranks"
                     " than cores); %s\n", all[3 * worst + 1], all[3 * worst + 2],
                     all[3 * worst + 2] == 1 ? "core" : "cores", crowded, hosts, tail);
    std::fflush(stderr);
}
#endif

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    Options o;
    std::string err = parse(argc, argv, &o);
    if (!err.empty() || o.list || o.auto_map) {
        if (me == 0) {
            if (err == "help")
                std::fputs(kUsage, stdout);
            else if (!err.empty())
                std::fprintf(stderr, "mpix-bench: %s\n%s", err.c_str(), kUsage);
            else if (o.auto_map)
                print_auto_map(o);
            else
                list_registry();
        }
        MPI_Finalize();
        return err.empty() || err == "help" ? 0 : 2;
    }
    MPIX_Comm *xcomm;
    if (MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) {
        std::fprintf(stderr, "mpix-bench: MPIX_Comm_init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#if !MPIX_SMPI
    warn_oversubscribed(me);  // SimGrid's time does not depend on the host's cores
#endif
    if (o.ppn > 0)
        MPIX_Comm_update_locality(xcomm, o.ppn);
    int rc;
    {
        Bench bench(o, xcomm, p, me);
        rc = bench.run();
    }
    MPIX_Comm_free(&xcomm);
    MPI_Finalize();
    return rc;
}
