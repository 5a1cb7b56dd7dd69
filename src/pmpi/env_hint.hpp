// Hints the drop-in reads from its own environment variables
// (MPIX_IALLTOALL_ALGORITHM, MPIX_IALLTOALLV_ALGORITHM,
// MPIX_INEIGHBOR_ALLTOALLV_ALGORITHM): a bad value is reported under the
// variable's name, as MPIX_Comm_init reports the blocking calls' variables,
// not under the hint key the drop-in sets from it.
#ifndef MPIX_PMPI_ENV_HINT_HPP
#define MPIX_PMPI_ENV_HINT_HPP

#include <mpi.h>

#include <string>

#include "core/error.hpp"
#include "mpix.h"

namespace mpix {
namespace pmpi {

// Sets `key` to `value` on `info`, raising on `comm` (the application's) where
// the environment variable `variable` holds a value `key` does not accept. (The
// drop-in sees mpix's public API only: MPIX_Info_set checks the value, with
// MPI_COMM_SELF's handler, which it raises on, returning meanwhile.)
inline int set_env_hint(MPIX_Info *info, MPI_Comm comm, const char *fn, const char *variable, const char *key,
                        const char *value)
{
    MPI_Errhandler saved = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &saved);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    const int rc = MPIX_Info_set(info, key, value);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, saved);
    MPI_Errhandler_free(&saved);
    if (rc == MPI_SUCCESS)
        return rc;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPIX_Error_string(rc, text, &length);
    int error_class = MPI_ERR_INFO_VALUE;
    MPI_Error_class(rc, &error_class);
    return raise(comm, error_class, fn,
                 (std::string("environment variable ") + variable + "='" + value + "': " + text).c_str());
}

}  // namespace pmpi
}  // namespace mpix

#endif
