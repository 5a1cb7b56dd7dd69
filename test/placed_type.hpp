// Types for MPI_BOTTOM: a buffer's element type placed at the buffer's absolute
// address, as Fortran and C codes build them with MPI_Get_address.
#ifndef MPIX_TEST_PLACED_TYPE_HPP
#define MPIX_TEST_PLACED_TYPE_HPP

#include <mpi.h>

namespace mpixtest {

// A struct of one `element` at `buf`'s address, resized to the element's bounds
// there: element e of it at MPI_BOTTOM is element e of `element` at buf.
// Committed; the caller frees it.
inline MPI_Datatype placed_at(MPI_Datatype element, const void *buf)
{
    MPI_Aint at, lb, extent;
    MPI_Get_address(buf, &at);
    MPI_Type_get_extent(element, &lb, &extent);
    int one = 1;
    MPI_Datatype placed, resized;
    MPI_Type_create_struct(1, &one, &at, &element, &placed);
    MPI_Type_create_resized(placed, MPI_Aint_add(at, lb), extent, &resized);
    MPI_Type_free(&placed);
    MPI_Type_commit(&resized);
    return resized;
}

}  // namespace mpixtest

#endif
