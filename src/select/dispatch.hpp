// Running one alltoall(v) call: checks, selection, tracing, error reporting.
#ifndef MPIX_SELECT_DISPATCH_HPP
#define MPIX_SELECT_DISPATCH_HPP

#include "core/blocks.hpp"
#include "core/exchange.hpp"

namespace mpix {

// One MPIX_Alltoall(v)(_c) call from the caller's two sides (types not yet
// described; run_exchange fills in their `info`): validates them, selects the
// algorithm, and runs it, either as the
// MPI library's own collective on the caller's arguments (pmpi) or on byte-block
// views. Returns MPI_SUCCESS or the error raised on the user's communicator.
int run_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place);

}  // namespace mpix

#endif
