/**
 * @file mpix.h
 * @brief mpix: fast all-to-all exchanges for MPI (the only public header).
 *
 * Create an ::MPIX_Comm once per communicator, reuse it for every exchange and
 * choose or tune algorithms with ::MPIX_Info hints or `MPIX_<KEY>` environment
 * variables.  Every function returns an MPI error code (`MPI_SUCCESS` on
 * success); errors are raised through the user communicator's error handler.
 */
#ifndef MPIX_H_INCLUDED
#define MPIX_H_INCLUDED

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIX_VERSION_MAJOR 0
#define MPIX_VERSION_MINOR 1

/** Opaque communicator wrapper: a private duplicate plus cached topology. */
typedef struct MPIX_Comm MPIX_Comm;
/** Opaque, validated set of string hints. */
typedef struct MPIX_Info MPIX_Info;

/** Collective over @p comm: duplicates it; all library traffic uses the duplicate.
 *  With MPIX_TUNING_FILE set (on every rank), rank 0 reads that selection table and
 *  broadcasts it; a file that cannot be read or is malformed returns
 *  MPI_ERR_INFO_VALUE naming the file, rule and field, and creates nothing. */
int MPIX_Comm_init(MPIX_Comm **xcomm, MPI_Comm comm);
/** Collective: frees everything cached on @p *xcomm and sets it to NULL. */
int MPIX_Comm_free(MPIX_Comm **xcomm);
/** Collective, optional: builds the node (and socket) topology now instead of on first use. */
int MPIX_Comm_topo_init(MPIX_Comm *xcomm);
/** Collective: emulate nodes of @p ppn consecutive ranks (last node may be smaller); 0 restores the real map. */
int MPIX_Comm_update_locality(MPIX_Comm *xcomm, int ppn);
/** Default hints for every call on @p xcomm (copied; NULL clears them). Same values on every rank.
 *  Collective when @p info holds a `tuning_file` other than the one already read:
 *  rank 0 reads the selection table and broadcasts it (docs/tuning.md, "Selection tables");
 *  on any error nothing changes. */
int MPIX_Comm_set_info(MPIX_Comm *xcomm, const MPIX_Info *info);

int MPIX_Info_init(MPIX_Info **info);
int MPIX_Info_free(MPIX_Info **info);
/** Sets a hint; unknown keys give MPI_ERR_INFO_KEY, malformed values MPI_ERR_INFO_VALUE. */
int MPIX_Info_set(MPIX_Info *info, const char *key, const char *value);
/** Reads a hint; @p *flag is 1 if set. The value is truncated to @p valuelen - 1 characters. */
int MPIX_Info_get(const MPIX_Info *info, const char *key, int valuelen, char *value, int *flag);

/** Same semantics as MPI_Alltoall (MPI_IN_PLACE accepted as @p sendbuf). */
int MPIX_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm);
/** Same semantics as MPI_Alltoallv (MPI_IN_PLACE accepted as @p sendbuf). */
int MPIX_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm);

/**
 * MPI-4 large-count MPIX_Alltoall: counts as MPI_Count. Same algorithms and
 * checks; a count whose bytes or offsets exceed the address space is MPI_ERR_COUNT.
 */
int MPIX_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm);
/** MPI-4 large-count MPIX_Alltoallv: counts as MPI_Count, displacements as MPI_Aint. */
int MPIX_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm);

/**
 * Sparse dynamic data exchange, constant size: rank sends @p sendcount elements to each
 * of its @p send_nnz destinations @p dest; on return @p *recv_nnz sources @p src (ascending)
 * and their data in @p recvvals (recvcount elements each). On input @p *recv_nnz is the
 * capacity of @p src (entries). Overflow: MPI_ERR_TRUNCATE, nothing written past capacity.
 */
int MPIX_Alltoall_crs(int send_nnz, const int *dest, int sendcount, MPI_Datatype sendtype,
                      const void *sendvals, int *recv_nnz, int *src, int recvcount,
                      MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm);
/**
 * Sparse dynamic data exchange, variable size. On input @p *recv_nnz is the capacity of
 * @p src, @p recvcounts and @p rdispls (entries) and @p *recv_size the capacity of
 * @p recvvals (elements of @p recvtype); on output the received amounts.
 */
int MPIX_Alltoallv_crs(int send_nnz, int send_size, const int *dest, const int *sendcounts,
                       const int *sdispls, MPI_Datatype sendtype, const void *sendvals,
                       int *recv_nnz, int *recv_size, int *src, int *recvcounts, int *rdispls,
                       MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm);

/** Opaque persistent request (MPIX_Alltoall(v)_init, MPIX_Neighbor_alltoallv_init). */
typedef struct MPIX_Request MPIX_Request;
/** Opaque neighbour topology: in and out neighbour lists over an ::MPIX_Comm. */
typedef struct MPIX_Topo MPIX_Topo;

/**
 * Persistent MPIX_Alltoall (collective, as MPI_Alltoall_init): validates the
 * arguments, selects the algorithm (per-call hints in @p xinfo, may be NULL) and
 * precomputes its schedule, staging and sizes once. The buffers are those given
 * here; every MPIX_Start exchanges their current contents.
 */
int MPIX_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Info *xinfo,
                       MPIX_Request **request);
/** Persistent MPIX_Alltoallv (collective); counts and displacements are copied at init. */
int MPIX_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                        MPIX_Info *xinfo, MPIX_Request **request);
/** Starts an inactive persistent request (every rank starts its requests in the same order). */
int MPIX_Start(MPIX_Request *request);
/** Completes a started request (returns at once for an inactive one); @p status may be MPI_STATUS_IGNORE. */
int MPIX_Wait(MPIX_Request *request, MPI_Status *status);
/** @p *flag = 1 when the started request has completed (then as MPIX_Wait). */
int MPIX_Test(MPIX_Request *request, int *flag, MPI_Status *status);
/** Frees an inactive request and sets @p *request to NULL; an active one gives MPI_ERR_REQUEST. */
int MPIX_Request_free(MPIX_Request **request);

/**
 * A neighbour topology (collective over @p xcomm, as MPI_Dist_graph_create_adjacent):
 * this rank receives from @p sources and sends to @p destinations, in that order
 * (repeats and self loops allowed). Weights may be MPI_UNWEIGHTED; they are not used.
 */
int MPIX_Topo_init(int indegree, const int sources[], const int sourceweights[], int outdegree,
                   const int destinations[], const int destweights[], MPIX_Comm *xcomm,
                   MPIX_Topo **topo);
/**
 * A neighbour topology from the pattern an MPIX_Alltoall(v)_crs call reported
 * (collective over @p xcomm): this rank sent to the @p send_nnz ranks @p dest and
 * received from the @p recv_nnz ranks @p src. @p reply = 0 keeps that direction
 * (destinations = dest, sources = src); @p reply = 1 reverses it (destinations =
 * src, sources = dest: the answers to halo requests, as in a sparse solver).
 */
int MPIX_Topo_init_crs(int send_nnz, const int dest[], int recv_nnz, const int src[], int reply,
                       MPIX_Comm *xcomm, MPIX_Topo **topo);
/** Frees @p *topo and sets it to NULL (local; MPIX_Comm_free refuses while a topology lives). */
int MPIX_Topo_free(MPIX_Topo **topo);

/** As MPI_Neighbor_alltoallv over @p topo: block i of the send side goes to destinations[i]. */
int MPIX_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPIX_Topo *topo,
                            MPIX_Comm *xcomm);
/** Persistent MPIX_Neighbor_alltoallv (collective); backend from the hint neighbor_alltoallv_algorithm. */
int MPIX_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPIX_Topo *topo,
                                 MPIX_Comm *xcomm, MPIX_Info *xinfo, MPIX_Request **request);
/**
 * MPIX_Neighbor_alltoallv_init with one global index per element:
 * @p global_sindices[e] for the e-th send element and @p global_rindices[e] for
 * the e-th receive element, counted block after block in neighbour order (block
 * 0's counts, then block 1's, ..., regardless of the displacements). Equal
 * indices among the blocks this rank sends must carry equal values: the
 * `locality` backend then sends a value bound for several ranks of one node
 * across the network once, and that node's relay duplicates it. The k-th element
 * of a receive block is the k-th element of the matching send block; the
 * receive indices document that layout and are not read beyond a NULL check
 * (NULL allowed when there are no elements). `standard` ignores both.
 */
int MPIX_Neighbor_alltoallv_init_indexed(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                         const int rdispls[], MPI_Datatype recvtype,
                                         const long long global_sindices[], const long long global_rindices[],
                                         MPIX_Topo *topo, MPIX_Comm *xcomm, MPIX_Info *xinfo,
                                         MPIX_Request **request);

/**
 * The full text of an error code an mpix call returned ("MPIX_Alltoallv: a block
 * sent to this rank is longer than its receive block (algorithm linear); ..."),
 * on every MPI library: for the last error mpix raised on the calling thread it
 * is that error's text (also inside an error handler it called), otherwise
 * MPI_Error_string's. @p string needs MPI_MAX_ERROR_STRING characters; it is
 * NUL-terminated and @p *resultlen is its length.
 */
int MPIX_Error_string(int errorcode, char *string, int *resultlen);

/**
 * Enumerates the algorithm registry: @p collective is "alltoall", "alltoallv",
 * "alltoall_crs", "alltoallv_crs" or "neighbor_alltoallv"; returns NULL past the last index.
 */
const char *MPIX_Algorithm_name(const char *collective, int index);

#ifdef __cplusplus
}
#endif

#endif /* MPIX_H_INCLUDED */
