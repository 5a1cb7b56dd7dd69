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

// What an intercepted call finds on `comm`: `none` where the MPI library takes
// the call as it is (MPI_COMM_NULL, or a handle MPI cannot read: it reports
// that at the call), else whether a value is cached (`*value`).
enum class Cached { none, absent, present };
template <MPI_Comm_delete_attr_function *Delete, class T>
Cached cached_attribute(MPI_Comm comm, T **value)
{
    *value = nullptr;
    if (comm == MPI_COMM_NULL)
        return Cached::none;
    int flag = 0;
    void *attr = nullptr;
    if (MPI_Comm_get_attr(comm, attribute_keyval<Delete>(), &attr, &flag) != MPI_SUCCESS)
        return Cached::none;
    *value = static_cast<T *>(attr);
    return flag ? Cached::present : Cached::absent;
}

}  // namespace pmpi
}  // namespace mpix

#endif
