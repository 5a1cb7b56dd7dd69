#!/bin/sh
# Every byte an algorithm copies goes through the communicator's LocalWork
# (src/core/local_work.hpp), which counts it (mpix-bench's copied_bytes) and
# charges it in the simulation, so no row's copies can be free by accident. A
# direct memcpy / memmove / std::copy in the algorithm folders is allowed only
# for the fixed-size scalars of message headers (sizeof, 4 or 8 bytes, RMA's
# kHeader). Fails listing any other.
top="${srcdir:-.}"
dirs=""
for d in alltoall alltoallv sparse neighbor select sched; do
    [ -d "$top/src/$d" ] && dirs="$dirs $top/src/$d"
done
hits=$(grep -n -E '(^|[^_[:alnum:]])(memcpy|memmove)[[:space:]]*\(|std::copy(_n)?[[:space:]]*\(' \
           $(find $dirs -name '*.cpp' -o -name '*.hpp') |
       grep -v -E 'sizeof|, [48]\);|kHeader\);')
if [ -n "$hits" ]; then
    echo "$hits"
    echo "FAIL: copies outside LocalWork (use x.work->copy / move / fill, or note() for work done elsewhere)"
    exit 1
fi
echo "PASS: every algorithm copy goes through LocalWork"
