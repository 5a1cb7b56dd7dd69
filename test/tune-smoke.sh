#!/bin/sh
# mpix-tune at 2 ranks and at 4 (emulated nodes of 2) on a tiny grid: a table
# with rules, a resumed run that measures nothing, the same table again from the
# CSV alone, bad options refused; then the library loads the table
# (MPIX_TUNING_FILE, and mpix-tune --check).
set -e
tune=bench/mpix-tune
mpiexec="${MPIEXEC:-mpiexec}"
tmp="${TMPDIR:-/tmp}/mpix-tune-smoke.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "tune-smoke: $*"; exit 1; }
# A table without its "generated" record (date, command, CSV paths): the rules
# (none found fails, so two comparisons of nothing cannot pass).
rules_of() {
    sed '/"generated": {/,/^  },/d' "$1" >"$2"
    grep -q '"algorithm"' "$2" || fail "no rules in $1"
}
# nonblocking stays out of the grid: the library's own rule picks it below 8
# ranks, so a pick of it below shows a table that was not used.
grid="--sizes 16,4096 --dists uniform,normal --algo pairwise,linear,parlogna,node_bruck --radix 2,4 --batch 32
      --iters 2 --warmup 1 --csv $tmp/t.csv --out $tmp/t.json --platform smoke"
$tune --help | grep -q -- '--from-csv' || fail "--help"
# shellcheck disable=SC2086
$mpiexec -n 2 $tune $grid >"$tmp/out2" 2>"$tmp/err2" || { cat "$tmp/err2"; fail "2 ranks"; }
# shellcheck disable=SC2086
$mpiexec -n 4 $tune $grid --ppn 2 >"$tmp/out4" 2>"$tmp/err4" || { cat "$tmp/err4"; fail "4 ranks"; }
grep -q '^\[1/[0-9]*\] P=4 alltoall S=16: .* us, ETA ' "$tmp/err4" || { cat "$tmp/err4"; fail "no progress lines"; }
grep -q '^alltoallv,agreement,default,4,2,2,' "$tmp/t.csv" || fail "no agreement row at P=4"
if awk -F, 'NR > 1 && $13 != "yes"' "$tmp/t.csv" | grep .; then fail "unverified rows"; fi
rows=$(wc -l <"$tmp/t.csv")
# The table: format 1, rules for both collectives, every pick a measured row,
# both P covered, the generator recorded.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/t.json" <<'EOF' || fail "table not as expected: $(cat "$tmp/t.json")"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["mpix_selection_table"] == 1
assert t["generated"]["by"].startswith("mpix-tune ") and t["generated"]["platform"] == "smoke"
for coll in ("alltoall", "alltoallv"):
    rules = t[coll]
    assert rules, coll
    # P 2 and 4 both measured (one P band when both decide alike: timings here are noisy).
    assert sorted({p for r in rules for p in r["measured"]["ranks"]}) == [2, 4], coll
    for r in rules:
        assert r["algorithm"] in ("pairwise", "linear", "parlogna", "node_bruck"), r
        assert set(r.get("hints", {})) <= {"radix", "batch_size"}, r
        m = r["measured"]
        assert m["points"] >= 1 and m["worst_ratio"] >= 1, r
EOF
else
    grep -q '"mpix_selection_table": 1' "$tmp/t.json" || fail "no table"
    grep -q '"alltoallv": \[' "$tmp/t.json" || fail "no alltoallv rules"
fi
# An agreement cost given instead of measured: one row that says so.
$mpiexec -n 2 $tune --coll alltoallv --sizes 16 --dists uniform --algo pairwise --agreement-us 7 --iters 1 \
    --warmup 0 --csv "$tmp/given.csv" --out "$tmp/given.json" >/dev/null 2>"$tmp/errg" || { cat "$tmp/errg"; fail "--agreement-us"; }
grep -q '^alltoallv,agreement,given,2,1,2,16,allreduce,7.000,' "$tmp/given.csv" || { cat "$tmp/given.csv"; fail "no given agreement row"; }
# Resumed: nothing new is measured, the CSV keeps its rows; also once saved with
# CRLF line ends (Python's csv module writes them), which it refused as another header.
sed 's/$/\r/' "$tmp/t.csv" >"$tmp/crlf.csv" && mv "$tmp/crlf.csv" "$tmp/t.csv"
# shellcheck disable=SC2086
$mpiexec -n 4 $tune $grid --ppn 2 >/dev/null 2>"$tmp/err4b" || { cat "$tmp/err4b"; fail "resumed run"; }
grep -q "^mpix-tune: 0 measured, [1-9][0-9]* already in $tmp/t.csv" "$tmp/err4b" || { cat "$tmp/err4b"; fail "resume"; }
test "$(wc -l <"$tmp/t.csv")" -eq "$rows" || fail "the resumed run added rows"
# The same rules from the CSV alone (only the date and command differ).
$tune --from-csv --csv "$tmp/t.csv" --out "$tmp/again.json" --platform smoke >/dev/null 2>&1 || fail "--from-csv"
rules_of "$tmp/t.json" "$tmp/rules1"
rules_of "$tmp/again.json" "$tmp/rules2"
cmp -s "$tmp/rules1" "$tmp/rules2" || fail "--from-csv gives other rules"
# Bad input: a clear message and exit status 2.
for bad in "--coll neighbor_alltoallv" "--algo nosuch" "--ranks 9" "--dists nosuch" "--radix 1" "--agreement-us x"; do
    # shellcheck disable=SC2086
    if $tune $bad --dry-run >/dev/null 2>&1; then fail "accepted $bad"; fi
done
set +e
$tune --from-csv --csv "$tmp/nonexistent.csv" --out "$tmp/x.json" 2>"$tmp/err"
rc=$?
set -e
test $rc -eq 2 && grep -q 'cannot open' "$tmp/err" || fail "a missing CSV: status $rc"
# The library loads the table (MPIX_TUNING_FILE) and auto picks only its rows.
MPIX_TUNING_FILE="$tmp/t.json" $mpiexec -n 4 bench/mpix-bench --coll alltoallv --algo auto --size 16,4096 \
    --dist normal --ppn 2 --iters 1 --warmup 0 >"$tmp/auto" 2>&1 || { cat "$tmp/auto"; fail "mpix-bench with the table"; }
picked=$(sed -n 's/^auto .*picked=\([a-z_]*\).*/\1/p' "$tmp/auto" | sort -u)
test -n "$picked" || { cat "$tmp/auto"; fail "no auto row"; }
for a in $picked; do
    grep -q "\"algorithm\": \"$a\"" "$tmp/t.json" || fail "auto picked $a, which the table does not name"
done
# shellcheck disable=SC2086
$mpiexec -n 4 $tune $grid --ppn 2 --check >"$tmp/check" 2>"$tmp/errc" || { cat "$tmp/errc"; fail "--check"; }
grep -q '^auto with the table: worst [0-9.]* x the best' "$tmp/check" || { cat "$tmp/check"; fail "--check ratio"; }
grep -q '^alltoallv,auto,table;picked=[a-z_]*,4,' "$tmp/t.csv" || fail "no auto,table rows naming the pick"
# The shipped tables (bench/tables, the built-in one) load, and auto runs from them.
for t in "${srcdir:-.}"/bench/tables/*.json "${srcdir:-.}"/src/select/default_table.json; do
    MPIX_TUNING_FILE="$t" $mpiexec -n 2 bench/mpix-bench --coll alltoallv --algo auto --size 16 --iters 1 \
        --warmup 0 >"$tmp/shipped" 2>&1 || { cat "$tmp/shipped"; fail "the library refuses $t"; }
    grep -q '^auto .*picked=' "$tmp/shipped" || { cat "$tmp/shipped"; fail "no auto row with $t"; }
done
# Each shipped table is what mpix-tune makes from the CSVs it names
# (bench/results/tune), so the evidence beside it is the evidence for it.
for t in "${srcdir:-.}"/bench/tables/*.json; do
    csvs=$(sed -n '/"csv": \[/,/\]/p' "$t" | sed -n 's/^ *"\([^"]*\.csv\)",*$/\1/p')
    [ -n "$csvs" ] || fail "$t names no CSV"
    list=
    for c in $csvs; do
        [ -f "${srcdir:-.}/$c" ] || fail "$t: $c is missing"
        list="${list:+$list,}${srcdir:-.}/$c"
    done
    platform=$(sed -n 's/^ *"platform": "\(.*\)",*$/\1/p' "$t")
    $tune --from-csv --csv "$list" --out "$tmp/again.json" --platform "$platform" >/dev/null 2>&1 ||
        fail "--from-csv for $t"
    rules_of "$t" "$tmp/shipped.rules"
    rules_of "$tmp/again.json" "$tmp/again.rules"
    cmp -s "$tmp/shipped.rules" "$tmp/again.rules" ||
        { diff "$tmp/shipped.rules" "$tmp/again.rules"; fail "$t differs from its CSVs' table"; }
done
echo "tune-smoke: 1 passed, 0 failed"
