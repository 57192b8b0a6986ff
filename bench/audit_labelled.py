#!/usr/bin/env python3
"""The skill audit against a labelled set (bench/audit/labelled.json): share of malicious skills
flagged critical or high, share of benign skills with such a finding, per rule class, and the time
`agent skills audit` takes over the ~1,000 benign skills in one run.

Usage: audit_labelled.py AGENT_BIN CACHE_DIR > audit.md
The repositories are fetched at the recorded commits into CACHE_DIR (AUDIT_MIRRORS=DIR uses local
bare mirrors laid out as DIR/owner+name/repo instead). Nothing in them is ever run: files are
checked out by git (no hooks) and read by the audit only."""
import collections, json, os, shutil, subprocess, sys, time

agent, cache = sys.argv[1], os.path.abspath(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
labelled = json.load(open(os.path.join(here, "audit", "labelled.json")))
env = dict(os.environ, HOME=os.path.join(cache, "home"), AGENT_OTHER_AGENTS="none", AGENT_BUNDLED_SKILLS="0")
os.makedirs(env["HOME"], exist_ok=True)


def git(*args, cwd=None):
    subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, check=True, capture_output=True)


def checkout(repo, commit):
    """A work tree of `repo` at `commit`, made once."""
    tree = os.path.join(cache, "trees", repo.replace("/", "+") + "-" + commit[:12])
    if os.path.isdir(tree):
        return tree
    os.makedirs(tree)
    mirrors = os.environ.get("AUDIT_MIRRORS")
    if mirrors:
        gitdir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        # Files git cannot read back (LFS or missing objects) are left out, as a clone would.
        subprocess.run(["git", f"--git-dir={gitdir}", f"--work-tree={tree}", "checkout", commit, "--", "."], capture_output=True)
    else:
        git("init", "-q", tree)
        git("fetch", "-q", "--depth", "1", f"https://github.com/{repo}", commit, cwd=tree)
        git("checkout", "-q", "FETCH_HEAD", cwd=tree)
    return tree


def skill_dirs(tree):
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        if "SKILL.md" in files:
            yield root
            dirs[:] = []


def corpus(name, dirs):
    """Copy the skill folders side by side into one root, so one process audits them all."""
    root = os.path.join(cache, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for i, d in enumerate(dirs):
        shutil.copytree(d, os.path.join(root, f"s{i:05}"), symlinks=True)
    return root


def audit(root):
    start = time.perf_counter()
    out = subprocess.run([agent, "--json", "skills", "audit", root], capture_output=True, text=True, env=env)
    took = time.perf_counter() - start
    return json.loads(out.stdout.strip().splitlines()[-1]), took


benign_dirs = [d for e in labelled["benign"] for d in skill_dirs(checkout(e["repo"], e["commit"]))]
malicious_dirs = [os.path.join(checkout(e["repo"], e["commit"]), e["path"]) for e in labelled["malicious"]]
sets = {"malicious": corpus("corpus-malicious", malicious_dirs), "benign": corpus("corpus-benign", benign_dirs)}

print("| set | skills | flagged critical or high | share | of them critical |")
print("|---|---|---|---|---|")
per_class = {}
for name, root in sets.items():
    doc, _ = audit(root)
    flagged = crit = 0
    classes = collections.Counter()
    for s in doc["skills"]:
        bad = [f for f in s["findings"] if f["severity"] in ("critical", "high")]
        if bad:
            flagged += 1
            crit += any(f["severity"] == "critical" for f in bad)
            for c in {f["class"] for f in bad}:
                classes[c] += 1
    per_class[name] = classes
    n = len(doc["skills"])
    print(f"| {name} | {n} | {flagged} | {flagged / max(n, 1):.3f} | {crit} |")
print()
print("| rule class | malicious skills flagged by it | benign skills flagged by it |")
print("|---|---|---|")
for c in sorted(set(per_class["malicious"]) | set(per_class["benign"])):
    print(f"| {c} | {per_class['malicious'][c]} | {per_class['benign'][c]} |")
runs = sorted(audit(sets["benign"])[1] for _ in range(5))
print(f"\n`agent skills audit` over the {len(benign_dirs)} benign skills in one process (median of 5, process start and JSON included): **{runs[2] * 1000:.0f} ms**.")
