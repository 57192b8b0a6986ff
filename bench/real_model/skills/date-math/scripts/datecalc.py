#!/usr/bin/env python3
"""Date arithmetic: add days, days between, weekday."""
import datetime
import sys


def parse(s):
    return datetime.date.fromisoformat(s)


def main():
    a = sys.argv[1:]
    try:
        if len(a) == 3 and a[0] == "add":
            d = parse(a[1]) + datetime.timedelta(days=int(a[2]))
            print(f"{a[1]} + {int(a[2])} days = {d.isoformat()} ({d.strftime('%A')})")
        elif len(a) == 3 and a[0] == "between":
            n = (parse(a[2]) - parse(a[1])).days
            print(f"from {a[1]} to {a[2]}: {n} days")
        elif len(a) == 2 and a[0] == "weekday":
            print(f"{a[1]} is a {parse(a[1]).strftime('%A')}")
        else:
            print("usage: datecalc.py add DATE DAYS | between DATE1 DATE2 | weekday DATE", file=sys.stderr)
            return 2
    except ValueError as e:
        print(f"bad date or number: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
