#!/usr/bin/env python3
"""Build a corpus of real third-party skills, reached the way real libraries reach them.

usage: gen_real_corpus.py CACHE_DIR   — prints the corpus folder (CACHE_DIR/corpus) on stdout.

The repositories of bench/real_corpus/sources.json are checked out at their pinned commits into
CACHE_DIR/trees (once; BENCH_MIRRORS=DIR reads local bare mirrors laid out as DIR/owner+name/repo
instead of fetching from GitHub). Every folder holding a skill file (`SKILL.md` in any letter case)
becomes one symlink in CACHE_DIR/corpus, named as the folder is (a second folder of the same name
gets its repository's name in front), so `--skills-dir CACHE_DIR/corpus` lists them all: the
layout of a skills folder filled by `ln -s` or by installers that link instead of copying.
Only the list of sources is kept in the repository, never the skills themselves. Nothing in the
checkouts is ever run: git checks files out with hooks off, and the bench only reads them."""
import json, os, shutil, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))


def git(*args, cwd=None):
    subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "-c", "core.symlinks=false", *args],
                   cwd=cwd, check=True, capture_output=True)


def checkout(cache, repo, commit):
    """A work tree of `repo` at `commit`, made once."""
    tree = os.path.join(cache, "trees", repo.replace("/", "+") + "-" + commit[:12])
    if os.path.isfile(os.path.join(tree, ".complete")):
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    mirrors = os.environ.get("BENCH_MIRRORS")
    if mirrors:
        gitdir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        if os.path.isdir(os.path.join(gitdir, ".git")):
            gitdir = os.path.join(gitdir, ".git")
        # Files git cannot read back (LFS or missing objects) are left out, as a clone would.
        subprocess.run(["git", "-c", "core.symlinks=false", f"--git-dir={gitdir}", f"--work-tree={tree}",
                        "checkout", commit, "--", "."], capture_output=True)
    else:
        git("init", "-q", tree)
        git("fetch", "-q", "--depth", "1", f"https://github.com/{repo}", commit, cwd=tree)
        git("checkout", "-q", "FETCH_HEAD", cwd=tree)
        shutil.rmtree(os.path.join(tree, ".git"), ignore_errors=True)
    open(os.path.join(tree, ".complete"), "w").close()
    return tree


def skill_dirs(tree):
    """Folders holding a skill file, outermost first; a skill's own subfolders are not searched."""
    for root, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if any(f.lower() == "skill.md" for f in files) and root != tree:
            yield root
            dirs[:] = []


def main():
    cache = os.path.abspath(sys.argv[1])
    sources = json.load(open(os.path.join(here, "real_corpus", "sources.json")))["sources"]
    corpus = os.path.join(cache, "corpus")
    shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(corpus)
    taken = set()
    for source in sources:
        tree = checkout(cache, source["repo"], source["commit"])
        prefix = source["repo"].replace("/", "+")
        for folder in skill_dirs(tree):
            name = os.path.basename(folder)
            if name in taken:
                name = prefix + "--" + os.path.relpath(folder, tree).replace(os.sep, "--")
            taken.add(name)
            os.symlink(folder, os.path.join(corpus, name))
    print(corpus)


if __name__ == "__main__":
    main()
