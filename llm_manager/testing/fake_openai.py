"""A fake OpenAI-compatible server for tests and benchmarks: real HTTP on loopback.

Serves GET /v1/models, POST /v1/embeddings and POST /v1/chat/completions.
Embeddings are deterministic (the offline provider's hashed vectors) and chat
answers like the offline provider, so pipeline tests against it are meaningful.

Switchable behaviour (`FakeOpenAI.configure`): per-request latency, an error
rate, a specific fault ("500", "429" with Retry-After, "401", "timeout",
"malformed" JSON), the served models and a required API key. Every request is
logged (`.requests`; a chat request with its last message, so tests can count
calls per question), and the number of requests in flight at once is tracked
(`.max_in_flight`) so tests can prove a concurrency limit held. After a client
dies, `wait_until_read()` returns once everything it sent has reached the log.

Command line (for benchmarks):

    python -m llm_manager.testing.fake_openai --port 0 --latency-ms 200

prints its base URL (ending in /v1) and serves until interrupted.
"""

import argparse
import json
import random
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from llm_manager.providers.offline import extractive_reply, hashed_embedding, token_usage

FAULTS = (None, "500", "429", "401", "timeout", "malformed")
DEFAULT_MODELS = [
    {"id": "fake-chat", "type": "chat", "context_window": 8192},
    {"id": "fake-embed", "type": "embedding", "embedding_dimensions": 384},
]


@dataclass
class FakeConfig:
    latency_ms: float = 0
    error_rate: float = 0.0
    fault: str | None = None
    models: list = field(default_factory=lambda: [dict(m) for m in DEFAULT_MODELS])
    api_key: str | None = None  # when set, requests must carry "Authorization: Bearer <key>"
    retry_after: float = 1
    hang_seconds: float = 5  # how long the "timeout" fault keeps the client waiting


class FakeOpenAI:
    """The server object the `fake_llm` fixture yields."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.config = FakeConfig()
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()  # open on the server's side
        self._server = ThreadingHTTPServer((host, port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeOpenAI":
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def configure(
        self,
        *,
        latency_ms=None,
        error_rate=None,
        fault="unchanged",
        models=None,
        api_key="unchanged",
        retry_after=None,
        hang_seconds=None,
    ) -> None:
        """Change behaviour for the following requests. A fault without an error_rate hits every request."""
        if fault != "unchanged":
            if fault not in FAULTS:
                raise ValueError(f"unknown fault {fault!r}; choose from {FAULTS}")
            self.config.fault = fault
            if error_rate is None:
                self.config.error_rate = 1.0 if fault else 0.0
        if latency_ms is not None:
            self.config.latency_ms = latency_ms
        if error_rate is not None:
            self.config.error_rate = error_rate
        if models is not None:
            self.config.models = [m if isinstance(m, dict) else {"id": m} for m in models]
        if api_key != "unchanged":
            self.config.api_key = api_key
        if retry_after is not None:
            self.config.retry_after = retry_after
        if hang_seconds is not None:
            self.config.hang_seconds = hang_seconds

    def reset(self) -> None:
        """Back to a healthy server with the default models and an empty log."""
        self.config = FakeConfig()
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    def requests_to(self, path: str) -> list[dict]:
        return [r for r in self.requests if r["path"] == path]

    def wait_until_read(self, timeout: float = 10, settle: float = 0.1) -> None:
        """Return once every byte clients have sent is read: each sent request logged, or its client gone.

        A request a client wrote just before it was killed sits in the server's
        socket until a handler thread reads it; that thread also needs this
        process's GIL, so it can be logged well after the kill. Code that
        divides the log at a client's death waits here first. Unread input
        shows as a readable socket (a pending connection, request bytes, or the
        dead client's end of file); `settle` covers a request already read from
        its socket but not yet logged.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            logged = len(self.requests)
            if not self._unread_input() and not self.in_flight:
                time.sleep(settle)
                if len(self.requests) == logged and not self.in_flight and not self._unread_input():
                    return
            time.sleep(0.01)
        raise TimeoutError(f"the fake OpenAI server still had unread requests after {timeout} s")

    def _unread_input(self) -> bool:
        with self._lock:
            sockets = [self._server.socket, *self._connections]
        try:
            return bool(select.select(sockets, [], [], 0)[0])
        except (OSError, ValueError):  # a connection closed while we looked: look again
            return True

    # --- bookkeeping used by the handler ---
    def _enter(self, entry: dict) -> None:
        """Log on arrival, so a client that got its answer always finds its request in the log."""
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.requests.append(entry)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _opened(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.add(connection)

    def _closed(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.discard(connection)


def _handler_for(fake: FakeOpenAI):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            # Headers and body go out in two writes; without this, Nagle + delayed ACK add ~40 ms per request.
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            fake._opened(self.request)

        def finish(self):
            fake._closed(self.request)
            super().finish()

        def log_message(self, format, *args):  # keep test output clean; the request log is .requests
            pass

        def do_GET(self):
            self._serve(None)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                return self._write(*_json(400, _error("request body is not JSON", "invalid_request_error")))
            self._serve(body)

        def _serve(self, body):
            started = time.monotonic()
            entry = {
                "path": self.path,
                "method": self.command,
                "model": (body or {}).get("model"),
                # A chat request's last message (the user's turn): what tests count calls per question by.
                "prompt": _last_message(body),
                "input": (body or {}).get("input"),  # an embedding request's texts
                "started": time.time(),
                "status": None,
            }
            fake._enter(entry)
            try:
                status, data, headers = self._respond(body)
            finally:
                # Leave before answering: once the client has its answer, it is no longer in flight.
                entry["duration"] = time.monotonic() - started
                fake._leave()
            entry["status"] = status
            self._write(status, data, headers)

        def _respond(self, body) -> tuple[int, bytes, dict]:
            config = fake.config
            if config.latency_ms:
                time.sleep(config.latency_ms / 1000)
            if config.api_key and self.headers.get("Authorization") != f"Bearer {config.api_key}":
                return _json(401, _error("Incorrect API key provided.", "invalid_api_key"))
            if config.error_rate and random.random() < config.error_rate:
                return self._fault(config.fault or "500")
            route = {
                "/v1/models": self._models,
                "/v1/embeddings": self._embeddings,
                "/v1/chat/completions": self._chat,
            }.get(self.path.split("?")[0])
            if route is None:
                return _json(404, _error(f"no route {self.path}", "not_found"))
            return route(body or {})

        def _fault(self, fault: str):
            if fault == "401":
                return _json(401, _error("Incorrect API key provided.", "invalid_api_key"))
            if fault == "429":
                return _json(
                    429,
                    _error("Rate limit reached.", "rate_limit_exceeded"),
                    {"Retry-After": f"{fake.config.retry_after:g}"},
                )
            if fault == "timeout":
                time.sleep(fake.config.hang_seconds)
                return _json(504, _error("upstream timed out", "timeout"))
            if fault == "malformed":
                return 200, b'{"object": "list", "data": [ {"id": ', {}
            return _json(500, _error("The server had an error processing your request.", "server_error"))

        def _models(self, body):
            data = [{"object": "model", "owned_by": "fake", "created": 0, **m} for m in fake.config.models]
            return _json(200, {"object": "list", "data": data})

        def _served(self, name: str, model_type: str) -> dict | None:
            for model in fake.config.models:
                if model["id"] == name and model.get("type", "chat") == model_type:
                    return model
            return None

        def _embeddings(self, body):
            model = self._served(body.get("model"), "embedding")
            if model is None:
                return _json(404, _error(f"The model `{body.get('model')}` does not exist.", "model_not_found"))
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else list(texts or [])
            dims = model.get("embedding_dimensions", 384)
            data = [
                {"object": "embedding", "index": i, "embedding": hashed_embedding(t, dims)} for i, t in enumerate(texts)
            ]
            words = sum(len(str(t).split()) for t in texts)
            return _json(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": model["id"],
                    "usage": {"prompt_tokens": words, "total_tokens": words},
                },
            )

        def _chat(self, body):
            model = self._served(body.get("model"), "chat")
            if model is None:
                return _json(404, _error(f"The model `{body.get('model')}` does not exist.", "model_not_found"))
            messages = body.get("messages") or []
            reply = extractive_reply(messages)
            return _json(
                200,
                {
                    "id": f"chatcmpl-fake-{len(fake.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model["id"],
                    "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}
                    ],
                    "usage": token_usage(messages, reply),
                },
            )

        def _write(self, status: int, data: bytes, headers: dict) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout); nothing to answer

    return Handler


def _last_message(body) -> str | None:
    messages = (body or {}).get("messages")
    if not messages or not isinstance(messages[-1], dict):
        return None
    return str(messages[-1].get("content", ""))


def _json(status: int, payload: dict, headers: dict | None = None) -> tuple[int, bytes, dict]:
    return status, json.dumps(payload).encode(), headers or {}


def _error(message: str, code: str) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible server (tests and benchmarks)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0)
    parser.add_argument("--error-rate", type=float, default=None)
    parser.add_argument("--fault", choices=[f for f in FAULTS if f], default=None)
    parser.add_argument("--api-key", default=None, help="require this bearer key")
    args = parser.parse_args(argv)
    fake = FakeOpenAI(args.host, args.port)
    fake.configure(latency_ms=args.latency_ms, error_rate=args.error_rate, fault=args.fault, api_key=args.api_key)
    print(fake.url, flush=True)
    try:
        fake._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        fake._server.server_close()


if __name__ == "__main__":
    main()
