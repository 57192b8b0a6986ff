#!/usr/bin/env python3
"""Print the value at a dotted path of a JSON file."""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: json_get.py FILE PATH", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        value = json.load(f)
    walked = []
    for part in [p for p in sys.argv[2].split(".") if p]:
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            keys = list(value.keys()) if isinstance(value, dict) else f"indexes 0..{len(value) - 1}" if isinstance(value, list) else "none"
            print(f"no {part!r} under {'.'.join(walked) or 'the top level'}; available: {keys}", file=sys.stderr)
            return 1
        walked.append(part)
    print(value if isinstance(value, str) else json.dumps(value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
