// Started MPIX_Alltoall(v) exchanges: persistent requests (MPIX_Alltoall(v)_init)
// and nonblocking calls (MPIX_Ialltoall(v)). Both are the same object: the
// checks, selection, byte views and staging done once, then the row run by
// the engine (sched/engine.hpp) on every start.
#ifndef MPIX_SELECT_EXCHANGE_REQUEST_HPP
#define MPIX_SELECT_EXCHANGE_REQUEST_HPP

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

// MPIX_Ialltoall(v)(_c): the checks and selection of a blocking call, then the
// exchange started (it runs until it first waits for a message, or is queued
// behind the earlier exchanges of the comm). The count and displacement arrays
// are the caller's, read until completion (as MPI_Ialltoallv reads them).
// *request is freed by the MPIX_Wait/MPIX_Test that completes it.
int start_nonblocking_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv,
                               bool in_place, MPIX_Request **request);

}  // namespace mpix

#endif
