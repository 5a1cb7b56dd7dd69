// The bound's arithmetic (sim/bound.cpp), without SimGrid: the gather-tree path
// term at hand-computed points and at issue 13's figure, and the link terms on a
// small network whose loads are counted here.
#include <cmath>
#include <string>
#include <vector>

#include "bound.hpp"
#include "harness.hpp"

namespace {

using mpix::sim::OverheadModel;
using mpix::sim::path_time;

bool near(double a, double b) { return std::fabs(a - b) < 1e-12; }

void test_path_time()
{
    const OverheadModel m;  // 1 us per message on each side
    const double lin = 0.2e-6, lout = 0.5e-6;
    struct Case {
        long long local, remote;
        double lat_in, lat_out, want;
    };
    const Case cases[] = {
        {0, 0, lin, lout, 0.0},          // nothing to receive
        {1, 0, lin, lout, 2.2e-6},       // one message: o_s + L_in + o_r
        {0, 1, lin, lout, 2.5e-6},       // ... from another node: L_out
        {2, 0, lin, lout, 3.2e-6},       // a second receive one o_r later
        {0, 1023, lout, lout, 18.0e-6},  // issue 13: F(T) = F(T-1) + F(T-2.5) reaches 1024 at 18 us
    };
    for (const Case &c : cases) {
        double got = path_time(c.local, c.remote, c.lat_in, c.lat_out, m);
        MPIX_EXPECT(near(got, c.want), "path_time(" + std::to_string(c.local) + ", " + std::to_string(c.remote) +
                                           ") = " + std::to_string(got * 1e6) + " us, want " +
                                           std::to_string(c.want * 1e6));
    }
    // More sources never take less time; remote ones never less than local ones.
    double last = 0;
    for (long long k = 1; k <= 300; k += 7) {
        double t = path_time(k, 0, lin, lout, m);
        MPIX_EXPECT(t >= last, "path_time not monotone at " + std::to_string(k));
        MPIX_EXPECT(path_time(0, k, lin, lout, m) >= t, "remote sources faster than local ones");
        last = t;
    }
    // Free receives: one hop is enough, whatever the count.
    OverheadModel free_recv;
    free_recv.recv = 0;
    MPIX_EXPECT(near(path_time(5, 1000, lin, lout, free_recv), 1e-6 + lout), "free receives: one hop");
    MPIX_CHECK_ALL("path term");
}

void test_link_terms()
{
    // Three nodes: node i's NIC up (link 2i) and down (2i+1); 0 <-> 1 and 0 <-> 2
    // through a shared switch link 6 (half the bandwidth); 1 <-> 2 direct.
    mpix::sim::Network net;
    net.nodes = 3;
    for (int l = 0; l < 8; ++l) {
        net.link_name.push_back("l" + std::to_string(l));
        net.link_bandwidth.push_back(l == 6 ? 5.0 : 10.0);
        net.link_shared.push_back(l != 7);  // link 7: a FATPIPE, never the bound
    }
    net.route.assign(9, {});
    net.latency.assign(9, 1e-6);
    auto set = [&](int u, int v, std::vector<int> links) { net.route[u * 3 + v] = links; };
    set(0, 1, {0, 6, 3});
    set(0, 2, {0, 6, 5});
    set(1, 0, {2, 6, 1});
    set(2, 0, {4, 6, 1});
    set(1, 2, {2, 7, 5});
    set(2, 1, {4, 7, 3});
    // bytes u -> v
    std::vector<double> bytes = {0, 10, 20, 30, 0, 40, 50, 60, 0};
    mpix::sim::LinkLoad busiest, nic;
    mpix::sim::link_terms(net, bytes, &busiest, &nic);
    // Link 6 carries 10 + 20 + 30 + 50 = 110 bytes at 5 B/s: 22 s. NICs: link 5
    // (down into 2) carries 20 + 40 = 60 bytes, link 4 (up from 2) 50 + 60 = 110: 11 s.
    MPIX_EXPECT(busiest.name == "l6" && near(busiest.bytes, 110) && near(busiest.seconds, 22),
                "busiest link " + busiest.name + " " + std::to_string(busiest.seconds) + " s");
    MPIX_EXPECT(nic.name == "l4" && near(nic.seconds, 11), "busiest node link " + nic.name);
    double lat_in = 0, lat_out = 0;
    net.latency[4] = 0.2e-6;  // node 1 to itself
    mpix::sim::min_latencies(net, &lat_in, &lat_out);
    MPIX_EXPECT(near(lat_in, 0.2e-6) && near(lat_out, 1e-6), "latencies");
    MPIX_CHECK_ALL("link terms");
}

const mpixtest::TestCase kTests[] = {
    {"bound: gather-tree path term", test_path_time},
    {"bound: busiest link and node link from routes", test_link_terms},
};

}  // namespace

int main(int argc, char **argv)
{
    return mpixtest::run_suite(argc, argv, "bound", kTests, sizeof(kTests) / sizeof(kTests[0]));
}
