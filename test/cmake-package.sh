#!/bin/sh
# The installed CMake package: stages `make install DESTDIR=...` from this build
# tree into a temporary directory, then builds a small CMake project against it
# (find_package(mpix) with CMAKE_PREFIX_PATH, targets mpix::mpix and mpix::pmpi)
# and runs it on 2 ranks. Everything is written under one temporary directory,
# nothing into the source or build tree; exits 77 (skipped) without cmake.
# Reads MPIEXEC, MPIX_INSTALL_PREFIX and MPIX_INSTALL_LIBDIR (set by make check).
set -e
if ! command -v cmake >/dev/null 2>&1; then
    echo "SKIP: cmake not found, the CMake package was not tested (apt-get install cmake)"
    exit 77
fi
prefix="${MPIX_INSTALL_PREFIX:?run me through make check}"
libdir="${MPIX_INSTALL_LIBDIR:?run me through make check}"
builddir=$(pwd)
test -f "$builddir/Makefile" && test -f "$builddir/libmpix.la" || { echo "run me from the build directory"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpix-cmake-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage="$tmp/stage"
fail() { echo "FAILED: $*"; echo "cmake-package: 0 passed, 1 failed"; exit 1; }

# Staged install. Its own DESTDIR, so it cannot collide with anything else that
# make check runs; MAKEFLAGS from make check (-j, TESTS=...) are not needed here.
# Under make check it takes a turn of test/mpiexec-turns, alone: libtool relinks
# libmpix_pmpi.so on install and moves the build's copy aside meanwhile, and a
# drop-in run beside it then found no library to preload (fortran-dropin.sh).
turn=
[ -n "${MPIX_TEST_MPIEXEC:-}" ] && turn="$MPIX_TEST_MPIEXEC --turn"
if ! $turn env -u MAKEFLAGS -u MFLAGS "${MAKE:-make}" -C "$builddir" install DESTDIR="$stage" >"$tmp/install.log" 2>&1; then
    tail -30 "$tmp/install.log"
    fail "make install DESTDIR=$stage"
fi
config="$stage$libdir/cmake/mpix"
ls "$config/mpixConfig.cmake" "$config/mpixConfigVersion.cmake" || fail "no CMake package installed in $config"

mkdir "$tmp/app"
cat >"$tmp/app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(mpix_cmake_package_test C)
find_package(mpix 0.1 REQUIRED)
message(STATUS "mpix ${mpix_VERSION} from ${mpix_DIR}")
get_filename_component(found "${mpix_DIR}" REALPATH)
get_filename_component(expected "${EXPECTED_CONFIG_DIR}" REALPATH)
if(NOT found STREQUAL expected)
  message(FATAL_ERROR "found mpix in ${mpix_DIR}, not the staged ${EXPECTED_CONFIG_DIR}")
endif()
add_executable(exchange exchange.c)
target_link_libraries(exchange PRIVATE mpix::mpix)
add_executable(interposed interposed.c)
target_link_libraries(interposed PRIVATE mpix::pmpi)
EOF
# MPIX_Alltoall of one int per pair on MPI_COMM_WORLD; rank 0 prints the result.
cat >"$tmp/app/exchange.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <mpix.h>

int main(int argc, char **argv)
{
    int rank, size, ok = 1, all = 0;
    MPIX_Comm *xcomm = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *send = malloc(size * sizeof(int)), *recv = malloc(size * sizeof(int));
    for (int j = 0; j < size; ++j) {
        send[j] = 1000 * rank + j;
        recv[j] = -1;
    }
    ok &= MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) == MPI_SUCCESS;
    ok &= MPIX_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, xcomm) == MPI_SUCCESS;
    for (int j = 0; j < size; ++j)
        ok &= recv[j] == 1000 * j + rank;
    ok &= MPIX_Comm_free(&xcomm) == MPI_SUCCESS && xcomm == NULL;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpix::mpix exchange %s on %d ranks\n", all ? "verified" : "WRONG", size);
    free(send);
    free(recv);
    MPI_Finalize();
    return all ? 0 : 1;
}
EOF
# Plain MPI_Alltoall through libmpix_pmpi (the script checks mpix's trace file).
cat >"$tmp/app/interposed.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <mpix.h>

int main(int argc, char **argv)
{
    int rank, size, ok = 1, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *send = malloc(size * sizeof(int)), *recv = malloc(size * sizeof(int));
    for (int j = 0; j < size; ++j) {
        send[j] = 1000 * rank + j;
        recv[j] = -1;
    }
    ok &= MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
    for (int j = 0; j < size; ++j)
        ok &= recv[j] == 1000 * j + rank;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpix::pmpi MPI_Alltoall %s on %d ranks (first algorithm %s)\n", all ? "verified" : "WRONG",
               size, MPIX_Algorithm_name("alltoall", 0));
    free(send);
    free(recv);
    MPI_Finalize();
    return all ? 0 : 1;
}
EOF

# CMAKE_PREFIX_PATH is the staged prefix: find_package must find lib*/cmake/mpix there.
cmake -S "$tmp/app" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$stage$prefix" \
    -DEXPECTED_CONFIG_DIR="$config" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$tmp/cmake.log" 2>&1 \
    || { cat "$tmp/cmake.log"; fail "cmake could not configure a project with find_package(mpix)"; }
grep 'mpix .* from ' "$tmp/cmake.log"
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 \
    || { cat "$tmp/build.log"; fail "the project linking mpix::mpix and mpix::pmpi did not build"; }

run="${MPIEXEC:-mpiexec} -n 2"
out=$($run "$tmp/build/exchange") || { echo "$out"; fail "exchange exited non-zero"; }
echo "$out"
echo "$out" | grep -q '^mpix::mpix exchange verified on 2 ranks$' || fail "no verified exchange"
out=$(MPIX_TRACE="$tmp/trace" MPIX_ALLTOALL_ALGORITHM=pairwise $run "$tmp/build/interposed") \
    || { echo "$out"; fail "interposed exited non-zero"; }
echo "$out"
echo "$out" | grep -q '^mpix::pmpi MPI_Alltoall verified on 2 ranks' || fail "no verified MPI_Alltoall"
grep -q '"algorithm":"pairwise"' "$tmp/trace.0.jsonl" || fail "MPI_Alltoall did not run through mpix (no trace)"

# The version file: a request for another major version is refused.
mkdir "$tmp/v"
cat >"$tmp/v/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(mpix_version_test NONE)
find_package(mpix 1.0 QUIET)
if(mpix_FOUND)
  message(STATUS "mpix 1.0 found: yes")
else()
  message(STATUS "mpix 1.0 found: no")
endif()
EOF
cmake -S "$tmp/v" -B "$tmp/vbuild" -DCMAKE_PREFIX_PATH="$stage$prefix" >"$tmp/v.log" 2>&1 \
    || { cat "$tmp/v.log"; fail "cmake with find_package(mpix 1.0 QUIET)"; }
grep -q 'mpix 1.0 found: no' "$tmp/v.log" || { cat "$tmp/v.log"; fail "mpix 1.0 accepted"; }
echo "cmake-package: 1 passed, 0 failed"
