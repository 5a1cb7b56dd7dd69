#!/bin/sh
# MPIX_Alltoall_c / MPIX_Alltoallv_c past 2^31 bytes on every registry row, at 1
# and 2 ranks: each rank receives a little over 2 GiB (sparse buffers: only the
# pages written use memory). The rows that pad every block to the largest take
# the 2 GiB block at 1 rank only (test/test_large_count.cpp says why). At 2
# ranks the two whole-block cases run in make check-stress (MPIX_TEST_LEVEL=full).
set -e
for np in 1 2; do
    ${MPIEXEC:-mpiexec} -n $np test/large_count
done
