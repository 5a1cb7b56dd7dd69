#!/bin/sh
# Builds mpil_driver-charged and mpil_driver-uncharged (-DNO_CHARGE) with SimGrid's
# smpicc/smpicxx from a checkout of MPI Advance (github:mpi-advance/locality_aware)
# given as $1: every .c/.cpp of its library/bindings and library/source except the
# GPU ones, compiled with -include charge.h. Output in the current directory.
# Nothing of MPI Advance is kept in this tree.
set -e
la="$(cd "$1" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
inc="-I$la/include -I$la/library/include"
srcs=$(find "$la/library/bindings" "$la/library/source" -name '*.c' -o -name '*.cpp' | grep -v -i 'gpu\|heterogeneous\|cuda\|hip')
for v in charged uncharged; do
    def=""; [ $v = uncharged ] && def=-DNO_CHARGE
    mkdir -p obj-$v; objs=""
    for s in $srcs; do
        o=obj-$v/$(echo "$s" | tr / _).o
        case $s in *.cpp) cc=smpicxx; std=-std=c++17 ;; *) cc=smpicc; std= ;; esac
        $cc $std -O2 -w $def -include "$here/charge.h" $inc -c "$s" -o "$o"
        objs="$objs $o"
    done
    smpicc -O2 $def -c "$here/refcmp_charge.c" -o obj-$v/charge.o
    smpicc -O2 $inc -c "$here/mpil_driver.c" -o obj-$v/driver.o
    smpicxx -o mpil_driver-$v obj-$v/driver.o obj-$v/charge.o $objs -lm
done
