#!/bin/sh
# Reproduces every committed file in bench/results/ (run from the top of a built
# tree: ./configure && make, and `make sim` for the SMPI part).
#   bench/results/regenerate.sh [native] [smpi]     (default: both)
# Environment: NP (native ranks, 8), PLATFORM (dragonfly-64x16), RUNS (names from
#   smpi-runs.txt, default all), MPIEXEC (mpiexec).
# Native numbers depend on the machine and its load: say where they were taken.
# SMPI numbers are simulated time (sim/run: smpi/simulate-computation:no, 1 us
# per-message overheads; see sim/README.md), identical from run to run.
set -e
out=bench/results
parts="${*:-native smpi}"
np="${NP:-8}"
sizes=16,64,256,1024,4096,16384,65536

has_algorithms() {  # collective -> true if the registry has rows for it
    bench/mpix-bench --list | awk -v c="$1:" '$0 == c {f = 1; next} /^[a-z_]+:$/ {f = 0} f {n++} END {exit n ? 0 : 1}'
}

for part in $parts; do
case $part in
native)
    rm -f "$out/native-P$np.csv"
    for coll in alltoall alltoallv alltoall_crs alltoallv_crs; do
        if ! has_algorithms $coll; then
            echo "regenerate: no $coll algorithms in the registry, skipped" >&2
            continue
        fi
        ${MPIEXEC:-mpiexec} -n "$np" bench/mpix-bench --coll $coll --algo all --size $sizes \
            --iters 20 --warmup 3 --csv "$out/native-P$np.csv"
    done
    bench/plot -o "$out" --prefix native "$out/native-P$np.csv"
    # ParLogNa's radices beside two_phase_bruck (issue 3's P=8 figures).
    rm -f "$out/native-parlogna-P$np.csv"
    ${MPIEXEC:-mpiexec} -n "$np" bench/mpix-bench --coll alltoallv --algo two_phase_bruck,parlogna \
        --radix 2,3,$((np - 1)) --batch 32 --size 16,1024,16384 --iters 20 --warmup 3 \
        --csv "$out/native-parlogna-P$np.csv"
    # Every sparse backend on every shared matrix, nodes of 4 emulated ranks.
    rm -f "$out/native-crs-P$np.csv"
    for m in "${MPIX_MATRIX_DIR:-test/data/matrices}"/*.mtx; do
        for coll in alltoall_crs alltoallv_crs; do
            ${MPIEXEC:-mpiexec} -n "$np" bench/mpix-bench --coll $coll --algo all --dist "matrix:$m" --ppn 4 \
                --iters 10 --warmup 2 --csv "$out/native-crs-P$np.csv"
        done
    done
    # Neighbour exchange on the largest shared matrices, blocking and persistent,
    # on the real node and on emulated nodes of one rank (committed: NP=2).
    rm -f "$out/native-neighbor-P$np.csv"
    for ppn in 0 1; do
        for m in radfr1 can_1054 SmaGri tumorAntiAngiogenesis_4; do
            ${MPIEXEC:-mpiexec} -n "$np" bench/mpix-bench --coll neighbor_alltoallv --matrix "${MPIX_MATRIX_DIR:-test/data/matrices}/$m.mtx" \
                --algo all --persistent --iters 200 --warmup 20 --ppn $ppn --csv "$out/native-neighbor-P$np.csv"
        done
    done
    ;;
smpi)
    # One simulation per line of smpi-runs.txt (NAME|NP|mpix-bench arguments, and
    # optionally |NAME of SimGrid's MPI_Alltoallv, see sim/run's SIM_ALLTOALLV,
    # |BYTES for SIM_SHARED_MALLOC, for timing-only runs with --no-verify, and
    # |SimGrid options for SIM_EXTRA, e.g. --cfg=maxmin/precision:1e-4, which
    # avoids a solver crash in some P=1024 runs: sim/README.md, |a platform for
    # this line only),
    # on ${PLATFORM:-dragonfly-64x16}, each writing smpi-NAME.csv; lines of the
    # same NAME (one simulation per row where rows are expensive) append to one
    # CSV. RUNS="NAME ..." regenerates only those. Costs (wall time on the 2-core
    # build machine) are in the comment after each line.
    platform="${PLATFORM:-dragonfly-64x16}"
    started=" "
    while IFS='|' read -r name np args alltoallv shared extra line_platform; do
        case "$name" in ''|'#'*) continue ;; esac
        if [ -n "${RUNS:-}" ]; then
            case " $RUNS " in *" $name "*) ;; *) continue ;; esac
        fi
        csv="$out/smpi-$name.csv"
        case "$started" in
            *" $name "*) ;;
            *) rm -f "$csv"; started="$started$name " ;;
        esac
        # shellcheck disable=SC2086
        # Empty fields leave sim/run's own defaults in force.
        SIM_ALLTOALLV="$alltoallv" SIM_SHARED_MALLOC="$shared" SIM_EXTRA="$extra" sim/run "${line_platform:-$platform}" "$np" -- $args --csv "$csv" </dev/null
    done < "$out/smpi-runs.txt"
    bench/plot -o "$out" --prefix smpi "$out"/smpi-*.csv
    ;;
*) echo "regenerate: unknown part $part (native, smpi)" >&2; exit 2 ;;
esac
done
