#!/bin/sh
# auto's per-call agreement of MPIX_Alltoallv's block statistics under SimGrid
# SMPI (src/select/registry.cpp, agreed_blocks; sim/README.md, "auto's agreement
# in the simulation"). On one simulated 16-core node (flat-16x16, P = 16):
#  - a table whose rules test the agreed mean and largest block picks, call by
#    call, what the native build picks (test/test_table.cpp, the same table and
#    blocks): one call late, the same row on every rank, every byte right;
#  - the agreement costs a call the rounds of a recursive-doubling allreduce,
#    ceil(log2 P) = 4 rounds of one message each way, at most 3 us each (1 us of
#    send and 1 us of receive CPU, the latency within 1 us): 12 us. SimGrid's
#    MPI_Iallreduce, which the SMPI build no longer uses, posts P - 1 messages
#    per rank at once and cost 2(P - 1) = 30 us here.
# Builds the SMPI library and sim/check_agreement first (make sim-charge). Needs
# SimGrid (libsimgrid-dev, which .ci/install-deps installs).
sim_prog=check_agreement
. "${srcdir:-.}/test/sim-build.sh"
table="sim-agreement-table.$$.json"
out=$("$top/sim/run" flat-16x16 16 --prog "$prog" -- "$table") || { echo "$out"; rm -f "$table"; fail "check_agreement (wrong pick, wrong byte or error)"; }
rm -f "$table"
echo "$out"
cost=$(echo "$out" | awk '$1 == "auto_us" {print $6}')
[ -n "$cost" ] || fail "no agreement_us line"
awk -v c="$cost" 'BEGIN { if (c > 12) { print "FAIL: the agreement cost " c " us a call, more than 4 rounds (12 us)"; exit 1 }
                          printf "PASS: picks one call late on every rank; the agreement costs %.2f us a call (<= 12)\n", c }'
