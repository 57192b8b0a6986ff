#!/bin/sh
# Current weather for a place, one line, via wttr.in (format=3).
set -eu

if [ $# -lt 1 ] || [ -z "$*" ]; then
    echo "usage: ./run.sh CITY" >&2
    exit 2
fi
base=${WEATHER_BASE_URL:-https://wttr.in}

# Percent-encode the place for the URL path (POSIX sh, byte by byte).
encode() {
    printf '%s' "$1" | od -An -v -tx1 | tr -s ' \n' '  ' | {
        out=""
        for hex in $(cat); do
            case $hex in
                3[0-9]|4[1-9a-f]|5[0-9a]|6[1-9a-f]|7[0-9a]|2d|2e|5f|7e)
                    out="$out$(printf "\\$(printf '%03o' "0x$hex")")" ;;
                *) out="$out%$(printf '%s' "$hex" | tr 'a-f' 'A-F')" ;;
            esac
        done
        printf '%s' "$out"
    }
}

place=$(encode "$*")
if ! body=$(curl -fsS --max-time 15 -H 'Accept-Language: en' "$base/$place?format=3" 2>&1); then
    echo "weather service failed for '$*': $body" >&2
    exit 1
fi
case $body in
    *"Unknown location"*|"")
        echo "unknown place: $*" >&2
        exit 1 ;;
esac
printf '%s\n' "$body"
