#!/bin/sh
# Reproduces every committed file in bench/results/ (run from the top of a built
# tree: ./configure && make, and `make sim` for the SMPI part).
#   bench/results/regenerate.sh [native] [smpi] [charged] [skew] [agreement] [tune] [calibration] [calibration-P16]
#                               [calibration-P8] [calibration-P12] [calibration-instructions]
#                               [calibration-instructions-P16] [overlap] [cpu-piece] [cpu-block]
#   (tune = tune-dragonfly tune-fattree tune-flat tune-dragonfly64, each runnable alone)
#                                                  (default: native charged)
# Environment: NP (native ranks, 8), PLATFORM (dragonfly-64x16), RUNS (names from
#   smpi-runs.txt, default all), MPIEXEC (mpiexec).
# Native numbers depend on the machine and its load: say where they were taken.
# SMPI numbers are simulated time (sim/run: smpi/simulate-computation:no, 1 us
# per-message overheads; see sim/README.md), identical from run to run.
set -e
out=bench/results
parts="${*:-native charged}"
parts=$(echo " $parts " | sed "s/ tune / tune-dragonfly tune-fattree tune-flat tune-dragonfly64 /")
np="${NP:-8}"
# The 16-core machine lent for the calibrations at 8-16 ranks, in their reports' words.
device_machine="the device machine's 16 cores (Xeon family 6 model 207, Emerald Rapids, under KVM)"
sizes=16,64,256,1024,4096,16384,65536

# The native, smpi and charged parts end in bench/plot: refuse before hours of
# simulation rather than after them.
case " $parts " in
*" native "*|*" smpi "*|*" charged "*)
    if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
        echo "regenerate: bench/plot needs matplotlib (Debian: apt-get install python3-matplotlib)" >&2
        exit 1
    fi ;;
esac

algorithms_of() {  # collective -> the names of its registry rows, one a line
    bench/mpix-bench --list | awk -v c="$1:" '$0 == c {f = 1; next} /^[a-z_]+:$/ {f = 0} f {print $1}'
}
has_algorithms() {  # collective -> true if the registry has rows for it
    [ -n "$(algorithms_of "$1")" ]
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
smpi|charged|skew|overlap)
    # One simulation per line of a runs file (NAME|NP|mpix-bench arguments, and
    # optionally |NAME of SimGrid's MPI_Alltoallv, see sim/run's SIM_ALLTOALLV,
    # |BYTES for SIM_SHARED_MALLOC, for timing-only runs with --no-verify, and
    # |SimGrid options for SIM_EXTRA, e.g. --cfg=maxmin/precision:1e-4, which
    # avoids a solver crash in some P=1024 runs: sim/README.md, |a platform for
    # this line only),
    # on ${PLATFORM:-dragonfly-64x16}, each writing PREFIX-NAME.csv; lines of the
    # same NAME (one simulation per row where rows are expensive) append to one
    # CSV. RUNS="NAME ..." regenerates only those. Costs (wall time on the 2-core
    # build machine) are in the comment after each line.
    #   smpi: smpi-runs.txt -> smpi-NAME.csv, the evidence from before issue 29,
    #         when the library's copies were free in the model (--copy-bw 0).
    #   charged: charged/runs.txt -> charged/NAME.csv, the same exchanges with
    #         the library's copies charged at each platform's copy model.
    #   skew: skew/runs.txt -> skew/NAME.csv, issue 32's nodes of 64 and 128
    #         ranks and skewed workloads (kept apart: charged/'s tables pick rows
    #         by P and size alone).
    #   overlap: overlap/runs.txt -> overlap/NAME.csv, issue 30's overlap of
    #         every row (mpix-bench --overlap; docs/persistent-neighbour.md).
    platform="${PLATFORM:-dragonfly-64x16}"
    if [ "$part" = smpi ]; then
        list="$out/smpi-runs.txt" prefix="$out/smpi-" copies="--copy-bw 0"
    else
        list="$out/$part/runs.txt" prefix="$out/$part/" copies=""
    fi
    started=" "
    while IFS='|' read -r name np args alltoallv shared extra line_platform; do
        case "$name" in ''|'#'*) continue ;; esac
        if [ -n "${RUNS:-}" ]; then
            case " $RUNS " in *" $name "*) ;; *) continue ;; esac
        fi
        csv="$prefix$name.csv"
        case "$started" in
            *" $name "*) ;;
            *) rm -f "$csv"; started="$started$name " ;;
        esac
        # shellcheck disable=SC2086
        # Empty fields leave sim/run's own defaults in force.
        SIM_ALLTOALLV="$alltoallv" SIM_SHARED_MALLOC="$shared" SIM_EXTRA="$extra" \
            sim/run "${line_platform:-$platform}" "$np" $copies -- $args --csv "$csv" </dev/null
    done < "$list"
    if [ "$part" = smpi ]; then
        bench/plot -o "$out" --prefix smpi "$out"/smpi-*.csv
    elif [ "$part" = skew ]; then
        # Tables in sim/README.md, "The bound of an exchange". Then the terms of
        # node_bruck's time at P=4096 (its section "Where node_bruck's time goes at
        # P = 4096"): the runs file's call with the copies free, and with the
        # per-message overhead measured on a real 16-core node (0.44 us, device-16).
        # About 4 min wall each.
        if [ -z "${RUNS:-}" ] || [ "${RUNS#*terms-P4096}" != "$RUNS" ]; then
            terms="--coll alltoallv --algo node_bruck --size 16 --iters 1 --warmup 0 --baseline none"
            rm -f "$out/skew/terms-copies-free-P4096.csv" "$out/skew/terms-o044-P4096.csv"
            # shellcheck disable=SC2086
            sim/run dragonfly-256x64 4096 --copy-bw 0 -- $terms --csv "$out/skew/terms-copies-free-P4096.csv" </dev/null
            # shellcheck disable=SC2086
            SIM_O=4.4e-7 sim/run dragonfly-256x64 4096 -- $terms --csv "$out/skew/terms-o044-P4096.csv" </dev/null
        fi
    elif [ "$part" = overlap ]; then
        :  # the table in docs/persistent-neighbour.md, "Every row"
    else
        bench/plot -o "$out/charged" --prefix charged "$out"/charged/*.csv
        /usr/bin/python3 "$out/charged/compare.py" > "$out/charged/compare.md"
        /usr/bin/python3 "$out/charged/readme_tables.py" > "$out/charged/readme-tables.md"
    fi
    ;;
tune-dragonfly|tune-fattree|tune-flat|tune-dragonfly64)
    # Issue 17: the tuned tables in bench/tables/ and their held-back checks
    # (bench/results/tune/, docs/tuning.md, "Tuned tables"). Training points build a table
    # (mpix-tune --from-csv); --check-table then times every candidate and auto
    # with that table at points the table was not built from (other sizes and
    # distributions), one warm-up call each (node_bruck's radix follows the
    # previous call's volume); auto in a steady run of its agreements (34 warm-up
    # and 16 timed calls, bench/README.md). Left out at 16 ranks per node: the direct rows (they
    # pay P-1 message overheads, 255 us at P=256, where auto takes 27-2631 us at
    # 1.02-2.0x the bound, and cost minutes per row to simulate at P=1024); from the
    # checks also the rows at 1.4x the best or slower at every training point of
    # that P (named below). Wall times on the 2-core machine, beside 1-2 other jobs.
    t=$out/tune
    tables=bench/tables
    tune=build-smpi/bench/mpix-tune
    direct=linear,nonblocking,scattered,nonempty,pairwise,randomized_scatter,randomized_sendrecv,randomized_segmented,randomized,pmpi
    slow256=padded_alltoall,padded_bruck,parlinna_staggered
    bruck=bruck_basic,bruck_basic_dt,bruck_modified,bruck_modified_dt,bruck_zerocopy_dt,bruck_zero_rotation,bruck_radix
    p1024="SIM_EXTRA=--cfg=maxmin/precision:1e-4"
    heldback_pages() {  # the held-back checks' pages, from every CSV there is
        for f in "$t"/*-heldback*.csv "$t"/*-builtin.csv; do
            [ -f "$f" ] || continue
            more=
            case $f in *-builtin.csv) [ -f "${f%-builtin.csv}-heldback.csv" ] && more="${f%-builtin.csv}-heldback.csv" ;; esac
            bench/results/tune/heldback.py "$f" $more > "${f%.csv}.md"
        done
    }
    platform=${part#tune-}
    rm -f "$t/$platform"-*.csv "$t/$platform"-*.md
    case $platform in
    dragonfly)
    # dragonfly-64x16, P=256 (25 min) and P=1024 (90 min: 4 KiB blocks need more than
    # 24 GB for the simulated ranks' scratch, so sizes stop at 1 KiB; one leader and
    # the non-blocking inner exchange, which won every P=256 point; at 1 KiB the rows
    # 2.1x the best or slower at 16 and 256 B are left out). The committed P=1024
    # files were made when the SMPI build agreed through SimGrid's MPI_Iallreduce
    # (P-1 messages per rank at once), with --agreement-us 2046 given; the agreement
    # is measured now (about 29 us at P=1024: sim/README.md, "auto's agreement").
    sim/run dragonfly-64x16 256 --prog $tune -- --warmup 1 --coll alltoall,alltoallv --sizes 16,256,4096 --dists uniform \
        --radix 2,4,16 --batch 8,32 --leaders 1,4 --exclude $direct \
        --csv "$t/dragonfly-64x16-train-P256.csv" --out /dev/null --platform dragonfly-64x16
    grid1024="--warmup 1 --coll alltoall,alltoallv --dists uniform --radix 2,4,16 --batch 8 --leaders 1 --inner nonblocking \
        --csv $t/dragonfly-64x16-train-P1024.csv --out /dev/null --platform dragonfly-64x16"
    env $p1024 sim/run dragonfly-64x16 1024 --prog $tune -- $grid1024 --sizes 16,256 --exclude $direct,parlinna_staggered
    env $p1024 sim/run dragonfly-64x16 1024 --prog $tune -- $grid1024 --sizes 1024 \
        --exclude $direct,parlinna_staggered,parlinna_coalesced,parlogna,two_phase_bruck,padded_bruck
    bench/mpix-tune --from-csv --csv "$t/dragonfly-64x16-train-P256.csv,$t/dragonfly-64x16-train-P1024.csv" \
        --out "$tables/dragonfly-64x16.json" --platform dragonfly-64x16
    check="--warmup 1 --inner nonblocking --check-table $tables/dragonfly-64x16.json --platform dragonfly-64x16"
    c256="$check --radix 2,4,16 --batch 8,32 --leaders 1,4 --exclude $direct,$slow256 --csv $t/dragonfly-64x16-heldback-P256.csv"
    sim/run dragonfly-64x16 256 --prog $tune -- $c256 --coll alltoall,alltoallv --sizes 64,1024,16384 --dists uniform,normal,powerlaw
    sim/run dragonfly-64x16 256 --prog $tune -- $c256 --coll alltoallv --sizes 16,256,4096 --dists normal,powerlaw
    env $p1024 sim/run dragonfly-64x16 1024 --prog $tune -- $check --coll alltoall,alltoallv --sizes 64,512 \
        --dists uniform,normal,powerlaw --radix 2,4,16 --batch 8 --leaders 1 \
        --exclude $direct,$slow256,$bruck,parlinna_coalesced,parlogna,two_phase_bruck \
        --csv "$t/dragonfly-64x16-heldback-P1024.csv"
        ;;
    fattree)
    # fattree-64x16: P=256 on 16-rank nodes and P=16, 64 on nodes of one rank (every
    # row, direct ones included), one table; the checks compare it with the built-in
    # table at the same points. Training sizes 4x apart (16x apart, 16 and 256 B, put
    # the band's border at 64 B, where the other row won: 1.33x), checked between
    # them. Left out of the training (2026-11-26 CSVs, copies free; they copy more than
    # the rows that beat them, so charged copies only widen the gap): at P=256 the
    # $slow256 rows, 1.4x the best or slower at every point (parlinna_staggered's
    # 4 KiB rows took minutes each); on nodes of one rank from 16 KiB the Bruck rows,
    # two_phase_bruck and the padded ones, 1.4-2.7x the best at every P=64 point
    # there (1.5-4.9x at every P=16 and 64 point in a 2026-12-01 run with copies
    # charged; bruck_modified's alltoall at P=64, 64 KiB: 15.7 ms against 0.4). Wall
    # time (2026-12-01, beside another simulation): the P=256 training about 20
    # minutes, the nodes of one rank about an hour. A long mpix-tune run under
    # SimGrid can slow to a few rows a minute; stopped and run again with the same
    # command, it resumes from its CSV at full speed.
    sim/run fattree-64x16 256 --prog $tune -- --warmup 1 --coll alltoall,alltoallv --sizes 16,64,256,1024,4096 --dists uniform \
        --radix 2,4,16 --batch 8,32 --leaders 1,4 --exclude $direct,$slow256 \
        --csv "$t/fattree-64x16-train-P256.csv" --out /dev/null --platform fattree-64x16
    ppn1="--ranks 16,64 --radix 2,4,8 --batch 8,32 --platform fattree-64x16,1-rank-per-node"
    slow_large=$bruck,two_phase_bruck,padded_alltoall,padded_bruck
    sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --sizes 16,64,256,1024,4096 \
        --dists uniform,normal --csv "$t/fattree-64x16-train-ppn1.csv" --out /dev/null
    # 8 KiB too, where the winner changes (trained 4x apart, the table's border at
    # 8 KiB put alltoall's bruck_radix band, 1.54x, and alltoallv's nonblocking band,
    # 1.40x, on rows parlogna and randomized_sendrecv beat there); without the
    # node-aware rows, pairwise and the padded ones, 1.16x the best or slower at
    # every 8 KiB point measured with them (2026-12-01) and 1.6x or slower at every
    # P=64 alltoallv point from 4 to 16 KiB (minutes each to simulate there).
    sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --sizes 8192 --dists uniform,normal \
        --exclude node_bruck,node_bruck_adaptive,node_aware,locality_aware,hierarchical,multileader,multileader_locality,padded_alltoall,padded_bruck,pairwise \
        --csv "$t/fattree-64x16-train-ppn1.csv" --out /dev/null
    sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --sizes 16384,65536 --exclude $slow_large \
        --dists uniform,normal --csv "$t/fattree-64x16-train-ppn1.csv" --out /dev/null
    bench/mpix-tune --from-csv --csv "$t/fattree-64x16-train-P256.csv,$t/fattree-64x16-train-ppn1.csv" \
        --out "$tables/fattree-64x16.json" --platform fattree-64x16
    for table in "$tables/fattree-64x16.json" src/select/default_table.json; do
        case $table in src/*) csv="$t/fattree-64x16-ppn1-builtin.csv,$t/fattree-64x16-ppn1-heldback.csv" ;;
                       *) csv="$t/fattree-64x16-ppn1-heldback.csv" ;; esac
        sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --check-table "$table" --csv "$csv" \
            --coll alltoall,alltoallv --sizes 32,512,8192 --dists uniform,normal,powerlaw
        sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --check-table "$table" --csv "$csv" \
            --coll alltoallv --sizes 16,64,256,1024,4096 --dists powerlaw
        sim/run fattree-64x16 64 --ppn 1 --prog $tune -- $ppn1 --warmup 1 --check-table "$table" --csv "$csv" \
            --coll alltoallv --sizes 16384,65536 --dists powerlaw --exclude $slow_large
    done
    # The built-in table on nodes of one rank above 64 ranks: P=256 on fattree-256x16
    # (the same fat tree, 16 leaves of 16 nodes), copies charged. Left out: the direct
    # rows but pmpi and randomized_sendrecv's kin at 8 KiB, the node-aware ones
    # (node_aware, locality_aware, hierarchical, multileader*, node_bruck*,
    # parlinna_*: on nodes of one rank a direct exchange), the padded ones: at
    # 32 B they took 510-760 us where pmpi took 26.6 and the log-time rows 30-40,
    # and node_bruck took 6 minutes of wall time for one row (2026-12-03). The
    # agreement is given (24 us, between P=64's measured 18.0 and the next doubling;
    # measuring it times node_bruck, minutes a row here): a check times auto's
    # own agreements, the given figure only feeds a table, which a check does not
    # build. alltoallv's pmpi (SimGrid's linear alltoallv) is left out: at 2 KiB
    # it ran over 15 minutes without finishing; the 8 KiB alltoallv point, where
    # the table picks pmpi, is not checked for the same reason. Wall time about
    # 25 minutes for the first two; the third's auto (50 calls of 255 messages at
    # once) ran over 25 minutes without finishing on 2026-12-03, so the committed
    # CSV has its fixed rows only (the table's pick there, randomized_sendrecv,
    # 510.3 us, is the fastest of them).
    ft256="--ranks 256 --radix 2,4,8 --batch 8,32 --platform fattree-256x16,1-rank-per-node --warmup 1 --agreement-us 24
        --check-table src/select/default_table.json --csv $t/fattree-256x16-ppn1-builtin.csv"
    direct_on_ppn1=node_aware,locality_aware,hierarchical,multileader,multileader_locality,node_bruck,node_bruck_adaptive,padded_alltoall,padded_bruck,parlinna_staggered,parlinna_coalesced
    sim/run fattree-256x16 256 --ppn 1 --prog $tune -- $ft256 --coll alltoall --sizes 32,512,1024,2048 \
        --exclude ${direct%,pmpi},$direct_on_ppn1,bruck_basic_dt,bruck_modified_dt
    sim/run fattree-256x16 256 --ppn 1 --prog $tune -- $ft256 --coll alltoallv --sizes 32,512,1024,2048 --dists uniform,normal \
        --exclude $direct,$direct_on_ppn1
    sim/run fattree-256x16 256 --ppn 1 --prog $tune -- $ft256 --coll alltoall --sizes 8192 \
        --exclude linear,pairwise,randomized_scatter,randomized_segmented,nonempty,randomized,$direct_on_ppn1,bruck_basic,bruck_basic_dt,bruck_modified,bruck_modified_dt
    # P=256 checks up to 4 KiB: at 16 KiB every row takes minutes to simulate (5-34 ms
    # simulated; 2026-12-01, 10 rows in 25 minutes without the Bruck rows), hours for
    # the point's 84 rows. The 2026-11-26 check had them (copies free).
    c256="--warmup 1 --inner nonblocking --check-table $tables/fattree-64x16.json --platform fattree-64x16 --radix 2,4,16
        --batch 8,32 --leaders 1,4 --exclude $direct,$slow256 --csv $t/fattree-64x16-heldback-P256.csv"
    sim/run fattree-64x16 256 --prog $tune -- $c256 --coll alltoall,alltoallv --sizes 32,512 --dists uniform,normal,powerlaw
    sim/run fattree-64x16 256 --prog $tune -- $c256 --coll alltoallv --sizes 16,256,4096 --dists normal,powerlaw
        ;;
    flat)
    # flat-16x16: one node of 16 ranks, every row (10 min).
    flat="--radix 2,4,16 --batch 8,32 --leaders 1,4 --platform flat-16x16"
    # One warm-up call before each timed one, as in the checks: node_bruck's radix
    # and direct mode follow the previous call's volume (without it, its default
    # ran radix 2 and the Bruck rounds at every size: a table of radix 2, 1.27x).
    sim/run flat-16x16 16 --prog $tune -- $flat --warmup 1 --sizes 16,64,256,1024,4096,16384,65536 --dists uniform,normal \
        --csv "$t/flat-16x16-train.csv" --out /dev/null
    bench/mpix-tune --from-csv --csv "$t/flat-16x16-train.csv" --out "$tables/flat-16x16.json" --platform flat-16x16
    cf="$flat --warmup 1 --check-table $tables/flat-16x16.json --csv $t/flat-16x16-heldback.csv"
    sim/run flat-16x16 16 --prog $tune -- $cf --coll alltoall,alltoallv --sizes 32,512,8192 --dists uniform,normal,powerlaw
    sim/run flat-16x16 16 --prog $tune -- $cf --coll alltoallv --sizes 16,64,256,1024,4096,16384,65536 --dists powerlaw
        ;;
    dragonfly64)
    # dragonfly-256x64 (issue 32's nodes of 64): MPIX_Alltoall on 2 and 4 nodes
    # (P=128 and 256; 25 min), the rows that led somewhere on those nodes (the
    # skew/ CSVs) with locality_aware's group counts; checked at P=192 (3 nodes)
    # and at sizes between the training ones, the built-in table beside it.
    rows=node_bruck,locality_aware,node_aware,bruck_zero_rotation,scattered,pairwise,randomized_sendrecv,bruck_radix
    grid64="--coll alltoall --algo $rows --leaders 4,8,16,32 --inner nonblocking --radix 2,4 --batch 32 --warmup 1"
    # randomized_sendrecv at P=256, 4 KiB ran 20 minutes in SimGrid without finishing
    # (at 2 KiB it took seconds, 1.55x the best row): left out from 4 KiB there.
    sim/run dragonfly-256x64 256 --prog $tune -- $grid64 --sizes 16,64,256,1024,2048,4096,8192 --ranks 128 \
        --csv "$t/dragonfly64-train.csv" --out /dev/null --platform dragonfly-256x64
    sim/run dragonfly-256x64 256 --prog $tune -- $grid64 --sizes 16,64,256,1024,2048 \
        --csv "$t/dragonfly64-train.csv" --out /dev/null --platform dragonfly-256x64
    sim/run dragonfly-256x64 256 --prog $tune -- $grid64 --sizes 4096,8192 --exclude randomized_sendrecv \
        --csv "$t/dragonfly64-train.csv" --out /dev/null --platform dragonfly-256x64
    bench/mpix-tune --from-csv --csv "$t/dragonfly64-train.csv" --out "$tables/dragonfly-256x64.json" \
        --platform dragonfly-256x64
    for table in "$tables/dragonfly-256x64.json" src/select/default_table.json; do
        case $table in src/*) csv="$t/dragonfly64-builtin.csv,$t/dragonfly64-heldback.csv" ;;
                       *) csv="$t/dragonfly64-heldback.csv" ;; esac
        sim/run dragonfly-256x64 256 --prog $tune -- $grid64 --check-table "$table" --csv "$csv" \
            --sizes 32,512,3072,6144 --exclude randomized_sendrecv --platform dragonfly-256x64
        sim/run dragonfly-256x64 192 --prog $tune -- $grid64 --check-table "$table" --csv "$csv" \
            --sizes 64,1024,4096 --exclude randomized_sendrecv --platform dragonfly-256x64
    done
        ;;
    esac
    heldback_pages
    ;;
agreement)
    # auto's agreement of MPIX_Alltoallv's block statistics carried inside the
    # messages of two_phase_bruck and parlogna (src/select/registry.cpp,
    # hand_over_agreement; sim/README.md, "auto's agreement in the simulation"):
    # auto with the built-in table on nodes of one rank (fattree-64x16, P = 16
    # and 64; its rules there in docs/tuning.md: two_phase_bruck and parlogna
    # carry it, a direct row leaves it to a blocking allreduce) beside the rows
    # it picks between; 2 warm-up calls (the first call agrees by a blocking
    # allreduce), 3 timed. About 3 minutes (2026-12-04, beside two simulations).
    mkdir -p "$out/agreement"
    f=$out/agreement/carried-fattree-ppn1.csv
    rm -f "$f"
    for np in 16 64; do
        for dist in uniform powerlaw; do
            sim/run fattree-64x16 $np --ppn 1 -- --coll alltoallv --size 16,64,256,1024,4096,65536 --dist $dist \
                --algo auto,two_phase_bruck,parlogna,pmpi --warmup 2 --iters 3 --csv "$f" >/dev/null
        done
    done
    /usr/bin/python3 "$out/agreement/summary.py" "$f" > "$out/agreement/carried-fattree-ppn1.md"
    ;;
cpu-piece)
    # The library's own CPU per piece it handles, charged (sim/run --cpu-piece;
    # sim/README.md, "The library's CPU per piece"): 16 B blocks (and 1 KiB at
    # P = 1024) at 0, 17 and 104 ns a piece, the prices of an instruction fitted
    # on this machine (2 ranks, 0.070 ns) and on the 16-core device machine
    # (0.42 ns) times the 248 instructions a piece that node_bruck's counts fit
    # once side-by-side ranges went as one piece (sixteenth session; 211 on its
    # final code, 181 before, with more pieces). cpu-piece/PN-cpuNS.csv; about 25 minutes on the 2-core
    # machine (P = 4096: 2.6 minutes and 10 GB a run).
    mkdir -p "$out/cpu-piece"
    for ns in 0 17 104; do
        f="$out/cpu-piece/P256-cpu$ns.csv"; rm -f "$f"
        sim/run dragonfly-64x16 256 --cpu-piece $ns -- --coll alltoallv --size 16 --radix 2 --iters 1 --warmup 1 \
            --algo node_bruck,two_phase_bruck,parlogna,scattered,auto --csv "$f" >/dev/null
        f="$out/cpu-piece/P1024-cpu$ns.csv"; rm -f "$f"
        sim/run dragonfly-64x16 1024 --cpu-piece $ns -- --coll alltoallv --size 16 --radix 2 --iters 1 --warmup 1 \
            --algo node_bruck,two_phase_bruck,parlogna,auto --baseline none --csv "$f" >/dev/null
        sim/run dragonfly-64x16 1024 --cpu-piece $ns -- --coll alltoallv --size 1024 --radix 2 --iters 1 --warmup 1 \
            --algo node_bruck,auto --baseline none --csv "$f" >/dev/null
        f="$out/cpu-piece/P4096-cpu$ns.csv"; rm -f "$f"
        sim/run dragonfly-256x64 4096 --cpu-piece $ns -- --coll alltoallv --size 16 --iters 1 --warmup 0 \
            --algo node_bruck --baseline none --csv "$f" >/dev/null
    done
    ;;
cpu-block)
    # The library's own CPU counted in basic blocks and charged in the simulation
    # (sim/run --cpu-block; sim/README.md, "The library's CPU counted in basic
    # blocks") at the price a block that the calibration on this machine fitted
    # (sim/platforms/this-machine.xml's cpu_block), at the points of cpu-piece:
    # 16 B at P = 256, 1024 and 4096, 1 KiB at P = 1024. cpu-block/PN.csv; about
    # 15 minutes on the 2-core machine (P = 4096: 3 minutes and 10 GB).
    ns=$(sed -n 's/.*mpix-model:.* cpu_block=\([0-9.e+-]*\).*/\1/p' sim/platforms/this-machine.xml)
    [ -n "$ns" ] || { echo "regenerate cpu-block: sim/platforms/this-machine.xml has no cpu_block (regenerate.sh calibration)" >&2; exit 1; }
    mkdir -p "$out/cpu-block"
    echo "$ns" > "$out/cpu-block/price-ns"
    f="$out/cpu-block/P256.csv"; rm -f "$f"
    sim/run dragonfly-64x16 256 --cpu-block "$ns" -- --coll alltoallv --size 16 --radix 2 --iters 1 --warmup 1 \
        --algo node_bruck,two_phase_bruck,parlogna,scattered,auto --csv "$f" >/dev/null
    f="$out/cpu-block/P1024.csv"; rm -f "$f"
    sim/run dragonfly-64x16 1024 --cpu-block "$ns" -- --coll alltoallv --size 16 --radix 2 --iters 1 --warmup 1 \
        --algo node_bruck,two_phase_bruck,parlogna,auto --baseline none --csv "$f" >/dev/null
    sim/run dragonfly-64x16 1024 --cpu-block "$ns" -- --coll alltoallv --size 1024 --radix 2 --iters 1 --warmup 1 \
        --algo node_bruck,auto --baseline none --csv "$f" >/dev/null
    f="$out/cpu-block/P4096.csv"; rm -f "$f"
    sim/run dragonfly-256x64 4096 --cpu-block "$ns" -- --coll alltoallv --size 16 --iters 1 --warmup 0 \
        --algo node_bruck --baseline none --csv "$f" >/dev/null
    ;;
calibration)
    # Issue 29: the one-node platform of this machine and every alltoall(v) row
    # native beside simulated at 2 ranks (sim/calibrate; an idle machine).
    # The library's CPU is charged in the simulation at a price a basic block
    # that the calibration fits (--cpu-block fit; the platform keeps it). The
    # callgrind counts (calibration-instructions, below) stay for --from-compare.
    sim/calibrate --runs 5 --cpu-block fit
    ;;
calibration-instructions|calibration-instructions-P16)
    # The library's instructions per call and rank of every alltoall(v) row
    # (bench/cpu-per-call under callgrind; counts, so the machine need not be idle
    # nor have a core per rank): at 2 ranks 16 B to 4 KiB (about 30 minutes), read
    # by the calibration part; at 16 ranks on one node, 16 B, every row but pmpi
    # and auto (about 45 minutes), read by calibration-P16. Then the calibration's
    # report again with the new counts (sim/calibrate --from-compare: nothing
    # measured or simulated again).
    case $part in
    *-P16) file="$out/calibration-P16/instructions-P16.csv" ranks=16 counted_sizes=16 extra=
           report="--np 16 --runs 5 --name device-16 --from-compare $out/calibration-P16" ;;
    *) file="$out/calibration/instructions-P2.csv" ranks=2 counted_sizes="16 64 256 1024 4096" extra=auto
       report="--runs 5 --from-compare $out/calibration" ;;
    esac
    rm -f "$file"
    for coll in alltoall alltoallv; do
        algos="$(algorithms_of $coll) $extra"
        for size in $counted_sizes; do
            for algo in $algos; do
                [ $ranks = 16 ] && [ $algo = pmpi ] && continue
                bench/cpu-per-call --np $ranks --csv "$file" -- --coll $coll --algo $algo --size $size >/dev/null
            done
        done
    done
    # shellcheck disable=SC2086
    case $part in
    *-P16) sim/calibrate $report --instructions "$file" \
               --machine "$device_machine" ;;
    *) sim/calibrate $report --instructions "$file" ;;
    esac
    ;;
calibration-P16)
    # The same at 16 ranks on one 16-core node. Its native half was measured on
    # the device machine (16 cores, see sim/README.md) with
    #   MPIEXEC="mpiexec -bind-to core" sim/calibrate --np 16 --runs 5 --iters 50 --native-only DIR
    # and is kept in calibration-P16/raw; this part simulates beside it.
    # With calibration-P16/instructions-P16.csv (calibration-instructions-P16)
    # compare.md also gives the rows with the library's counted CPU added.
    counted=
    [ -f "$out/calibration-P16/instructions-P16.csv" ] && counted="--instructions $out/calibration-P16/instructions-P16.csv"
    # shellcheck disable=SC2086
    # raw: the first device session (2026-11-26, 4 runs); raw-2: the second (5 runs);
    # raw-3: the third (2026-12-04, today's library: 3 alltoall runs, 2 alltoallv).
    sim/calibrate --np 16 --from-native "$out/calibration-P16/raw-3" --name device-16 $counted \
        --machine "$device_machine" --out "$out/calibration-P16"
    ;;
calibration-P8|calibration-P12)
    # The same at 8 and 12 ranks on the same 16-core machine (a second session,
    # with MPIEXEC="mpiexec -bind-to core" sim/calibrate --np N --runs 2 --iters 50
    # --native-only DIR); the native rows are kept in calibration-PN/raw.
    ranks=${part#calibration-P}
    # calibration-P8/raw-2: the third device session's 3 runs (2026-12-04, today's
    # library); calibration-P8/raw and calibration-P12/raw: the second's (2026-11-29).
    raw="$out/$part/raw"
    [ -d "$out/$part/raw-2" ] && raw="$out/$part/raw-2"
    sim/calibrate --np "$ranks" --from-native "$raw" --name "device-$ranks" \
        --machine "$device_machine, $ranks ranks" \
        --out "$out/$part"
    ;;
*) echo "regenerate: unknown part $part (native, smpi, charged, agreement, tune, tune-dragonfly, tune-fattree, tune-flat, tune-dragonfly64, calibration, calibration-P16, calibration-P8, calibration-P12, calibration-instructions, calibration-instructions-P16, overlap, cpu-piece, cpu-block)" >&2; exit 2 ;;
esac
done
