#!/usr/bin/env python3
"""A scripted OpenAI-compatible model on 127.0.0.1 that gives the answers of existing cassettes.

The cassettes in cassettes/ come from this repository's CI, which has no model. When a change to
agent's prompts changes every request (but not what a model would answer), re-record them with the
same scripted answers:

    python3 examples/ci/scripted_model.py 8765 examples/ci/cassettes/*.jsonl &
    AGENT_BASE_URL=http://127.0.0.1:8765/v1 AGENT_MODEL=gpt-4.1-mini examples/ci/record.sh

An answer is picked by the request's first user message and how many messages it holds, which is
what distinguishes the steps of one recorded conversation. Standard library only.
"""
import http.server
import json
import sys


def key(messages):
    first_user = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
    return (first_user, len(messages))


def load(paths):
    answers = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    answers[key(rec["request"]["messages"])] = (rec["status"], rec["response"])
    return answers


def main():
    port, paths = int(sys.argv[1]), sys.argv[2:]
    answers = load(paths)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            status, response = answers.get(key(body.get("messages", [])), (500, '{"error":{"message":"no scripted answer"}}'))
            data = response.encode()
            self.send_response(status)
            streamed = response.startswith("data:")
            self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
