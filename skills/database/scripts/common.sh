# Shared checks for the database scripts (sourced, not run).
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "this skill needs the sqlite3 CLI (apt-get install sqlite3)" >&2
    exit 1
fi
if [ -z "${SQLITE_DB:-}" ]; then
    echo "SQLITE_DB is not set: export SQLITE_DB=/path/to/file.db" >&2
    exit 1
fi
if [ ! -f "$SQLITE_DB" ]; then
    echo "SQLITE_DB points to '$SQLITE_DB', which does not exist" >&2
    exit 1
fi
# Read-only connection in safe mode: no writes, no ATTACH, no .shell/.system.
run_sqlite() {
    sqlite3 -readonly -safe -batch -bail "$@" "file:$SQLITE_DB?mode=ro"
}
