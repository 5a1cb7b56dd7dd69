#!/bin/sh
# test/fuzz's randomized cases (test/test_fuzz.cpp), short: 300 at 3 ranks, then
# 200 at 4 under MPI_THREAD_MULTIPLE with the progress thread on a third of them,
# then 150 at 3 ranks through the drop-in (test/fuzz-dropin: MPI's own calls,
# intercepted) (about 35 s on two cores). Fixed seeds, so a run repeats; make
# check-stress runs 1,000 more of each from other seeds. A failure prints the
# seed that repeats it.
set -e
run="timeout 600 ${MPIEXEC:-mpiexec}"
MPIX_FUZZ_CASES=300 MPIX_FUZZ_SEED=3000 $run -n 3 test/fuzz
MPIX_FUZZ_THREADS=1 MPIX_FUZZ_CASES=200 MPIX_FUZZ_SEED=4000 $run -n 4 test/fuzz
MPIX_FUZZ_CASES=150 MPIX_FUZZ_SEED=5000 $run -n 3 test/fuzz-dropin
