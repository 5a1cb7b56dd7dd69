# Tidies a man page Doxygen wrote (doc/doc.am): drops the "Detailed
# Description" heading a function's group leaves without text (the function's
# own text follows under "Function Documentation"), and escapes the backslashes
# of code examples (.nf to .fi), which Doxygen 1.9 writes as they are: roff
# would read printf("%s\n") as a number register and show "%s0".
function code_line(line,  out, c) {
    out = ""
    while ((c = index(line, "\\")) > 0) {
        # Doxygen's own escapes in code: \& (a dot) and \f (a font).
        if (substr(line, c + 1, 1) ~ /[&f]/)
            out = out substr(line, 1, c + 1)
        else
            out = out substr(line, 1, c - 1) "\\e"
        line = substr(line, c + (substr(line, c + 1, 1) ~ /[&f]/ ? 2 : 1))
    }
    return out line
}
function flush(  i, empty) {
    empty = 1
    for (i = 2; i <= n; ++i)
        if (held[i] !~ /^(\.PP *)?$/)
            empty = 0
    if (!empty)
        for (i = 1; i <= n; ++i)
            print held[i]
    n = 0
}
/^\.SH / && n > 0 { flush() }
/^\.SH "Detailed Description"/ { held[n = 1] = $0; next }
/^\.nf/ { in_code = 1 }
/^\.fi/ { in_code = 0 }
in_code && !/^\.nf/ { $0 = code_line($0) }
n > 0 { held[++n] = $0; next }
{ print }
END { if (n > 0) flush() }
