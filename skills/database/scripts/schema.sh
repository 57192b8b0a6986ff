#!/bin/sh
# Every table and view with its CREATE statement.
set -eu
. "$(dirname "$0")/common.sh"
out=$(printf '%s\n' "SELECT type || ' ' || name || ':' || char(10) || sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' AND sql IS NOT NULL ORDER BY type, name;" | run_sqlite)
if [ -z "$out" ]; then
    echo "the database has no tables"
else
    printf '%s\n' "$out"
fi
