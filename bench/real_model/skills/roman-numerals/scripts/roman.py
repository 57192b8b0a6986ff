#!/usr/bin/env python3
"""Integers to Roman numerals and back."""
import sys

PAIRS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
         (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def to_roman(n):
    out = []
    for value, numeral in PAIRS:
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)


def from_roman(s):
    s, i, total = s.upper(), 0, 0
    for value, numeral in PAIRS:
        while s.startswith(numeral, i):
            total += value
            i += len(numeral)
    if i != len(s) or to_roman(total) != s:
        raise ValueError(f"not a valid Roman numeral: {s}")
    return total


def main():
    if len(sys.argv) != 2:
        print("usage: roman.py VALUE", file=sys.stderr)
        return 2
    v = sys.argv[1]
    try:
        if v.isdigit():
            n = int(v)
            if not 1 <= n <= 3999:
                raise ValueError("only 1 to 3999")
            print(f"{n} = {to_roman(n)}")
        else:
            print(f"{v.upper()} = {from_roman(v)}")
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
