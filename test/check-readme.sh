#!/bin/sh
# Fails if README.md's generated tables differ from the registry (run
# `make update-readme` to regenerate them).
set -e
top="${srcdir:-.}"
tool="${READMETOOL:-./test/readme_tables}"
status=0
for part in hints algorithms persistent; do
    begin="<!-- BEGIN $part table (make update-readme) -->"
    end="<!-- END $part table -->"
    expected=$("$tool" "$part")
    actual=$(sed -n "/^$begin\$/,/^$end\$/p" "$top/README.md" | sed '1d;$d')
    if [ "$expected" != "$actual" ]; then
        echo "README.md: the $part table differs from the registry; run make update-readme"
        status=1
    fi
done
[ $status -eq 0 ] && echo "check-readme: 1 passed, 0 failed" || echo "check-readme: 0 passed, 1 failed"
exit $status
