#!/usr/bin/env python3
"""`agent skills list --json` over a skill corpus against `cat` of the same SKILL.md files.

usage: corpus_vs_cat.py CORPUS_DIR AGENT_BINARY   — prints a markdown table to stdout.

Every command runs once unmeasured first, so the page cache is warm for all of them: the
comparison is of work done, not of disk reads. "cold" means the agent's own cache folder is empty
at the start of each run (it is written during the run, as a first run would); "warm" means it
holds what an earlier run left; `AGENT_CACHE=0` runs without it. Medians of 9 runs.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

RUNS = 9


def skill_files(root):
    """The skill file of each direct subfolder (the ones discovery reads)."""
    files = []
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        if name.startswith(".") or not os.path.isdir(folder):
            continue
        found = [f for f in sorted(os.listdir(folder)) if f.lower() == "skill.md"]
        if found:
            files.append(os.path.join(folder, found[0]))
    return files


def median_ms(run, before=None):
    run()
    times = []
    for _ in range(RUNS):
        if before:
            before()
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    corpus, agent = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    files = skill_files(corpus)
    size = sum(os.path.getsize(f) for f in files)
    work = tempfile.mkdtemp()
    home, cache, cwd = (os.path.join(work, d) for d in ("home", "cache", "cwd"))
    for d in (home, cwd):
        os.makedirs(d)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "XDG_CACHE_HOME": cache}

    def agent_run(extra=None, keep=False):
        # Timed runs write to /dev/null, as `cat` does: the comparison is of work, not of a pipe.
        e = dict(env, **(extra or {}))
        out = subprocess.run([agent, "--skills-dir", corpus, "skills", "list", "--json"], env=e, cwd=cwd,
                             stdout=subprocess.PIPE if keep else subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             check=True)
        return out.stdout

    def clear_cache():
        shutil.rmtree(cache, ignore_errors=True)

    listed = agent_run(keep=True).count(b'"name"')
    cat = median_ms(lambda: subprocess.run(["cat", *files], stdout=subprocess.DEVNULL, check=True))
    # The least any cache check can do: ask the file system about every skill file (and folder).
    folders = [os.path.dirname(f) for f in files]
    stat_files = median_ms(lambda: subprocess.run(["stat", "-c", "%s", *files], stdout=subprocess.DEVNULL, check=True))
    stat_both = median_ms(lambda: subprocess.run(["stat", "-c", "%s", *files, *folders], stdout=subprocess.DEVNULL,
                                                 check=True))
    off = median_ms(lambda: agent_run({"AGENT_CACHE": "0"}))
    cold = median_ms(agent_run, before=clear_cache)
    agent_run()
    warm = median_ms(agent_run)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{len(files):,} skill folders ({listed:,} listed as skills), {size / 1e6:.1f} MB of SKILL.md "
          f"(`bench/gen_corpus.py`); page cache warm for "
          f"every command; median of {RUNS} runs.\n")
    print("| command | wall time | vs `cat` | goal |\n|---|---|---|---|")
    print(f"| `cat` of every SKILL.md | {cat:.1f} ms | 1.00× | |")
    print(f"| `stat` of every SKILL.md (coreutils; one `stat` per skill) | {stat_files:.1f} ms | {stat_files / cat:.2f}× | |")
    print(f"| `stat` of every SKILL.md and its folder (what a warm run must ask at least) | {stat_both:.1f} ms "
          f"| {stat_both / cat:.2f}× | |")
    print(f"| `agent skills list --json`, `AGENT_CACHE=0` | {off:.1f} ms | {off / cat:.2f}× | |")
    print(f"| `agent skills list --json`, cache empty (cold) | {cold:.1f} ms | {cold / cat:.2f}× | ≤ 0.60× |")
    print(f"| `agent skills list --json`, cache warm | {warm:.1f} ms | {warm / cat:.2f}× | ≤ 0.15× |")


if __name__ == "__main__":
    main()
