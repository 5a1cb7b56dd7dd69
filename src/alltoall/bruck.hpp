// Bruck family for uniform blocks (HPDC'22 "Optimizing the Bruck Algorithm for
// Non-uniform All-to-all Communication"), plus the byte-range datatype helper the
// non-uniform Bruck variants share.
#ifndef MPIX_ALLTOALL_BRUCK_HPP
#define MPIX_ALLTOALL_BRUCK_HPP

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/exchange.hpp"

namespace mpix {

int bruck_basic(const Exchange &x);
int bruck_basic_dt(const Exchange &x);
int bruck_modified(const Exchange &x);
int bruck_modified_dt(const Exchange &x);
int bruck_zerocopy_dt(const Exchange &x);
int bruck_zero_rotation(const Exchange &x);
int bruck_radix(const Exchange &x);

// One datatype describing n byte ranges at arbitrary addresses, relative to *base
// (the lowest address; pass it as the buffer). Ranges over INT_MAX bytes are split.
// use_struct: MPI_Type_create_struct instead of hindexed (same type map).
// Zero-length ranges are skipped (their addresses may be null). With no bytes at
// all, *type is MPI_DATATYPE_NULL and nothing needs freeing.
int byte_ranges_type(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct,
                     char **base, MPI_Datatype *type);
// Posts a nonblocking send / receive of the ranges (nothing when they total 0 bytes:
// the peer knows the same total and skips too); *req is MPI_REQUEST_NULL then.
int isend_ranges(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct, int peer,
                 int tag, MPI_Comm comm, MPI_Request *req);
int irecv_ranges(const std::vector<char *> &addrs, const std::vector<std::size_t> &lens, bool use_struct, int peer,
                 int tag, MPI_Comm comm, MPI_Request *req);

// Digit `digit` (weight radix^digit) of t in base radix.
inline int radix_digit(long long t, long long weight, int radix) { return static_cast<int>((t / weight) % radix); }

}  // namespace mpix

#endif
