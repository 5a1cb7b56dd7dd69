#!/bin/sh
# mpix-vis: pages from real runs at 5-8 ranks, their data replayed independently,
# then driven in headless Chromium step by step (test/vis_check.py). Screenshots:
# test/vis-shots/. Skipped (77), saying why, only without /usr/bin/python3, or for
# the browser part without chromium, chromium-driver and python3-selenium.
set -u
top="${srcdir:-.}"
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "SKIP: $python not found (mpix-vis is a Python 3 script)"
    exit 77
fi
# The pages record their launcher's command, so they get the MPI launcher itself;
# under make check the whole script takes one turn of test/mpiexec-turns instead
# (its runs are of 5-8 ranks).
turn=
[ -n "${MPIX_TEST_MPIEXEC:-}" ] && turn="$MPIX_TEST_MPIEXEC --turn"
exec $turn "$python" "$top/test/vis_check.py" --vis vis/mpix-vis --assets "$top/vis/page" --bench bench/mpix-bench \
    --mpiexec "${MPIX_REAL_MPIEXEC:-${MPIEXEC:-mpiexec}}" --out test/vis-shots --csv "$top/bench/results/native-P8.csv"
