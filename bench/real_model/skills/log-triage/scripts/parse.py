#!/usr/bin/env python3
"""Step 1: parse a log (`DATE TIME LEVEL message`) into FILE.parsed.json."""
import json
import os
import re
import sys

LINE = re.compile(r"^(\S+) (\S+) (ERROR|WARN|INFO|DEBUG)\s+(.*)$")


def main():
    if len(sys.argv) != 2:
        print("usage: parse.py FILE.log", file=sys.stderr)
        return 2
    entries = []
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if m:
                entries.append({"date": m[1], "time": m[2], "level": m[3], "message": m[4]})
    out = os.path.basename(sys.argv[1]) + ".parsed.json"
    with open(out, "w") as f:
        json.dump({"source": sys.argv[1], "entries": entries}, f)
    print(f"parsed {len(entries)} entries into {out}; next: scripts/summary.py {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
