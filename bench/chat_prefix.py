#!/usr/bin/env python3
"""How much of each chat request repeats the one before it: the prefix a provider's prompt cache
can reuse (OpenAI caches automatically from 1,024 tokens; others at explicit breakpoints).

usage: chat_prefix.py AGENT_BIN LABEL=SKILLS_DIR [LABEL=SKILLS_DIR ...]   — prints a Markdown table.

For each library, a chat (`agent --skills-dir DIR` in a real pseudo-terminal) is sent the same
five requests on unrelated topics; a local mock answers each at once and keeps every request
body. Each request is laid out in the order a provider reads it (tool schemas, then the messages
from the system message on) as canonical JSON, and the bytes it shares from the start with the
request before it are divided by its own length. 1.00 means everything but the new message was
already sent byte for byte."""
import json, os, pty, select, statistics, subprocess, sys, tempfile, time

import mock_llm

REQUESTS = [
    "what's the weather in Tokyo tomorrow",
    "convert this spreadsheet of invoices to a pdf report",
    "find the commits that touched the login page last week",
    "summarise the open pull requests of my repository",
    "translate the release notes into German",
]
received = []


def keep_chat_request(_path, body, _arrived):
    try:
        doc = json.loads(body)
    except ValueError:
        return
    if isinstance(doc, dict) and "messages" in doc:
        received.append(doc)


def provider_order(doc):
    """The request as a provider's cache sees it: tools first, then the messages."""
    tools = json.dumps(doc.get("tools", []), sort_keys=True, separators=(",", ":"))
    messages = json.dumps(doc["messages"], sort_keys=True, separators=(",", ":"))
    return (tools + messages).encode()


def shared(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def drain(fd, until, timeout):
    """Read the terminal until `until()` holds (or the time is up)."""
    end = time.time() + timeout
    while time.time() < end and not until():
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                return


def chat(agent, skills, url):
    received.clear()
    home = tempfile.mkdtemp()
    env = {"PATH": os.environ["PATH"], "HOME": home, "TERM": "xterm", "AGENT_MODEL": "m",
           "AGENT_API_KEY": "sk-bench-000000", "AGENT_BASE_URL": url,
           "AGENT_BUNDLED_SKILLS": "0", "AGENT_TOOL_CHECK": "0"}
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(home)
        os.execve(agent, [agent, "--skills-dir", skills], env)
    drain(fd, lambda: False, 1.5)
    for i, text in enumerate(REQUESTS):
        os.write(fd, text.encode() + b"\r")
        drain(fd, lambda: len(received) > i, 30)
        drain(fd, lambda: False, 0.3)
    os.write(fd, b"/exit\r")
    drain(fd, lambda: False, 1.0)
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    os.waitpid(pid, 0)
    return [provider_order(d) for d in received]


def main():
    agent = os.path.abspath(sys.argv[1])
    server = mock_llm.serve("done", keep_chat_request)
    print("| library | skills | requests | shared prefix of consecutive requests: min / median | "
          "request bytes (last) | goal |")
    print("|---|---|---|---|---|---|")
    for arg in sys.argv[2:]:
        label, skills = arg.split("=", 1)
        skills = os.path.abspath(skills)
        listed = subprocess.run([agent, "--skills-dir", skills, "skills", "list", "--json"], capture_output=True,
                                env={"PATH": os.environ["PATH"], "HOME": tempfile.mkdtemp(), "AGENT_BUNDLED_SKILLS": "0"},
                                ).stdout
        count = len(json.loads(listed.decode().strip().splitlines()[-1])["skills"])
        requests = chat(agent, skills, server.url)
        ratios = [shared(a, b) / len(b) for a, b in zip(requests, requests[1:])]
        if not ratios:
            print(f"| {label} | {count:,} | {len(requests)} | not measured: fewer than two requests arrived | | ≥ 0.95 |")
            continue
        print(f"| {label} | {count:,} | {len(requests)} | {min(ratios):.2f} / {statistics.median(ratios):.2f} | "
              f"{len(requests[-1]):,} | ≥ 0.95 |")
    server.shutdown()


if __name__ == "__main__":
    main()
