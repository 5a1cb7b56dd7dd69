// `standard`: direct point-to-point, a persistent receive per source and a
// persistent send per destination, all posted at start. Traced as round 0: a
// send row per destination, a receive row per source.
#include <climits>
#include <cstdint>

#include "core/error.hpp"
#include "core/p2p.hpp"
#include "neighbor/neighbor.hpp"
#include "topo/topology.hpp"

namespace mpix {

namespace {

class StandardPlan : public NeighborPlan {
public:
    ~StandardPlan() override { free_requests(requests_); }

    int build(const NeighborExchange &x)
    {
        const auto &sources = x.topo->sources;
        const auto &destinations = x.topo->destinations;
        const Regions *nodes = nullptr;
        MPIX_CHECK(get_regions(x.xcomm, Locality::node, &nodes));
        const long long size = static_cast<long long>(nodes->region_of.size());  // P
        requests_.reserve(sources.size() + destinations.size());
        posted_.reserve(requests_.capacity());
        // Receives first: a rank's sends to itself then find theirs posted.
        for (std::size_t j = 0; j < sources.size(); ++j) {
            if (x.recvbytes[j] > INT_MAX)
                return MPI_ERR_COUNT;
            requests_.push_back(MPI_REQUEST_NULL);
            posted_.push_back(x.recvbytes[j]);
            MPIX_CHECK(MPI_Recv_init(x.recvbuf + x.rdispls[j], static_cast<int>(x.recvbytes[j]), MPI_BYTE, sources[j],
                                     x.tag, x.comm, &requests_.back()));
            if (x.traced && sources[j] != x.rank)
                trace_rows.push_back(NeighborTraceRow{0, -1, sources[j], {sources[j] * size + x.rank}, 0,
                                                      x.recvbytes[j]});
        }
        for (std::size_t i = 0; i < destinations.size(); ++i) {
            if (x.sendbytes[i] > INT_MAX)
                return MPI_ERR_COUNT;
            requests_.push_back(MPI_REQUEST_NULL);
            posted_.push_back(kNotChecked);
            MPIX_CHECK(MPI_Send_init(x.sendbuf + x.sdispls[i], static_cast<int>(x.sendbytes[i]), MPI_BYTE,
                                     destinations[i], x.tag, x.comm, &requests_.back()));
            if (nodes->region_of[destinations[i]] != nodes->my_region)
                internode_bytes += x.sendbytes[i];
            if (x.traced && destinations[i] != x.rank)
                trace_rows.push_back(NeighborTraceRow{0, destinations[i], -1, {x.rank * size + destinations[i]},
                                                      x.sendbytes[i], 0});
        }
        return MPI_SUCCESS;
    }

    int start() override
    {
        mismatch = MPI_SUCCESS;
        return start_in_order(requests_);
    }
    int test(bool *done) override { return complete_requests(requests_, posted_.data(), false, done, &mismatch); }
    int wait() override
    {
        bool done = false;
        return complete_requests(requests_, posted_.data(), true, &done, &mismatch);
    }

private:
    std::vector<MPI_Request> requests_;
    std::vector<std::size_t> posted_;  // receive length per request; kNotChecked for sends
};

}  // namespace

int neighbor_standard_plan(const NeighborExchange &x, std::unique_ptr<NeighborPlan> *plan)
{
    std::unique_ptr<StandardPlan> p(new StandardPlan());
    MPIX_CHECK(p->build(x));
    *plan = std::move(p);
    return MPI_SUCCESS;
}

}  // namespace mpix
