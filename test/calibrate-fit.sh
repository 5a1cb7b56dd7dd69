#!/bin/sh
# sim/calibrate's copy model (sim/README.md, "Calibration"): the copy bandwidth is
# the memcpy sweep's slope from 64 KiB while copies still run from the cache (at
# half the 64 KiB copy's rate or more), and the cost per copy comes from the
# copies of 64 B or less. Synthetic sweeps with known rates; no MPI, no SimGrid.
top="${srcdir:-.}"
exec python3 - "$top/sim/calibrate" <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("mpix_calibrate", sys.argv[1])
spec = importlib.util.spec_from_loader("mpix_calibrate", loader)
cal = importlib.util.module_from_spec(spec)
loader.exec_module(cal)

sizes = [16 << i for i in range(19)]  # 16 B - 4 MiB, as calibrate-native sweeps
def sweep(rate_of):
    return [(n, 3e-9 + n / rate_of(n)) for n in sizes]

failed = []
def expect(what, got, want, rel=0.02):
    if abs(got - want) > rel * want:
        failed.append("%s: %.4g, expected %.4g" % (what, got, want))

# In the cache at 40 GB/s up to 1 MiB, 10 GB/s beyond (a 2 MiB L2): 40 GB/s.
c, bw = cal.fit_copy(sweep(lambda n: 40e9 if n <= 1 << 20 else 10e9))
expect("in-cache slope", bw, 40e9)
expect("cost per copy", c, 3e-9, rel=0.05)
# Every copy in the cache: the slope to the largest copy, as before.
c, bw = cal.fit_copy(sweep(lambda n: 30e9))
expect("all in cache", bw, 30e9)
# Out of the cache from 128 KiB: too few copies in it, the whole range's slope.
c, bw = cal.fit_copy(sweep(lambda n: 40e9 if n <= 64 << 10 else 8e9))
expect("no in-cache range", bw, (4194304 - 65536) / ((4194304 / 8e9) - (65536 / 40e9)))
if failed:
    print("FAIL: " + "; ".join(failed))
    sys.exit(1)
print("PASS: sim/calibrate fits the copy bandwidth in the cache")
PY
