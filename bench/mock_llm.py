"""A zero-latency OpenAI-compatible model for the bench scripts: every POST gets one streamed
answer at once, and `on_request(path, body, arrived)` (arrival on the monotonic clock) sees each
request first. Only 127.0.0.1, on a free port."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def streamed(text):
    """The bytes of a streamed chat completion that answers `text`."""
    events = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return ("".join("data: " + json.dumps(e) + "\n\n" for e in events) + "data: [DONE]\n\n").encode()


def serve(answer="hello", on_request=None):
    """Start the mock; returns the server, whose `url` is the base URL to give the agent."""
    data = streamed(answer)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            arrived = time.monotonic()
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if on_request:
                on_request(self.path, body, arrived)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    return server
