#!/bin/sh
# mpix-bench at 4 ranks, briefly, with verification: every collective's algorithms,
# every distribution, a radix/batch sweep, emulated nodes, --hint, CSV/JSON output,
# --overlap (at 2 ranks) and bad options. mpix-bench exits non-zero when any result is wrong.
set -e
bench=bench/mpix-bench
run="${MPIEXEC:-mpiexec} -n 4 $bench"
tmp="${TMPDIR:-/tmp}/mpix-bench-smoke.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
$bench --list | grep -q '^alltoallv:'
$bench --help | grep -q -- '--dist'
for coll in alltoall alltoallv; do
    $run --coll $coll --algo all --size 0,16,1000 --iters 2 --warmup 1 --batch sweep --radix 2,3 \
        --csv "$tmp/out.csv" --json "$tmp/out.json" >"$tmp/table" 2>/dev/null
    grep -q '^auto .*picked=' "$tmp/table"
done
# Saved with CRLF line ends (Python's csv module writes them): still appended to.
sed 's/$/\r/' "$tmp/out.csv" >"$tmp/crlf.csv" && mv "$tmp/crlf.csv" "$tmp/out.csv"
for dist in normal powerlaw hotspot:1 moe:3,2 moe-combine:3,2,0.5 fft1 fft2 matrix:"${MPIX_MATRIX:-}" traffic:"$tmp/traffic"; do
    case $dist in matrix:*) test -r "${dist#matrix:}" || continue ;; esac
    printf '0 1 2 3\n4 0 6 7\n8 9 0 11\n0 0 0 0\n' >"$tmp/traffic"
    $run --dist "$dist" --algo pairwise,scattered --iters 1 --warmup 0 --ppn 2 --csv "$tmp/out.csv" >/dev/null 2>&1
done
grep -q '^alltoallv,scattered,[^,]*,4,2,2,[^,]*,powerlaw,' "$tmp/out.csv" ||
    { echo "rows not appended to a CRLF CSV"; exit 1; }
sed 's/\r$//' "$tmp/out.csv" >"$tmp/lf.csv" && mv "$tmp/lf.csv" "$tmp/out.csv"  # the checks below read LF lines
# bench/cpu-per-call's categories, on lines as callgrind_annotate prints them: it
# adds " [object]" to some lines only, and the library is linked into mpix-bench.
top=$(cd "${srcdir:-.}" && pwd)
cat >"$tmp/lines" <<EOF
mpix	$top/src/alltoallv/node_bruck.cpp:mpix::node_bruck(mpix::Exchange const&) [$top/bench/mpix-bench]
mpix	$top/src/alltoallv/bundle_bruck.cpp:mpix::encode_sizes(std::vector<unsigned long, std::allocator<unsigned long> > const&, std::vector<unsigned char, std::allocator<unsigned char> >*) [$top/bench/mpix-bench]
mpix	/usr/include/c++/12/bits/stl_vector.h:mpix::node_bruck(mpix::Exchange const&)
mpix	$top/src/core/p2p.cpp:mpix::(anonymous namespace)::nonzero_ranges(std::vector<char*, std::allocator<char*> > const&, unsigned long) [$top/bench/mpix-bench]
mpix	$top/src/api/comm.cpp:comm_init_unguarded(MPIX_Comm**, int) [$top/bench/mpix-bench]
mpix	/usr/include/c++/12/bits/new_allocator.h:MPIX_Info_set
c++	/usr/include/c++/12/bits/vector.tcc:void std::vector<mpix::Piece, std::allocator<mpix::Piece> >::_M_realloc_insert<mpix::Piece>(__gnu_cxx::__normal_iterator<mpix::Piece*, std::vector<mpix::Piece, std::allocator<mpix::Piece> > >, mpix::Piece&&) [$top/bench/mpix-bench]
c++	???:operator new(unsigned long) [/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30]
allocator	./malloc/./malloc/malloc.c:_int_free [/usr/lib/x86_64-linux-gnu/libc.so.6]
allocator	./malloc/./malloc/malloc.c:malloc
-	$top/bench/runner.cpp:mpixbench::Runner::State::call(bool) [$top/bench/mpix-bench]
-	/usr/include/c++/12/bits/stl_algo.h:mpixbench::(anonymous namespace)::median(std::vector<double, std::allocator<double> >)
-	$top/bench/options.cpp:std::_Function_handler<void (), mpixbench::(anonymous namespace)::add_bench_options(CLI::App&)::{lambda()#1}>::_M_invoke(std::_Any_data const&)
-	???:PMPI_Mprobe [/usr/lib/x86_64-linux-gnu/libmpich.so.12.2.2]
EOF
cut -f2 "$tmp/lines" | "${srcdir:-.}/bench/cpu-per-call" --classify >"$tmp/classified"
diff "$tmp/lines" "$tmp/classified" || { echo "cpu-per-call --classify: categories differ (expected <, got >)"; exit 1; }
# bench/cpu-per-call (callgrind) counts the library's instructions per call: the
# bundle row node_bruck executes several times the direct row pairwise's (about 3.9x at
# 2 ranks, 16 B: 6,224 against 1,604). Not in a
# sanitized build (configure --enable-sanitizers), whose programs valgrind cannot run.
if [ "${MPIX_VALGRIND_USABLE:-yes}" = yes ]; then
    cpu="${srcdir:-.}/bench/cpu-per-call --bench $bench --np 2 -- --coll alltoallv --size 16 --algo"
    pairwise=$($cpu pairwise | awk 'END { printf "%d", $4 }')
    node_bruck=$(${srcdir:-.}/bench/cpu-per-call --bench $bench --np 2 --csv "$tmp/cpu.csv" -- --coll alltoallv \
        --size 16 --algo node_bruck | awk 'END { printf "%d", $4 }')
    test "$pairwise" -gt 0 && test "$node_bruck" -gt $((3 * pairwise)) ||
        { echo "cpu-per-call: pairwise $pairwise, node_bruck $node_bruck instructions a call"; exit 1; }
    # --csv (what sim/calibrate --instructions reads): the same count, named.
    awk -F, -v n="$node_bruck" 'NR == 1 { ok = $8 == "total" }
        NR == 2 { ok = ok && $1 == "alltoallv" && $2 == "node_bruck" && $3 == 16 && $4 == 2 && $8 == n }
        END { exit !(ok && NR == 2) }' "$tmp/cpu.csv" ||
        { echo "cpu-per-call --csv: $(cat "$tmp/cpu.csv"), printed $node_bruck"; exit 1; }
fi
# Neighbour exchange (random graph and a matrix halo) and persistent rows, verified.
$run --coll neighbor_alltoallv --degree 2 --algo all --size 8,100 --iters 2 --warmup 1 --persistent \
    --csv "$tmp/nb.csv" >"$tmp/table" 2>/dev/null
grep -q '^MPI_Neighbor_alltoallv ' "$tmp/table"
test "$(grep -c '^neighbor_alltoallv,.*persistent,' "$tmp/nb.csv")" -ge 2
if awk -F, 'NR > 1 && $13 != "yes"' "$tmp/nb.csv" | grep .; then echo "unverified neighbour rows"; exit 1; fi
if test -r "${MPIX_MATRIX:-}"; then
    ${MPIEXEC:-mpiexec} -n 3 $bench --coll neighbor_alltoallv --matrix "$MPIX_MATRIX" --ppn 2 --iters 2 --warmup 0 \
        --persistent >/dev/null 2>&1
fi
$run --coll alltoallv --algo pairwise,parlogna --size 16 --iters 2 --warmup 1 --persistent --csv "$tmp/p.csv" \
    >/dev/null 2>&1
test "$(grep -c '^alltoallv,\(pairwise\|parlogna\),persistent,' "$tmp/p.csv")" -eq 2
if awk -F, 'NR > 1 && $13 != "yes"' "$tmp/p.csv" | grep .; then echo "unverified persistent rows"; exit 1; fi
if $run --coll alltoallv_crs --persistent >/dev/null 2>&1; then echo "--persistent with a crs collective accepted"; exit 1; fi
# --write-send: the send buffer is written again before every call (from a copy);
# the results stay verified (a persistent row checks its last call too).
$run --coll alltoallv --algo pairwise,node_bruck --ppn 2 --size 16,1000 --iters 3 --warmup 1 --persistent \
    --write-send --csv "$tmp/w.csv" >/dev/null 2>&1
test "$(grep -c '^alltoallv,\(pairwise\|node_bruck\),' "$tmp/w.csv")" -eq 8
if awk -F, 'NR > 1 && $13 != "yes"' "$tmp/w.csv" | grep .; then echo "unverified --write-send rows"; exit 1; fi
# --hint reaches the library: node_aware traces (hint trace) and names its hints.
$run --algo node_aware --ppn 2 --hint inner=pairwise --hint trace="$tmp/tr" --size 16 --iters 1 --warmup 0 \
    --csv "$tmp/out.csv" >/dev/null 2>&1
grep -q '"algorithm":"node_aware"' "$tmp/tr.0.jsonl"
grep -q '^alltoallv,node_aware,inner=pairwise;trace=' "$tmp/out.csv"
# One header, then rows, all verified (column 13); natively no bound (columns 14-15 empty).
# A --dist with a comma (moe:3,2) is a quoted field: blanked first, so awk's columns hold.
test "$(grep -c '^collective,algorithm,params,P,nodes,ppn,size,dist,median_us,min_us,max_us,speedup_vs_mpi,verified,bound_us,x_bound,mean_block_bytes,max_block_bytes,copied_bytes,copy_floor_us,start,start_spread_us$' "$tmp/out.csv")" -eq 1
if sed 's/"[^"]*"/dist/g' "$tmp/out.csv" | awk -F, 'NR > 1 && ($13 != "yes" || $14 != "" || $15 != "")' | grep .; then
    echo "unverified rows, or a bound outside a simulation"; exit 1
fi
grep -q '"speedup_vs_mpi"' "$tmp/out.json"
# --start: how the ranks start each timed call (column 20), and the median spread of
# their starts (column 21), which every time includes: measured on one host (one
# clock), at or above 0. With `clock` each rank waits for an agreed instant.
for start in barrier clock; do
    $run --coll alltoallv --algo pairwise --size 16 --iters 3 --warmup 1 --start $start --csv "$tmp/st-$start.csv" \
        >/dev/null 2>&1 || { echo "--start $start failed"; exit 1; }
    awk -F, -v s=$start 'NR > 1 { n++; if ($13 != "yes" || $20 != s || $21 == "" || $21 < 0) bad++ }
                         END { exit !(n == 2 && !bad) }' "$tmp/st-$start.csv" ||
        { echo "--start $start: rows"; cat "$tmp/st-$start.csv"; exit 1; }
done
if ${MPIEXEC:-mpiexec} -n 1 $bench --start now >/dev/null 2>&1; then echo "--start now accepted"; exit 1; fi
# copied_bytes (column 18): the library's own copies per call, counted inside it.
# At 4 ranks with 1000-byte blocks: a direct row copies only its own block, basic
# Bruck rotates (4000), packs and unpacks two blocks in each of 2 rounds (8000)
# and rotates back (4000); the MPI library's collective is not mpix's (0).
# Natively no copy floor (column 19).
$run --coll alltoall --algo nonblocking,bruck_basic,bruck_zero_rotation --size 1000 --iters 2 --warmup 1 \
    --csv "$tmp/copies.csv" >/dev/null 2>&1
copied() { awk -F, -v a="$1" '$2 == a {print $18 "/" $19}' "${2:-$tmp/copies.csv}"; }
test "$(copied MPI_Alltoall)" = "0/" || { echo "MPI_Alltoall copied $(copied MPI_Alltoall)"; exit 1; }
test "$(copied nonblocking)" = "1000/" || { echo "nonblocking copied $(copied nonblocking)"; exit 1; }
test "$(copied bruck_basic)" = "16000/" || { echo "bruck_basic copied $(copied bruck_basic)"; exit 1; }
# Zero-rotation Bruck: its own block, then two blocks packed and unpacked per round.
test "$(copied bruck_zero_rotation)" = "9000/" || { echo "bruck_zero_rotation copied $(copied bruck_zero_rotation)"; exit 1; }
# Sizes in headers take a byte each below 256 (encode_sizes). At 4 ranks, 16-byte blocks
# (--dist equal), two_phase_bruck's first round packs a header (a width byte, the
# statistic, two bundle lengths: 4 bytes) and two blocks (32), its second round two
# blocks (32, home: no header); three blocks are copied home (48) and the own block
# (16): 132. ParLogNa r = 2: a header of one forwarded size (2 bytes) and 32, then 32,
# three blocks home (48), the forwarded one into its slot (16) and the own block (16):
# 146. With 8-byte sizes (and no width byte) both were 152.
$run --coll alltoallv --dist equal --algo two_phase_bruck,parlogna --radix 2 --size 16 --iters 2 --warmup 1 \
    --csv "$tmp/heads.csv" >/dev/null 2>&1
test "$(copied two_phase_bruck "$tmp/heads.csv")" = "132/" ||
    { echo "two_phase_bruck copied $(copied two_phase_bruck "$tmp/heads.csv")"; exit 1; }
test "$(copied parlogna "$tmp/heads.csv")" = "146/" || { echo "parlogna copied $(copied parlogna "$tmp/heads.csv")"; exit 1; }
# --format osu: OSU's layout for one algorithm, sizes 1..64, full and validation columns.
for coll in alltoall alltoallv; do
    case $coll in alltoall) title=All-to-All algo=pairwise ;; *) title=All-to-Allv algo=parlogna ;; esac
    $run --format osu --coll $coll --algo $algo -m 1:64 -i 2 -x 1 -f -c >"$tmp/osu" 2>"$tmp/osu.err"
    grep -qx "# OSU MPI $title Personalized Exchange Latency Test" "$tmp/osu" || { echo "osu $coll: no title"; exit 1; }
    grep -q "^# mpix algorithm: $algo" "$tmp/osu" || { echo "osu $coll: no algorithm line"; exit 1; }
    grep -qx '# Size *Avg Latency(us) *Min Latency(us) *Max Latency(us) *Iterations *Validation' "$tmp/osu" ||
        { echo "osu $coll: no column header"; exit 1; }
    # One row per size: size, three latencies with 2 decimals, 2 iterations, Pass.
    rows=$(awk '!/^#/ && NF { ok = NF == 6 && $1 ~ /^[0-9]+$/ && $5 == 2 && $6 == "Pass"
                              for (i = 2; i <= 4; ++i) ok = ok && $i ~ /^[0-9]+[.][0-9][0-9]$/
                              printf "%s%s", ok ? " " : " BAD:", $1 }' "$tmp/osu")
    test "$rows" = " 1 2 4 8 16 32 64" || { echo "osu $coll rows:$rows"; cat "$tmp/osu"; exit 1; }
done
# More ranks than cores: one warning on stderr (this test runs 4 ranks), none otherwise.
if [ "$(nproc)" -lt 4 ]; then
    test "$(grep -c '^mpix-bench: warning: 4 ranks share [0-9]* cores* on this host' "$tmp/osu.err")" -eq 1 ||
        { echo "no oversubscription warning at 4 ranks on $(nproc) cores"; exit 1; }
elif grep 'ranks share' "$tmp/osu.err"; then
    echo "oversubscription warning on $(nproc) cores"; exit 1
fi
# --overlap at 2 ranks, two rows and the baseline: the overlap columns in the table,
# the CSV (its own header) and OSU's non-blocking layout; every row verified.
run2="${MPIEXEC:-mpiexec} -n 2 $bench"
# Natively, without --warmup, 200 warm-up calls up to 64 KiB and 20 above (MPICH's
# first calls at a size are slow, and the baseline runs first); --warmup overrides.
# MPIX_SMPI builds say 0.
if grep -q '^#define MPIX_SMPI 0' config.h 2>/dev/null || grep -q '^#define MPIX_SMPI 0' "${srcdir:-.}/config.h" 2>/dev/null; then
    $run2 --coll alltoallv --algo pairwise --size 16,131072 --iters 2 >"$tmp/warm" 2>/dev/null ||
        { echo "default warm-up run failed"; exit 1; }
    grep -q '^# mpix-bench alltoallv .* iters=2  warmup=200 (20 above 65536 B) ' "$tmp/warm" ||
        { echo "default warm-up: header"; cat "$tmp/warm"; exit 1; }
    test "$(grep -c '^\(MPI_Alltoallv\|pairwise\) .* yes$' "$tmp/warm")" -eq 4 ||
        { echo "default warm-up: not 4 verified rows"; cat "$tmp/warm"; exit 1; }
    $run2 --coll alltoallv --algo pairwise --size 16 --iters 1 --warmup 0 2>/dev/null |
        grep -q '^# mpix-bench alltoallv .* iters=1  warmup=0 ' || { echo "--warmup 0: header"; exit 1; }
fi
$run2 --coll alltoallv --overlap --overlap-slices 4 --algo nonblocking,pairwise --size 512 --iters 3 --warmup 1 \
    --csv "$tmp/ov.csv" --json "$tmp/ov.json" >"$tmp/ov" 2>/dev/null || { echo "--overlap failed"; exit 1; }
grep -q '^algorithm .* pure_us .* overall_us *compute_us *test_us *overlap_% *verified$' "$tmp/ov" ||
    { echo "--overlap: no overlap columns"; cat "$tmp/ov"; exit 1; }
test "$(grep -c '^\(MPI_Ialltoallv\|nonblocking\|pairwise\) .* yes$' "$tmp/ov")" -eq 3 ||
    { echo "--overlap: not 3 verified rows"; cat "$tmp/ov"; exit 1; }
head -1 "$tmp/ov.csv" | grep -q ',copy_floor_us,start,start_spread_us,overall_us,compute_us,init_us,test_us,wait_us,pure_us,overlap_pct,overlap_slices$' ||
    { echo "--overlap: CSV header"; exit 1; }
if awk -F, 'NR > 1 && ($13 != "yes" || $22 <= 0 || $23 <= 0 || $28 < 0 || $29 != 4)' "$tmp/ov.csv" | grep .; then
    echo "--overlap: unverified or empty CSV rows"; exit 1
fi
grep -q '"overlap_pct"' "$tmp/ov.json" || { echo "--overlap: no overlap_pct in JSON"; exit 1; }
$run2 --format osu --overlap --algo parlogna -m 8:16 -i 2 -x 1 -c >"$tmp/ovosu" 2>/dev/null
grep -qx '# OSU MPI Non-blocking All-to-Allv Personalized Exchange Latency Test' "$tmp/ovosu" &&
    grep -qx '# Size *Overall(us) *Compute(us) *Pure Comm.(us) *Overlap(%) *Validation' "$tmp/ovosu" ||
    { echo "--overlap --format osu: layout"; cat "$tmp/ovosu"; exit 1; }
test "$(awk '!/^#/ && NF == 6 && $6 == "Pass"' "$tmp/ovosu" | wc -l)" -eq 2 || { echo "--overlap osu rows"; exit 1; }
# bench/mpix-passthrough at 2 ranks, a few calls: the blocking, nonblocking and
# persistent forms (MPIX_Alltoall in place too) against the MPI library's own and
# through the drop-in; the program checks every result and exits non-zero on a
# wrong one. Two forms at once are refused.
pt="${MPIEXEC:-mpiexec} -n 2 bench/mpix-passthrough --calls 5 --sizes 0,16,4096 --auto"
for form in "" --nonblocking --persistent; do
    for extra in "" "--alltoall --in-place"; do
        $pt $form $extra >"$tmp/pt" 2>&1 || { echo "mpix-passthrough $form $extra failed"; cat "$tmp/pt"; exit 1; }
        grep -q '^ *4096 ' "$tmp/pt" || { echo "mpix-passthrough $form $extra: no 4096 B row"; cat "$tmp/pt"; exit 1; }
    done
done
if $pt --nonblocking --persistent >/dev/null 2>&1; then echo "mpix-passthrough: two forms accepted"; exit 1; fi
if $run2 --overlap --coll alltoallv_crs --size 16 >/dev/null 2>&1; then echo "--overlap with a crs collective accepted"; exit 1; fi
if $run2 --overlap-slices 4 --size 16 >/dev/null 2>&1; then echo "--overlap-slices without --overlap accepted"; exit 1; fi
if $run --format osu --algo all -m 1:2 >/dev/null 2>&1; then echo "--format osu --algo all accepted"; exit 1; fi
if $run --format osu --algo pairwise,linear -m 1:2 >/dev/null 2>&1; then
    echo "--format osu with two algorithms accepted"; exit 1
fi
if $run -f --size 16 >/dev/null 2>&1; then echo "-f without --format osu accepted"; exit 1; fi
# node_bruck where a node's ranks split into parts of unequal size (P=15 on 3 nodes of
# 5: parts of 3 and 2 ranks; P=14: nodes of 5, 5 and 4). MPIX_Alltoall hung there
# once: its last phase sized forwarded bundles by the forwarding rank's part.
# Oversubscribed (15 ranks), so one call per size; a hang fails through the timeout.
for p in 14 15; do
    timeout 300 ${MPIEXEC:-mpiexec} -n $p $bench --coll alltoall --algo node_bruck --ppn 5 --size 0,16,1000 \
        --iters 1 --warmup 0 --baseline none >/dev/null 2>&1 || { echo "node_bruck alltoall at P=$p, nodes of 5"; exit 1; }
    timeout 300 ${MPIEXEC:-mpiexec} -n $p $bench --coll alltoallv --algo node_bruck,node_bruck_adaptive --ppn 5 \
        --size 0,16,1000 --iters 2 --warmup 1 --baseline none >/dev/null 2>&1 ||
        { echo "node_bruck alltoallv at P=$p, nodes of 5"; exit 1; }
done
# Bad input is refused with a non-zero exit.
if $run --dist nosuch >/dev/null 2>&1; then echo "bad --dist accepted"; exit 1; fi
if $run --dist moe:3,4 >/dev/null 2>&1; then echo "moe with K > E accepted"; exit 1; fi
if $run --dist traffic:/nonexistent >/dev/null 2>&1; then echo "missing traffic file accepted"; exit 1; fi
if $run --hint inner=sideways >/dev/null 2>&1; then echo "bad --hint accepted"; exit 1; fi
if $run --hint radix=2 >/dev/null 2>&1; then echo "--hint radix accepted"; exit 1; fi
echo "mpix-bench smoke: 1 passed, 0 failed"
