/**
 * @file mpix.h
 * @brief mpix: fast all-to-all exchanges for MPI (the only public header).
 *
 * Create an ::MPIX_Comm once per communicator, reuse it for every exchange and
 * choose or tune algorithms with ::MPIX_Info hints or `MPIX_<KEY>` environment
 * variables.  Every function returns an MPI error code (`MPI_SUCCESS` on
 * success); errors are raised through the user communicator's error handler.
 *
 * Each function has its own manual page (`man MPIX_Alltoallv`); `man mpix`
 * (section 7) describes the hints, the `MPIX_*` environment variables, the
 * drop-in library libmpix_pmpi and the selection tables.
 *
 * Errors: arguments are checked on each rank before any message moves. A
 * failing call returns an MPI error code whose class (`MPI_Error_class`) is one
 * listed on the function's page, raised first through the error handler of the
 * communicator given to MPIX_Comm_init (`MPI_COMM_SELF`'s where there is none);
 * MPIX_Error_string() gives its full text. An error of an MPI call made inside
 * the library keeps that call's class. No C++ exception leaves the library: an
 * allocation failure is `MPI_ERR_NO_MEM`, any other exception `MPI_ERR_INTERN`.
 */
#ifndef MPIX_H_INCLUDED
#define MPIX_H_INCLUDED

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The API's major version. */
#define MPIX_VERSION_MAJOR 0
/** The API's minor version (bumped by an API change before 1.0). */
#define MPIX_VERSION_MINOR 2

/** Opaque communicator wrapper: a private duplicate plus cached topology. */
typedef struct MPIX_Comm MPIX_Comm;
/** Opaque, validated set of string hints. */
typedef struct MPIX_Info MPIX_Info;
/** Opaque request: nonblocking (MPIX_Ialltoall(v)) or persistent (MPIX_Alltoall(v)_init,
 *  MPIX_Neighbor_alltoallv_init); completed with MPIX_Wait(), MPIX_Test() and their *all forms. */
typedef struct MPIX_Request MPIX_Request;

/** @defgroup MPIX_Comm_init create an MPIX_Comm over an MPI communicator
 *  @{ */
/** Collective over @p comm: duplicates it; all library traffic uses the duplicate.
 *  With MPIX_TUNING_FILE set (on every rank), rank 0 reads that selection table and
 *  broadcasts it; a file that cannot be read or is malformed returns
 *  MPI_ERR_INFO_VALUE naming the file, rule and field, and creates nothing.
 *  The `MPIX_<KEY>` environment variables and `MPIX_PPN` are read and validated here.
 *  @param[out] xcomm the new communicator wrapper (NULL on error)
 *  @param[in] comm an intracommunicator; every rank of it calls
 *  @retval MPI_SUCCESS the wrapper was created
 *  @retval MPI_ERR_ARG @p xcomm is NULL
 *  @retval MPI_ERR_COMM @p comm is MPI_COMM_NULL, invalid or an intercommunicator
 *  @retval MPI_ERR_INFO_VALUE a malformed `MPIX_*` environment variable (on any rank),
 *          MPIX_PPN differing between ranks, MPIX_TUNING_FILE set on some ranks only,
 *          or a selection table that cannot be read or is malformed
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int run(void)
 *  {
 *      MPIX_Comm *xcomm;
 *      int rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
 *      if (rc != MPI_SUCCESS)
 *          return rc;
 *      // ... exchanges on xcomm ...
 *      return MPIX_Comm_free(&xcomm);
 *  }
 *  @endcode
 *  @see MPIX_Comm_free, MPIX_Comm_set_info, mpix(7) */
int MPIX_Comm_init(MPIX_Comm **xcomm, MPI_Comm comm);
/** @} */

/** @defgroup MPIX_Comm_free free an MPIX_Comm
 *  @{ */
/** Collective: frees everything cached on @p *xcomm and sets it to NULL.
 *  Persistent requests and neighbour topologies made on it must be freed first.
 *  @param[in,out] xcomm the wrapper to free; set to NULL
 *  @retval MPI_SUCCESS freed
 *  @retval MPI_ERR_ARG @p xcomm or @p *xcomm is NULL
 *  @retval MPI_ERR_COMM persistent requests or topologies made on it are not freed yet
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int done(MPIX_Comm **xcomm) { return MPIX_Comm_free(xcomm); }  // *xcomm is NULL after
 *  @endcode
 *  @see MPIX_Comm_init, MPIX_Request_free, MPIX_Topo_free */
int MPIX_Comm_free(MPIX_Comm **xcomm);
/** @} */

/** @defgroup MPIX_Comm_topo_init build the node and socket topology of an MPIX_Comm now
 *  @{ */
/** Collective, optional: builds the node (and socket) topology now instead of on first use.
 *  @param[in,out] xcomm the communicator wrapper
 *  @retval MPI_SUCCESS the topology is cached on @p xcomm
 *  @retval MPI_ERR_ARG @p xcomm is NULL
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int warm_up(MPIX_Comm *xcomm) { return MPIX_Comm_topo_init(xcomm); }  // before timing
 *  @endcode
 *  @see MPIX_Comm_update_locality */
int MPIX_Comm_topo_init(MPIX_Comm *xcomm);
/** @} */

/** @defgroup MPIX_Comm_update_locality emulate nodes of a given number of ranks
 *  @{ */
/** Collective: emulate nodes of @p ppn consecutive ranks (last node may be smaller); 0 restores the real map.
 *  The cached topology is dropped and rebuilt on next use; give every rank the same @p ppn.
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[in] ppn ranks per emulated node, >= 0 (0: the real nodes)
 *  @retval MPI_SUCCESS the new map holds for the following calls
 *  @retval MPI_ERR_ARG @p xcomm is NULL or @p ppn is negative
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int four_per_node(MPIX_Comm *xcomm) { return MPIX_Comm_update_locality(xcomm, 4); }
 *  @endcode
 *  @see MPIX_Comm_topo_init, mpix(7) (MPIX_PPN) */
int MPIX_Comm_update_locality(MPIX_Comm *xcomm, int ppn);
/** @} */

/** @defgroup MPIX_Comm_set_info set the default hints of an MPIX_Comm
 *  @{ */
/** Default hints for every call on @p xcomm (copied; NULL clears them). Same values on every rank.
 *  Collective when @p info holds a `tuning_file` other than the one already read:
 *  rank 0 reads the selection table and broadcasts it (docs/tuning.md, "Selection tables");
 *  on any error nothing changes.
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[in] info the hints (NULL: none), see mpix(7)
 *  @retval MPI_SUCCESS the hints apply to the following calls
 *  @retval MPI_ERR_ARG @p xcomm is NULL
 *  @retval MPI_ERR_INFO_VALUE the `tuning_file` cannot be read or is malformed
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int use_parlogna(MPIX_Comm *xcomm)
 *  {
 *      MPIX_Info *info;
 *      MPIX_Info_init(&info);
 *      MPIX_Info_set(info, "alltoallv_algorithm", "parlogna");
 *      int rc = MPIX_Comm_set_info(xcomm, info);
 *      MPIX_Info_free(&info);
 *      return rc;
 *  }
 *  @endcode
 *  @see MPIX_Info_set, mpix(7) */
int MPIX_Comm_set_info(MPIX_Comm *xcomm, const MPIX_Info *info);
/** @} */

/** @defgroup MPIX_Info_init create an empty set of hints
 *  @{ */
/** Creates an empty ::MPIX_Info; free it with MPIX_Info_free().
 *  @param[out] info the new hint set
 *  @retval MPI_SUCCESS created
 *  @retval MPI_ERR_ARG @p info is NULL
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int radix4(MPIX_Info **info)
 *  {
 *      int rc = MPIX_Info_init(info);
 *      return rc == MPI_SUCCESS ? MPIX_Info_set(*info, "radix", "4") : rc;
 *  }
 *  @endcode
 *  @see MPIX_Info_set, MPIX_Info_free */
int MPIX_Info_init(MPIX_Info **info);
/** @} */

/** @defgroup MPIX_Info_free free a set of hints
 *  @{ */
/** Frees @p *info and sets it to NULL (local; an ::MPIX_Comm keeps its own copy).
 *  @param[in,out] info the hint set to free; set to NULL
 *  @retval MPI_SUCCESS freed
 *  @retval MPI_ERR_ARG @p info or @p *info is NULL
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int release(MPIX_Info **info) { return MPIX_Info_free(info); }  // *info is NULL after
 *  @endcode
 *  @see MPIX_Info_init */
int MPIX_Info_free(MPIX_Info **info);
/** @} */

/** @defgroup MPIX_Info_set set a hint
 *  @{ */
/** Sets a hint; unknown keys give MPI_ERR_INFO_KEY, malformed values MPI_ERR_INFO_VALUE.
 *  The keys and their values are listed in mpix(7).
 *  @param[in,out] info the hint set
 *  @param[in] key a hint key, e.g. "alltoallv_algorithm"
 *  @param[in] value its value, e.g. "parlogna" (validated now)
 *  @retval MPI_SUCCESS set
 *  @retval MPI_ERR_ARG @p info is NULL
 *  @retval MPI_ERR_INFO_KEY @p key is NULL or not a hint key
 *  @retval MPI_ERR_INFO_VALUE @p value is NULL or not valid for @p key
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int tune(MPIX_Info *info)
 *  {
 *      int rc = MPIX_Info_set(info, "alltoallv_algorithm", "parlogna");
 *      return rc == MPI_SUCCESS ? MPIX_Info_set(info, "radix", "4") : rc;
 *  }
 *  @endcode
 *  @see MPIX_Info_get, MPIX_Comm_set_info, mpix(7) */
int MPIX_Info_set(MPIX_Info *info, const char *key, const char *value);
/** @} */

/** @defgroup MPIX_Info_get read a hint
 *  @{ */
/** Reads a hint; @p *flag is 1 if set. The value is truncated to @p valuelen - 1 characters.
 *  @param[in] info the hint set
 *  @param[in] key a hint key
 *  @param[in] valuelen the size of @p value in characters (NUL included)
 *  @param[out] value the value, NUL-terminated (untouched when not set or @p valuelen is 0)
 *  @param[out] flag 1 if @p key is set, else 0
 *  @retval MPI_SUCCESS @p flag says whether the key is set
 *  @retval MPI_ERR_ARG @p info or @p flag is NULL, @p valuelen is negative, or @p value
 *          is NULL with a positive @p valuelen
 *  @retval MPI_ERR_INFO_KEY @p key is NULL or not a hint key
 *  @par Example
 *  @code
 *  #include <stdio.h>
 *  #include <mpix.h>
 *  void show_radix(const MPIX_Info *info)
 *  {
 *      char value[64];
 *      int flag;
 *      if (MPIX_Info_get(info, "radix", sizeof value, value, &flag) == MPI_SUCCESS && flag)
 *          printf("radix %s\n", value);
 *  }
 *  @endcode
 *  @see MPIX_Info_set */
int MPIX_Info_get(const MPIX_Info *info, const char *key, int valuelen, char *value, int *flag);
/** @} */

/** @defgroup MPIX_Alltoall all-to-all exchange of equal blocks (as MPI_Alltoall)
 *  @{ */
/** Same semantics as MPI_Alltoall (MPI_IN_PLACE accepted as @p sendbuf).
 *  Collective over @p xcomm; the algorithm comes from the hint `alltoall_algorithm`
 *  (default `auto`, see mpix(7)).
 *  @param[in] sendbuf the blocks to send, block j to rank j (or MPI_IN_PLACE)
 *  @param[in] sendcount elements of @p sendtype per block
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the blocks received, block i from rank i
 *  @param[in] recvcount elements of @p recvtype per block
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @retval MPI_SUCCESS every block arrived
 *  @retval MPI_ERR_ARG @p xcomm is NULL
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed (not in
 *          place, and the other side's usable, taking part as for a negative count of that side)
 *  @retval MPI_ERR_COUNT a negative count (not in place, the call still takes part, sending
 *          blocks of the receive length, zeros for a negative send count, and writes nothing
 *          to @p recvbuf, so the other ranks complete: docs/errors.md), a block shorter than
 *          its receive block arrived, or this rank's send blocks are shorter than its receive
 *          blocks (as below)
 *  @retval MPI_ERR_TRUNCATE a longer block arrived, or this rank's send blocks are longer than
 *          its receive blocks: it still takes part, each block cut (padded) to the
 *          receive length, so the other ranks complete (docs/errors.md)
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL (not in
 *          place, taking part as for a negative count)
 *  @retval MPI_ERR_NO_MEM no memory for staging or scratch space
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  // one double to and from every rank: send[j] goes to rank j, recv[i] came from rank i
 *  int transpose(MPIX_Comm *xcomm, const double *send, double *recv)
 *  {
 *      return MPIX_Alltoall(send, 1, MPI_DOUBLE, recv, 1, MPI_DOUBLE, xcomm);
 *  }
 *  @endcode
 *  @see MPIX_Alltoall_c, MPIX_Alltoall_init, MPIX_Alltoallv, mpix(7) */
int MPIX_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm);
/** @} */

/** @defgroup MPIX_Alltoallv all-to-all exchange of blocks of per-rank sizes (as MPI_Alltoallv)
 *  @{ */
/** Same semantics as MPI_Alltoallv (MPI_IN_PLACE accepted as @p sendbuf).
 *  Collective over @p xcomm; the algorithm comes from the hint `alltoallv_algorithm`
 *  (default `auto`, see mpix(7)). A block of the wrong length is reported on the
 *  receiving rank after every message has moved; nothing is written past a receive block.
 *  @param[in] sendbuf the send buffer (or MPI_IN_PLACE: the blocks are taken from @p recvbuf)
 *  @param[in] sendcounts elements of @p sendtype sent to each rank (P entries)
 *  @param[in] sdispls displacement of each send block in @p sendbuf, in extents of @p sendtype
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcounts elements of @p recvtype received from each rank (P entries)
 *  @param[in] rdispls displacement of each receive block in @p recvbuf, in extents of @p recvtype
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @retval MPI_SUCCESS every block arrived
 *  @retval MPI_ERR_ARG @p xcomm, a count array or a displacement array is NULL
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed (except in
 *          place or on pmpi, taking part as for negative counts on that side)
 *  @retval MPI_ERR_COUNT a negative count (except in place or on pmpi, the call still takes
 *          part, each such block empty, and writes nothing to @p recvbuf, so the other ranks
 *          complete: docs/errors.md), or a block shorter than its receive block arrived
 *  @retval MPI_ERR_TRUNCATE a block longer than its receive block arrived (or the block this
 *          rank sends itself is longer than its receive block: it still takes part, that block cut)
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL (except
 *          in place or on pmpi, taking part as for a negative count)
 *  @retval MPI_ERR_NO_MEM no memory for staging or scratch space
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  // every rank sends i + 1 ints to rank i (counts and displacements computed by the caller)
 *  int exchange(MPIX_Comm *xcomm, const int *send, const int *scounts, const int *sdispls,
 *               int *recv, const int *rcounts, const int *rdispls)
 *  {
 *      return MPIX_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, xcomm);
 *  }
 *  @endcode
 *  @see MPIX_Alltoallv_c, MPIX_Alltoallv_init, MPIX_Alltoall, MPIX_Error_string, mpix(7) */
int MPIX_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm);
/** @} */

/** @defgroup MPIX_Alltoall_c large-count all-to-all exchange of equal blocks (MPI_Count counts)
 *  @{ */
/**
 * MPI-4 large-count MPIX_Alltoall: counts as MPI_Count. Same algorithms and
 * checks; a count whose bytes or offsets exceed the address space is MPI_ERR_COUNT.
 * @param[in] sendbuf the blocks to send, block j to rank j (or MPI_IN_PLACE)
 * @param[in] sendcount elements of @p sendtype per block
 * @param[in] sendtype the datatype of @p sendbuf
 * @param[out] recvbuf the blocks received, block i from rank i
 * @param[in] recvcount elements of @p recvtype per block
 * @param[in] recvtype the datatype of @p recvbuf
 * @param[in,out] xcomm the communicator wrapper
 * @retval MPI_SUCCESS every block arrived
 * @retval MPI_ERR_ARG @p xcomm is NULL
 * @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 * @retval MPI_ERR_COUNT a negative count, P times a block exceeds the address space,
 *         or a block shorter than its receive block arrived
 * @retval MPI_ERR_TRUNCATE a longer block arrived, or this rank's send blocks are longer than
 *         its receive blocks (shorter: MPI_ERR_COUNT); it still takes part, as MPIX_Alltoall()
 * @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 * @retval MPI_ERR_NO_MEM no memory for staging or scratch space
 * @retval MPI_ERR_INTERN internal error
 * @par Example
 * @code
 * #include <mpix.h>
 * // blocks of 3 Gi bytes: past what an int count can say
 * int big(MPIX_Comm *xcomm, const char *send, char *recv)
 * {
 *     MPI_Count n = (MPI_Count)3 << 30;
 *     return MPIX_Alltoall_c(send, n, MPI_BYTE, recv, n, MPI_BYTE, xcomm);
 * }
 * @endcode
 * @see MPIX_Alltoall, MPIX_Alltoallv_c
 */
int MPIX_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm);
/** @} */

/** @defgroup MPIX_Alltoallv_c large-count all-to-all exchange of blocks of per-rank sizes
 *  @{ */
/** MPI-4 large-count MPIX_Alltoallv: counts as MPI_Count, displacements as MPI_Aint.
 *  Same algorithms and checks as MPIX_Alltoallv().
 *  @param[in] sendbuf the send buffer (or MPI_IN_PLACE)
 *  @param[in] sendcounts elements of @p sendtype sent to each rank (P entries)
 *  @param[in] sdispls displacement of each send block, in extents of @p sendtype
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcounts elements of @p recvtype received from each rank (P entries)
 *  @param[in] rdispls displacement of each receive block, in extents of @p recvtype
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @retval MPI_SUCCESS every block arrived
 *  @retval MPI_ERR_ARG @p xcomm, a count array or a displacement array is NULL, or a
 *          displacement times the extent exceeds the address space
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count, a count whose bytes exceed the address space,
 *          or a block shorter than its receive block arrived
 *  @retval MPI_ERR_TRUNCATE a block longer than its receive block arrived, or the block this
 *          rank sends itself is longer than its receive block (it still takes part, that block cut)
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 *  @retval MPI_ERR_NO_MEM no memory for staging or scratch space
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int exchange_c(MPIX_Comm *xcomm, const double *send, const MPI_Count *scounts,
 *                 const MPI_Aint *sdispls, double *recv, const MPI_Count *rcounts,
 *                 const MPI_Aint *rdispls)
 *  {
 *      return MPIX_Alltoallv_c(send, scounts, sdispls, MPI_DOUBLE, recv, rcounts, rdispls,
 *                              MPI_DOUBLE, xcomm);
 *  }
 *  @endcode
 *  @see MPIX_Alltoallv, MPIX_Alltoall_c */
int MPIX_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm);
/** @} */

/** @defgroup MPIX_Ialltoall nonblocking all-to-all exchange of equal blocks
 *  @{ */
/** Starts MPIX_Alltoall() and returns at once, as MPI_Ialltoall does: same arguments, checks
 *  and algorithms, plus @p request. The exchange runs until it first waits for a message;
 *  every MPIX_Test(), MPIX_Wait(), MPIX_Testall() and MPIX_Waitall() of the process (and the
 *  progress thread, MPIX_ASYNC_PROGRESS=1) advances it. Several may be in flight on one
 *  communicator, interleaved with blocking calls; they complete in any order. Neither buffer
 *  may be touched until the request completes.
 *  @param[in] sendbuf the send buffer (or MPI_IN_PLACE)
 *  @param[in] sendcount elements of @p sendtype sent to each rank
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcount elements of @p recvtype received from each rank
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[out] request the started request; NULL when the call fails
 *  @retval MPI_SUCCESS the exchange started (complete it with MPIX_Wait() or MPIX_Test())
 *  @retval MPI_ERR_ARG @p xcomm or @p request is NULL
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count or P times a block exceeds the address space
 *  @note blocks of the wrong length, and this rank's send blocks longer (shorter)
 *        than its receive blocks, are MPI_ERR_TRUNCATE (MPI_ERR_COUNT) from the MPIX_Wait
 *        or MPIX_Test that completes the exchange
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 *  @retval MPI_ERR_NO_MEM no memory for staging or for the exchange's task
 *  @retval MPI_ERR_INTERN internal error
 *
 *  A block of the wrong length that arrives later is reported by the MPIX_Wait() or
 *  MPIX_Test() that completes the request (MPI_ERR_TRUNCATE or MPI_ERR_COUNT); the other
 *  ranks complete.
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int transpose(MPIX_Comm *xcomm, const double *send, double *recv, int n, void (*work)(void))
 *  {
 *      MPIX_Request *req;
 *      int rc = MPIX_Ialltoall(send, n, MPI_DOUBLE, recv, n, MPI_DOUBLE, xcomm, &req);
 *      if (rc != MPI_SUCCESS)
 *          return rc;
 *      work();  // overlapped with the exchange
 *      return MPIX_Wait(&req, MPI_STATUS_IGNORE);
 *  }
 *  @endcode
 *  @see MPIX_Alltoall, MPIX_Ialltoallv, MPIX_Wait, MPIX_Test, MPIX_Ialltoall_c */
int MPIX_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Ialltoall_c large-count nonblocking all-to-all exchange of equal blocks
 *  @{ */
/** MPIX_Ialltoall() with MPI_Count counts (MPI-4 large-count form).
 *  @param[in] sendbuf the send buffer (or MPI_IN_PLACE)
 *  @param[in] sendcount elements of @p sendtype sent to each rank
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcount elements of @p recvtype received from each rank
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[out] request the started request; NULL when the call fails
 *  @retval MPI_SUCCESS the exchange started (complete it with MPIX_Wait() or MPIX_Test())
 *  @retval MPI_ERR_ARG @p xcomm or @p request is NULL
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count, or a count whose bytes exceed the address space
 *  @note blocks of the wrong length, and this rank's send blocks longer (shorter)
 *        than its receive blocks, are MPI_ERR_TRUNCATE (MPI_ERR_COUNT) from the MPIX_Wait
 *        or MPIX_Test that completes the exchange
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 *  @retval MPI_ERR_NO_MEM no memory for staging or for the exchange's task
 *  @retval MPI_ERR_INTERN internal error
 *
 *  A block of the wrong length that arrives later is reported by the MPIX_Wait() or
 *  MPIX_Test() that completes the request (MPI_ERR_TRUNCATE or MPI_ERR_COUNT); the other
 *  ranks complete.
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int start_big(MPIX_Comm *xcomm, const char *send, char *recv, MPI_Count n, MPIX_Request **req)
 *  {
 *      return MPIX_Ialltoall_c(send, n, MPI_BYTE, recv, n, MPI_BYTE, xcomm, req);
 *  }
 *  @endcode
 *  @see MPIX_Ialltoall, MPIX_Alltoall_c, MPIX_Wait */
int MPIX_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Ialltoallv nonblocking all-to-all exchange of blocks of per-rank sizes
 *  @{ */
/** Starts MPIX_Alltoallv() and returns at once, as MPI_Ialltoallv does: same arguments, checks
 *  and algorithms, plus @p request. The count and displacement arrays and both buffers are
 *  read until the request completes (do not change them before). Progress as
 *  MPIX_Ialltoall().
 *  @param[in] sendbuf the send buffer (or MPI_IN_PLACE)
 *  @param[in] sendcounts elements of @p sendtype sent to each rank (P entries)
 *  @param[in] sdispls displacement of each send block, in extents of @p sendtype
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcounts elements of @p recvtype received from each rank (P entries)
 *  @param[in] rdispls displacement of each receive block, in extents of @p recvtype
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[out] request the started request; NULL when the call fails
 *  @retval MPI_SUCCESS the exchange started (complete it with MPIX_Wait() or MPIX_Test())
 *  @retval MPI_ERR_ARG @p xcomm or @p request is NULL, or a count or displacement array is NULL
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count
 *  @note blocks of the wrong length, and a block this rank sends itself longer than
 *        its receive block, are MPI_ERR_TRUNCATE / MPI_ERR_COUNT from the MPIX_Wait or
 *        MPIX_Test that completes the exchange
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 *  @retval MPI_ERR_NO_MEM no memory for staging or for the exchange's task
 *  @retval MPI_ERR_INTERN internal error
 *
 *  A block of the wrong length that arrives later is reported by the MPIX_Wait() or
 *  MPIX_Test() that completes the request (MPI_ERR_TRUNCATE or MPI_ERR_COUNT); the other
 *  ranks complete.
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int shuffle(MPIX_Comm *xcomm, const int *send, const int *scounts, const int *sdispls,
 *              int *recv, const int *rcounts, const int *rdispls, void (*work)(void))
 *  {
 *      MPIX_Request *req;
 *      int flag = 0, rc = MPIX_Ialltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts,
 *                                         rdispls, MPI_INT, xcomm, &req);
 *      while (rc == MPI_SUCCESS && !flag) {
 *          work();
 *          rc = MPIX_Test(&req, &flag, MPI_STATUS_IGNORE);
 *      }
 *      return rc;
 *  }
 *  @endcode
 *  @see MPIX_Alltoallv, MPIX_Ialltoall, MPIX_Test, MPIX_Waitall, MPIX_Ialltoallv_c */
int MPIX_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                    MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Ialltoallv_c large-count nonblocking all-to-all exchange of blocks of per-rank sizes
 *  @{ */
/** MPIX_Ialltoallv() with MPI_Count counts and MPI_Aint displacements (MPI-4 large-count form).
 *  @param[in] sendbuf the send buffer (or MPI_IN_PLACE)
 *  @param[in] sendcounts elements of @p sendtype sent to each rank (P entries)
 *  @param[in] sdispls displacement of each send block, in extents of @p sendtype
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcounts elements of @p recvtype received from each rank (P entries)
 *  @param[in] rdispls displacement of each receive block, in extents of @p recvtype
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[out] request the started request; NULL when the call fails
 *  @retval MPI_SUCCESS the exchange started (complete it with MPIX_Wait() or MPIX_Test())
 *  @retval MPI_ERR_ARG @p xcomm or @p request is NULL, a count or displacement array is NULL, or a displacement times the extent exceeds the address space
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count, or a count whose bytes exceed the address space
 *  @note blocks of the wrong length, and a block this rank sends itself longer than
 *        its receive block, are MPI_ERR_TRUNCATE / MPI_ERR_COUNT from the MPIX_Wait or
 *        MPIX_Test that completes the exchange
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 *  @retval MPI_ERR_NO_MEM no memory for staging or for the exchange's task
 *  @retval MPI_ERR_INTERN internal error
 *
 *  A block of the wrong length that arrives later is reported by the MPIX_Wait() or
 *  MPIX_Test() that completes the request (MPI_ERR_TRUNCATE or MPI_ERR_COUNT); the other
 *  ranks complete.
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int start_big_v(MPIX_Comm *xcomm, const char *send, const MPI_Count *sc, const MPI_Aint *sd,
 *                  char *recv, const MPI_Count *rc, const MPI_Aint *rd, MPIX_Request **req)
 *  {
 *      return MPIX_Ialltoallv_c(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, xcomm, req);
 *  }
 *  @endcode
 *  @see MPIX_Ialltoallv, MPIX_Alltoallv_c, MPIX_Wait */
int MPIX_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                      MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Alltoall_crs sparse dynamic data exchange of equal blocks
 *  @{ */
/**
 * Sparse dynamic data exchange, constant size: rank sends @p sendcount elements to each
 * of its @p send_nnz destinations @p dest; on return @p *recv_nnz sources @p src (ascending)
 * and their data in @p recvvals (recvcount elements each). On input @p *recv_nnz is the
 * capacity of @p src (entries). Overflow: MPI_ERR_TRUNCATE, nothing written past capacity.
 *
 * Collective over @p xcomm; the backend comes from the hint `alltoall_crs_algorithm`.
 * With the hint `crs_recv_nnz_known` = true, @p *recv_nnz is the exact number of sources.
 * @param[in] send_nnz the number of destinations
 * @param[in] dest the destination ranks (@p send_nnz distinct ranks)
 * @param[in] sendcount elements of @p sendtype sent to each destination
 * @param[in] sendtype the datatype of @p sendvals
 * @param[in] sendvals the blocks, the i-th for @p dest[i], one after the other
 * @param[in,out] recv_nnz in: the capacity of @p src; out: the number of sources
 * @param[out] src the source ranks, ascending
 * @param[in] recvcount elements of @p recvtype received from each source
 * @param[in] recvtype the datatype of @p recvvals
 * @param[out] recvvals the blocks received, the i-th from @p src[i]
 * @param[in] xinfo per-call hints (NULL: none)
 * @param[in,out] xcomm the communicator wrapper
 * @retval MPI_SUCCESS every message arrived
 * @retval MPI_ERR_ARG @p xcomm, @p recv_nnz, @p dest or @p src is NULL, or a destination appears twice
 * @retval MPI_ERR_RANK a destination rank is out of range
 * @retval MPI_ERR_COUNT a negative count or capacity
 * @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 * @retval MPI_ERR_BUFFER @p sendvals or @p recvvals is NULL or MPI_IN_PLACE
 * @retval MPI_ERR_TRUNCATE more sources or data arrived than the capacity
 * @retval MPI_ERR_INFO_KEY @p xinfo holds `tuning_file` (a communicator's hint)
 * @retval MPI_ERR_NO_MEM out of memory
 * @retval MPI_ERR_INTERN internal error
 * @par Example
 * @code
 * #include <stddef.h>
 * #include <mpix.h>
 * // one int to each of nd neighbours; up to cap sources come back
 * int discover(MPIX_Comm *xcomm, int nd, const int *dest, const int *vals,
 *              int cap, int *nsrc, int *src, int *got)
 * {
 *     *nsrc = cap;
 *     return MPIX_Alltoall_crs(nd, dest, 1, MPI_INT, vals, nsrc, src, 1, MPI_INT, got,
 *                              NULL, xcomm);
 * }
 * @endcode
 * @see MPIX_Alltoallv_crs, MPIX_Topo_init_crs, mpix(7)
 */
int MPIX_Alltoall_crs(int send_nnz, const int *dest, int sendcount, MPI_Datatype sendtype,
                      const void *sendvals, int *recv_nnz, int *src, int recvcount,
                      MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm);
/** @} */

/** @defgroup MPIX_Alltoallv_crs sparse dynamic data exchange of blocks of any size
 *  @{ */
/**
 * Sparse dynamic data exchange, variable size. On input @p *recv_nnz is the capacity of
 * @p src, @p recvcounts and @p rdispls (entries) and @p *recv_size the capacity of
 * @p recvvals (elements of @p recvtype); on output the received amounts.
 *
 * Collective over @p xcomm; sources are reported in ascending order. When data does not
 * fit, the call still completes collectively, writes nothing past the capacity and
 * returns MPI_ERR_TRUNCATE.
 * @param[in] send_nnz the number of destinations
 * @param[in] send_size elements of @p sendtype in @p sendvals
 * @param[in] dest the destination ranks (@p send_nnz distinct ranks)
 * @param[in] sendcounts elements sent to each destination
 * @param[in] sdispls displacement of each send block in @p sendvals, in elements
 * @param[in] sendtype the datatype of @p sendvals
 * @param[in] sendvals the send buffer
 * @param[in,out] recv_nnz in: the capacity of @p src, @p recvcounts and @p rdispls; out: the number of sources
 * @param[in,out] recv_size in: the capacity of @p recvvals in elements; out: the elements received
 * @param[out] src the source ranks, ascending
 * @param[out] recvcounts elements received from each source
 * @param[out] rdispls displacement of each received block in @p recvvals
 * @param[in] recvtype the datatype of @p recvvals
 * @param[out] recvvals the received blocks
 * @param[in] xinfo per-call hints (NULL: none)
 * @param[in,out] xcomm the communicator wrapper
 * @retval MPI_SUCCESS every message arrived
 * @retval MPI_ERR_ARG @p xcomm, @p recv_nnz, @p recv_size or an array is NULL, a destination
 *         appears twice, or a send block lies outside @p send_size elements
 * @retval MPI_ERR_RANK a destination rank is out of range
 * @retval MPI_ERR_COUNT a negative count, size or capacity
 * @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 * @retval MPI_ERR_BUFFER @p sendvals or @p recvvals is NULL or MPI_IN_PLACE
 * @retval MPI_ERR_TRUNCATE more sources or data arrived than the capacity
 * @retval MPI_ERR_INFO_KEY @p xinfo holds `tuning_file` (a communicator's hint)
 * @retval MPI_ERR_NO_MEM out of memory
 * @retval MPI_ERR_INTERN internal error
 * @par Example
 * @code
 * #include <stddef.h>
 * #include <mpix.h>
 * // halo set-up: ask each owner in dest for the indices this rank needs
 * int ask(MPIX_Comm *xcomm, int nd, int nidx, const int *dest, const int *counts,
 *         const int *displs, const int *idx, int cap_nnz, int cap_size, int *nsrc,
 *         int *nrecv, int *src, int *rcounts, int *rdispls, int *wanted)
 * {
 *     *nsrc = cap_nnz;
 *     *nrecv = cap_size;
 *     return MPIX_Alltoallv_crs(nd, nidx, dest, counts, displs, MPI_INT, idx, nsrc, nrecv,
 *                               src, rcounts, rdispls, MPI_INT, wanted, NULL, xcomm);
 * }
 * @endcode
 * @see MPIX_Alltoall_crs, MPIX_Topo_init_crs, mpix(7)
 */
int MPIX_Alltoallv_crs(int send_nnz, int send_size, const int *dest, const int *sendcounts,
                       const int *sdispls, MPI_Datatype sendtype, const void *sendvals,
                       int *recv_nnz, int *recv_size, int *src, int *recvcounts, int *rdispls,
                       MPI_Datatype recvtype, void *recvvals, MPIX_Info *xinfo, MPIX_Comm *xcomm);
/** @} */

/** Opaque neighbour topology: in and out neighbour lists over an ::MPIX_Comm. */
typedef struct MPIX_Topo MPIX_Topo;

/** @defgroup MPIX_Alltoall_init persistent all-to-all exchange of equal blocks
 *  @{ */
/**
 * Persistent MPIX_Alltoall (collective, as MPI_Alltoall_init): validates the
 * arguments, selects the algorithm (per-call hints in @p xinfo, may be NULL) and
 * precomputes its schedule, staging and sizes once. The buffers are those given
 * here; every MPIX_Start exchanges their current contents.
 * @param[in] sendbuf the blocks to send, block j to rank j (or MPI_IN_PLACE)
 * @param[in] sendcount elements of @p sendtype per block
 * @param[in] sendtype the datatype of @p sendbuf
 * @param[out] recvbuf the blocks received at each completion
 * @param[in] recvcount elements of @p recvtype per block
 * @param[in] recvtype the datatype of @p recvbuf
 * @param[in,out] xcomm the communicator wrapper
 * @param[in] xinfo per-call hints (NULL: none)
 * @param[out] request the new inactive request
 * @retval MPI_SUCCESS the request is ready for MPIX_Start()
 * @retval MPI_ERR_ARG @p xcomm or @p request is NULL
 * @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 * @retval MPI_ERR_COUNT a negative count
 * @note blocks of the wrong length, and this rank's send blocks longer (shorter)
 *        than its receive blocks, are MPI_ERR_TRUNCATE (MPI_ERR_COUNT) from the MPIX_Wait
 *        or MPIX_Test that completes the exchange
 * @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 * @retval MPI_ERR_INFO_KEY @p xinfo holds `tuning_file` (a communicator's hint)
 * @retval MPI_ERR_NO_MEM no memory for staging or scratch space
 * @retval MPI_ERR_INTERN internal error
 * @par Example
 * @code
 * #include <stddef.h>
 * #include <mpix.h>
 * int steps(MPIX_Comm *xcomm, const double *send, double *recv, int n)
 * {
 *     MPIX_Request *req;
 *     int rc = MPIX_Alltoall_init(send, 1, MPI_DOUBLE, recv, 1, MPI_DOUBLE, xcomm, NULL, &req);
 *     for (int i = 0; rc == MPI_SUCCESS && i < n; ++i)
 *         if ((rc = MPIX_Start(req)) == MPI_SUCCESS)
 *             rc = MPIX_Wait(&req, MPI_STATUS_IGNORE);
 *     return rc == MPI_SUCCESS ? MPIX_Request_free(&req) : rc;
 * }
 * @endcode
 * @see MPIX_Start, MPIX_Wait, MPIX_Test, MPIX_Request_free, MPIX_Alltoall
 */
int MPIX_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Info *xinfo,
                       MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Alltoallv_init persistent all-to-all exchange of blocks of per-rank sizes
 *  @{ */
/** Persistent MPIX_Alltoallv (collective); counts and displacements are copied at init.
 *  The buffers are those given here; every MPIX_Start() exchanges their current contents.
 *  @param[in] sendbuf the send buffer (or MPI_IN_PLACE)
 *  @param[in] sendcounts elements of @p sendtype sent to each rank (P entries)
 *  @param[in] sdispls displacement of each send block, in extents of @p sendtype
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcounts elements of @p recvtype received from each rank (P entries)
 *  @param[in] rdispls displacement of each receive block, in extents of @p recvtype
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[in] xinfo per-call hints (NULL: none)
 *  @param[out] request the new inactive request
 *  @retval MPI_SUCCESS the request is ready for MPIX_Start()
 *  @retval MPI_ERR_ARG @p xcomm, @p request, a count array or a displacement array is NULL
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count
 *  @note blocks of the wrong length, and a block this rank sends itself longer than
 *        its receive block, are MPI_ERR_TRUNCATE / MPI_ERR_COUNT from the MPIX_Wait or
 *        MPIX_Test that completes the exchange
 *  @retval MPI_ERR_BUFFER @p recvbuf is MPI_IN_PLACE, or a buffer with data is NULL
 *  @retval MPI_ERR_INFO_KEY @p xinfo holds `tuning_file` (a communicator's hint)
 *  @retval MPI_ERR_NO_MEM no memory for staging or scratch space
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <stddef.h>
 *  #include <mpix.h>
 *  int prepare(MPIX_Comm *xcomm, const int *send, const int *sc, const int *sd, int *recv,
 *              const int *rc, const int *rd, MPIX_Request **req)
 *  {
 *      return MPIX_Alltoallv_init(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, xcomm, NULL, req);
 *  }
 *  @endcode
 *  @see MPIX_Start, MPIX_Wait, MPIX_Request_free, MPIX_Alltoallv */
int MPIX_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                        MPIX_Info *xinfo, MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Start start a persistent request
 *  @{ */
/** Starts an inactive persistent request (every rank starts its requests in the same order).
 *  @param[in,out] request an inactive request from a `*_init` call
 *  @retval MPI_SUCCESS started; complete it with MPIX_Wait() or MPIX_Test()
 *  @retval MPI_ERR_REQUEST @p request is NULL or already active
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *
 *  An error of the MPI library while starting keeps its class.
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int once(MPIX_Request *req)
 *  {
 *      int rc = MPIX_Start(req);
 *      return rc == MPI_SUCCESS ? MPIX_Wait(&req, MPI_STATUS_IGNORE) : rc;
 *  }
 *  @endcode
 *  @see MPIX_Wait, MPIX_Test, MPIX_Alltoall_init, MPIX_Alltoallv_init, MPIX_Neighbor_alltoallv_init */
int MPIX_Start(MPIX_Request *request);
/** @} */

/** @defgroup MPIX_Wait complete a request
 *  @{ */
/** Completes a started request, as MPI_Wait does: a nonblocking request (MPIX_Ialltoall() and
 *  the others) is freed and @p *request set to NULL; a persistent one stays allocated and
 *  inactive, ready for the next MPIX_Start(). An inactive persistent request, or
 *  @p *request == NULL, returns at once with an empty status. While it waits it progresses
 *  every started mpix request of the process.
 *  @param[in,out] request the request; NULL after a nonblocking one completed
 *  @param[out] status an empty status whose MPI_ERROR is the return value, or MPI_STATUS_IGNORE
 *  @retval MPI_SUCCESS the exchange completed
 *  @retval MPI_ERR_ARG @p request is NULL (pass the address of an MPIX_Request *)
 *  @retval MPI_ERR_COUNT a block shorter than its receive block arrived (or this rank's own send
 *          blocks are shorter than its receive blocks)
 *  @retval MPI_ERR_TRUNCATE a block longer than its receive block arrived (or this rank's own send
 *          blocks are longer)
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *
 *  An error of the MPI library during the exchange keeps its class. A nonblocking request
 *  that failed is freed too.
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int finish(MPIX_Request **req)
 *  {
 *      MPI_Status status;
 *      return MPIX_Wait(req, &status);  // status.MPI_ERROR is the same code
 *  }
 *  @endcode
 *  @see MPIX_Ialltoallv, MPIX_Start, MPIX_Test, MPIX_Waitall */
int MPIX_Wait(MPIX_Request **request, MPI_Status *status);
/** @} */

/** @defgroup MPIX_Test test a request for completion
 *  @{ */
/** @p *flag = 1 when the started request has completed (then as MPIX_Wait(): a nonblocking
 *  request is freed and @p *request set to NULL). An inactive persistent request, or
 *  @p *request == NULL, gives @p *flag = 1 at once. Every call progresses every started
 *  mpix request of the process.
 *  @param[in,out] request the request; NULL after a nonblocking one completed
 *  @param[out] flag 1 if the exchange completed (or failed), else 0
 *  @param[out] status set when @p *flag is 1, or MPI_STATUS_IGNORE
 *  @retval MPI_SUCCESS no error so far (see @p flag)
 *  @retval MPI_ERR_ARG @p request or @p flag is NULL
 *  @retval MPI_ERR_COUNT a block shorter than its receive block arrived (or this rank's own send
 *          blocks are shorter than its receive blocks)
 *  @retval MPI_ERR_TRUNCATE a block longer than its receive block arrived (or this rank's own send
 *          blocks are longer)
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *
 *  An error of the MPI library during the exchange keeps its class.
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int overlap(MPIX_Request **req, void (*work)(void))
 *  {
 *      int flag = 0, rc = MPI_SUCCESS;
 *      while (rc == MPI_SUCCESS && !flag) {
 *          work();  // a slice of computation, then progress
 *          rc = MPIX_Test(req, &flag, MPI_STATUS_IGNORE);
 *      }
 *      return rc;
 *  }
 *  @endcode
 *  @see MPIX_Ialltoallv, MPIX_Start, MPIX_Wait, MPIX_Testall */
int MPIX_Test(MPIX_Request **request, int *flag, MPI_Status *status);
/** @} */

/** @defgroup MPIX_Waitall complete several requests
 *  @{ */
/** Completes every request of @p requests, in any order, as MPI_Waitall does (NULL entries
 *  are skipped; completed nonblocking requests are freed and their entries set to NULL).
 *  @param[in] count the number of requests
 *  @param[in,out] requests @p count requests
 *  @param[out] statuses @p count statuses (MPI_ERROR set in each), or MPI_STATUSES_IGNORE
 *  @retval MPI_SUCCESS every exchange completed
 *  @retval MPI_ERR_ARG @p count is negative or @p requests is NULL with @p count > 0
 *  @retval MPI_ERR_IN_STATUS some exchange failed: each status's MPI_ERROR says which
 *          (with MPI_STATUSES_IGNORE the first failure's class is returned instead)
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int both(MPIX_Request *reqs[2]) { return MPIX_Waitall(2, reqs, MPI_STATUSES_IGNORE); }
 *  @endcode
 *  @see MPIX_Wait, MPIX_Testall, MPIX_Ialltoallv */
int MPIX_Waitall(int count, MPIX_Request *requests[], MPI_Status *statuses);
/** @} */

/** @defgroup MPIX_Testall test several requests for completion
 *  @{ */
/** @p *flag = 1 when every request of @p requests has completed; then as MPIX_Waitall().
 *  While @p *flag is 0 nothing is freed and no status is set. Progresses every started
 *  mpix request of the process.
 *  @param[in] count the number of requests
 *  @param[in,out] requests @p count requests
 *  @param[out] flag 1 if all completed, else 0
 *  @param[out] statuses @p count statuses (set when @p *flag is 1), or MPI_STATUSES_IGNORE
 *  @retval MPI_SUCCESS no error so far (see @p flag)
 *  @retval MPI_ERR_ARG @p count is negative, @p flag is NULL, or @p requests is NULL with @p count > 0
 *  @retval MPI_ERR_IN_STATUS some exchange failed: each status's MPI_ERROR says which
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int poll(MPIX_Request *reqs[2], int *flag) { return MPIX_Testall(2, reqs, flag, MPI_STATUSES_IGNORE); }
 *  @endcode
 *  @see MPIX_Test, MPIX_Waitall */
int MPIX_Testall(int count, MPIX_Request *requests[], int *flag, MPI_Status *statuses);
/** @} */

/** @defgroup MPIX_Request_free free a request
 *  @{ */
/** Frees an inactive persistent request and sets @p *request to NULL; an active request
 *  (persistent and started, or nonblocking and not yet completed) gives MPI_ERR_REQUEST and
 *  stays as it was: complete it with MPIX_Wait() first.
 *  @param[in,out] request the request to free; set to NULL
 *  @retval MPI_SUCCESS freed
 *  @retval MPI_ERR_ARG @p request is NULL
 *  @retval MPI_ERR_REQUEST @p *request is NULL, or the request is active
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int release(MPIX_Request **req) { return MPIX_Request_free(req); }  // *req is NULL after
 *  @endcode
 *  @see MPIX_Alltoall_init, MPIX_Wait */
int MPIX_Request_free(MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Topo_init create a neighbour topology from neighbour lists
 *  @{ */
/**
 * A neighbour topology (collective over @p xcomm, as MPI_Dist_graph_create_adjacent):
 * this rank receives from @p sources and sends to @p destinations, in that order
 * (repeats and self loops allowed). Weights may be MPI_UNWEIGHTED; they are not used.
 *
 * Rank s must list d among its destinations as often as d lists s among its sources;
 * every rank returns an error when any rank's lists are wrong.
 * @param[in] indegree the number of sources
 * @param[in] sources the source ranks (@p indegree entries)
 * @param[in] sourceweights ignored (may be MPI_UNWEIGHTED)
 * @param[in] outdegree the number of destinations
 * @param[in] destinations the destination ranks (@p outdegree entries)
 * @param[in] destweights ignored (may be MPI_UNWEIGHTED)
 * @param[in,out] xcomm the communicator wrapper
 * @param[out] topo the new topology (NULL on error)
 * @retval MPI_SUCCESS created
 * @retval MPI_ERR_ARG @p xcomm or @p topo is NULL, a degree is negative, or a list is
 *         NULL with a nonzero degree
 * @retval MPI_ERR_RANK a rank in a list is out of range
 * @retval MPI_ERR_TOPOLOGY the lists do not match across ranks, or another rank's are invalid
 * @retval MPI_ERR_NO_MEM out of memory
 * @retval MPI_ERR_INTERN internal error
 * @par Example
 * @code
 * #include <mpix.h>
 * // a ring: receive from the left neighbour, send to the right one
 * int ring(MPIX_Comm *xcomm, int rank, int size, MPIX_Topo **topo)
 * {
 *     int left = (rank + size - 1) % size, right = (rank + 1) % size;
 *     return MPIX_Topo_init(1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, xcomm, topo);
 * }
 * @endcode
 * @see MPIX_Topo_init_crs, MPIX_Topo_free, MPIX_Neighbor_alltoallv
 */
int MPIX_Topo_init(int indegree, const int sources[], const int sourceweights[], int outdegree,
                   const int destinations[], const int destweights[], MPIX_Comm *xcomm,
                   MPIX_Topo **topo);
/** @} */

/** @defgroup MPIX_Topo_init_crs create a neighbour topology from a sparse exchange's pattern
 *  @{ */
/**
 * A neighbour topology from the pattern an MPIX_Alltoall(v)_crs call reported
 * (collective over @p xcomm): this rank sent to the @p send_nnz ranks @p dest and
 * received from the @p recv_nnz ranks @p src. @p reply = 0 keeps that direction
 * (destinations = dest, sources = src); @p reply = 1 reverses it (destinations =
 * src, sources = dest: the answers to halo requests, as in a sparse solver).
 * @param[in] send_nnz the number of ranks in @p dest
 * @param[in] dest the ranks this rank sent to
 * @param[in] recv_nnz the number of ranks in @p src
 * @param[in] src the ranks this rank received from
 * @param[in] reply 0: the same direction; 1: the reverse
 * @param[in,out] xcomm the communicator wrapper
 * @param[out] topo the new topology (NULL on error)
 * @retval MPI_SUCCESS created
 * @retval MPI_ERR_ARG @p xcomm or @p topo is NULL, @p reply is not 0 or 1, a count is
 *         negative, or a list is NULL with a nonzero count
 * @retval MPI_ERR_RANK a rank in a list is out of range
 * @retval MPI_ERR_TOPOLOGY the lists do not match across ranks, or another rank's are invalid
 * @retval MPI_ERR_NO_MEM out of memory
 * @retval MPI_ERR_INTERN internal error
 * @par Example
 * @code
 * #include <mpix.h>
 * // after MPIX_Alltoallv_crs sent requests to dest and got them from src:
 * // the answers go back along the reversed pattern
 * int answers(MPIX_Comm *xcomm, int nd, const int *dest, int ns, const int *src, MPIX_Topo **topo)
 * {
 *     return MPIX_Topo_init_crs(nd, dest, ns, src, 1, xcomm, topo);
 * }
 * @endcode
 * @see MPIX_Topo_init, MPIX_Alltoallv_crs, MPIX_Neighbor_alltoallv_init
 */
int MPIX_Topo_init_crs(int send_nnz, const int dest[], int recv_nnz, const int src[], int reply,
                       MPIX_Comm *xcomm, MPIX_Topo **topo);
/** @} */

/** @defgroup MPIX_Topo_free free a neighbour topology
 *  @{ */
/** Frees @p *topo and sets it to NULL (local; MPIX_Comm_free refuses while a topology lives).
 *  @param[in,out] topo the topology to free; set to NULL
 *  @retval MPI_SUCCESS freed
 *  @retval MPI_ERR_ARG @p topo or @p *topo is NULL
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  int release(MPIX_Topo **topo) { return MPIX_Topo_free(topo); }  // *topo is NULL after
 *  @endcode
 *  @see MPIX_Topo_init, MPIX_Comm_free */
int MPIX_Topo_free(MPIX_Topo **topo);
/** @} */

/** @defgroup MPIX_Neighbor_alltoallv neighbour exchange of blocks of per-neighbour sizes
 *  @{ */
/** As MPI_Neighbor_alltoallv over @p topo: block i of the send side goes to destinations[i].
 *  Block j of the receive side comes from sources[j]. Collective over the ranks of
 *  @p xcomm; the backend comes from the hint `neighbor_alltoallv_algorithm`.
 *  @param[in] sendbuf the send buffer
 *  @param[in] sendcounts elements sent to each destination (outdegree entries)
 *  @param[in] sdispls displacement of each send block, in extents of @p sendtype
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcounts elements received from each source (indegree entries)
 *  @param[in] rdispls displacement of each receive block, in extents of @p recvtype
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in] topo the neighbour topology, made on @p xcomm
 *  @param[in,out] xcomm the communicator wrapper
 *  @retval MPI_SUCCESS every block arrived
 *  @retval MPI_ERR_ARG @p xcomm, @p topo, a count array or a displacement array is NULL
 *  @retval MPI_ERR_TOPOLOGY @p topo was made on another ::MPIX_Comm
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count, or a block shorter than its receive block arrived
 *  @retval MPI_ERR_TRUNCATE a block longer than its receive block arrived
 *  @retval MPI_ERR_BUFFER a buffer with data is NULL, or MPI_IN_PLACE was given
 *  @retval MPI_ERR_NO_MEM no memory for staging or scratch space
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <mpix.h>
 *  // one double to the right neighbour and one from the left (topo from MPIX_Topo_init)
 *  int shift(MPIX_Comm *xcomm, MPIX_Topo *topo, const double *out, double *in)
 *  {
 *      int one = 1, zero = 0;
 *      return MPIX_Neighbor_alltoallv(out, &one, &zero, MPI_DOUBLE, in, &one, &zero, MPI_DOUBLE,
 *                                     topo, xcomm);
 *  }
 *  @endcode
 *  @see MPIX_Topo_init, MPIX_Neighbor_alltoallv_init, mpix(7) */
int MPIX_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPIX_Topo *topo,
                            MPIX_Comm *xcomm);
/** @} */

/** @defgroup MPIX_Neighbor_alltoallv_init persistent neighbour exchange
 *  @{ */
/** Persistent MPIX_Neighbor_alltoallv (collective); backend from the hint neighbor_alltoallv_algorithm.
 *  Counts and displacements are read at init; every MPIX_Start() exchanges the buffers' current contents.
 *  @param[in] sendbuf the send buffer
 *  @param[in] sendcounts elements sent to each destination (outdegree entries)
 *  @param[in] sdispls displacement of each send block, in extents of @p sendtype
 *  @param[in] sendtype the datatype of @p sendbuf
 *  @param[out] recvbuf the receive buffer
 *  @param[in] recvcounts elements received from each source (indegree entries)
 *  @param[in] rdispls displacement of each receive block, in extents of @p recvtype
 *  @param[in] recvtype the datatype of @p recvbuf
 *  @param[in] topo the neighbour topology, made on @p xcomm
 *  @param[in,out] xcomm the communicator wrapper
 *  @param[in] xinfo per-call hints (NULL: none)
 *  @param[out] request the new inactive request
 *  @retval MPI_SUCCESS the request is ready for MPIX_Start()
 *  @retval MPI_ERR_ARG @p xcomm, @p topo, @p request, a count array or a displacement array is NULL
 *  @retval MPI_ERR_TOPOLOGY @p topo was made on another ::MPIX_Comm
 *  @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 *  @retval MPI_ERR_COUNT a negative count
 *  @retval MPI_ERR_BUFFER a buffer with data is NULL, or MPI_IN_PLACE was given
 *  @retval MPI_ERR_INFO_KEY @p xinfo holds `tuning_file` (a communicator's hint)
 *  @retval MPI_ERR_NO_MEM out of memory
 *  @retval MPI_ERR_INTERN internal error
 *  @par Example
 *  @code
 *  #include <stddef.h>
 *  #include <mpix.h>
 *  int halo_request(MPIX_Comm *xcomm, MPIX_Topo *topo, const double *out, const int *sc,
 *                   const int *sd, double *in, const int *rc, const int *rd, MPIX_Request **req)
 *  {
 *      return MPIX_Neighbor_alltoallv_init(out, sc, sd, MPI_DOUBLE, in, rc, rd, MPI_DOUBLE,
 *                                          topo, xcomm, NULL, req);
 *  }
 *  @endcode
 *  @see MPIX_Neighbor_alltoallv, MPIX_Neighbor_alltoallv_init_indexed, MPIX_Start, MPIX_Request_free */
int MPIX_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPIX_Topo *topo,
                                 MPIX_Comm *xcomm, MPIX_Info *xinfo, MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Neighbor_alltoallv_init_indexed persistent neighbour exchange with global element indices
 *  @{ */
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
 * @param[in] sendbuf the send buffer
 * @param[in] sendcounts elements sent to each destination (outdegree entries)
 * @param[in] sdispls displacement of each send block, in extents of @p sendtype
 * @param[in] sendtype the datatype of @p sendbuf
 * @param[out] recvbuf the receive buffer
 * @param[in] recvcounts elements received from each source (indegree entries)
 * @param[in] rdispls displacement of each receive block, in extents of @p recvtype
 * @param[in] recvtype the datatype of @p recvbuf
 * @param[in] global_sindices a global index per send element
 * @param[in] global_rindices a global index per receive element
 * @param[in] topo the neighbour topology, made on @p xcomm
 * @param[in,out] xcomm the communicator wrapper
 * @param[in] xinfo per-call hints (NULL: none)
 * @param[out] request the new inactive request
 * @retval MPI_SUCCESS the request is ready for MPIX_Start()
 * @retval MPI_ERR_ARG @p xcomm, @p topo, @p request, a count or displacement array, or
 *         an index array (with elements) is NULL
 * @retval MPI_ERR_TOPOLOGY @p topo was made on another ::MPIX_Comm
 * @retval MPI_ERR_TYPE a datatype is MPI_DATATYPE_NULL, invalid or not committed
 * @retval MPI_ERR_COUNT a negative count
 * @retval MPI_ERR_BUFFER a buffer with data is NULL, or MPI_IN_PLACE was given
 * @retval MPI_ERR_INFO_KEY @p xinfo holds `tuning_file` (a communicator's hint)
 * @retval MPI_ERR_NO_MEM out of memory
 * @retval MPI_ERR_INTERN internal error
 * @par Example
 * @code
 * #include <stddef.h>
 * #include <mpix.h>
 * // sidx[e]: the global row of the e-th value sent; ridx[e]: of the e-th received
 * int halo_indexed(MPIX_Comm *xcomm, MPIX_Topo *topo, const double *out, const int *sc,
 *                  const int *sd, double *in, const int *rc, const int *rd,
 *                  const long long *sidx, const long long *ridx, MPIX_Request **req)
 * {
 *     return MPIX_Neighbor_alltoallv_init_indexed(out, sc, sd, MPI_DOUBLE, in, rc, rd, MPI_DOUBLE,
 *                                                 sidx, ridx, topo, xcomm, NULL, req);
 * }
 * @endcode
 * @see MPIX_Neighbor_alltoallv_init, mpix(7)
 */
int MPIX_Neighbor_alltoallv_init_indexed(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                         const int rdispls[], MPI_Datatype recvtype,
                                         const long long global_sindices[], const long long global_rindices[],
                                         MPIX_Topo *topo, MPIX_Comm *xcomm, MPIX_Info *xinfo,
                                         MPIX_Request **request);
/** @} */

/** @defgroup MPIX_Error_string the full text of an error mpix returned
 *  @{ */
/**
 * The full text of an error code an mpix call returned ("MPIX_Alltoallv: a block
 * sent to this rank is longer than its receive block (algorithm linear); ..."),
 * on every MPI library: for the last error mpix raised on the calling thread it
 * is that error's text (also inside an error handler it called), otherwise
 * MPI_Error_string's. @p string needs MPI_MAX_ERROR_STRING characters; it is
 * NUL-terminated and @p *resultlen is its length.
 * @param[in] errorcode an error code an mpix (or MPI) call returned
 * @param[out] string the text (MPI_MAX_ERROR_STRING characters)
 * @param[out] resultlen the length of the text
 * @retval MPI_SUCCESS the text is in @p string
 * @retval MPI_ERR_ARG @p string or @p resultlen is NULL
 *
 * For another code than mpix's last, the return value is MPI_Error_string's (e.g.
 * MPI_ERR_ARG for an invalid code).
 * @par Example
 * @code
 * #include <stdio.h>
 * #include <mpix.h>
 * void report(int rc)
 * {
 *     char text[MPI_MAX_ERROR_STRING];
 *     int len;
 *     if (rc != MPI_SUCCESS && MPIX_Error_string(rc, text, &len) == MPI_SUCCESS)
 *         fprintf(stderr, "%s\n", text);
 * }
 * @endcode
 * @see mpix.h(3) (errors)
 */
int MPIX_Error_string(int errorcode, char *string, int *resultlen);
/** @} */

/** @defgroup MPIX_Algorithm_name enumerate the algorithm registry
 *  @{ */
/**
 * Enumerates the algorithm registry: @p collective is "alltoall", "alltoallv",
 * "alltoall_crs", "alltoallv_crs" or "neighbor_alltoallv"; returns NULL past the last index.
 * The names are the values of the `*_algorithm` hints (mpix(7)). Local; needs no
 * ::MPIX_Comm.
 * @param[in] collective the collective's name
 * @param[in] index 0, 1, 2, ...
 * @return the index-th algorithm name (a static string), or NULL past the last index,
 *         for a negative index or an unknown @p collective. No MPI error is raised:
 *         this function returns no MPI_ERR_ class.
 * @par Example
 * @code
 * #include <stdio.h>
 * #include <stddef.h>
 * #include <mpix.h>
 * void list_alltoallv(void)
 * {
 *     const char *name;
 *     for (int i = 0; (name = MPIX_Algorithm_name("alltoallv", i)) != NULL; ++i)
 *         printf("%s\n", name);
 * }
 * @endcode
 * @see MPIX_Info_set, mpix(7)
 */
const char *MPIX_Algorithm_name(const char *collective, int index);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* MPIX_H_INCLUDED */
