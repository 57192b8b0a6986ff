#!/usr/bin/env python3
"""Time to the first answer byte of a plain one-shot turn, with no MCP server configured and with
three stdio servers configured (tests/fixtures/mcp/fault_server.py, each with a 1 s start delay so
a start would show), after one run has cached their tool lists. Prints a Markdown table.

usage: mcp_first_token.py AGENT_BIN [RUNS]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import mock_llm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAULT = os.path.join(ROOT, "tests", "fixtures", "mcp", "fault_server.py")
def first_byte(agent, env, cwd):
    start = time.perf_counter()
    proc = subprocess.Popen([agent, "--once", "hi"], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    proc.stdout.read(1)
    elapsed = time.perf_counter() - start
    proc.communicate()
    return elapsed * 1000


def main():
    agent, runs = os.path.abspath(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 20
    server = mock_llm.serve("hello")
    rows = []
    for servers in (0, 3):
        with tempfile.TemporaryDirectory() as home:
            env = {"PATH": os.environ["PATH"], "HOME": home, "AGENT_MODEL": "m", "AGENT_API_KEY": "sk-bench-000000",
                   "AGENT_BASE_URL": server.url, "AGENT_PROBE_PORTS": "",
                   "AGENT_BUNDLED_SKILLS": "0", "AGENT_SESSIONS": "0"}
            if servers:
                conf = {"mcpServers": {f"s{i}": {"command": FAULT, "env": {"FAULT_START_DELAY": "1"}}
                                       for i in range(servers)}}
                os.makedirs(os.path.join(home, ".config", "agent"))
                with open(os.path.join(home, ".config", "agent", "mcp.json"), "w") as f:
                    json.dump(conf, f)
                cold = first_byte(agent, env, home)
            times = sorted(first_byte(agent, env, home) for _ in range(runs))
            median = statistics.median(times)
            p90 = times[int(len(times) * 0.9) - 1]
            label = f"{servers} stdio servers (lists cached)" if servers else "no MCP server"
            rows.append((label, median, p90, cold if servers else None))
    print("| configuration | first byte, median | p90 | first run (lists not cached yet) |")
    print("|---|---|---|---|")
    for label, median, p90, cold in rows:
        first = f"{cold:.1f} ms" if cold is not None else "–"
        print(f"| {label} | {median:.1f} ms | {p90:.1f} ms | {first} |")
    server.shutdown()


if __name__ == "__main__":
    main()
