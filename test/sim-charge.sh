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
# Builds the SMPI library and sim/check_charge first (make sim-charge). Needs
# SimGrid (libsimgrid-dev, which .ci/install-deps installs); without smpicxx it
# fails and says so.
sim_prog=check_charge
. "${srcdir:-.}/test/sim-build.sh"
run() {  # $1: copy bandwidth in GB/s -> "row us copied" lines
    "$top/sim/run" flat-16x16 16 --copy-bw "$1" --copy-mem-bw 0 --copy-overhead 3.6 --prog "$prog" -- 4096 ||
        fail "check_charge at --copy-bw $1"
}
free=$(run 0) || exit 1
mid=$(run 30) || exit 1
slow=$(run 3) || exit 1
echo "free copies:"; echo "$free"; echo "30 GB/s:"; echo "$mid"; echo "3 GB/s:"; echo "$slow"
field() { echo "$1" | awk -v r="$2" -v f="$3" '$1 == r {print $f}'; }
b=4096
# Copied bytes, counted alike in every model: bruck_basic rotates (16 blocks),
# packs and unpacks 8 blocks in each of 4 rounds and rotates back (16): 96 blocks.
for m in "$free" "$mid" "$slow"; do
    [ "$(field "$m" bruck_basic 3)" = $((96 * b)) ] || fail "bruck_basic copied $(field "$m" bruck_basic 3), not $((96 * b))"
    [ "$(field "$m" linear 3)" = "$b" ] || fail "linear copied $(field "$m" linear 3), not its own block ($b)"
done
awk -v f="$(field "$free" bruck_basic 2)" -v m="$(field "$mid" bruck_basic 2)" -v s="$(field "$slow" bruck_basic 2)" \
    -v fl="$(field "$free" linear 2)" -v sl="$(field "$slow" linear 2)" -v b=$b 'BEGIN {
    floor_bruck = (96 * 3.6e-9 + 96 * b / 3e9) * 1e6      # its copies at 3 GB/s, us
    floor_linear = (3.6e-9 + b / 3e9) * 1e6
    if (!(f < m && m < s)) { print "FAIL: bruck_basic not slower as the bandwidth drops: " f ", " m ", " s " us"; exit 1 }
    if (s - f < 0.9 * floor_bruck) { print "FAIL: bruck_basic slowed by " s - f " us, its copies take " floor_bruck; exit 1 }
    if (sl - fl > floor_linear * 1.01 + 0.01) { print "FAIL: linear slowed by " sl - fl " us, more than its own block (" floor_linear ")"; exit 1 }
    printf "PASS: bruck_basic %.2f -> %.2f -> %.2f us (copies %.2f us at 3 GB/s); linear %.2f -> %.2f us\n", f, m, s, floor_bruck, fl, sl
}' || exit 1
