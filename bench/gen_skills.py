#!/usr/bin/env python3
"""Generate N synthetic skill folders (Agent Skills frontmatter) for benchmarks.

usage: gen_skills.py N DIR   — DIR is emptied first. Names and descriptions are built from a fixed
vocabulary with a fixed seed, so every run produces the same set.
"""
import os, random, shutil, sys

VERBS = ["convert", "summarise", "search", "deploy", "lint", "format", "translate", "analyse", "backup",
         "monitor", "resize", "encrypt", "compress", "validate", "schedule", "render", "index", "sync"]
OBJECTS = ["pdf files", "images", "csv tables", "json logs", "kubernetes pods", "git history", "emails",
           "invoices", "audio clips", "spreadsheets", "docker images", "markdown notes", "calendar events",
           "sql databases", "web pages", "photos", "videos", "source code", "api responses", "s3 buckets"]
EXTRA = ["quickly", "for a team", "with retries", "from the command line", "in batches", "offline",
         "with a progress report", "and keeps a log", "using open tools", "safely"]

def main():
    n, root = int(sys.argv[1]), sys.argv[2]
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    rng = random.Random(42)
    for i in range(n):
        verb, obj, extra = rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(EXTRA)
        name = f"{verb}-{obj.split()[0]}-{i}"
        desc = f"{verb.capitalize()} {obj} {extra}. Use when the user wants to {verb} {obj}."
        d = os.path.join(root, name)
        os.makedirs(d)
        with open(os.path.join(d, "SKILL.md"), "w") as f:
            f.write(f"---\nname: {name}\ndescription: {desc}\n---\n\n# {name}\n\nRun `./run.sh` with the input.\n")

if __name__ == "__main__":
    main()
