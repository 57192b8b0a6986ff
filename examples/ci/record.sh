#!/usr/bin/env bash
# Re-record the cassettes that ci.sh replays, against the endpoint you have configured
# (OPENAI_API_KEY / AGENT_BASE_URL / AGENT_MODEL, as for any agent run). Run it after changing a
# skill's description or script on purpose, review the answers, and commit the cassettes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
skills=$(cd "${1:-$here/../../skills}" && pwd)
agent=${AGENT:-agent}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"
mkdir -p "$HOME"
cd "$work"
sqlite3 "$work/shop.db" < "$here/shop.sql"
SQLITE_DB="$work/shop.db" "$agent" --skills-dir "$skills" --record "$here/cassettes/orders.jsonl" \
    --once "How many orders are in the shop database?"
"$agent" --skills-dir "$skills" skills eval "$here/routing.yaml" --runs 1 --record "$here/cassettes/routing.jsonl" || true
echo "recorded: $here/cassettes/orders.jsonl $here/cassettes/routing.jsonl"
