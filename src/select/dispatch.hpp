// Running one alltoall(v) call: selection, tracing, error reporting.
#ifndef MPIX_SELECT_DISPATCH_HPP
#define MPIX_SELECT_DISPATCH_HPP

#include "core/blocks.hpp"
#include "core/exchange.hpp"

namespace mpix {

// Validates the user's counts/types of one side: MPI_SUCCESS or an error class,
// with `why` naming the problem.
int check_user_side(const UserSide &side, int size, bool counts_needed, const char **why);

// Turns two user sides into byte blocks, runs the selected algorithm, unpacks.
int run_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, const UserSide &send, const UserSide &recv,
                 bool in_place);

}  // namespace mpix

#endif
