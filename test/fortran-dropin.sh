#!/bin/sh
# A Fortran program (use mpi_f08, and use mpi) calling MPI_Ialltoallv and the
# persistent MPI_Alltoallv_init through the drop-in:
# built with mpifort, run at 3 ranks with libmpix_pmpi preloaded on several
# rows (node-aware ones on emulated nodes of 2); right data, and the trace
# files prove mpix ran (where the MPI library lets the drop-in intercept
# MPI_Ialltoallv: generalized requests with a poll function).
set -e
top="${srcdir:-.}"
fc="${MPIFORT:-mpifort}"
if ! command -v "$fc" >/dev/null 2>&1; then
    echo "FAIL: no $fc (Debian: libmpich-dev provides it)"
    exit 1
fi
dir=$(mktemp -d /tmp/mpix-f08-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$fc" -DMPIX_F08 -o "$dir/ialltoallv_f08" "$top/test/ialltoallv_fortran.F90"
"$fc" -o "$dir/ialltoallv_mpi" "$top/test/ialltoallv_fortran.F90"
lib="$(pwd)/.libs"
intercepts=no
nm -D --defined-only "$lib/libmpix_pmpi.so" | grep -q ' MPI_Ialltoallv$' && intercepts=yes
for program in ialltoallv_f08 ialltoallv_mpi; do
  for row in pairwise parlogna node_bruck; do
    rm -f "$dir"/trace.*
    out=$(env LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$lib/libmpix_pmpi.so" \
              MPIX_IALLTOALLV_ALGORITHM=$row MPIX_PPN=2 MPIX_TRACE="$dir/trace" \
              ${MPIEXEC:-mpiexec} -n 3 "$dir/$program")
    echo "$program $row: $out"
    case "$out" in *"No Errors"*) ;; *) echo "FAIL: $program $row: wrong data"; exit 1 ;; esac
    traces=$(ls "$dir" | grep -c '^trace\.' || true)
    if [ $intercepts = yes ] && [ "$traces" -ne 3 ]; then
        echo "FAIL: $program $row: $traces trace files, expected 3 (the calls did not run through mpix)"
        exit 1
    fi
  done
done
echo "PASS: MPI_Ialltoallv and MPI_Alltoallv_init from Fortran (mpi_f08, mpi) through the drop-in (intercepted: $intercepts)"
