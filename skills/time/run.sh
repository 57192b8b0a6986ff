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

# Find the zone for a place: an exact zone path, else a zone whose last part is the city.
zone_for() {
    place=$1
    case $place in
        [Uu][Tt][Cc]|[Gg][Mm][Tt]) echo UTC; return 0 ;;
    esac
    if [ -f "$zoneinfo/$place" ]; then echo "$place"; return 0; fi
    city=$(printf '%s' "$place" | tr ' ' '_' | tr '[:upper:]' '[:lower:]')
    find "$zoneinfo" -path "$zoneinfo/posix" -prune -o -path "$zoneinfo/right" -prune -o -type f -print 2>/dev/null |
        while IFS= read -r file; do
            base=$(basename "$file" | tr '[:upper:]' '[:lower:]')
            if [ "$base" = "$city" ]; then
                printf '%s\n' "${file#"$zoneinfo"/}"
            fi
        done | sort | head -n 1 | grep . || return 1
}

status=0
for place in "$@"; do
    if zone=$(zone_for "$place"); then
        offset=$(TZ=$zone date '+%z' | sed 's/^\(...\)\(..\)$/\1:\2/')
        printf '%s (%s): %s, UTC%s, %s\n' "$place" "$zone" "$(TZ=$zone date '+%Y-%m-%d %H:%M %Z')" "$offset" "$(TZ=$zone date '+%A')"
    else
        echo "unknown place '$place': give an IANA zone such as America/New_York" >&2
        status=1
    fi
done
exit $status
