#!/bin/sh
# Runs the FFT transpose example with every MPIX_Alltoall algorithm at 1-4 ranks
# (make check; one launch per algorithm and rank count); make check-stress runs it
# at 5 and 8 (MPIX_TEST_NP="5 8").
set -e
ex=./examples/fft_transpose
for algo in $(./test/readme_tables algorithms | awk -F'|' '$2 ~ /alltoall / {gsub(/[ `]/, "", $3); print $3}') auto; do
    for np in ${MPIX_TEST_NP:-1 2 3 4}; do
        ${MPIEXEC:-mpiexec} -n "$np" "$ex" $((np * 6)) "$algo" | grep -q verified || {
            echo "fft_transpose: FAILED with $algo on $np ranks"; exit 1; }
    done
done
echo "fft_transpose: 1 passed, 0 failed"
