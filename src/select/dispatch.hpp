// Running one alltoall(v) call: checks, selection, tracing, error reporting.
#ifndef MPIX_SELECT_DISPATCH_HPP
#define MPIX_SELECT_DISPATCH_HPP

#include "core/blocks.hpp"
#include "core/exchange.hpp"
#include "select/table.hpp"

namespace mpix {

// One MPIX_Alltoall(v)(_c) call from the caller's two sides (types not yet
// described; run_exchange fills in their `info`): validates them, selects the
// algorithm, and runs it, either as the
// MPI library's own collective on the caller's arguments (pmpi) or on byte-block
// views. Returns MPI_SUCCESS or the error raised on the user's communicator.
int run_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place);

// The checks run_exchange starts with (also those of a persistent init):
// counts, datatypes (described into `info`), byte ranges, buffers. Returns
// MPI_SUCCESS or the error raised on the user's communicator.
int check_exchange(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place);

struct Algorithm;
// What a blocking and a nonblocking call start with: check_exchange, then the
// row for this call (selected from the comm's hints and table, recorded as the
// comm's last algorithm) and the selection rule's hints (NULL if none).
int check_and_select(MPIX_Comm *xcomm, Collective c, const char *fn, UserSide &send, UserSide &recv, bool in_place,
                     const Algorithm **algorithm, const RuleHints **rule_hints);

// An algorithm's return code as the caller sees it: MPI_SUCCESS, a block-length
// mismatch (MPI_ERR_TRUNCATE / MPI_ERR_COUNT) or an internal error naming the
// algorithm, raised on the user's communicator.
// `receive_state`: what the caller may rely on of this rank's receive blocks then.
int report(MPIX_Comm *xcomm, const char *fn, const Algorithm *algorithm, int rc,
           const char *receive_state = "this rank's receive blocks are undefined, the other ranks completed");

// An Exchange over two byte-block sides (tag and trace left for the caller).
Exchange byte_exchange(MPIX_Comm *xcomm, Collective c, const BlockSide &sb, const BlockSide &rb, const Hints *hints,
                       int *mismatch);

}  // namespace mpix

#endif
