#!/bin/sh
# Run one read-only SQL statement and print rows with a header.
set -eu
. "$(dirname "$0")/common.sh"
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo 'usage: scripts/query.sh "SELECT ..."' >&2
    exit 2
fi
sql=$1
# A dot-command would be run by the sqlite3 shell itself; refuse any line starting with one.
if printf '%s\n' "$sql" | grep -Eq '^[[:space:]]*\.'; then
    echo "refused: sqlite3 dot-commands are not allowed, only SQL" >&2
    exit 3
fi
first=$(printf '%s' "$sql" | sed -e 's/--[^\n]*$//' | tr '\n' ' ' | sed -e 's/^[[:space:](]*//' | cut -d' ' -f1 | tr '[:lower:]' '[:upper:]')
case $first in
    SELECT|WITH|EXPLAIN|VALUES) ;;
    PRAGMA)
        printf '%s' "$sql" | grep -Eiq '^[[:space:]]*pragma[[:space:]]+(table_info|table_xinfo|index_list|index_info|foreign_key_list)[[:space:]]*\(' ||
            { echo "refused: only PRAGMA table_info/index_list/foreign_key_list are allowed" >&2; exit 3; } ;;
    *)
        echo "refused: '$first' is not a read-only statement; this skill only reads (SELECT/WITH/EXPLAIN)" >&2
        exit 3 ;;
esac
printf '%s\n' "$sql" | run_sqlite -header -separator ' | ' -nullvalue NULL
