#!/bin/sh
# Local time for cities or IANA zones, offline, from the system zoneinfo database.
set -u

zoneinfo=${ZONEINFO:-/usr/share/zoneinfo}
if [ $# -lt 1 ]; then
    echo "usage: ./run.sh PLACE... (a city like Tokyo or a zone like Europe/Paris)" >&2
    exit 2
fi
if [ ! -d "$zoneinfo" ]; then
    echo "no time-zone database at $zoneinfo; install tzdata" >&2
    exit 1
fi

# The zone for a place: UTC, an exact zone path, else the first zone (in sorted order) whose last
# part is the city, compared case-insensitively with spaces as underscores. One find and one awk
# per place: forking a process per zoneinfo file would take seconds.
zone_for() {
    case $1 in
        [Uu][Tt][Cc] | [Gg][Mm][Tt]) echo UTC; return 0 ;;
        *..* | /*) return 1 ;;
    esac
    if [ -f "$zoneinfo/$1" ]; then
        printf '%s\n' "$1"
        return 0
    fi
    find "$zoneinfo" \( -path "$zoneinfo/posix" -o -path "$zoneinfo/right" \) -prune -o -type f -print |
        awk -v prefix="$zoneinfo/" -v place="$1" '
            BEGIN { place = tolower(place); gsub(/ /, "_", place) }
            { n = split($0, part, "/") }
            tolower(part[n]) == place { print substr($0, length(prefix) + 1) }' |
        sort | head -n 1 | grep .
}

status=0
while [ $# -gt 0 ]; do
    place=$1
    shift
    # A city of two or three words typed without quotes (New York, Ho Chi Minh) is one place
    # when the word alone is none.
    if ! zone=$(zone_for "$place"); then
        if [ $# -ge 1 ] && zone=$(zone_for "$place $1"); then
            place="$place $1"
            shift
        elif [ $# -ge 2 ] && zone=$(zone_for "$place $1 $2"); then
            place="$place $1 $2"
            shift 2
        fi
    fi
    if [ -n "$zone" ]; then
        # One date call: "2026-11-29 21:04 JST|+0900|Sunday".
        IFS='|' read -r when offset day <<EOT
$(TZ=$zone date '+%Y-%m-%d %H:%M %Z|%z|%A')
EOT
        printf '%s (%s): %s, UTC%s:%s, %s\n' "$place" "$zone" "$when" "${offset%??}" "${offset#???}" "$day"
    else
        echo "unknown place '$place': give an IANA zone such as America/New_York" >&2
        status=1
    fi
done
exit $status
