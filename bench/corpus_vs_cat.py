#!/usr/bin/env python3
"""`agent skills list --json` over a skill corpus against `cat` of the same skill files and the floor.

usage: corpus_vs_cat.py CORPUS_DIR AGENT_BINARY [LABEL] [--also NAME=BINARY ...]
prints two markdown tables to stdout: wall times, then system calls per skill folder.

LABEL says in the tables' heading what the corpus is (for example "`bench/gen_corpus.py`, plain
folders" or "`bench/gen_real_corpus.py`, real skills reached through symlinks"). `--also` adds the
rows of another build (a baseline, say) measured in the same run, side by side.

A skill folder is a direct subfolder of CORPUS_DIR (symlinks followed) holding a skill file:
`SKILL.md`, else `skill.md`, else another letter case of it, as discovery picks it. The floor is a
small C program, compiled here with gcc into a temporary folder (bench only): it lists the root
with readdir and `stat`s each folder and its skill file (`SKILL.md`, else `skill.md`), which is
the least a warm run must ask before it may trust its cache (an edit in place changes only the
file's stamp, a `skill.json` added or a file renamed over changes only the folder's).

Every command runs once unmeasured first, so the page cache is warm for all of them: the
comparison is of work done, not of disk reads. "cold" means the agent's own cache folder is empty
at the start of each run (it is written during the run, as a first run would); "warm" means it
holds what an earlier run left; `AGENT_CACHE=0` runs without it. Wall times are medians of 9 runs,
the commands taking turns so that a change in the machine's load touches all of them alike.
System calls are counted with `strace -f -c` (one run each; the table is left out without strace).
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

RUNS = 9

FLOOR_C = r"""
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* readdir of the root; per entry, stat of the folder (links followed) and of its skill file. */
int main(int argc, char **argv) {
  int root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *listing = fdopendir(dup(root));
  if (root < 0 || !listing) return 2;
  struct dirent *e;
  struct stat st;
  char path[4096];
  long found = 0;
  while ((e = readdir(listing))) {
    if (e->d_name[0] == '.') continue;
    if (fstatat(root, e->d_name, &st, 0) != 0 || !S_ISDIR(st.st_mode)) continue;
    snprintf(path, sizeof path, "%s/SKILL.md", e->d_name);
    if (fstatat(root, path, &st, 0) != 0) {
      snprintf(path, sizeof path, "%s/skill.md", e->d_name);
      if (fstatat(root, path, &st, 0) != 0) continue;
    }
    found++;
  }
  printf("%ld\n", found);
  return 0;
}
"""


def skill_file(folder):
    """The folder's skill file as discovery picks it, or None."""
    names = [n for n in os.listdir(folder) if n.lower() == "skill.md"]
    for usual in ("SKILL.md", "skill.md"):
        if usual in names and not os.path.isdir(os.path.join(folder, usual)):
            return os.path.join(folder, usual)
    others = sorted(n for n in names if not os.path.isdir(os.path.join(folder, n)))
    return os.path.join(folder, others[0]) if others else None


def skill_files(root):
    """The skill file of each direct subfolder (the ones discovery reads)."""
    files = []
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        if name.startswith(".") or name == "node_modules" or not os.path.isdir(folder):
            continue
        found = skill_file(folder)
        if found:
            files.append(found)
    return files


def strace_counts(argv, env=None, cwd=None, out=None):
    """Calls, failing calls, `stat`-family calls and opens over the whole run (`strace -f -c`)."""
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as log:
        subprocess.run(["strace", "-f", "-c", "-o", log.name, *argv], env=env, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        rows = {}
        for line in log.read().splitlines():
            parts = line.split()
            if len(parts) < 5 or not parts[3].isdigit():
                continue
            errors = int(parts[4]) if len(parts) == 6 else 0
            rows[parts[-1]] = (int(parts[3]), errors)
    stats = ("statx", "newfstatat", "fstat", "stat", "lstat", "fstatat64")
    total = rows.pop("total", (sum(c for c, _ in rows.values()), sum(e for _, e in rows.values())))
    return {
        "calls": total[0],
        "failing": total[1],
        "stat": sum(rows.get(s, (0, 0))[0] for s in stats),
        "stat_failing": sum(rows.get(s, (0, 0))[1] for s in stats),
        "open": sum(rows.get(s, (0, 0))[0] for s in ("openat", "open", "openat2")),
        "readlink": sum(rows.get(s, (0, 0))[0] for s in ("readlink", "readlinkat")),
        "getdents": rows.get("getdents64", (0, 0))[0],
    }


def compile_floor(work):
    source, binary = os.path.join(work, "floor.c"), os.path.join(work, "floor")
    with open(source, "w") as f:
        f.write(FLOOR_C)
    subprocess.run(["gcc", "-O2", "-o", binary, source], check=True)
    return binary


def parse_args(argv):
    plain, also = [], []
    it = iter(argv)
    for arg in it:
        if arg == "--also":
            name, _, path = next(it).partition("=")
            also.append((name, os.path.abspath(path)))
        else:
            plain.append(arg)
    if len(plain) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    corpus, agent = os.path.abspath(plain[0]), os.path.abspath(plain[1])
    label = plain[2] if len(plain) > 2 else f"`{plain[0]}`"
    return corpus, [("", agent), *also], label


def main():
    corpus, agents, label = parse_args(sys.argv[1:])
    files = skill_files(corpus)
    size = sum(os.path.getsize(f) for f in files)
    work = tempfile.mkdtemp()
    home, cwd = os.path.join(work, "home"), os.path.join(work, "cwd")
    for d in (home, cwd):
        os.makedirs(d)
    floor_bin = compile_floor(work)

    def agent_env(name, extra=None):
        cache = os.path.join(work, "cache" + name)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "XDG_CACHE_HOME": cache}
        return dict(env, **(extra or {}))

    def agent_argv(binary):
        return [binary, "--skills-dir", corpus, "skills", "list", "--json"]

    def agent_run(name, binary, extra=None, keep=False):
        # Timed runs write to /dev/null, as `cat` does: the comparison is of work, not of a pipe.
        out = subprocess.run(agent_argv(binary), env=agent_env(name, extra), cwd=cwd,
                             stdout=subprocess.PIPE if keep else subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, check=True)
        return out.stdout

    def clear(name):
        shutil.rmtree(agent_env(name)["XDG_CACHE_HOME"], ignore_errors=True)

    # Each row: (label, run, before-each-run), and the argv/env to count its system calls.
    rows = [("`cat` of every skill file", lambda: subprocess.run(["cat", *files], stdout=subprocess.DEVNULL,
                                                                   check=True), None, ["cat", *files], None),
            ("floor: readdir of the root, `stat` of each folder and its skill file (C)",
             lambda: subprocess.run([floor_bin, corpus], stdout=subprocess.DEVNULL, check=True), None,
             [floor_bin, corpus], None)]
    goals = {}
    for name, binary in agents:
        suffix = f" ({name})" if name else ""
        tag = name or "this"
        off = dict(AGENT_CACHE="0")
        what = f"`agent skills list --json`{suffix}"
        rows += [
            (f"{what}, `AGENT_CACHE=0`", lambda n=tag, b=binary: agent_run(n, b, off), None,
             agent_argv(binary), agent_env(tag, off)),
            (f"{what}, cache empty (cold)", lambda n=tag, b=binary: agent_run(n, b), lambda n=tag: clear(n),
             agent_argv(binary), "cold:" + tag),
            (f"{what}, cache warm", lambda n=tag, b=binary: agent_run(n, b), None, agent_argv(binary),
             agent_env(tag)),
        ]
        goals[rows[-3][0]], goals[rows[-2][0]], goals[rows[-1][0]] = "≤ 1.20× `cat`", "≤ 1.20× `cat`", "≤ 1.50× floor"
    listed = agent_run("this", agents[0][1], keep=True).count(b'"name"')
    times = {label_: [] for label_, *_ in rows}
    for _, run, before, *_ in rows:
        if before:
            before()
        run()
    for _ in range(RUNS):
        for row_label, run, before, *_ in rows:
            if before:
                before()
            start = time.perf_counter()
            run()
            times[row_label].append((time.perf_counter() - start) * 1000)
    medians = {k: statistics.median(v) for k, v in times.items()}
    cat, floor = medians[rows[0][0]], medians[rows[1][0]]
    print(f"{len(files):,} skill folders ({listed:,} listed as skills), {size / 1e6:.1f} MB of skill files "
          f"({label}); page cache warm for every command; median of {RUNS} runs, the commands taking turns.\n")
    print("| command | wall time | vs `cat` | vs floor | goal |\n|---|---|---|---|---|")
    for row_label, *_ in rows:
        t = medians[row_label]
        print(f"| {row_label} | {t:.1f} ms | {t / cat:.2f}× | {t / floor:.2f}× | {goals.get(row_label, '')} |")
    if not shutil.which("strace"):
        print("\n(no `strace` on this machine: system calls not counted)")
        shutil.rmtree(work, ignore_errors=True)
        return
    n = len(files)
    print(f"\nSystem calls per skill folder ({n:,} folders), whole process, `strace -f -c`, one run each:\n")
    print("| command | calls | failing | `stat` family (failing) | opens | `readlink` | `getdents64` |\n"
          "|---|---|---|---|---|---|---|")
    for row_label, _, _, argv, env in rows:
        if isinstance(env, str):  # a cold run: the agent's cache folder emptied first
            tag = env.split(":", 1)[1]
            clear(tag)
            env = agent_env(tag)
        c = strace_counts(argv, env=env or None, cwd=cwd)
        print(f"| {row_label} | {c['calls'] / n:.2f} | {c['failing'] / n:.2f} | {c['stat'] / n:.2f} "
              f"({c['stat_failing'] / n:.2f}) | {c['open'] / n:.2f} | {c['readlink'] / n:.2f} "
              f"| {c['getdents'] / n:.2f} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
