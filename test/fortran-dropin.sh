#!/bin/sh
# A Fortran program (use mpi_f08) calling MPI_Ialltoallv through the drop-in:
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
"$fc" -o "$dir/ialltoallv_f08" "$top/test/ialltoallv_f08.f90"
lib="$(pwd)/.libs"
intercepts=no
nm -D --defined-only "$lib/libmpix_pmpi.so" | grep -q ' MPI_Ialltoallv$' && intercepts=yes
for row in pairwise parlogna node_bruck; do
    rm -f "$dir"/trace.*
    out=$(env LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$lib/libmpix_pmpi.so" \
              MPIX_IALLTOALLV_ALGORITHM=$row MPIX_PPN=2 MPIX_TRACE="$dir/trace" \
              ${MPIEXEC:-mpiexec} -n 3 "$dir/ialltoallv_f08")
    echo "$row: $out"
    case "$out" in *"No Errors"*) ;; *) echo "FAIL: $row: wrong data"; exit 1 ;; esac
    traces=$(ls "$dir" | grep -c '^trace\.' || true)
    if [ $intercepts = yes ] && [ "$traces" -ne 3 ]; then
        echo "FAIL: $row: $traces trace files, expected 3 (the call did not run through mpix)"
        exit 1
    fi
done
echo "PASS: MPI_Ialltoallv from Fortran (mpi_f08) through the drop-in (intercepted: $intercepts)"
