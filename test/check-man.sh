#!/bin/sh
# Every function declared in include/mpix.h has a generated man page
# (doc/doc.am, Doxygen) that names each of its arguments, lists the error
# classes it returns and shows an example; mpix(7) exists and names every hint
# key, its MPIX_ environment variable and the other MPIX_ variables the library
# reads. Run by make check from the build tree (srcdir: the source tree).
top="${srcdir:-.}"
header="$top/include/mpix.h"
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# A page from the build tree, or from the source tree (a tarball ships them).
page_of() {
    if [ -f "doc/man/$1" ]; then echo "doc/man/$1"
    elif [ -f "$top/doc/man/$1" ]; then echo "$top/doc/man/$1"
    fi
}

if [ -z "$(page_of man7/mpix.7)" ] && [ -z "$(page_of man3/mpix.h.3)" ]; then
    if [ -f Makefile ] && grep -q '^DOXYGEN = *$' Makefile; then
        why="Doxygen was not found by configure"
    else
        why="the pages were not generated (make doc/man.stamp)"
    fi
    echo "FAIL: no man pages in doc/man (build tree) or $top/doc/man: $why."
    echo "      apt-get install doxygen; .ci/install-deps does; then rerun configure and make."
    echo "check-man: 0 passed, 1 failed"
    exit 1
fi

# One line per declaration: "name|return type|parameters" (declarations may span lines).
decls=$(awk '
    /^[A-Za-z_][A-Za-z0-9_ ]*[ *]MPIX_[A-Za-z0-9_]+\(/ { d = ""; on = 1 }
    on { d = d " " $0; if (index($0, ";")) { print d; on = 0 } }
' "$header" | sed -e 's/^ *//' -e 's/  */ /g' \
    -e 's/^\(.*[ *]\)\(MPIX_[A-Za-z0-9_]*\) *(\(.*\)) *;.*$/\2|\1|\3/')
if [ -z "$decls" ]; then
    echo "FAIL: no function declarations found in $header"
    echo "check-man: 0 passed, 1 failed"
    exit 1
fi

# Lines of the page from the one starting with $2 to the next ".RE" (a Doxygen section).
section() { sed -n "/^$2/,/^\\.RE/p" "$1"; }

nfun=0
while IFS='|' read -r name ret params; do
    [ -n "$name" ] || continue
    nfun=$((nfun + 1))
    page=$(page_of "man3/$name.3")
    if [ -z "$page" ]; then
        bad "$name: no man page doc/man/man3/$name.3 (a @defgroup $name in include/mpix.h, and the page in doc/doc.am's MPIX_MAN3)"
        continue
    fi
    ok=1
    grep -q "^\\.TH \"$name\" 3 " "$page" || { bad "$name: $page is not the page of $name (.TH)"; ok=0; }
    grep -qF "doc/man/man3/$name.3" "$top/doc/doc.am" ||
        { bad "$name: doc/doc.am does not list doc/man/man3/$name.3 (not installed or shipped)"; ok=0; }
    params_text=$(section "$page" '\\fBParameters\\fP')
    old_ifs=$IFS
    IFS=','
    for p in $params; do
        IFS=$old_ifs
        arg=$(echo "$p" | sed -e 's/\[[^]]*\]//g' -e 's/[ *]*$//' -e 's/.*[^A-Za-z0-9_]//')
        [ -n "$arg" ] && [ "$arg" != void ] || continue
        printf "%s\n" "$params_text" | grep -qF "\\fI$arg\\fP" ||
            { bad "$name: the page does not name the argument '$arg' under Parameters (@param[in|out] $arg)"; ok=0; }
    done
    IFS=$old_ifs
    case "$ret" in
    int*)
        errors=$(section "$page" '\\fBReturn values\\fP')
        if ! printf "%s\n" "$errors" | grep -q 'MPI_ERR_[A-Z_]*\|MPI_SUCCESS'; then
            bad "$name: no error section (@retval MPI_SUCCESS, @retval MPI_ERR_...)"; ok=0
        elif ! printf "%s\n" "$errors" | grep -q 'MPI_ERR_[A-Z_]*'; then
            bad "$name: the error section names no MPI_ERR_ class"; ok=0
        fi ;;
    *)
        section "$page" '\\fBReturns\\fP' | grep -q . ||
            { bad "$name: no Returns section (@return)"; ok=0; } ;;
    esac
    sed -n '/^\\fBExample\\fP/,/^\.fi/p' "$page" | grep -qF "$name(" ||
        { bad "$name: no example calling $name (@par Example, @code)"; ok=0; }
    [ $ok -eq 1 ] && pass=$((pass + 1))
done <<EOF
$decls
EOF

# mpix(7): the hint keys (the guide's hints table, test/table-file.sh finds it, is generated
# from the registry and checked by check-readme.sh), their variables and the
# other MPIX_ variables.
page7=$(page_of man7/mpix.7)
if [ -z "$page7" ]; then
    bad "mpix(7): no page doc/man/man7/mpix.7"
else
    ok=1
    grep -q '^\.TH "mpix" 7 ' "$page7" || { bad "mpix(7): $page7 is not in section 7 (.TH)"; ok=0; }
    hints_file=$(sh "$top/test/table-file.sh" "$top" hints) || { bad "mpix(7): the hints table not found"; ok=0; }
    keys=$(sed -n '/^<!-- BEGIN hints table/,/^<!-- END hints table/p' "${hints_file:-/dev/null}" |
        sed -n 's/^| `\([a-z_]*\)` |.*`\(MPIX_[A-Z_]*\)` |.*/\1 \2/p')
    [ -n "$keys" ] || { bad "mpix(7): no hint keys found in the hints table ($hints_file)"; ok=0; }
    vars=$(grep -rhoE '"MPIX_[A-Z][A-Z0-9_]*"' "$top/src" | tr -d '"' | sort -u)
    for w in $keys $vars libmpix_pmpi LD_PRELOAD MPIX_TUNING_FILE mpix-tune tables; do
        grep -qF "$w" "$page7" || { bad "mpix(7): does not mention $w"; ok=0; }
    done
    [ $ok -eq 1 ] && pass=$((pass + 1))
fi

# Code examples show their backslashes: roff reads an unescaped one (printf("%s\n")) as
# an escape, so each must be \e, or Doxygen's own \& and \f (doc/man-tidy.awk).
for page in $(page_of man7/mpix.7) $(for f in "$top"/doc/man/man3/*.3 doc/man/man3/*.3; do
        [ -f "$f" ] && echo "$f"; done | sort -u); do
    raw=$(awk '/^\.nf/ { c = 1; next } /^\.fi/ { c = 0 } c && /\\[^e&f]|\\$/ { print FNR ": " $0 }' "$page")
    if [ -n "$raw" ]; then
        bad "$page: a code example has an unescaped backslash (shown wrongly by man):"
        printf "%s\n" "$raw"
    else
        pass=$((pass + 1))
    fi
done

# Doxygen's warnings about the public functions' parameters (WARN_NO_PARAMDOC).
if [ -f doc/doxygen-warnings.log ]; then
    if grep -qi 'param\|not documented\|undocumented' doc/doxygen-warnings.log; then
        bad "Doxygen warned about undocumented parameters or members (doc/doxygen-warnings.log):"
        grep -i 'param\|not documented\|undocumented' doc/doxygen-warnings.log
    fi
fi

echo "check-man: $nfun functions in mpix.h; $pass passed, $fail failed"
[ $fail -eq 0 ]
