#!/usr/bin/env python3
"""Lines, words, characters (and top words) of a text file."""
import collections
import re
import sys


def main():
    args = sys.argv[1:]
    top = 0
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print("usage: count.py FILE [--top N]", file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        text = f.read()
    words = text.split()
    print(f"lines: {text.count(chr(10))}")
    print(f"words: {len(words)}")
    print(f"characters: {len(text)}")
    if top:
        counts = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z']+", text))
        for word, n in counts.most_common(top):
            print(f"{word}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
