#!/usr/bin/env python3
"""Convert MetaTool's ToolE tool-selection set into the shape of bench/routing/.

    python3 bench/metatool/convert.py GIT_DIR [OUT_DIR]

GIT_DIR is a clone (bare or not) of https://github.com/HowieHwong/MetaTool; the files are read
at the pinned commit below, so a newer clone gives the same output. OUT_DIR defaults to this
script's folder. Writes skills.json (the 199 tools of dataset/plugin_des.json, in its order, as
name + description) and cases.json (a sample of dataset/data/all_clean_data.csv, one labelled
tool per query; a query listed under several tools accepts each of them).

Sample and split, fixed before any ranking was run on the set: h = FNV-1a 64 of the query's
UTF-8 bytes (after trimming whitespace); a query is kept when h % 20 == 0, and it belongs to
the held-out half when (h // 20) % 2 == 1, to the development half otherwise.
"""
import csv
import io
import json
import os
import subprocess
import sys

COMMIT = "35e81bb7576826e980c80fed8f8c0a2b4a1e6fbb"
KEEP_ONE_IN = 20


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def show(git_dir, path):
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"],
        check=True, capture_output=True,
    ).stdout.decode("utf-8")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    git_dir = sys.argv[1]
    if os.path.isdir(os.path.join(git_dir, ".git")):
        git_dir = os.path.join(git_dir, ".git")
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.dirname(os.path.abspath(__file__))
    tools = json.loads(show(git_dir, "dataset/plugin_des.json"))
    expect = {}
    for row in csv.DictReader(io.StringIO(show(git_dir, "dataset/data/all_clean_data.csv"))):
        query, tool = row["Query"].strip(), row["Tool"].strip()
        if tool not in tools:
            sys.exit(f"query {query!r} names unknown tool {tool!r}")
        if query and fnv1a64(query) % KEEP_ONE_IN == 0:
            expect.setdefault(query, [])
            if tool not in expect[query]:
                expect[query].append(tool)
    cases = []
    for query in sorted(expect):
        half = "held-out" if (fnv1a64(query) // KEEP_ONE_IN) % 2 == 1 else "dev"
        cases.append({"request": query, "expect": sorted(expect[query]), "split": half})
    skills = [{"name": n, "description": d.strip()} for n, d in tools.items()]
    dump(os.path.join(out, "skills.json"), skills)
    dump(os.path.join(out, "cases.json"), cases)
    held = sum(c["split"] == "held-out" for c in cases)
    print(f"{len(skills)} tools, {len(cases)} queries: {len(cases) - held} dev, {held} held-out")


def dump(path, items):
    """One JSON object a line, like bench/routing/, so diffs stay readable."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n")
        f.write(",\n".join(json.dumps(i, ensure_ascii=False) for i in items))
        f.write("\n]\n")


if __name__ == "__main__":
    main()
