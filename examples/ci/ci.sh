#!/usr/bin/env bash
# The CI job of a skill repository, without an API key or network:
#   1. lint every skill, 2. replay a recorded session (the skill's script runs for real),
#   3. check that each request still routes to the right skill.
# Usage: examples/ci/ci.sh [SKILLS_DIR]   (AGENT=path/to/agent to use a specific binary)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
skills=$(cd "${1:-$here/../../skills}" && pwd)
agent=${AGENT:-agent}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only the skills under test: no user skills from HOME, no project skills from the current folder.
export HOME="$work/home"
mkdir -p "$HOME"
cd "$work"

echo "== 1. lint: agent skills check"
"$agent" skills check "$skills"

echo "== 2. replay: a recorded session of the database skill"
sqlite3 "$work/shop.db" < "$here/shop.sql"
answer=$(SQLITE_DB="$work/shop.db" "$agent" --skills-dir "$skills" \
    --replay "$here/cassettes/orders.jsonl" --once "How many orders are in the shop database?")
echo "$answer"
expected="There are 3 orders worth 65.49 in total."
if [ "$answer" != "$expected" ]; then
    echo "expected: $expected" >&2
    exit 1
fi

echo "== 3. routing: agent skills eval"
"$agent" --skills-dir "$skills" skills eval "$here/routing.yaml" --runs 1 --replay "$here/cassettes/routing.jsonl"
echo "ci: all checks passed"
