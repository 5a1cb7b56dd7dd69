#!/bin/bash
# Issue 29, third device session, second call (2026-12-04): the one-node rules
# changed by this session (MPIX_Alltoallv: pmpi to a 96 B agreed mean on 8-16
# ranks; MPIX_Alltoall: pmpi to 64 B on 8 ranks) checked natively: auto beside
# the rows it chooses between, 3 runs, and the pass-through against MPICH's own.
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
DP=/tmp/dp
rm -rf $DP && mkdir -p $DP && tar xJf .dev/devpack.tar.xz -C $DP || exit 1
export PATH=$DP/bin:$PATH LD_LIBRARY_PATH=$DP/lib UCX_MODULE_DIR=$DP/lib/ucx
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/device3b.tar.gz -C $OUT r; }
B=$DP/bin/mpix-bench
for run in 0 1 2; do
  for np in 16 8; do
    timeout 40 mpiexec -n $np -bind-to core $B --coll alltoallv --algo auto,pmpi,randomized_sendrecv,scattered,nonblocking \
        --size 16,64,256,1024 --iters 200 --warmup 20 --csv $R/v-P$np-$run.csv > /dev/null 2>&1
    echo "v P$np run $run rc $? at $(el) s"
  done
  timeout 40 mpiexec -n 8 -bind-to core $B --coll alltoall --algo auto,pmpi,bruck_zero_rotation \
      --size 16,64,256 --iters 200 --warmup 20 --csv $R/a-P8-$run.csv > /dev/null 2>&1
  echo "a P8 run $run rc $? at $(el) s"
done
pack
for np in 16 8; do
  timeout 40 mpiexec -n $np -bind-to core $DP/bin/mpix-passthrough --auto --calls 1000 --sizes 16,64,256,1024,4096 > $R/pass-v-P$np.txt 2>&1
  echo "pass v P$np rc $? at $(el) s"; cat $R/pass-v-P$np.txt
done
timeout 40 mpiexec -n 8 -bind-to core $DP/bin/mpix-passthrough --auto --alltoall --calls 1000 --sizes 16,64,256,1024 > $R/pass-a-P8.txt 2>&1
echo "pass a P8 rc $? at $(el) s"; cat $R/pass-a-P8.txt
pack
echo "done at $(el) s"
