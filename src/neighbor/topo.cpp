// The MPIX_Topo object and the point-to-point helpers every backend shares.
#include <cstdint>
#include <utility>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "neighbor/neighbor.hpp"

MPIX_Topo::MPIX_Topo(MPIX_Comm *xcomm_, std::vector<int> sources_, std::vector<int> destinations_)
    : xcomm(xcomm_), sources(std::move(sources_)), destinations(std::move(destinations_))
{
    ++xcomm->live_objects;
}

MPIX_Topo::~MPIX_Topo() { --xcomm->live_objects; }

namespace mpix {

int start_in_order(std::vector<MPI_Request> &requests)
{
    for (MPI_Request &r : requests)
        MPIX_CHECK(MPI_Start(&r));
    return MPI_SUCCESS;
}



}  // namespace mpix
