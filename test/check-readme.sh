#!/bin/sh
# Fails if the generated tables in README.md and docs/*.md differ from the
# registry (run `make update-readme` to regenerate them). Each table's markers
# must occur exactly once across these files, both in the same file.
set -e
top="${srcdir:-.}"
tool="${READMETOOL:-./test/readme_tables}"
status=0
for part in hints algorithms persistent; do
    begin="<!-- BEGIN $part table (make update-readme) -->"
    end="<!-- END $part table -->"
    nbegin=0 nend=0 file="" endfile=""
    for f in "$top/README.md" "$top"/docs/*.md; do
        [ -f "$f" ] || continue
        c=$(grep -cxF -- "$begin" "$f" || true)
        [ "$c" -gt 0 ] && { nbegin=$((nbegin + c)); file="$f"; }
        c=$(grep -cxF -- "$end" "$f" || true)
        [ "$c" -gt 0 ] && { nend=$((nend + c)); endfile="$f"; }
    done
    if [ "$nbegin" -ne 1 ] || [ "$nend" -ne 1 ] || [ "$file" != "$endfile" ]; then
        echo "README.md, docs/*.md: the $part table's markers occur $nbegin (BEGIN) and $nend (END) times, expected once each in one file: '$begin' ... '$end'"
        status=1
        continue
    fi
    name="${file#"$top"/}"
    expected=$("$tool" "$part")
    actual=$(sed -n "/^$begin\$/,/^$end\$/p" "$file" | sed '1d;$d')
    if [ "$expected" != "$actual" ]; then
        echo "$name: the $part table differs from the registry; run make update-readme"
        status=1
    fi
done
[ $status -eq 0 ] && echo "check-readme: 1 passed, 0 failed" || echo "check-readme: 0 passed, 1 failed"
exit $status
