// sim/bound: the lower bound of one exchange on a platform of sim/platforms,
// under sim/run's model, for mpix-bench's workloads (sim/README.md, "The bound
// of an exchange"). mpix-bench prints the same figure beside every simulated row.
//
//   sim/bound PLATFORM NP [--coll alltoall|alltoallv] [--dist D] [--size S[,S...]]
//             [--seed N] [--o SECONDS]
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bound.hpp"
#include "bound_simgrid.hpp"
#include "workload.hpp"

namespace {

const char *const kUsage =
    "usage: sim/bound PLATFORM NP [--coll alltoall|alltoallv] [--dist D] [--size S[,S...]]\n"
    "                 [--seed N] [--o SECONDS]\n"
    "  PLATFORM  a name in sim/platforms or a path to a platform .xml (with its .hosts)\n"
    "  NP        ranks, placed as sim/run places them (rank r on line r of the .hosts file)\n"
    "  --coll    alltoall: S bytes per block; alltoallv (default): --dist bytes\n"
    "  --dist    uniform (default), equal, normal, powerlaw, fft1, fft2, matrix:PATH, traffic:PATH\n"
    "            (mpix-bench's workloads, same formulas and seed)\n"
    "  --size    block size scale(s) S (default 16)\n"
    "  --o       seconds per message on each side (default: $SIM_O or 1e-6, as sim/run)\n";

std::vector<std::string> split_commas(const std::string &s)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= s.size()) {
        std::size_t comma = s.find(',', at);
        if (comma == std::string::npos)
            comma = s.size();
        if (comma > at)
            out.push_back(s.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

int usage(const char *why)
{
    if (why)
        std::fprintf(stderr, "sim/bound: %s\n", why);
    std::fputs(kUsage, why ? stderr : stdout);
    return why ? 2 : 0;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc >= 2 && (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")))
        return usage(nullptr);
    if (argc < 3)
        return usage("PLATFORM and NP are required");
    std::string platform = argv[1];
    int np = std::atoi(argv[2]);
    if (np < 1)
        return usage("NP must be a positive integer");
    std::string coll = "alltoallv", dist = "uniform";
    std::vector<long long> sizes;
    unsigned long long seed = 1;
    mpix::sim::OverheadModel model;
    if (const char *o = std::getenv("SIM_O"))
        model.send = model.recv = std::atof(o);
    for (int i = 3; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc)
            return usage(("option " + a + " needs a value").c_str());
        std::string v = argv[++i];
        if (a == "--coll" && (v == "alltoall" || v == "alltoallv"))
            coll = v;
        else if (a == "--dist")
            dist = v;
        else if (a == "--size")
            for (const std::string &t : split_commas(v))
                sizes.push_back(std::atoll(t.c_str()));
        else if (a == "--seed")
            seed = std::strtoull(v.c_str(), nullptr, 10);
        else if (a == "--o")
            model.send = model.recv = std::atof(v.c_str());
        else
            return usage(("unknown option or value: " + a + " " + v).c_str());
    }
    if (sizes.empty())
        sizes.push_back(16);

    std::string xml = platform;
    const bool ends_xml = xml.size() >= 4 && xml.compare(xml.size() - 4, 4, ".xml") == 0;
    if (xml.find('/') == std::string::npos && !ends_xml)
        xml = std::string(MPIX_SIM_PLATFORMS) + "/" + platform + ".xml";
    if (xml.size() < 4 || xml.compare(xml.size() - 4, 4, ".xml") != 0)
        return usage(("a platform file must end in .xml: " + xml).c_str());
    std::string hosts_file = xml.substr(0, xml.size() - 4) + ".hosts";
    std::ifstream hf(hosts_file);
    if (!std::ifstream(xml) || !hf)
        return usage(("no platform " + xml + " with " + hosts_file).c_str());
    std::vector<std::string> host_of_rank;
    for (std::string line; (int)host_of_rank.size() < np && std::getline(hf, line);)
        if (!line.empty())
            host_of_rank.push_back(line);
    if ((int)host_of_rank.size() < np)
        return usage(("NP exceeds the lines of " + hosts_file).c_str());

    int sg_argc = 2;
    char arg0[] = "sim/bound", arg1[] = "--log=root.thres:critical";
    char *sg_argv[] = {arg0, arg1, nullptr};
    simgrid::s4u::Engine engine(&sg_argc, sg_argv);
    engine.load_platform(xml);
    std::map<std::string, int> node_index;
    std::vector<simgrid::s4u::Host *> nodes;
    std::vector<int> node_of(np);
    for (int r = 0; r < np; ++r) {
        auto it = node_index.find(host_of_rank[r]);
        if (it == node_index.end()) {
            simgrid::s4u::Host *h = engine.host_by_name_or_null(host_of_rank[r]);
            if (!h)
                return usage(("host " + host_of_rank[r] + " is not in " + xml).c_str());
            it = node_index.emplace(host_of_rank[r], (int)nodes.size()).first;
            nodes.push_back(h);
        }
        node_of[r] = it->second;
    }
    const int N = (int)nodes.size();
    mpix::sim::Network net = mpix::sim::network_of(nodes);
    double lat_in, lat_out;
    mpix::sim::min_latencies(net, &lat_in, &lat_out);

    std::printf("# sim/bound %s P=%d (%d nodes) %s %s seed=%llu; %g s per message on each side; latency >= %.2f us "
                "in a node, >= %.2f us between nodes\n",
                platform.c_str(), np, N, coll.c_str(), coll == "alltoall" ? "(S per block)" : dist.c_str(), seed,
                model.send, lat_in * 1e6, lat_out * 1e6);
    std::printf("%10s %10s %10s %10s %12s  %s\n", "size", "bound_us", "path_us", "link_us", "node_link_us",
                "busiest link");
    const bool table = dist.rfind("matrix:", 0) == 0 || dist.rfind("traffic:", 0) == 0;
    mpixbench::Workload w;
    if (coll == "alltoallv" && !table) {
        std::string err = w.load(dist, np, 0);
        if (!err.empty())
            return usage(err.c_str());
    }
    for (long long s : sizes) {
        std::vector<double> pair((std::size_t)N * N, 0);
        std::map<std::pair<long long, long long>, double> memo;
        double path = 0;
        for (int d = 0; d < np; ++d) {
            if (coll == "alltoallv" && table) {
                std::string err = w.load(dist, np, d);  // row and column of rank d
                if (!err.empty())
                    return usage(err.c_str());
            }
            long long local = 0, remote = 0;
            for (int src = 0; src < np; ++src) {
                if (src == d)
                    continue;
                double in = coll == "alltoall" ? (double)s : (double)w.bytes(src, d, s, seed, d);
                double out = coll == "alltoall" ? (double)s : (double)w.bytes(d, src, s, seed, d);
                pair[(std::size_t)node_of[d] * N + node_of[src]] += out;
                if (in > 0)
                    ++(node_of[src] == node_of[d] ? local : remote);
            }
            auto it = memo.find({local, remote});
            if (it == memo.end())
                it = memo.emplace(std::make_pair(local, remote),
                                  mpix::sim::path_time(local, remote, lat_in, lat_out, model)).first;
            path = std::max(path, it->second);
        }
        mpix::sim::Bound b;
        b.path = path;
        mpix::sim::link_terms(net, pair, &b.link, &b.nic);
        std::printf("%10lld %10.2f %10.2f %10.2f %12.2f  %s\n", s, b.seconds() * 1e6, b.path * 1e6,
                    b.link.seconds * 1e6, b.nic.seconds * 1e6, b.link.name.c_str());
    }
    return 0;
}
