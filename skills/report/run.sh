#!/bin/sh
# A briefing for a city, composed from the time and weather skills found on AGENT_SKILLS_PATH.
set -u

if [ $# -lt 1 ] || [ -z "$*" ]; then
    echo "usage: ./run.sh CITY" >&2
    exit 2
fi
city=$*

# Print the folder of the first skill called $1 on AGENT_SKILLS_PATH (first root wins, as in agent).
find_skill() {
    old_ifs=$IFS
    IFS=:
    for root in ${AGENT_SKILLS_PATH:-}; do
        if [ -n "$root" ] && [ -x "$root/$1/run.sh" ]; then
            IFS=$old_ifs
            printf '%s\n' "$root/$1"
            return 0
        fi
    done
    IFS=$old_ifs
    return 1
}

# Run another skill's entry script the way agent would: in its folder, with its SKILL_* variables.
call_skill() {
    name=$1
    shift
    dir=$(find_skill "$name") || { echo "skill '$name' not found on AGENT_SKILLS_PATH"; return 1; }
    (cd "$dir" && SKILL_DIR=$dir SKILL_NAME=$name ./run.sh "$@" 2>&1)
}

failures=0
echo "Briefing for $city"
if out=$(call_skill time "$city"); then
    echo "time:    $out"
else
    echo "time:    unavailable ($out)"
    failures=$((failures + 1))
fi
if out=$(call_skill weather "$city"); then
    echo "weather: $out"
else
    echo "weather: unavailable ($out)"
    failures=$((failures + 1))
fi
[ "$failures" -lt 2 ]
