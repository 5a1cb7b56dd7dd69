#!/bin/sh
# Reproduces every committed file in bench/results/ (run from the top of a built
# tree: ./configure && make, and `make sim` for the SMPI part).
#   bench/results/regenerate.sh [native] [smpi] [tune]   (default: native smpi)
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
tune)
    # Issue 17: the tuned tables in bench/tables/ and their held-back checks
    # (bench/results/tune/). Training points build a table; --check-table then
    # times every candidate and auto with that table at points the table was not
    # built from (other sizes and distributions). The direct rows (every message
    # at once or P-1 steps) are left out at 16 ranks per node: they pay P-1
    # message overheads (255 us at P=256 on top of the bytes), which auto beats
    # at every point, and cost minutes per row to simulate at P=1024;
    # parlinna_staggered and padded_* are left out of the checks (1.47-7.7x the
    # best at every P=256 training point). Checks use one warm-up call
    # (node_bruck's radix follows the previous call's volume). Costs on the
    # 2-core machine, beside one other job: P=256 train 25 min, check 40 min;
    # P=1024 train 70 min, check 90 min; fattree ppn 1 train 18 min, checks 25 min.
    t=$out/tune
    tables=bench/tables
    tune="build-smpi/bench/mpix-tune"
    direct="linear,nonblocking,scattered,pairwise,randomized_scatter,randomized_sendrecv,randomized_segmented,randomized,pmpi"
    rm -f "$t"/*.csv
    sim/run dragonfly-64x16 256 --prog $tune -- --coll alltoall,alltoallv --sizes 16,256,4096 --dists uniform \
        --radix 2,4,16 --batch 8,32 --leaders 1,4 --exclude $direct \
        --csv "$t/dragonfly-64x16-train-P256.csv" --out "$t/dragonfly-64x16-P256.json" --platform dragonfly-64x16
    # P=1024: 4096 B blocks need more than 24 GB of simulated ranks' scratch (node_bruck
    # radix 2), so the sizes stop at 1 KiB; one leader and the non-blocking inner
    # exchange (pairwise and 4 leaders never won at P=256; 4 leaders cost >15 min).
    SIM_EXTRA=--cfg=maxmin/precision:1e-4 sim/run dragonfly-64x16 1024 --prog $tune -- --coll alltoall,alltoallv \
        --sizes 16,256,1024 --dists uniform --radix 2,4,16 --batch 8 --leaders 1 --inner nonblocking \
        --exclude $direct,parlinna_staggered \
        --csv "$t/dragonfly-64x16-train-P1024.csv" --out "$t/dragonfly-64x16-P1024.json" --platform dragonfly-64x16
    $tune --from-csv --csv "$t/dragonfly-64x16-train-P256.csv,$t/dragonfly-64x16-train-P1024.csv" \
        --out "$tables/dragonfly-64x16.json" --platform dragonfly-64x16
    check="--warmup 1 --inner nonblocking --check-table $tables/dragonfly-64x16.json --platform dragonfly-64x16"
    sim/run dragonfly-64x16 256 --prog $tune -- --coll alltoall,alltoallv --sizes 64,1024,16384 \
        --dists uniform,normal,powerlaw --radix 2,4,16 --batch 8,32 --leaders 1,4 \
        --exclude $direct,padded_alltoall,padded_bruck,parlinna_staggered $check --csv "$t/dragonfly-64x16-heldback-P256.csv"
    sim/run dragonfly-64x16 256 --prog $tune -- --coll alltoallv --sizes 16,256,4096 --dists normal,powerlaw \
        --radix 2,4,16 --batch 8,32 --leaders 1,4 \
        --exclude $direct,padded_alltoall,padded_bruck,parlinna_staggered $check --csv "$t/dragonfly-64x16-heldback-P256.csv"
    SIM_EXTRA=--cfg=maxmin/precision:1e-4 sim/run dragonfly-64x16 1024 --prog $tune -- --coll alltoall,alltoallv \
        --sizes 64,512 --dists uniform,normal,powerlaw --radix 2,4,16 --batch 8 --leaders 1 \
        --exclude $direct,padded_alltoall,padded_bruck,parlinna_staggered $check --csv "$t/dragonfly-64x16-heldback-P1024.csv"
    SIM_EXTRA=--cfg=maxmin/precision:1e-4 sim/run dragonfly-64x16 1024 --prog $tune -- --coll alltoallv \
        --sizes 16,256,1024 --dists normal,powerlaw --radix 2,4,16 --batch 8 --leaders 1 \
        --exclude $direct,padded_alltoall,padded_bruck,parlinna_staggered $check --csv "$t/dragonfly-64x16-heldback-P1024.csv"
    # One rank per node on the fat tree (P = 16 and 64): every row, direct ones included.
    ppn1="--ranks 16,64 --radix 2,4,8 --batch 8,32 --platform fattree-64x16,1-rank-per-node"
    sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --sizes 16,256,4096,65536 --dists uniform,normal \
        --csv "$t/fattree-64x16-ppn1-train.csv" --out "$tables/fattree-64x16-ppn1.json"
    for table in "$tables/fattree-64x16-ppn1.json" src/select/default_table.json; do
        case $table in src/*) csv="$t/fattree-64x16-ppn1-builtin.csv,$t/fattree-64x16-ppn1-heldback.csv" ;;
                       *) csv="$t/fattree-64x16-ppn1-heldback.csv" ;; esac
        sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --check-table "$table" --csv "$csv" \
            --coll alltoall,alltoallv --sizes 64,1024,16384 --dists uniform,normal,powerlaw
        sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --check-table "$table" --csv "$csv" \
            --coll alltoallv --sizes 16,256,4096,65536 --dists powerlaw
    done
    for f in "$t"/*heldback*.csv "$t"/*builtin*.csv; do
        case $f in *builtin*) more="$t/fattree-64x16-ppn1-heldback.csv" ;; *) more= ;; esac
        bench/results/tune/heldback.py "$f" $more > "${f%.csv}.md"
    done
    ;;
*) echo "regenerate: unknown part $part (native, smpi, tune)" >&2; exit 2 ;;
esac
done
