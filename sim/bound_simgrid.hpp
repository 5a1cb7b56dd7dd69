// Reading the bound's Network from a SimGrid platform (s4u routes), and the
// overhead model from SMPI's configuration. Needs SimGrid; the arithmetic
// itself (bound.hpp) does not.
#ifndef MPIX_SIM_BOUND_SIMGRID_HPP
#define MPIX_SIM_BOUND_SIMGRID_HPP

#include <vector>

#include "bound.hpp"

namespace simgrid {
namespace s4u {
class Host;
}
}  // namespace simgrid

namespace mpix {
namespace sim {

// The routes between `nodes` (and each node's route to itself) as the platform has them.
Network network_of(const std::vector<simgrid::s4u::Host *> &nodes);

// Inside an SMPI program: send = min(smpi/os, smpi/ois), recv = smpi/or (the
// constant of their first segment; sim/run sets one segment "0:SEC:0").
OverheadModel smpi_overhead_model();

}  // namespace sim
}  // namespace mpix

#endif
