#!/usr/bin/env bash
# The installed-library rows of BENCHMARKS.md: N skills (default 1,000) from four local git
# repositories shaped like the public ones (bench/gen_library.py), installed with `skills add --all`
# into a temporary HOME with their skills-lock.json, then `skills list`, `skills check` and
# `skills outdated` timed (median of 5) and the remote queries of `outdated` counted through a
# `git` on PATH that logs its calls. Prints a markdown table.
# usage: bench/library.sh AGENT [N]
set -euo pipefail
agent=$1
n=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home AGENT_OTHER_AGENTS=none XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state
mkdir -p "$HOME"
cd "$tmp"
python3 "$here/gen_library.py" "$n" "$tmp/repos" >/dev/null
for repo in "$tmp"/repos/*; do
    "$agent" skills add "file://$repo" --all >/dev/null 2>&1
done
installed=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["skills"]))' "$HOME/.agents/skills/skills-lock.json")

# A git that logs, first on PATH.
real=$(command -v git)
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "$*" >> %s/git.log\nexec %s "$@"\n' "$tmp" "$real" >"$tmp/bin/git"
chmod +x "$tmp/bin/git"

median() { # command... -> median wall seconds of 5 runs
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f "%e" "$@" >/dev/null 2>>"$tmp/times" || true
        tail -1 "$tmp/times"
    done | sort -n | sed -n 3p
}
list=$(median "$agent" skills list)
check=$(median "$agent" skills check)
: >"$tmp/git.log"
outdated=$(PATH=$tmp/bin:$PATH median "$agent" skills outdated)
queries=$(($(grep -c ' ls-remote ' "$tmp/git.log") / 5))

echo "| $installed installed skills, 4 sources, with skills-lock.json | wall (median of 5) |"
echo "|---|---|"
echo "| \`skills list\` | $list s |"
echo "| \`skills check\` | $check s |"
echo "| \`skills outdated\` (local repositories; $queries remote queries per run) | $outdated s |"
