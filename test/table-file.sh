#!/bin/sh
# test/table-file.sh TOP PART: the file, of TOP/README.md and TOP/docs/*.md, that
# holds the generated PART table (hints, algorithms, persistent): its BEGIN and
# END markers must occur exactly once across those files, both in that file.
# Prints the path, or says what is wrong on stderr and exits 1. Shared by
# test/check-readme.sh, make update-readme and test/check-man.sh.
top="$1" part="$2"
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
    echo "README.md, docs/*.md: the $part table's markers occur $nbegin (BEGIN) and $nend (END) times, expected once each in one file: '$begin' ... '$end'" >&2
    exit 1
fi
echo "$file"
