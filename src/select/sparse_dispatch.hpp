// Running one MPIX_Alltoall(v)_crs call after its argument checks.
#ifndef MPIX_SELECT_SPARSE_DISPATCH_HPP
#define MPIX_SELECT_SPARSE_DISPATCH_HPP

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/blocks.hpp"
#include "core/hints.hpp"
#include "sparse/sparse.hpp"
#include "topo/topology.hpp"

struct MPIX_Comm;
struct MPIX_Info;

namespace mpix {

// What the sparse `auto` rule agrees on (collective over comm): the most
// messages any rank sends to ranks of other regions, for these destinations.
int agreed_max_remote_sends(const int *dests, std::size_t ndests, const Regions *reg, MPI_Comm comm,
                            long long *max_sends);

// Messages from the send side (alltoall_crs: every message is `count` elements;
// else counts/displs per destination), the selected backend, and what arrived in
// `inbox`, sorted by source through `order`. Errors are raised here.
int exchange_messages(MPIX_Comm *xcomm, MPIX_Info *xinfo, Collective c, const char *fn, int recv_nnz_cap, int nnz,
                      const int *dest, const void *vals, const int *counts, const int *displs, int count,
                      MPI_Datatype type, const TypeInfo &ti, SparseInbox *inbox, std::vector<std::size_t> *order);

}  // namespace mpix

#endif
