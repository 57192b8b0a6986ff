#!/usr/bin/env python3
"""A URL slug of a phrase."""
import re
import sys
import unicodedata


def main():
    args = sys.argv[1:]
    limit = 0
    if "--max" in args:
        i = args.index("--max")
        limit = int(args[i + 1])
        del args[i:i + 2]
    if not args:
        print("usage: slugify.py TEXT [--max N]", file=sys.stderr)
        return 2
    text = unicodedata.normalize("NFKD", " ".join(args)).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if limit and len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0]
    print(slug)
    return 0


if __name__ == "__main__":
    sys.exit(main())
