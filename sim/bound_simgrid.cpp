#include "bound_simgrid.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

namespace mpix {
namespace sim {

Network network_of(const std::vector<simgrid::s4u::Host *> &nodes)
{
    Network net;
    net.nodes = static_cast<int>(nodes.size());
    net.route.assign(static_cast<std::size_t>(net.nodes) * net.nodes, {});
    net.latency.assign(static_cast<std::size_t>(net.nodes) * net.nodes, 0);
    std::map<const simgrid::s4u::Link *, int> index;
    std::vector<simgrid::s4u::Link *> links;
    for (int u = 0; u < net.nodes; ++u)
        for (int v = 0; v < net.nodes; ++v) {
            links.clear();
            double lat = 0;
            nodes[u]->route_to(nodes[v], links, &lat);
            const std::size_t k = static_cast<std::size_t>(u) * net.nodes + v;
            net.latency[k] = lat;
            for (simgrid::s4u::Link *l : links) {
                auto it = index.find(l);
                if (it == index.end()) {
                    it = index.emplace(l, static_cast<int>(net.link_name.size())).first;
                    net.link_name.push_back(l->get_name());
                    net.link_bandwidth.push_back(l->get_bandwidth());
                    net.link_shared.push_back(l->get_sharing_policy() != simgrid::s4u::Link::SharingPolicy::FATPIPE);
                }
                net.route[k].push_back(it->second);
            }
        }
    return net;
}

namespace {

// "thresh:const:per_byte[;...]": the constant of the segment starting at 0.
double first_constant(const std::string &spec)
{
    std::size_t a = spec.find(':');
    if (a == std::string::npos)
        return 0;
    return std::strtod(spec.c_str() + a + 1, nullptr);
}

}  // namespace

OverheadModel smpi_overhead_model()
{
    OverheadModel m;
    double os = first_constant(simgrid::config::get_value<std::string>("smpi/os"));
    double ois = first_constant(simgrid::config::get_value<std::string>("smpi/ois"));
    m.send = std::min(os, ois);
    m.recv = first_constant(simgrid::config::get_value<std::string>("smpi/or"));
    return m;
}

}  // namespace sim
}  // namespace mpix
