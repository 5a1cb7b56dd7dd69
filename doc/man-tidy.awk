# Tidies a man page Doxygen wrote (doc/doc.am): drops the "Detailed
# Description" heading a function's group leaves without text (the function's
# own text follows under "Function Documentation").
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
n > 0 { held[++n] = $0; next }
{ print }
END { if (n > 0) flush() }
