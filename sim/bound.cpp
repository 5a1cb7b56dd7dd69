#include "bound.hpp"

#include <algorithm>
#include <cmath>

namespace mpix {
namespace sim {

double path_time(long long local, long long remote, double lat_in, double lat_out, const OverheadModel &m)
{
    if (local <= 0 && remote <= 0)
        return 0;
    const long long o_recv = std::llround(m.recv * 1e9), o = std::llround((m.send + m.recv) * 1e9);
    const long long l_in = std::llround(lat_in * 1e9), l_out = std::llround(lat_out * 1e9);
    if (o_recv == 0) {  // receives cost nothing: any number can land at once, one hop suffices
        long long t = 0;
        if (local > 0)
            t = std::max(t, o + l_in);
        if (remote > 0)
            t = std::max(t, o + l_out);
        return static_cast<double>(t) * 1e-9;
    }
    const double need_all = 1.0 + static_cast<double>(local) + static_cast<double>(remote);
    const double need_remote = static_cast<double>(remote), cap = 2 * need_all;
    std::vector<double> C, R;
    // Before a step k < 0 the receiver knows itself; a sender cannot have started.
    auto own_c = [&](long long k) { return k < 0 ? 1.0 : C[k]; };
    auto own_r = [&](long long k) { return k < 0 ? 0.0 : R[k]; };
    auto sender_c = [&](long long k) { return k < 0 ? 0.0 : C[k]; };
    auto sender_r = [&](long long k) { return k < 0 ? 0.0 : R[k]; };
    for (long long t = 0; t < 1000000000LL; ++t) {
        double c = std::min(cap, own_c(t - o_recv) + sender_c(t - o - l_in));
        double r = std::min(cap, own_r(t - o_recv) + std::max(sender_r(t - o - l_in), sender_c(t - o - l_out)));
        if (c < 1)
            c = 1;
        C.push_back(c);
        R.push_back(r);
        if (c >= need_all && r >= need_remote)
            return static_cast<double>(t) * 1e-9;
    }
    return 1.0;  // not reached for any real model (one second)
}

void link_terms(const Network &net, const std::vector<double> &pair_bytes, LinkLoad *busiest, LinkLoad *nic)
{
    const std::size_t nlinks = net.link_name.size();
    std::vector<double> load(nlinks, 0);
    std::vector<bool> node_link(nlinks, false);
    for (int u = 0; u < net.nodes; ++u)
        for (int v = 0; v < net.nodes; ++v) {
            const std::size_t k = static_cast<std::size_t>(u) * net.nodes + v;
            if (u == v || pair_bytes[k] <= 0)
                continue;
            const std::vector<int> &links = net.route[k];
            for (int l : links)
                load[l] += pair_bytes[k];
            if (!links.empty()) {
                node_link[links.front()] = true;
                node_link[links.back()] = true;
            }
        }
    *busiest = LinkLoad();
    *nic = LinkLoad();
    for (std::size_t l = 0; l < nlinks; ++l) {
        if (!net.link_shared[l] || net.link_bandwidth[l] <= 0)
            continue;
        LinkLoad here{net.link_name[l], load[l], load[l] / net.link_bandwidth[l]};
        if (here.seconds > busiest->seconds)
            *busiest = here;
        if (node_link[l] && here.seconds > nic->seconds)
            *nic = here;
    }
}

void min_latencies(const Network &net, double *lat_in, double *lat_out)
{
    *lat_in = 1e9;
    *lat_out = 1e9;
    for (int u = 0; u < net.nodes; ++u)
        for (int v = 0; v < net.nodes; ++v) {
            double l = net.latency[static_cast<std::size_t>(u) * net.nodes + v];
            if (u == v)
                *lat_in = std::min(*lat_in, l);
            else
                *lat_out = std::min(*lat_out, l);
        }
    if (*lat_out > 1e8)
        *lat_out = *lat_in;
}

}  // namespace sim
}  // namespace mpix
