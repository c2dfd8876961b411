#!/bin/sh
# expect.sh STATUS PATTERN COMMAND... — runs COMMAND; passes when it exits
# with STATUS and its output (stdout and stderr) matches the grep -E PATTERN.
want=$1 pattern=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$want" ]; then
    echo "expect.sh: exit status $status, expected $want" >&2
    exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
    echo "expect.sh: output does not match: $pattern" >&2
    exit 1
fi
