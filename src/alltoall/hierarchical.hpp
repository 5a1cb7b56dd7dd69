// Leader-based uniform all-to-all: hierarchical (one leader per node gathers,
// exchanges and scatters), multileader (several leaders per node, each for a
// group, exchanging with every other leader) and multileader_locality (the
// leaders of a node aggregate again, node-aware, before crossing nodes).
#ifndef MPIX_ALLTOALL_HIERARCHICAL_HPP
#define MPIX_ALLTOALL_HIERARCHICAL_HPP

#include "core/exchange.hpp"

namespace mpix {

int hierarchical(const Exchange &x);
int multileader(const Exchange &x);
int multileader_locality(const Exchange &x);

}  // namespace mpix

#endif
