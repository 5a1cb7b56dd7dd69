// Point-to-point of byte ranges with size_t lengths (messages over 2 GiB are
// described by a derived datatype instead of an int count).
#ifndef MPIX_CORE_P2P_HPP
#define MPIX_CORE_P2P_HPP

#include <mpi.h>

#include <cstddef>

namespace mpix {

int isend_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req);
int issend_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req);
int irecv_bytes(void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *req);
int send_bytes(const void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm);
int recv_bytes(void *buf, std::size_t bytes, int peer, int tag, MPI_Comm comm);
int sendrecv_bytes(const void *sendbuf, std::size_t sendbytes, int dest, void *recvbuf,
                   std::size_t recvbytes, int source, int tag, MPI_Comm comm);

// Waits for requests one at a time (same result as MPI_Waitall, which is
// quadratic inside SimGrid SMPI); returns the first error.
int wait_all(int count, MPI_Request *reqs);

}  // namespace mpix

#endif
