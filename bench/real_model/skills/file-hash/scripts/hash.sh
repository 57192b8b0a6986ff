#!/bin/sh
# Checksum of a file: sha256 (default), sha1, md5 or sha512.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: hash.sh FILE [sha256|sha1|md5|sha512]" >&2
    exit 2
fi
file=$1
algo=${2:-sha256}
case $algo in
    sha256|sha1|md5|sha512) ;;
    *) echo "unknown algorithm: $algo (sha256, sha1, md5, sha512)" >&2; exit 2 ;;
esac
[ -f "$file" ] || { echo "no such file: $file" >&2; exit 1; }
sum=$("${algo}sum" "$file" | cut -d' ' -f1)
printf '%s  %s  %s\n' "$algo" "$sum" "$file"
