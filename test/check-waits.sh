#!/bin/sh
# Every row of src/alltoall and src/alltoallv runs as a task of the engine
# (src/sched/engine.hpp): where it waits it must let the engine run other work,
# so it waits only through src/core/wait.hpp (wait_request, wait_requests,
# wait_some_requests) and the helpers of src/core/p2p.hpp built on them, and it
# agrees on values with tagged messages (agree_max), never with a collective on
# the communicator. A blocking MPI call there stalls MPIX_Test and kills
# overlap without failing any result check. Fails listing any.
top="${srcdir:-.}"
# PMPI_ forms too (the pmpi row's inner collective: its nonblocking form).
hits=$(grep -n -E '(^|[^_[:alnum:]])P?MPI_(Wait|Waitall|Waitany|Waitsome|Probe|Mprobe|Recv|Send|Ssend|Sendrecv|Barrier|Allreduce|Allgather|Bcast|Reduce|Alltoall|Alltoallv|Alltoallw)[[:space:]]*\(' \
           "$top"/src/alltoall/*.cpp "$top"/src/alltoallv/*.cpp | grep -v -E '^[^:]*:[0-9]+:[[:space:]]*//')
if [ -n "$hits" ]; then
    echo "$hits"
    echo "FAIL: a blocking MPI call in a row (wait through src/core/wait.hpp; agree with agree_max)"
    exit 1
fi
echo "PASS: every row waits through the engine"
