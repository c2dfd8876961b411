# extract_examples.awk — writes every fenced code block of language LANG
# (```c or ```python) of a Markdown file into OUT/<doc>-<name>.<ext>, where
# <name> comes from the HTML comment on the line before the fence,
#   <!-- example: NAME -->
# and prints one line per block: NAME FILE. A block without that comment is
# an error (exit 1): every example is named, so a failing test says which.
# Usage: awk -v LANG=c -v EXT=c -v OUT=DIR -v DOC=name -f extract_examples.awk FILE.md
BEGIN { inside = 0; pending = ""; status = 0 }
{
    if (!inside && $0 ~ "^```" LANG "[ \t]*$") {
        if (pending == "") {
            printf "%s:%d: a ```%s block without an <!-- example: NAME --> line before it\n", FILENAME, NR, LANG > "/dev/stderr"
            status = 1
        }
        inside = 1
        file = OUT "/" DOC "-" pending "." EXT
        printf "" > file
        print DOC "-" pending " " file
        next
    }
    if (inside && $0 ~ /^```[ \t]*$/) { inside = 0; close(file); pending = ""; next }
    if (inside) { print > file; next }
    if (match($0, /^<!-- example: [A-Za-z0-9_-]+ -->$/)) {
        pending = $0
        sub(/^<!-- example: /, "", pending)
        sub(/ -->$/, "", pending)
    } else if ($0 !~ /^[ \t]*$/) {
        pending = ""
    }
}
END { exit status }
