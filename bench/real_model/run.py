#!/usr/bin/env python3
"""The agent against a real local model: llama.cpp's llama-server with small Qwen2.5-Coder models.

Each task of tasks.json runs one-shot, as a new user would run it:
    agent --json --once REQUEST --approve auto --skills-dir bench/real_model/skills
in a fresh HOME and a fresh working folder (holding a copy of inputs/), bundled skills on, the
model discovered from the server (AGENT_MODEL unset). The run is graded from its --json events and
its stored session (which holds every command's output). One 3-turn chat (`--once`, then
`-c --once` twice) measures how much of each request llama.cpp reuses from its prompt cache.

Python 3 standard library only. See README.md here for what it measures and how to run it.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("AGENT_BENCH_CACHE") or os.path.expanduser("~/.cache/agent-bench/real-model")
MODELS = {
    "qwen1.5b": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    "qwen0.5b": "Qwen2.5-Coder-0.5B-Instruct",
}
MAX_ANSWER_TOKENS = 768
CHAT = [
    "How many words are in essay.txt?",
    "And how many characters does it have?",
    "What are the three most frequent words in it?",
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- setup and server


def model_env(name):
    """The variable naming a model file already there: MODEL_QWEN1_5B for qwen1.5b."""
    return "MODEL_" + re.sub(r"\W", "_", name).upper()


def setup(models):
    """Paths of llama-server and of each model: from LLAMA_SERVER / MODEL_<NAME> when all are set,
    else from setup.sh (which downloads, builds and checks what is missing)."""
    paths = {"server": os.environ.get("LLAMA_SERVER")}
    for m in models:
        paths[m] = os.environ.get(model_env(m))
    if all(paths.values()):
        return paths
    env = dict(os.environ, MODELS=" ".join(models))
    out = subprocess.run(["bash", os.path.join(HERE, "setup.sh")], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key == "LLAMA_SERVER":
            paths["server"] = value
        elif key.startswith("MODEL_"):
            paths[key[len("MODEL_"):]] = value
    return paths


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode("utf-8", "replace")


class Server:
    def __init__(self, binary, model_path, port, log_path, threads):
        self.port = port
        try:
            http_get(self.url("/health"), timeout=2)
            raise RuntimeError(f"something already answers on port {port}: pass another --port")
        except OSError:
            pass
        self.log_path = log_path
        self.log = open(log_path, "w")
        cmd = ["nice", "-n", "10", binary, "--jinja", "-m", model_path, "--host", "127.0.0.1",
               "--port", str(port), "-c", "8192", "-t", str(threads), "--metrics",
               # One slot: by default this llama.cpp splits the context over 4 slots (2,048 tokens
               # each) and gives the next request the least recently used one, so no request would
               # find the previous one's prompt in its cache.
               "-np", "1",
               # A cap on one answer: a small model that starts repeating itself would otherwise
               # write until the context is full, for many minutes on a CPU.
               "-n", str(MAX_ANSWER_TOKENS)]
        log("== start", " ".join(cmd))
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 600
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server exited ({self.proc.returncode}); see {log_path}")
            try:
                if http_get(self.url("/health"))[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(1)
        self.stop()
        raise RuntimeError(f"llama-server did not become healthy; see {log_path}")

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def metrics(self):
        """llama.cpp's Prometheus counters, name -> value."""
        try:
            _, text = http_get(self.url("/metrics"))
        except OSError:
            return {}
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                try:
                    out[name.strip()] = float(value)
                except ValueError:
                    pass
        return out

    def log_size(self):
        self.log.flush()
        return os.path.getsize(self.log_path)

    def log_since(self, offset):
        with open(self.log_path, errors="replace") as f:
            f.seek(offset)
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


# ---------------------------------------------------------------- one run of the agent


def fresh_place(tmp):
    home, work = os.path.join(tmp, "home"), os.path.join(tmp, "work")
    os.makedirs(home)
    shutil.copytree(os.path.join(HERE, "inputs"), work)
    for name in os.listdir(work):
        if name.endswith(".sql"):
            db = os.path.join(work, name[:-4] + ".sqlite")
            with open(os.path.join(work, name)) as sql:
                subprocess.run(["sqlite3", db], stdin=sql, check=True)
    return home, work


def agent_env(home, work, port, extra=None):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "AGENT_BASE_URL": f"http://127.0.0.1:{port}/v1",
        # A local URL needs no key, and the model is discovered from /v1/models: nothing else set.
        "AGENT_TIMEOUT": "60",
        # A 1.5B model on two cores can take minutes to read a long prompt before the first token.
        "AGENT_IDLE_TIMEOUT": "900",
    }
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    for k, v in (extra or {}).items():
        env[k] = v.replace("{work}", work).replace("{home}", home)
    return env


def skill_args(skills_dir, bundled):
    """`--skills-dir` for the bench's skills. A run that names a skill folder leaves the skills built
    into the binary out, so with `bundled` the checkout's skills/ (their source) is named too: the
    catalog a user has who added the bench's skills to the bundled ones."""
    args = ["--skills-dir", skills_dir]
    if bundled:
        args += ["--skills-dir", os.path.join(ROOT, "skills")]
    return args


def run_agent(agent, args, env, cwd, timeout):
    start = time.time()
    try:
        p = subprocess.run([agent, *args], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout, text=True)
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), ""
    wall = time.time() - start
    events = []
    for line in out.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    return code, events, err, wall


def session_records(home):
    folder = os.path.join(home, ".local/state/agent/sessions")
    records = []
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".jsonl"):
                with open(os.path.join(folder, name)) as f:
                    for line in f:
                        try:
                            records.append(json.loads(line))
                        except ValueError:
                            pass
    return records


def command_outputs(records):
    """The results of run_command calls (never a SKILL.md body: its examples would ground nothing)."""
    names = {}
    for r in records:
        if r.get("type") == "message" and r.get("role") == "assistant":
            for call in r.get("tool_calls") or []:
                names[call.get("id")] = (call.get("function") or {}).get("name")
    return [r.get("content") or "" for r in records
            if r.get("type") == "message" and r.get("role") == "tool" and names.get(r.get("tool_call_id")) == "run_command"]


# ---------------------------------------------------------------- grading


def norm(text):
    """Lower case, thousands separators out of numbers."""
    return re.sub(r"(?<=\d),(?=\d{3})", "", text).lower()


def is_silent_fake(expected, answer, outputs, in_output, answer_ok, unverified, request=""):
    """The task needs a command's result, none of the commands printed it, the answer states a
    result anyway (the expected value, or a figure outside quoted code: `T1` in a SQL alias or a
    command is no claim) that no command that ran printed either, and nothing marked it."""
    ran_text = "\n".join(o for o in outputs if not o.startswith(("denied:", "error:")))
    prose = re.sub(r"```.*?```|`[^`]*`", "", answer, flags=re.S)
    # The numbers of a numbered list ("1. Run parse.py") are no figures either.
    prose = re.sub(r"(?m)^\s*\d+[.)]\s", "", prose)
    # Figures the request itself holds ("98.6 degrees") are no claim either.
    figures = [f for f in re.findall(r"(?<![A-Za-z_])\d[\d.,]*", prose) if f.rstrip(".,") not in request]
    states_result = bool(answer.strip()) and (answer_ok or bool(figures))
    return bool(expected is not None and not in_output and states_result and not unverified
                and not backed_by(answer, ran_text))


def backed_by(answer, ran_text):
    """Whether what `answer` states comes from `ran_text`: every line of it (tool-result dressing
    left out) is there, or every token with a digit in it is."""
    lines = [l.strip() for l in answer.splitlines()
             if l.strip() and not l.strip().startswith(("<", "exit code", "stdout", "stderr", "```"))]
    # A sentence's last word keeps its full stop out ("… is 8443." states 8443).
    tokens = [t.rstrip(".,:;") for t in re.findall(r"[\w+/=.:-]*\d[\w+/=.:-]*", answer)]
    if not ran_text.strip():
        return False
    return (bool(lines) and all(l in ran_text for l in lines)) or (bool(tokens) and all(t in ran_text for t in tokens))


def grade(task, code, events, records, wall):
    by = lambda t: [e for e in events if e.get("type") == t]
    skills = [e["skill"] for e in by("skill_selected")]
    commands = [e["command"] for e in by("command_started")]
    messages = by("message")
    answer = messages[-1]["text"] if messages else ""
    done = (by("done") or [{}])[-1]
    outputs = command_outputs(records)
    out_text = "\n".join(outputs)
    expected = task["skill"]
    ground = task.get("ground") or {}
    alts = ground.get("answer") or []
    in_answer = lambda vals: any(norm(v) in norm(answer) for v in vals)

    if expected is None:
        right_skill = not skills
        right_command = not commands
        grounded = None
        answer_ok = bool(answer.strip()) and (in_answer(alts) if alts else True)
        done_right = right_skill and right_command and answer_ok
        in_output = None
    else:
        right_skill = expected in skills
        right_command = any(re.search(task["command"], c) for c in commands)
        if "output_regex" in ground:
            found = sorted(set(re.findall(ground["output_regex"], out_text)))
            in_output = bool(found)
            answer_ok = in_answer(found) if found else False
        else:
            in_output = norm(ground["output"]) in norm(out_text)
            answer_ok = in_answer(alts or [ground["output"]])
        grounded = in_output and answer_ok
        done_right = right_skill and right_command and grounded
    unverified = by("answer_unverified")
    # A silent fake: the task needs a command's result, none of the commands printed it, the
    # answer states a result anyway (the expected value, or any figure) that no command that ran
    # printed either, and nothing marked it. An answer that repeats what a command really printed
    # (run with the wrong arguments, say) is wrong, not fake.
    silent_fake = is_silent_fake(expected, answer, outputs, in_output, answer_ok, unverified, task["request"])
    usage = done.get("usage") or {}
    return {
        "id": task["id"],
        "expected_skill": expected,
        "skills": skills,
        "commands": commands,
        "exit_code": code,
        "wall_s": round(wall, 1),
        "llm_calls": done.get("llm_calls"),
        "prompt_tokens": usage.get("prompt_tokens", (done.get("session_usage") or {}).get("prompt_tokens")),
        "completion_tokens": usage.get("completion_tokens"),
        "right_skill": right_skill,
        "right_command": right_command,
        "in_output": in_output,
        "answer_ok": answer_ok,
        "grounded": grounded,
        "done_right": done_right,
        "silent_fake": silent_fake,
        "unverified": [e.get("reason") for e in unverified],
        "recovered": [{"tool": e.get("tool"), "shape": e.get("shape"), "arguments": e.get("arguments")}
                      for e in by("tool_call_recovered")],
        "denied": [{"command": e.get("command"), "reason": e.get("reason")} for e in by("command_denied")],
        "failed_commands": [{"command": e.get("command"), "exit_code": e.get("exit_code"),
                             "stderr_tail": e.get("stderr_tail"), "stdout_tail": e.get("stdout_tail")}
                            for e in by("command_finished") if e.get("exit_code") != 0],
        "errors": [e.get("message") for e in by("error")],
        "warnings": [e.get("message") for e in by("warning")],
        "answer": answer,
        "outputs": [o[:600] for o in outputs],
        # What the model wrote, step by step (text and native tool calls), for reading failures.
        "model_said": [{"content": (r.get("content") or "")[:800],
                        "tool_calls": [(c.get("function") or {}) for c in r.get("tool_calls") or []]}
                       for r in records if r.get("type") == "message" and r.get("role") == "assistant"],
    }


# ---------------------------------------------------------------- the chat's prompt cache


def counter(m, name):
    return m.get(f"llamacpp:{name}")


def chat_cache(agent, server, tmp_root, timeout, record_dir=""):
    """Three turns of one chat; per turn, prompt tokens sent vs processed by llama.cpp."""
    tmp = tempfile.mkdtemp(prefix="chat-", dir=tmp_root)
    home, work = fresh_place(tmp)
    env = agent_env(home, work, server.port)
    turns = []
    for i, request in enumerate(CHAT):
        args = ["--json", "--once", request, "--approve", "auto", *skill_args(os.path.join(HERE, "skills"), True)]
        if i:
            args = ["-c", *args]
        if record_dir:
            args += ["--record", os.path.join(os.path.abspath(record_dir), f"chat-turn{i + 1}.jsonl")]
        before, log_at = server.metrics(), server.log_size()
        code, events, err, wall = run_agent(agent, args, env, work, timeout)
        after = server.metrics()
        done = next((e for e in reversed(events) if e.get("type") == "done"), {})
        delta = lambda name: (None if counter(before, name) is None or counter(after, name) is None
                              else int(counter(after, name) - counter(before, name)))
        # prompt_tokens_total counts the tokens llama.cpp processed; prompt_tokens_cached_total
        # the ones it took from the slot's cache.
        processed, reused = delta("prompt_tokens_total"), delta("prompt_tokens_cached_total")
        # The agent's usage when the server sent one (this llama.cpp does not, unasked, in a
        # stream: then it is the agent's bytes/4 estimate); else processed + reused.
        sent = (done.get("usage") or {}).get("prompt_tokens")
        if processed is not None and reused is not None:
            sent = processed + reused
        cached_log = [int(x) for x in re.findall(r"(?:n_past|cache_n|n_cache_tokens)\s*=\s*(\d+)", server.log_since(log_at))]
        turns.append({
            "turn": i + 1, "request": request, "exit_code": code, "wall_s": round(wall, 1),
            "llm_calls": done.get("llm_calls"), "prompt_tokens_sent": sent, "prompt_tokens_processed": processed,
            "prompt_tokens_reused": reused,
            "reuse": None if reused is None or processed is None or not reused + processed
            else round(reused / (reused + processed), 3),
            "log_cached_tokens": cached_log,
            "skills": [e["skill"] for e in events if e.get("type") == "skill_selected"],
            "commands": [e["command"] for e in events if e.get("type") == "command_started"],
            "answer": next((e["text"] for e in reversed(events) if e.get("type") == "message"), ""),
        })
        log(f"   chat turn {i + 1}: sent {sent}, processed {processed}, {wall:.0f}s")
    return turns


# ---------------------------------------------------------------- summary


def pct(n, d):
    return f"{100 * n / d:.0f} %" if d else "–"


def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))] if xs else None


def summarize(result):
    rows = result["tasks"]
    # Graded again from what each row kept, so a sharper rule applies to stored results too.
    with open(os.path.join(HERE, "tasks.json")) as f:
        requests = {t["id"]: t["request"] for t in json.load(f)["tasks"]}
    for r in rows:
        r["silent_fake"] = is_silent_fake(r["expected_skill"], r["answer"], r["outputs"], r["in_output"],
                                          r["answer_ok"], r["unverified"], requests.get(r["id"], ""))
    n = len(rows)
    skill_rows = [r for r in rows if r["expected_skill"]]
    walls = [r["wall_s"] for r in rows]
    toks = [r["prompt_tokens"] for r in rows if r["prompt_tokens"] is not None]
    return {
        "tasks": n,
        "done_right": sum(r["done_right"] for r in rows),
        "right_skill": sum(r["right_skill"] for r in rows),
        "right_command": sum(r["right_command"] for r in rows),
        "grounded": sum(bool(r["grounded"]) for r in skill_rows),
        "skill_tasks": len(skill_rows),
        "no_skill_right": sum(r["done_right"] for r in rows if not r["expected_skill"]),
        "no_skill_tasks": n - len(skill_rows),
        "silent_fakes": sum(r["silent_fake"] for r in rows),
        "unverified": sum(bool(r["unverified"]) for r in rows),
        "recovered_calls": sum(len(r["recovered"]) for r in rows),
        "runs_with_recovered": sum(bool(r["recovered"]) for r in rows),
        "timeouts": sum(r["exit_code"] == "timeout" for r in rows),
        "nonzero_exits": sum(r["exit_code"] not in (0, "timeout") for r in rows),
        "median_wall_s": statistics.median(walls) if walls else None,
        "p90_wall_s": p90(walls),
        "median_prompt_tokens": statistics.median(toks) if toks else None,
        "prompt_tokens_cached_share": (lambda p, c: round(c / (p + c), 3) if p + c else None)(
            sum(r.get("llama_prompt_processed") or 0 for r in rows), sum(r.get("llama_prompt_cached") or 0 for r in rows)),
    }


def markdown(results):
    lines = ["# The agent against a real local model",
             "",
             "Generated by `bench/real_model/run.py` (see README.md here). Each task is one `agent --json --once` run in",
             "a fresh HOME and working folder, bundled skills on, `--approve auto`, llama.cpp's llama-server on this",
             "machine's CPU. *Done right*: the right skill, the right command, and the expected value both in a",
             "command's output and in the answer (for the no-skill requests: nothing activated and a right answer).",
             "*Silent fake*: an answer stating a result no command printed, not marked `answer_unverified`.",
             ""]
    for r in results:
        s = r["summary"]
        lines += [f"## {r['model']} ({MODELS.get(r['model'], '')})", "",
                  f"{r['started']}, agent {r.get('agent_version') or '?'}, llama.cpp {r.get('llama_build') or '?'}, "
                  f"{r['threads']} threads, {s['tasks']} tasks"
                  + (f" of {r['tasks_planned']} (the time budget ran out; round-robin order, so every skill is in)"
                     if r.get("stopped_by_budget") else "")
                  + f", {r['total_min']:.0f} min in all.", "",
                  "| measure | value |", "|---|---|",
                  f"| done right | {s['done_right']}/{s['tasks']} ({pct(s['done_right'], s['tasks'])}) |",
                  f"| right skill (or none, where none fits) | {s['right_skill']}/{s['tasks']} ({pct(s['right_skill'], s['tasks'])}) |",
                  f"| right command (or none) | {s['right_command']}/{s['tasks']} ({pct(s['right_command'], s['tasks'])}) |",
                  f"| grounded (skill tasks: value in output and answer) | {s['grounded']}/{s['skill_tasks']} ({pct(s['grounded'], s['skill_tasks'])}) |",
                  f"| no-skill requests answered directly | {s['no_skill_right']}/{s['no_skill_tasks']} |",
                  f"| silent fakes | {s['silent_fakes']} |",
                  f"| marked answers (answer_unverified) | {s['unverified']} |",
                  f"| text tool calls recovered (runs) | {s['recovered_calls']} ({s['runs_with_recovered']}) |",
                  f"| timeouts / other non-zero exits | {s['timeouts']} / {s['nonzero_exits']} |",
                  f"| wall time per task, median / p90 | {s['median_wall_s']:.0f} s / {s['p90_wall_s']:.0f} s |",
                  f"| prompt tokens per task, median (llama.cpp's count, all requests of the task) | {s['median_prompt_tokens'] if s['median_prompt_tokens'] is not None else '–'} |",
                  f"| share of those tokens llama.cpp took from its cache | {pct(100 * (s.get('prompt_tokens_cached_share') or 0), 100) if s.get('prompt_tokens_cached_share') is not None else '–'} |",
                  ""]
        if r.get("chat"):
            lines += ["Prompt cache across one 3-turn chat (`--once`, then `-c --once` twice): tokens the requests of each",
                      "turn held, and how many llama.cpp had to process (its `/metrics` counter before and after).", "",
                      "| turn | LLM calls | prompt tokens sent | processed | reused |", "|---|---|---|---|---|"]
            for t in r["chat"]:
                reuse = f"{t['prompt_tokens_reused']} ({100 * t['reuse']:.0f} %)" if t["reuse"] is not None else "–"
                lines.append(f"| {t['turn']} | {t['llm_calls']} | {t['prompt_tokens_sent']} | {t['prompt_tokens_processed']} | {reuse} |")
            lines.append("")
        lines += ["| task | skill | command | grounded | done | s | notes |", "|---|---|---|---|---|---|---|"]
        for t in r["tasks"]:
            notes = []
            if t["silent_fake"]:
                notes.append("**silent fake**")
            if t["unverified"]:
                notes.append("marked")
            if t["recovered"]:
                notes.append("recovered: " + ", ".join(x["shape"] or "?" for x in t["recovered"]))
            if t["denied"]:
                notes.append(f"{len(t['denied'])} denied")
            if t["exit_code"] not in (0,):
                notes.append(f"exit {t['exit_code']}")
            ok = lambda v: "–" if v is None else ("yes" if v else "no")
            lines.append(f"| {t['id']} | {ok(t['right_skill'])} | {ok(t['right_command'])} | {ok(t['grounded'])} | "
                         f"{ok(t['done_right'])} | {t['wall_s']:.0f} | {'; '.join(notes)} |")
        lines.append("")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main


def spread(tasks):
    """Round-robin over the expected skills (no-skill requests as one group), file order within."""
    groups = {}
    for t in tasks:
        groups.setdefault(t["skill"] or "", []).append(t)
    out = []
    for i in range(max(len(g) for g in groups.values())):
        out += [g[i] for g in groups.values() if i < len(g)]
    return out


def write_report(results, out, summary):
    """RESULTS.md from every model with a results file, the ones just run included."""
    every = {r["model"]: r for r in results}
    for m in MODELS:
        p = os.path.join(out, f"{m}.json")
        if m not in every and os.path.exists(p):
            with open(p) as f:
                every[m] = json.load(f)
    for r in every.values():
        r["summary"] = summarize(r)
    text = markdown([every[m] for m in MODELS if m in every])
    # Observations written by hand about a run (what the models wrote, what the agent made of it).
    notes = os.path.join(HERE, "notes.md")
    if os.path.exists(notes):
        with open(notes) as f:
            text += "\n" + f.read()
    with open(summary, "w") as f:
        f.write(text)


def main():
    # A SIGTERM (a stopped bench) stops llama-server too: the finally blocks run.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="qwen1.5b,qwen0.5b", help="comma-separated: qwen1.5b, qwen0.5b")
    ap.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N tasks (a smoke run)")
    ap.add_argument("--agent", default=os.environ.get("AGENT_BIN", ""),
                    help="the agent binary (default: AGENT_BIN, else target/release/agent, else target/debug/agent)")
    ap.add_argument("--port", type=int, default=18433)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=900, help="seconds one agent run may take")
    ap.add_argument("--no-chat", action="store_true", help="skip the 3-turn prompt-cache chat")
    ap.add_argument("--budget-min", type=float, default=0,
                    help="start no new task after this many minutes per model (the results say how many ran)")
    ap.add_argument("--in-order", action="store_true",
                    help="tasks in the file's order (default: round-robin over skills, so a run cut short by "
                         "--budget-min still covers every skill)")
    ap.add_argument("--record-dir", default="", help="record a cassette per task here (--record FILE)")
    ap.add_argument("--skills-dir", default=os.path.join(HERE, "skills"))
    ap.add_argument("--no-bundled", action="store_true",
                    help="leave out the bundled skills (for recording fixtures: only --skills-dir's skills)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"), help="folder for <model>.json")
    ap.add_argument("--summary", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: write the summary from the results already in --out")
    opts = ap.parse_args()
    if opts.report_only:
        write_report([], opts.out, opts.summary)
        return

    with open(os.path.join(HERE, "tasks.json")) as f:
        tasks = json.load(f)["tasks"]
    if opts.tasks:
        wanted = opts.tasks.split(",")
        tasks = [t for t in tasks if t["id"] in wanted]
    if not opts.in_order:
        tasks = spread(tasks)
    if opts.limit:
        tasks = tasks[:opts.limit]
    models = [m for m in opts.models.split(",") if m]

    agent_src = opts.agent or next((p for p in (os.path.join(ROOT, "target/release/agent"),
                                                os.path.join(ROOT, "target/debug/agent")) if os.path.exists(p)), "")
    if not agent_src:
        sys.exit("no agent binary: build one (cargo build --release) or pass --agent / AGENT_BIN")
    os.makedirs(CACHE, exist_ok=True)
    tmp_root = tempfile.mkdtemp(prefix="run-", dir=CACHE)
    # A copy, so a binary rebuilt during the run does not change under it.
    agent = os.path.join(tmp_root, "agent")
    shutil.copy2(agent_src, agent)
    version = subprocess.run([agent, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    # Which build: the version string stays the same between commits.
    with open(agent, "rb") as f:
        import hashlib
        version += " (binary sha256 " + hashlib.sha256(f.read()).hexdigest()[:12] + ", built " + \
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(agent_src))) + ")"

    paths = setup(models)
    os.makedirs(opts.out, exist_ok=True)
    if opts.record_dir:
        os.makedirs(opts.record_dir, exist_ok=True)
    results = []
    for model in models:
        log(f"== {model}: {len(tasks)} tasks")
        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        t0 = time.time()
        server = Server(paths["server"], paths[model], opts.port, os.path.join(CACHE, f"llama-{model}.log"), opts.threads)
        build = ""
        try:
            try:
                props = json.loads(http_get(server.url("/props"))[1])
                build = props.get("build_info", "")
            except (OSError, ValueError):
                pass
            chat = [] if opts.no_chat else chat_cache(agent, server, tmp_root, opts.timeout, opts.record_dir)
            rows = []
            stopped = False
            with open(os.path.join(opts.out, f"{model}.partial.jsonl"), "w"):
                pass
            for i, task in enumerate(tasks):
                if opts.budget_min and time.time() - t0 > opts.budget_min * 60:
                    log(f"   the time budget ({opts.budget_min:g} min) is spent: {i} of {len(tasks)} tasks ran")
                    stopped = True
                    break
                # Fresh for each task, at the same path: requests differ only where the tasks do,
                # so llama.cpp's cache keeps what they share.
                tmp = os.path.join(tmp_root, "task")
                shutil.rmtree(tmp, ignore_errors=True)
                os.makedirs(tmp)
                home, work = fresh_place(tmp)
                env = agent_env(home, work, opts.port, task.get("env"))
                args = ["--json", "--once", task["request"], "--approve", "auto", *skill_args(opts.skills_dir, not opts.no_bundled)]
                if opts.record_dir:
                    os.makedirs(opts.record_dir, exist_ok=True)
                    args += ["--record", os.path.join(os.path.abspath(opts.record_dir), f"{task['id']}.jsonl")]
                before = server.metrics()
                code, events, err, wall = run_agent(agent, args, env, work, opts.timeout)
                after = server.metrics()
                row = grade(task, code, events, session_records(home), wall)
                # What llama.cpp processed and took from its cache for this task's requests.
                for key, name in (("llama_prompt_processed", "prompt_tokens_total"),
                                  ("llama_prompt_cached", "prompt_tokens_cached_total")):
                    a, b = counter(before, name), counter(after, name)
                    row[key] = None if a is None or b is None else int(b - a)
                if row["llama_prompt_processed"] is not None and row["llama_prompt_cached"] is not None:
                    row["prompt_tokens"] = row["llama_prompt_processed"] + row["llama_prompt_cached"]
                if code not in (0, 6, 9) and err.strip():
                    row["stderr"] = err.strip()[-800:]
                rows.append(row)
                with open(os.path.join(opts.out, f"{model}.partial.jsonl"), "a") as f:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
                log(f"   [{i + 1}/{len(tasks)}] {task['id']}: skill={row['skills']} cmd={row['commands']} "
                    f"done_right={row['done_right']} fake={row['silent_fake']} exit={code} {wall:.0f}s")
                shutil.rmtree(tmp, ignore_errors=True)
        finally:
            server.stop()
        result = {"model": model, "model_file": os.path.basename(paths[model]), "started": started,
                  "agent_version": version, "llama_build": build, "threads": opts.threads,
                  "total_min": (time.time() - t0) / 60, "tasks_planned": len(tasks), "stopped_by_budget": stopped,
                  "tasks": rows, "chat": chat}
        result["summary"] = summarize(result)
        results.append(result)
        with open(os.path.join(opts.out, f"{model}.json"), "w") as f:
            json.dump(result, f, indent=1, ensure_ascii=False)
        os.remove(os.path.join(opts.out, f"{model}.partial.jsonl"))
        log(f"== {model}: {json.dumps(result['summary'])}")
    write_report(results, opts.out, opts.summary)
    shutil.rmtree(tmp_root, ignore_errors=True) if not os.environ.get("KEEP_RUN") else None


if __name__ == "__main__":
    main()
