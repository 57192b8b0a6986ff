"""Small number-theory helpers used by facts.py."""


def factorize(n):
    factors, d = [], 2
    while d * d <= n:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
    if n > 1:
        factors.append(n)
    return factors


def is_prime(n):
    return n > 1 and factorize(n) == [n]


def divisor_count(n):
    count = 1
    factors = factorize(n)
    for p in set(factors):
        count *= factors.count(p) + 1
    return count


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a
