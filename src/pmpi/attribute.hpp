// The drop-in caches its state on the application's communicators as
// attributes, freed with them.
#ifndef MPIX_PMPI_ATTRIBUTE_HPP
#define MPIX_PMPI_ATTRIBUTE_HPP

#include <mpi.h>

namespace mpix {
namespace pmpi {

// The attribute key whose values `Delete` frees, created once per process and
// read-only afterwards (a function-local static: after the first call one
// load, where std::call_once cost about 100 instructions on every exchange).
template <MPI_Comm_delete_attr_function *Delete>
int attribute_keyval()
{
    static const int keyval = [] {
        int k = MPI_KEYVAL_INVALID;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, Delete, &k, nullptr);
        return k;
    }();
    return keyval;
}

}  // namespace pmpi
}  // namespace mpix

#endif
