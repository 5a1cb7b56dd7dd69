#!/bin/bash
# Issue 29, third device session (2026-12-04): native one-node runs of the current
# library at 16, 8 and 12 ranks, the pass-through at 16 ranks, and the --write-send
# variant at 16. Each stage is skipped once the elapsed time passes its guard.
# Kept as run (2026-12-04). .dev/devpack.tar.xz (untracked) held lib/ (this machine's
# libmpich, libhwloc, UCX and libstdc++, stripped: `ldd` of the binaries below) and bin/
# (stripped mpix-bench, calibrate-native, mpix-passthrough, mpiexec.hydra, hydra_pmi_proxy),
# built here on Debian 12 and run on the device's Ubuntu 24.04.
# Local trial: BIG=2 SMALL=2 MID=2 RUNS=1 ITERS=5 OUT=/tmp/o .dev/device-run.sh
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
BIG=${BIG:-16}; SMALL=${SMALL:-8}; MID=${MID:-12}; RUNS=${RUNS:-3}; ITERS=${ITERS:-50}
GUARD=${GUARD:-420}
DP=/tmp/dp
rm -rf $DP && mkdir -p $DP && tar xJf .dev/devpack.tar.xz -C $DP || exit 1
export PATH=$DP/bin:$PATH LD_LIBRARY_PATH=$DP/lib UCX_MODULE_DIR=$DP/lib/ucx
cp $DP/bin/mpix-bench bench/mpix-bench && cp $DP/bin/calibrate-native sim/calibrate-native || exit 1
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/device3.tar.gz -C $OUT r; }
{ lscpu; nproc; free -g; uname -a; head -2 /etc/os-release; mpiexec --version | head -3; } > $R/machine.txt 2>&1
export MPIEXEC="mpiexec -bind-to core"
PY=$(command -v python3)
timeout 60 mpiexec -n $BIG -bind-to core bench/mpix-bench --coll alltoallv --algo pairwise,node_bruck \
    --size 16 --iters 5 > $R/smoke.txt 2>&1
rc=$?; echo "smoke rc $rc at $(el) s"; tail -5 $R/smoke.txt; pack
[ $rc = 0 ] || { cat $R/machine.txt; exit 1; }
stage() {  # name guard command...
    local name=$1 guard=$2; shift 2
    if [ $(el) -gt $guard ]; then echo "skip $name at $(el) s"; return; fi
    "$@" > $R/$name.log 2>&1
    echo "$name rc $? at $(el) s"; tail -2 $R/$name.log; pack
}
stage P$BIG 200 timeout 240 $PY sim/calibrate --np $BIG --runs $RUNS --iters $ITERS --native-only $R/P$BIG
stage P$SMALL 300 timeout 150 $PY sim/calibrate --np $SMALL --runs $RUNS --iters $ITERS --native-only $R/P$SMALL
sizes=16,64,256,1024,4096,16384,65536,262144,1048576
stage pass$BIG-v $GUARD timeout 60 mpiexec -n $BIG -bind-to core $DP/bin/mpix-passthrough --auto --calls 300 --sizes $sizes
stage pass$BIG-a $GUARD timeout 60 mpiexec -n $BIG -bind-to core $DP/bin/mpix-passthrough --auto --alltoall --calls 300 --sizes $sizes
stage P$BIG-ws $GUARD timeout 120 $PY sim/calibrate --np $BIG --runs 2 --iters $ITERS --write-send --native-only $R/P$BIG-ws
stage P$MID $GUARD timeout 120 $PY sim/calibrate --np $MID --runs $RUNS --iters $ITERS --native-only $R/P$MID
echo "done at $(el) s"
