// PLACEHOLDER until the ParLogNa branch lands: not registered, delegates to the
// spread-out exchange so ParLinNa can be developed in parallel.
#include "alltoallv/parlogna.hpp"

#include "alltoallv/direct.hpp"

namespace mpix {

int parlogna(const Exchange &x) { return direct_nonblocking(x); }

}  // namespace mpix
