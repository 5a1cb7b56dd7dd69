// The lower bound of one all-to-all exchange on a simulated platform, under
// sim/run's model (sim/README.md, "The bound of an exchange"):
//  - link term: every byte from node u to node v crosses the links of the
//    platform's route u -> v once; the busiest link's bytes over its bandwidth
//    (FATPIPE links, the intra-node loopback, limit single flows only and are
//    left out). The node links (NICs) are reported apart: their term holds for
//    any algorithm, relayed or not.
//  - path term: each message costs its sender `send` and its receiver `recv`
//    seconds of CPU, one at a time, plus the route's latency; a rank needing the
//    data of k other ranks cannot hold it sooner than the gather-tree recurrence
//    allows (path_time). The bound is the larger term for the worst rank.
// Pure arithmetic on routes: bound_simgrid.hpp reads them from a platform.
#ifndef MPIX_SIM_BOUND_HPP
#define MPIX_SIM_BOUND_HPP

#include <string>
#include <vector>

namespace mpix {
namespace sim {

// Seconds of CPU per message on each side (sim/run: SIM_O for os, ois and or).
struct OverheadModel {
    double send = 1e-6;
    double recv = 1e-6;
};

// The earliest time a rank can hold the data of `local` other ranks of its node
// and `remote` ranks of other nodes, when intra-node messages take at least
// `lat_in` and inter-node ones at least `lat_out` seconds. With o = send + recv,
// C(t) (sources any rank can know by t, itself included) and R(t) (sources of
// other nodes) obey
//   C(t) <= C(t - recv) + C(t - o - lat_in)
//   R(t) <= R(t - recv) + max(R(t - o - lat_in), C(t - o - lat_out))
// (the last message received by t started at its sender o + latency earlier and
// carried at most what the sender knew then; a sender on another node may know
// only ranks remote to this one), with C = 1 and R = 0 before any message can
// arrive. The answer is the first t with C(t) >= 1 + local + remote and
// R(t) >= remote, on a 1 ns grid.
double path_time(long long local, long long remote, double lat_in, double lat_out, const OverheadModel &m);

// A platform's nodes as the bound sees them: for every ordered pair of nodes
// (u, v), u != v, the links of the route and its latency; per link its name,
// bandwidth (bytes/s) and whether it is shared (FATPIPE links are not).
struct Network {
    int nodes = 0;
    std::vector<std::string> link_name;
    std::vector<double> link_bandwidth;
    std::vector<bool> link_shared;
    std::vector<std::vector<int>> route;  // [u * nodes + v]: link indices
    std::vector<double> latency;          // [u * nodes + v]; [u * nodes + u]: intra-node
};

struct LinkLoad {
    std::string name;
    double bytes = 0;
    double seconds = 0;  // bytes / bandwidth
};

struct Bound {
    double path = 0;   // seconds: the worst rank's path_time
    LinkLoad link;     // the busiest shared link on the routes
    LinkLoad nic;      // the busiest first or last link of a route (a node's own links)
    double seconds() const { return path > link.seconds ? path : link.seconds; }
};

// The link terms for node-pair bytes pair_bytes[u * nodes + v] (diagonal ignored).
void link_terms(const Network &net, const std::vector<double> &pair_bytes, LinkLoad *busiest, LinkLoad *nic);

// Smallest intra-node and inter-node latency of the network.
void min_latencies(const Network &net, double *lat_in, double *lat_out);

}  // namespace sim
}  // namespace mpix

#endif
