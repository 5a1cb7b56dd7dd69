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
    file=$(sh "$top/test/table-file.sh" "$top" "$part" 2>&1) || { echo "$file"; status=1; continue; }
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
