#!/usr/bin/env python3
"""What Anthropic's prompt cache would serve of a six-turn session, beside the OpenAI path's
shared prefix.

usage: anthropic_cache.py AGENT_BIN LABEL=SKILLS_DIR [LABEL=SKILLS_DIR ...]   — prints Markdown.

For each library, the same scripted session runs twice through the real binary, as six one-shot
turns continuing one stored session (`--once`, then `-c --once`): turns 1 and 4 activate a skill
(two requests each), the others are answered at once. Once against a local mock of the Messages
API (`AGENT_PROVIDER=anthropic`) that keeps a prompt cache the way the API documents it: the
request is read as blocks in cache order (tools, system, then each message's content blocks);
every `cache_control` breakpoint writes the prefix up to it, and a request reads the longest
prefix written before that ends at one of its breakpoints or up to 20 blocks before one. Tokens
are estimated as bytes / 4 of each block's canonical JSON (the mock has no tokenizer); the mock
reports them as `usage`, and the agent's own `--json` usage is what the table shows. Once against
an OpenAI-compatible mock, where the share of each request that repeats the one before it byte for
byte (tools, then messages) is what an automatic prefix cache can reuse. Only 127.0.0.1."""
import hashlib, json, os, subprocess, sys, tempfile, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TURNS = [
    "what's the weather in Tokyo tomorrow",
    "and in Paris?",
    "convert this spreadsheet of invoices to a pdf report",
    "find the commits that touched the login page last week",
    "summarise the open pull requests of my repository",
    "translate the release notes into German",
]
ACTIVATING = {0, 3}
LOOKBACK = 20


def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def unmarked(block):
    return {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block


def blocks(doc):
    """(canonical bytes, marked) of every block, in the order the cache reads them."""
    out = [(canon(unmarked(t)), "cache_control" in t) for t in doc.get("tools", [])]
    system = doc.get("system", [])
    system = [{"type": "text", "text": system}] if isinstance(system, str) else system
    out += [(canon(unmarked(b)), "cache_control" in b) for b in system]
    for m in doc["messages"]:
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        out += [(m["role"] + canon(unmarked(b)), "cache_control" in b) for b in content]
    return out


class Cache:
    def __init__(self):
        self.written = set()

    def usage(self, doc):
        bl = blocks(doc)
        tokens = [max(1, len(b) // 4) for b, _ in bl]
        keys, h = [], hashlib.sha256()
        for b, _ in bl:
            h.update(b.encode())
            keys.append(h.copy().hexdigest())
        marks = [i for i, (_, marked) in enumerate(bl) if marked]
        hit = -1
        for m in marks:
            for i in range(m, max(-1, m - LOOKBACK), -1):
                if keys[i] in self.written:
                    hit = max(hit, i)
                    break
        last = max(marks, default=-1)
        for m in marks:
            self.written.add(keys[m])
        read = sum(tokens[: hit + 1])
        write = sum(tokens[hit + 1: last + 1]) if last > hit else 0
        return {"input_tokens": sum(tokens) - read - write, "cache_read_input_tokens": read,
                "cache_creation_input_tokens": write, "output_tokens": 8}


def first_skill(system_text):
    for line in system_text.splitlines():
        if line.startswith("- ") and ":" in line:
            return line[2:].split(":", 1)[0].strip()
    return "none"


def reply(doc, turn_of):
    """Activate a skill on the first request of an activating turn, else answer in text."""
    last = doc["messages"][-1]
    content = last["content"] if isinstance(last["content"], list) else [{"type": "text"}]
    fresh = last["role"] == "user" and not any(b.get("type") in ("tool_result",) for b in content) \
        and not last.get("tool_call_id")
    system = doc.get("system")
    system = system[0]["text"] if isinstance(system, list) else doc["messages"][0].get("content", "")
    if fresh and turn_of() in ACTIVATING:
        return ("tool", first_skill(system))
    return ("text", f"Done with request {turn_of() + 1}.")


def serve(handler_for):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            ctype, data = handler_for(self.path, json.loads(body))
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            data = b'{"data":[{"id":"m"}]}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def claude_stream(kind, value, usage):
    ev = [("message_start", {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                                                  "content": [], "model": "m", "usage": usage}})]
    if kind == "tool":
        ev += [("content_block_start", {"type": "content_block_start", "index": 0, "content_block":
                {"type": "tool_use", "id": "toolu_bench", "name": "activate_skill", "input": {}}}),
               ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta":
                {"type": "input_json_delta", "partial_json": json.dumps({"name": value})}})]
    else:
        ev += [("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
               ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": value}})]
    ev += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
           ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use" if kind == "tool" else "end_turn"},
                              "usage": {"output_tokens": 8}}),
           ("message_stop", {"type": "message_stop"})]
    return "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in ev).encode()


def openai_stream(kind, value):
    if kind == "tool":
        delta = {"tool_calls": [{"index": 0, "id": "call_bench", "type": "function",
                                 "function": {"name": "activate_skill", "arguments": json.dumps({"name": value})}}]}
        finish = "tool_calls"
    else:
        delta, finish = {"content": value}, "stop"
    events = [{"choices": [{"index": 0, "delta": delta}]}, {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}]
    return ("".join("data: " + json.dumps(e) + "\n\n" for e in events) + "data: [DONE]\n\n").encode()


def session(agent, skills, env_extra, turn_state):
    home = tempfile.mkdtemp()
    work = os.path.join(home, "work")
    os.makedirs(work)
    usages = []
    for i, text in enumerate(TURNS):
        turn_state["turn"] = i
        env = {"PATH": os.environ["PATH"], "HOME": home, "AGENT_BUNDLED_SKILLS": "0", "AGENT_TOOL_CHECK": "0",
               "AGENT_PROBE_PORTS": "", "AGENT_RETRIES": "0", **env_extra}
        args = [agent, "--skills-dir", skills, "--json", "--approve", "yes"] + (["-c"] if i else []) + ["--once", text]
        out = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=120)
        done = [json.loads(l) for l in out.stdout.splitlines() if '"type":"done"' in l]
        if out.returncode != 0 or not done:
            sys.exit(f"turn {i + 1} failed ({out.returncode}): {out.stderr[-2000:]}")
        usages.append(done[-1].get("usage", {}))
    return usages


def shared(a, b):
    n, i = min(len(a), len(b)), 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def measure(agent, label, skills):
    state = {"turn": 0}
    cache, claude_bodies, openai_bodies = Cache(), [], []

    def claude(path, doc):
        claude_bodies.append((state["turn"], doc))
        return "text/event-stream", claude_stream(*reply(doc, lambda: state["turn"]), cache.usage(doc))

    def openai(path, doc):
        if "messages" in doc:
            openai_bodies.append((state["turn"], doc))
        return "text/event-stream", openai_stream(*reply(doc, lambda: state["turn"]))

    a, o = serve(claude), serve(openai)
    url_a, url_o = f"http://127.0.0.1:{a.server_address[1]}", f"http://127.0.0.1:{o.server_address[1]}/v1"
    usages = session(agent, skills, {"AGENT_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "sk-ant-bench-0000",
                                     "AGENT_BASE_URL": url_a, "AGENT_MODEL": "claude-sonnet-5-5"}, state)
    session(agent, skills, {"AGENT_API_KEY": "sk-bench-000000", "AGENT_BASE_URL": url_o, "AGENT_MODEL": "m"}, state)
    a.shutdown()
    o.shutdown()
    order = lambda d: (canon(d.get("tools", [])) + canon(d["messages"])).encode()
    rows = []
    for t in range(len(TURNS)):
        u = usages[t]
        total = u.get("prompt_tokens", 0)
        read = u.get("cache_read_tokens", 0)
        mine = [json.dumps(d).encode() for n, d in claude_bodies if n == t]
        prev_o = [order(d) for n, d in openai_bodies if n < t]
        here_o = [order(d) for n, d in openai_bodies if n == t]
        chain = (prev_o[-1:] + here_o)
        ratios = [shared(x, y) / len(y) for x, y in zip(chain, chain[1:])]
        rows.append(f"| {label} | {t + 1} | {len(mine)} | {total:,} | {read:,} | {u.get('cache_write_tokens', 0):,} | "
                    f"{read / total if total else 0:.2f} | {sum(map(len, mine)):,} | "
                    f"{min(ratios) if ratios else 0:.2f} | {sum(map(len, here_o)):,} |")
    return rows


def main():
    agent = os.path.abspath(sys.argv[1])
    print("| library | turn | requests | input tokens | cache read | cache write | read share | Messages API bytes sent "
          "| OpenAI: shared prefix (min) | OpenAI bytes sent |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for arg in sys.argv[2:]:
        label, skills = arg.split("=", 1)
        print("\n".join(measure(agent, label, os.path.abspath(skills))))


if __name__ == "__main__":
    main()
