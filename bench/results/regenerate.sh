#!/bin/sh
# Reproduces every committed file in bench/results/ (run from the top of a built
# tree: ./configure && make, and `make sim` for the SMPI part).
#   bench/results/regenerate.sh [native] [smpi]     (default: both)
# Environment: NP (native ranks, 8), SMPI_NP ("256 1024"), PLATFORM (dragonfly-64x16),
#   MPIEXEC (mpiexec).
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
    ;;
smpi)
    platform="${PLATFORM:-dragonfly-64x16}"
    for p in ${SMPI_NP:-256 1024}; do
        csv="$out/smpi-$platform-P$p.csv"
        rm -f "$csv"
        # SimGrid's own MPI_Alltoallv (ompi_basic_linear: every message at once)
        # costs ~P^4 to simulate; at P >= 512 the baseline is mpix's faithful
        # copy of MPICH's default (scattered, batch 32), and the all-at-once
        # algorithms are left out (see sim/README.md: cost of a simulation).
        if [ "$p" -ge 512 ]; then
            base="--baseline scattered"; algos="all,-pmpi,-linear,-nonblocking"
        else
            base=""; algos=all
        fi
        for dist in uniform normal powerlaw fft1 fft2; do
            case $dist in fft*) size="" ;; *) size="--size 16,256,4096" ;; esac
            sim/run "$platform" "$p" -- --coll alltoallv --algo $algos $size --dist $dist \
                --radix sweep --batch sweep $base --csv "$csv"
        done
        bench/plot -o "$out" --prefix "smpi-$platform" "$csv"
    done
    ;;
*) echo "regenerate: unknown part $part (native, smpi)" >&2; exit 2 ;;
esac
done
