#!/usr/bin/env python3
"""A plain one-shot ("hello") over skill libraries of different sizes, phase by phase, beside one
`curl` POST of the same request to the same mock.

usage: oneshot_library.py AGENT_BIN LABEL=SKILLS_DIR [LABEL=SKILLS_DIR ...]   — prints Markdown.

A local mock answers every request at once with a streamed "hello". For each library the agent
runs once to fill its cache folder (and once more, so the shadowed-name notices of a first run
are behind it), then RUNS times with `AGENT_PHASES=1`, warm: the table gives the median of each
phase and of the wall time. The peer is `curl` posting the very request body the agent sent for
that library (captured by the mock), streamed, to the same mock, timed the same way."""
import os, statistics, subprocess, sys, tempfile, time

import mock_llm

RUNS = 15
PHASES = [("start", "config", "process start and configuration"), ("config", "discovery", "skill discovery"),
          ("discovery", "request", "request build (catalog, ranking, prompt)"), ("request", "first-byte",
          "connect and first byte"), ("first-byte", "exit", "rest of the turn and shutdown")]
last_body = [b""]


def keep_chat_body(_path, body, _arrived):
    if b'"messages"' in body:
        last_body[0] = body


def timed(cmd, env, cwd):
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    return (time.perf_counter() - start) * 1000, out.stderr.decode(errors="replace")


def phases_of(stderr):
    marks = {}
    for line in stderr.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "agent-phase":
            marks.setdefault(parts[1], int(parts[2]) / 1e6)
    return marks


def main():
    agent = os.path.abspath(sys.argv[1])
    server = mock_llm.serve("hello", keep_chat_body)
    url = server.url
    rows = []
    for arg in sys.argv[2:]:
        label, skills = arg.split("=", 1)
        skills = os.path.abspath(skills)
        work = tempfile.mkdtemp()
        env = {"PATH": os.environ["PATH"], "HOME": work, "AGENT_MODEL": "m", "AGENT_API_KEY": "sk-bench-000000",
               "AGENT_BASE_URL": url, "AGENT_BUNDLED_SKILLS": "0", "AGENT_TOOL_CHECK": "0", "AGENT_SESSIONS": "0"}
        cmd = [agent, "--skills-dir", skills, "--once", "hello"]
        for _ in range(2):
            timed(cmd, env, work)
        walls, marks = [], []
        for _ in range(RUNS):
            wall, err = timed(cmd, dict(env, AGENT_PHASES="1"), work)
            walls.append(wall)
            marks.append(phases_of(err))
        body = os.path.join(work, "body.json")
        with open(body, "wb") as f:
            f.write(last_body[0])
        curl = [timed(["curl", "-sS", "-N", "-o", "/dev/null", "-H", "Content-Type: application/json",
                       "-H", "Authorization: Bearer sk-bench-000000", "--data-binary", "@" + body,
                       url + "/chat/completions"], env, work)[0] for _ in range(RUNS)]
        phase = {name: statistics.median([m[b] - m[a] for m in marks if a in m and b in m])
                 for a, b, name in PHASES}
        rows.append((label, skills, statistics.median(walls), statistics.median(curl), phase, len(last_body[0])))
    server.shutdown()
    print(f"Median of {RUNS} warm runs each; phases from `AGENT_PHASES=1` (process start is measured from the "
          f"first instruction of `main`, so the exec and loader time before it is in the wall time only).\n")
    print("| library | wall | `curl` POST of the same request | agent vs curl | request bytes | goal |")
    print("|---|---|---|---|---|---|")
    for label, _, wall, curl, _, size in rows:
        print(f"| {label} | {wall:.1f} ms | {curl:.1f} ms | **{wall / curl:.2f}×** | {size:,} | ≤ 3× curl |")
    print("\n| phase (median ms) | " + " | ".join(r[0] for r in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for _, _, name in PHASES:
        print(f"| {name} | " + " | ".join(f"{r[4][name]:.2f}" for r in rows) + " |")


if __name__ == "__main__":
    main()
