# Sourced by the SMPI tests (sim-charge.sh, sim-agreement.sh): $sim_prog is the program
# under build-smpi/sim/ that the test runs. Checks that SimGrid is there, builds
# the SMPI library with the check programs (make sim-charge, its log in
# $sim_prog.build.log) and sets top, prog and fail.
set -u
top="${srcdir:-.}"
fail() { echo "FAIL: $*"; exit 1; }
command -v smpicxx >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1 ||
    fail "SimGrid's smpicxx/smpirun not found: apt-get install libsimgrid-dev (.ci/install-deps does)"
${MAKE:-make} -s sim-charge >"$sim_prog.build.log" 2>&1 || { tail -30 "$sim_prog.build.log"; fail "make sim-charge"; }
prog="build-smpi/sim/$sim_prog"
[ -x "$prog" ] || fail "$prog not built"
