#!/bin/sh
# Busiest link per step on the Slim Fly for an ordered and a randomized
# schedule (issue 14, item 3): the randomized schedule is the library's own,
# read back from the trace of an SMPI run; the ordered ones are sim/linkload's
# built-in pairwise and linear. 1 KiB blocks. Run from the top of a tree built
# with `make sim` (max_queue=1 only makes the simulation fast: the schedule is the
# same at any queue length). Writes linkload-P<NP>-ppn<N>-<schedule>.csv and .txt here.
set -e
out=bench/results/randomized
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in "64 1" "140 10" "320 10"; do
    set -- $run
    np=$1 ppn=$2
    sim/run slimfly-200x16 "$np" --ppn "$ppn" -- --coll alltoall --algo randomized_sendrecv --size 1024 \
        --iters 1 --warmup 0 --baseline none --no-verify --hint max_queue=1 --hint trace="$tmp/rs$np" >/dev/null 2>&1
    $out/trace2schedule "$tmp/rs$np" > "$tmp/rs$np.csv"
    for sched in pairwise linear randomized_sendrecv; do
        base=$out/linkload-P$np-ppn$ppn-$sched
        if [ $sched = randomized_sendrecv ]; then
            sim/linkload --ppn "$ppn" --csv "$tmp/rs$np.csv" --no-per-step --write-csv "$base.csv" > "$base.txt"
        else
            sim/linkload --ppn "$ppn" --schedule $sched --ranks "$np" --bytes 1024 --no-per-step \
                --write-csv "$base.csv" > "$base.txt"
        fi
    done
done
