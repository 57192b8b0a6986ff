#!/usr/bin/env python3
"""Convert a value between units."""
import sys

LENGTH = {"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001, "mi": 1609.344, "ft": 0.3048, "in": 0.0254, "yd": 0.9144}
MASS = {"kg": 1, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
VOLUME = {"l": 1, "ml": 0.001, "gal": 3.785411784}
ALIASES = {"celsius": "C", "fahrenheit": "F", "kelvin": "K", "c": "C", "f": "F", "k": "K",
           "miles": "mi", "mile": "mi", "kilometers": "km", "kilometres": "km", "pounds": "lb",
           "kilograms": "kg", "liters": "l", "litres": "l", "gallons": "gal", "feet": "ft", "inches": "in"}


def norm(u):
    return ALIASES.get(u.lower(), ALIASES.get(u, u.lower() if u.lower() in {**LENGTH, **MASS, **VOLUME} else u))


def to_kelvin(v, u):
    return {"C": v + 273.15, "F": (v - 32) * 5 / 9 + 273.15, "K": v}[u]


def from_kelvin(v, u):
    return {"C": v - 273.15, "F": (v - 273.15) * 9 / 5 + 32, "K": v}[u]


def main():
    if len(sys.argv) != 4:
        print("usage: convert.py VALUE FROM TO", file=sys.stderr)
        return 2
    value = float(sys.argv[1])
    src, dst = norm(sys.argv[2]), norm(sys.argv[3])
    if src in "CFK" and dst in "CFK" and src and dst:
        result = from_kelvin(to_kelvin(value, src), dst)
    else:
        for table in (LENGTH, MASS, VOLUME):
            if src in table and dst in table:
                result = value * table[src] / table[dst]
                break
        else:
            print(f"cannot convert {sys.argv[2]} to {sys.argv[3]}", file=sys.stderr)
            return 1
    r = round(result, 4)
    print(f"{sys.argv[1]} {src} = {int(r) if r.is_integer() else r} {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
