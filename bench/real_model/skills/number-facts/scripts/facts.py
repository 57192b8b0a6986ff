#!/usr/bin/env python3
"""Facts about a number, or gcd/lcm of two, from the sibling module numtheory."""
import sys

from numtheory import divisor_count, factorize, gcd, is_prime


def main():
    a = sys.argv[1:]
    try:
        if len(a) == 3 and a[0] == "gcd":
            x, y = int(a[1]), int(a[2])
            g = gcd(x, y)
            print(f"gcd({x}, {y}) = {g}")
            print(f"lcm({x}, {y}) = {x * y // g}")
        elif len(a) == 1:
            n = int(a[0])
            if n < 2:
                print(f"{n} is neither prime nor composite")
                return 0
            print(f"{n} is {'prime' if is_prime(n) else 'not prime'}")
            print(f"factorization: {' x '.join(map(str, factorize(n)))}")
            print(f"divisors: {divisor_count(n)}")
        else:
            print("usage: facts.py N | facts.py gcd A B", file=sys.stderr)
            return 2
    except ValueError:
        print("whole numbers only", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
