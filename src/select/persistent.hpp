// Persistent MPIX_Alltoall(v): what MPIX_Alltoall(v)_init prepares once.
#ifndef MPIX_SELECT_PERSISTENT_HPP
#define MPIX_SELECT_PERSISTENT_HPP

#include "core/blocks.hpp"
#include "core/hints.hpp"

struct MPIX_Comm;
struct MPIX_Info;
struct MPIX_Request;

namespace mpix {

// Collective: the checks of a blocking call, the selection (per-call hints in
// `xinfo`; `auto` agrees once, here), the byte views and staging, and what the
// row's `prepare` computes. The sides' count and displacement arrays are
// copied. Returns MPI_SUCCESS or the error raised on the user's communicator.
int init_persistent_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv,
                             bool in_place, const MPIX_Info *xinfo, MPIX_Request **request);

}  // namespace mpix

#endif
