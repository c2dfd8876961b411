#!/bin/sh
# check_no_outside_references.sh SOURCE_DIR — fails, listing the lines, when a
# tracked file (docs, headers, sources, tools, tests, scripts) refers to the
# specification outside the project instead of docs/. This script is the one
# file that names the pattern.
cd "$1" || exit 2
pattern='shared/spec|abi\.md'
if command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    hits=$(git ls-files -co --exclude-standard | grep -v '^tests/docs/check_no_outside_references\.sh$' \
        | xargs grep -nIE "$pattern" 2>/dev/null)
else
    hits=$(grep -rnIE --exclude-dir='build*' --exclude-dir=.git --exclude=check_no_outside_references.sh \
        "$pattern" . 2>/dev/null)
fi
if [ -n "$hits" ]; then
    printf 'references outside the project (point to docs/ instead):\n%s\n' "$hits" >&2
    exit 1
fi
echo "no references outside the project"
