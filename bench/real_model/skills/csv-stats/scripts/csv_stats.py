#!/usr/bin/env python3
"""Statistics of one numeric column of a CSV file."""
import csv
import statistics
import sys


def fmt(x):
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def main():
    if len(sys.argv) != 3:
        print("usage: csv_stats.py FILE COLUMN", file=sys.stderr)
        return 2
    path, column = sys.argv[1], sys.argv[2]
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        names = {n.lower(): n for n in reader.fieldnames or []}
        if column.lower() not in names:
            print(f"no column {column!r}; columns: {', '.join(reader.fieldnames or [])}", file=sys.stderr)
            return 1
        key = names[column.lower()]
        values = [float(row[key]) for row in reader if row[key].strip()]
    print(f"column: {key}")
    print(f"count: {len(values)}")
    print(f"sum: {fmt(sum(values))}")
    print(f"mean: {fmt(statistics.mean(values))}")
    print(f"median: {fmt(statistics.median(values))}")
    print(f"min: {fmt(min(values))}")
    print(f"max: {fmt(max(values))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
