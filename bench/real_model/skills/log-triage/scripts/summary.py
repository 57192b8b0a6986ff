#!/usr/bin/env python3
"""Step 2: counts per level and the most frequent error of a parsed log."""
import collections
import json
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: summary.py FILE.log.parsed.json", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            data = json.load(f)
    except (OSError, ValueError):
        print(f"{sys.argv[1]} is not a parsed log: run scripts/parse.py FILE.log first", file=sys.stderr)
        return 1
    levels = collections.Counter(e["level"] for e in data["entries"])
    for level in ("ERROR", "WARN", "INFO", "DEBUG"):
        print(f"{level}: {levels.get(level, 0)}")
    errors = collections.Counter(e["message"] for e in data["entries"] if e["level"] == "ERROR")
    if errors:
        message, n = errors.most_common(1)[0]
        print(f"most frequent error ({n} times): {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
