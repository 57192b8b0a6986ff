#!/bin/sh
# {{name}}: replace this with what the skill does.
# The contract every skill command follows: input = arguments (or stdin when there are none),
# result = stdout, failure = a reason on stderr and a non-zero exit (2: bad usage, 1: the rest).
# Settings and secrets come from environment variables, never arguments.
set -eu

if [ $# -gt 0 ]; then
    input=$*
elif [ ! -t 0 ]; then
    input=$(cat)
else
    input=
fi
if [ -z "$input" ]; then
    echo "usage: ./run.sh TEXT (or pipe the text on stdin)" >&2
    exit 2
fi

# The real work goes here: print the result on stdout, and on failure say why on stderr and exit 1.
printf '%s\n' "$input"
