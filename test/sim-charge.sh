#!/bin/sh
# The simulation charges the library's own copies (sim/README.md, "Local work").
# Under SimGrid SMPI, MPIX_Alltoall on one simulated 16-core node (P = 16, 4 KiB
# blocks) with a copy-heavy row (bruck_basic) and a direct row (linear), at a
# decreasing copy bandwidth (sim/run --copy-bw 0, 30, 3 GB/s, 3.6 ns per copy):
#  - bruck_basic gets slower as the bandwidth drops, by at least 90 % of its
#    copies' time at the model's rate (its copies are on its critical path);
#  - linear copies only its own block: it slows by no more than that block's
#    copy time (plus 1 %), and its copied bytes are that block;
#  - --copy-bw 0 is today's free model: the copies are counted, not charged.
#  - --cpu-piece (the library's CPU per range handled) charges bruck_basic's
#    pieces, with the copies free too, and linear's one piece alone; pmpi's none.
#  - --cpu-block (the library's CPU per basic block of its code, counted by the
#    SMPI build) charges each row the blocks it runs: bruck_basic the most.
#  - the MPI library's own (pmpi) copies nothing of mpix's; with --mpi-self
#    (MPICH sends the own block of 4 KiB blocks on 16 ranks to itself) it pays
#    that message at the given rate instead of a copy, and the other rows pay
#    exactly as before; with 64 KiB blocks (MPICH's pairwise copies the own
#    block) --mpi-self changes nothing.
# Builds the SMPI library and sim/check_charge first (make sim-charge). Needs
# SimGrid (libsimgrid-dev, which .ci/install-deps installs); without smpicxx it
# fails and says so.
sim_prog=check_charge
. "${srcdir:-.}/test/sim-build.sh"
run() {  # $1: copy bandwidth in GB/s, $2: --mpi-self, $3: block bytes, $4: ns a small copy, $5: ns a piece,
         # $6: ns a basic block -> "row us copied small pieces blocks" lines
    "$top/sim/run" flat-16x16 16 --copy-bw "$1" --copy-mem-bw 0 --copy-overhead 3.6 --copy-small-overhead "${4:-3.6}" \
        --mpi-self "${2:-0}" --cpu-piece "${5:-0}" --cpu-block "${6:-0}" --prog "$prog" -- "${3:-4096}" ||
        fail "check_charge at --copy-bw $1 --mpi-self ${2:-0} ${3:-4096} B, ${4:-3.6} ns a small copy, ${5:-0} ns a piece, ${6:-0} ns a block"
}
free=$(run 0) || exit 1
mid=$(run 30) || exit 1
slow=$(run 3) || exit 1
self=$(run 30 1024:5000:1) || exit 1
large=$(run 30 0 65536) || exit 1
large_self=$(run 30 1024:5000:1 65536) || exit 1
echo "free copies:"; echo "$free"; echo "30 GB/s:"; echo "$mid"; echo "3 GB/s:"; echo "$slow"
echo "30 GB/s, the MPI library's message to itself 5 us + 1 GB/s:"; echo "$self"
echo "64 KiB blocks, 30 GB/s, without and with it:"; echo "$large"; echo "$large_self"
[ "$large" = "$large_self" ] || fail "--mpi-self moved a row at 64 KiB blocks, where MPICH copies the own block"
field() { echo "$1" | awk -v r="$2" -v f="$3" '$1 == r {print $f}'; }
b=4096
# Copied bytes, counted alike in every model: bruck_basic rotates (16 blocks),
# packs and unpacks 8 blocks in each of 4 rounds and rotates back (16): 96 blocks.
for m in "$free" "$mid" "$slow"; do
    [ "$(field "$m" bruck_basic 3)" = $((96 * b)) ] || fail "bruck_basic copied $(field "$m" bruck_basic 3), not $((96 * b))"
    [ "$(field "$m" linear 3)" = "$b" ] || fail "linear copied $(field "$m" linear 3), not its own block ($b)"
    [ "$(field "$m" pmpi 3)" = 0 ] || fail "pmpi counted $(field "$m" pmpi 3) copied bytes of mpix's, not 0"
done
awk -v m="$(field "$mid" pmpi 2)" -v s="$(field "$self" pmpi 2)" -v b=$b \
    -v bm="$(field "$mid" bruck_basic 2)" -v bs="$(field "$self" bruck_basic 2)" \
    -v lm="$(field "$mid" linear 2)" -v ls="$(field "$self" linear 2)" 'BEGIN {
    extra = (5e-6 + b / 1e9 - (3.6e-9 + b / 30e9)) * 1e6   # the message in place of the copy, us
    if (s - m < 0.95 * extra || s - m > 1.05 * extra) { print "FAIL: pmpi took " m " -> " s " us with --mpi-self, expected +" extra; exit 1 }
    if (bs != bm || ls != lm) { print "FAIL: --mpi-self moved mpix rows: bruck_basic " bm " -> " bs ", linear " lm " -> " ls; exit 1 }
    printf "PASS: pmpi %.2f -> %.2f us with the MPI library'"'"'s own block sent to itself (+%.2f expected)\n", m, s, extra
}' || exit 1
awk -v f="$(field "$free" bruck_basic 2)" -v m="$(field "$mid" bruck_basic 2)" -v s="$(field "$slow" bruck_basic 2)" \
    -v fl="$(field "$free" linear 2)" -v sl="$(field "$slow" linear 2)" -v b=$b 'BEGIN {
    floor_bruck = (96 * 3.6e-9 + 96 * b / 3e9) * 1e6      # its copies at 3 GB/s, us
    floor_linear = (3.6e-9 + b / 3e9) * 1e6
    if (!(f < m && m < s)) { print "FAIL: bruck_basic not slower as the bandwidth drops: " f ", " m ", " s " us"; exit 1 }
    if (s - f < 0.9 * floor_bruck) { print "FAIL: bruck_basic slowed by " s - f " us, its copies take " floor_bruck; exit 1 }
    if (sl - fl > floor_linear * 1.01 + 0.01) { print "FAIL: linear slowed by " sl - fl " us, more than its own block (" floor_linear ")"; exit 1 }
    printf "PASS: bruck_basic %.2f -> %.2f -> %.2f us (copies %.2f us at 3 GB/s); linear %.2f -> %.2f us\n", f, m, s, floor_bruck, fl, sl
}' || exit 1
# Copies of 16 B or less (copy_small) cost --copy-small-overhead each, not
# --copy-overhead: with 8 B blocks bruck_basic packs and unpacks every block alone,
# and 100 ns a small copy in place of 3.6 slows it by at least 90 % of its small
# copies' extra time; linear's one small copy (its own block) by no more than that.
small_cheap=$(run 30 0 8 3.6) || exit 1
small_dear=$(run 30 0 8 100) || exit 1
echo "8 B blocks, 30 GB/s, 3.6 and 100 ns a small copy:"; echo "$small_cheap"; echo "$small_dear"
[ "$(field "$small_cheap" bruck_basic 4)" -gt 16 ] || fail "bruck_basic made $(field "$small_cheap" bruck_basic 4) small copies of 8 B blocks"
[ "$(field "$small_cheap" bruck_basic 4)" = "$(field "$small_dear" bruck_basic 4)" ] || fail "the small copies' count moved with their price"
awk -v c="$(field "$small_cheap" bruck_basic 2)" -v d="$(field "$small_dear" bruck_basic 2)" -v n="$(field "$small_cheap" bruck_basic 4)" \
    -v lc="$(field "$small_cheap" linear 2)" -v ld="$(field "$small_dear" linear 2)" -v ln="$(field "$small_cheap" linear 4)" 'BEGIN {
    extra = n * (100 - 3.6) * 1e-3; extra_linear = ln * (100 - 3.6) * 1e-3   # us
    if (d - c < 0.9 * extra) { print "FAIL: bruck_basic slowed by " d - c " us at 100 ns a small copy, its " n " small copies cost " extra " more"; exit 1 }
    if (ld - lc > extra_linear * 1.01 + 0.01) { print "FAIL: linear slowed by " ld - lc " us, more than its " ln " small copies (" extra_linear ")"; exit 1 }
    printf "PASS: bruck_basic %.3f -> %.3f us (%d small copies, +%.3f expected); linear %.3f -> %.3f us\n", c, d, n, extra, lc, ld
}' || exit 1

# The library's CPU per piece (--cpu-piece): with the copies free, 200 ns a piece
# slows bruck_basic by at least 90 % of its pieces' time (its 96 block copies:
# rotations, and the blocks packed and unpacked in every round), and
# linear by no more than its pieces' (its own block: one); pmpi not at all.
cpu=$(run 0 0 4096 3.6 200) || exit 1
echo "free copies, 200 ns a piece:"; echo "$cpu"
[ "$(field "$free" bruck_basic 5)" = "$(field "$cpu" bruck_basic 5)" ] || fail "the pieces' count moved with their price"
# Its 96 block copies (above) are 96 pieces, however CopyRun joins them.
[ "$(field "$free" bruck_basic 5)" = 96 ] || fail "bruck_basic handled $(field "$free" bruck_basic 5) pieces, not its 96 block copies"
[ "$(field "$free" linear 5)" = 1 ] || fail "linear handled $(field "$free" linear 5) pieces, not its own block alone"
[ "$(field "$free" pmpi 5)" = 0 ] || fail "pmpi counted $(field "$free" pmpi 5) pieces of mpix's, not 0"
awk -v f="$(field "$free" bruck_basic 2)" -v c="$(field "$cpu" bruck_basic 2)" -v n="$(field "$free" bruck_basic 5)" \
    -v fl="$(field "$free" linear 2)" -v cl="$(field "$cpu" linear 2)" -v nl="$(field "$free" linear 5)" \
    -v fp="$(field "$free" pmpi 2)" -v cp="$(field "$cpu" pmpi 2)" 'BEGIN {
    extra = n * 200e-3; extra_linear = nl * 200e-3   # us
    if (c - f < 0.9 * extra) { print "FAIL: bruck_basic slowed by " c - f " us at 200 ns a piece, its " n " pieces cost " extra; exit 1 }
    if (cl - fl > extra_linear * 1.01 + 0.01) { print "FAIL: linear slowed by " cl - fl " us, more than its " nl " piece (" extra_linear ")"; exit 1 }
    if (cp != fp) { print "FAIL: pmpi moved with --cpu-piece: " fp " -> " cp " us"; exit 1 }
    printf "PASS: bruck_basic %.3f -> %.3f us (%d pieces, +%.3f expected); linear %.3f -> %.3f us; pmpi %.3f\n", f, c, n, extra, fl, cl, cp
}' || exit 1
# The library's CPU counted in basic blocks (--cpu-block; the SMPI build counts
# every block of the library's code: src/core/cpu_count.hpp). With the copies
# free, 100 ns a block slows bruck_basic by at least 90 % of its blocks' time
# (at that price its CPU, not its messages, is its critical path) and linear
# and pmpi by no more than theirs plus 4 (the few blocks the call before ran
# after its last charge are charged at this call's first charge point); the counts do not move with the price, and
# bruck_basic (rotations, packing, rounds) runs more blocks than linear, which
# runs more than pmpi (the dispatch alone).
block_free=$(run 0 0 4096 3.6 0 0) || exit 1
block_dear=$(run 0 0 4096 3.6 0 100) || exit 1
echo "free copies, 0 and 100 ns a basic block:"; echo "$block_free"; echo "$block_dear"
for r in bruck_basic linear pmpi; do
    [ "$(field "$block_free" $r 6)" = "$(field "$block_dear" $r 6)" ] || fail "$r's block count moved with their price"
done
awk -v bb="$(field "$block_free" bruck_basic 6)" -v lb="$(field "$block_free" linear 6)" -v pb="$(field "$block_free" pmpi 6)" \
    -v f="$(field "$block_free" bruck_basic 2)" -v c="$(field "$block_dear" bruck_basic 2)" \
    -v fl="$(field "$block_free" linear 2)" -v cl="$(field "$block_dear" linear 2)" \
    -v fp="$(field "$block_free" pmpi 2)" -v cp="$(field "$block_dear" pmpi 2)" 'BEGIN {
    if (!(bb > lb && lb > pb && pb >= 0)) { print "FAIL: blocks bruck_basic " bb ", linear " lb ", pmpi " pb ": expected in that order, decreasing"; exit 1 }
    extra = bb * 100e-3; extra_linear = (lb + 4) * 100e-3; extra_pmpi = (pb + 4) * 100e-3   # us
    if (c - f < 0.9 * extra) { print "FAIL: bruck_basic slowed by " c - f " us at 100 ns a block, its " bb " blocks cost " extra; exit 1 }
    if (cl - fl > extra_linear * 1.01 + 0.01) { print "FAIL: linear slowed by " cl - fl " us, more than its " lb " blocks (" extra_linear ")"; exit 1 }
    if (cp - fp > extra_pmpi * 1.01 + 0.01) { print "FAIL: pmpi slowed by " cp - fp " us, more than its " pb " blocks (" extra_pmpi ")"; exit 1 }
    printf "PASS: bruck_basic %.3f -> %.3f us (%d blocks, +%.3f expected); linear %.3f -> %.3f us (%d blocks); pmpi %.3f -> %.3f us (%d blocks)\n", f, c, bb, extra, fl, cl, lb, fp, cp, pb
}' || exit 1
# A malformed price is refused with a clear message, by sim/run and by the library.
if out=$("$top/sim/run" flat-16x16 16 --copy-bw 0 --cpu-block abc --prog "$prog" -- 4096 2>&1); then
    fail "sim/run accepted --cpu-block abc"
fi
echo "$out" | grep -q -- "--cpu-block must be a number" || fail "sim/run --cpu-block abc said: $out"
