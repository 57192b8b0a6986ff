#!/usr/bin/env python3
"""Chat turn latency: Enter pressed in `agent`'s chat (a real pseudo-terminal) to the request's
arrival at a local zero-latency mock, for N turns per skill library. Prints a markdown table.

usage: bench/chat_turn.py [--agent BIN] [--turns N] [--watch auto|poll|off] [LABEL=SKILLS_DIR ...]

Without libraries it measures 6 generated skills and, when it exists, the real corpus
(target/bench-real/corpus, or $BENCH_REAL_CORPUS). The first turn (which waits for the watches
to be set up and ranks the catalog kept for the session) is shown on its own; median and p90
are over the later turns.
"""
import argparse
import json
import os
import pty
import select
import signal
import statistics
import sys
import tempfile
import threading
import time

import mock_llm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANSWER = "hello from the mock"
REQUESTS = [
    "extract the text of a pdf and summarise it",
    "write a commit message for my staged changes",
    "make a bar chart from this csv file",
    "review this pull request for security problems",
    "translate the readme into german",
    "set up a github action that runs the tests",
    "find slow queries in the postgres log",
    "draft a release note for version 2",
]


class Mock:
    """An OpenAI-compatible server answering every POST at once; it keeps each arrival time."""

    def __init__(self):
        arrivals = self.arrivals = []
        lock = self.lock = threading.Lock()

        def note(path, _body, arrived):
            if path.endswith("/chat/completions"):
                with lock:
                    arrivals.append(arrived)

        self.server = mock_llm.serve(ANSWER, note)

    def url(self):
        return self.server.url

    def count(self):
        with self.lock:
            return len(self.arrivals)


class Chat:
    """`agent` in a pseudo-terminal, its output collected by a thread."""

    def __init__(self, agent, skills_dir, env):
        self.out = b""
        self.lock = threading.Lock()
        pid, fd = pty.fork()
        if pid == 0:
            # Out of any project folder: no trust question, no project skills.
            os.chdir(env["HOME"])
            os.execve(agent, [agent, "--skills-dir", skills_dir], env)
        self.pid, self.fd = pid, fd
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 1)
                if ready:
                    data = os.read(self.fd, 65536)
                    if not data:
                        return
                    with self.lock:
                        self.out += data
            except OSError:
                return

    def wait_for(self, text, times, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.out.count(text.encode()) >= times:
                    return
            time.sleep(0.002)
        raise SystemExit("chat_turn: no %r (x%d) in the chat's output:\n%s" % (text, times, self.out[-2000:]))

    def close(self):
        # Ctrl-D, again if the line editor dropped it while switching modes; then a signal.
        for _ in range(10):
            os.write(self.fd, b"\x04")
            deadline = time.monotonic() + 1
            while time.monotonic() < deadline:
                try:
                    if os.waitpid(self.pid, os.WNOHANG)[0]:
                        return
                except ChildProcessError:
                    return
                time.sleep(0.01)
        os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)


def measure(agent, skills_dir, turns, watch):
    mock = Mock()
    # $BENCH_HOME keeps the caches from one run to the next (a warm first turn).
    home = os.environ.get("BENCH_HOME") or tempfile.mkdtemp(prefix="chat-turn-home-")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "COLUMNS": "100",
        "AGENT_BASE_URL": mock.url(),
        "AGENT_API_KEY": "sk-bench-0123456789",
        "AGENT_MODEL": "gpt-4.1-mini",
        "AGENT_RETRIES": "0",
        "AGENT_TOOL_CHECK": "0",
        "AGENT_WATCH": watch,
    }
    chat = Chat(agent, skills_dir, env)
    chat.wait_for("/help for commands", 1)
    took = []
    for turn in range(turns):
        # Let the line editor block on its read, as it would between a person's keystrokes.
        time.sleep(0.15)
        # Typed first, Enter on its own: the clock starts at Enter, not at the keystrokes before it.
        os.write(chat.fd, REQUESTS[turn % len(REQUESTS)].encode())
        time.sleep(0.05)
        before = mock.count()
        pressed = time.monotonic()
        os.write(chat.fd, b"\r")
        deadline = pressed + 60
        while mock.count() == before:
            if time.monotonic() > deadline:
                raise SystemExit("chat_turn: no request after turn %d" % (turn + 1))
            time.sleep(0.0005)
        with mock.lock:
            took.append((mock.arrivals[before] - pressed) * 1000)
        chat.wait_for(ANSWER, turn + 1)
    chat.close()
    mock.server.shutdown()
    return took


def p90(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def six_skills():
    root = tempfile.mkdtemp(prefix="chat-turn-skills-")
    for name in ["pdf-text", "git-commit", "csv-chart", "pr-review", "translate", "gh-actions"]:
        os.makedirs(os.path.join(root, name))
        with open(os.path.join(root, name, "SKILL.md"), "w") as f:
            f.write("---\nname: %s\ndescription: Helps with %s tasks.\n---\nSteps.\n" % (name, name.replace("-", " ")))
    return root


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default=os.path.join(ROOT, "target/release/agent"))
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--watch", default="auto")
    parser.add_argument("libraries", nargs="*", help="LABEL=SKILLS_DIR")
    args = parser.parse_args()
    args.agent = os.path.abspath(args.agent)
    libraries = [tuple(lib.split("=", 1)) for lib in args.libraries]
    if not libraries:
        libraries = [("6 skills", six_skills())]
        corpus = os.environ.get("BENCH_REAL_CORPUS", os.path.join(ROOT, "target/bench-real/corpus"))
        if os.path.isdir(corpus):
            count = sum(1 for e in os.scandir(corpus) if not e.name.startswith("."))
            libraries.append(("%s real skills" % format(count, ","), corpus))
    print("| library | AGENT_WATCH | first turn ms | later turns | median ms | p90 ms |")
    print("|---|---|---:|---:|---:|---:|")
    for label, skills_dir in libraries:
        took = measure(args.agent, skills_dir, args.turns, args.watch)
        later = took[1:] or took
        print(
            "| %s | %s | %.1f | %d | %.1f | %.1f |"
            % (label, args.watch, took[0], len(later), statistics.median(later), p90(later))
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
