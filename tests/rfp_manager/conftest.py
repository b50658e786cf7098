"""Fixtures for the rfp_manager tests: a fault-injecting LLM front, a small library, RFPs.

`llm_front` is a tiny real HTTP server in front of the shared fake OpenAI
server: it forwards every request, except chat requests whose prompt contains
FAIL_MARKER, which it rejects with HTTP 400 (a business error, never retried).
That makes per-question failures exact and deterministic, without touching
our own code.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from llm_manager.testing.fixtures import register_fake_api
from rfp_manager.models import RFP, Question

FAIL_MARKER = "FAIL-THIS-QUESTION"

LIBRARY = {
    "Security handbook": (
        "All customer data is encrypted at rest with AES-256 and in transit with TLS 1.3.\n\n"
        "Access to production systems requires single sign-on and hardware security keys.\n\n"
        "We run an external penetration test every year and fix critical findings within 14 days."
    ),
    "Operations guide": (
        "The service runs in two data centres in Frankfurt and Dublin with automatic failover.\n\n"
        "Backups are taken every hour and kept for 35 days; restores are tested every quarter.\n\n"
        "Support is available 24 hours a day, 7 days a week, with a one hour response time for severity one."
    ),
}
QUESTIONS = [
    "How is customer data encrypted at rest and in transit?",
    "How often are backups taken and how long are they kept?",
    "Which data centres host the service?",
    "How is access to production systems controlled?",
    "How often do you run penetration tests?",
    "What support hours and response times do you offer?",
]


class FaultyFront:
    """Forwards to the fake server; fails chat prompts that contain `fail_marker`."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.config = upstream.config  # register_fake_api reads the served models from here
        self.fail_marker = FAIL_MARKER
        self.transient_failures = 0  # the next N chat requests get HTTP 503 (then it recovers)
        self.failed = 0
        self.chat_prompts: list[str] = []  # the request bodies of the chat calls it forwarded
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._client = httpx.Client(timeout=30)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
        self._client.close()

    def take_transient_failure(self) -> bool:
        with self._lock:
            if self.transient_failures > 0:
                self.transient_failures -= 1
                self.failed += 1
                return True
            return False

    def _handler(self):
        front = self
        origin = front.upstream.url.rsplit("/v1", 1)[0]

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._forward(b"")

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.endswith("/chat/completions"):
                    if front.fail_marker and front.fail_marker in body.decode():
                        front.failed += 1
                        return self._send(400, _error_body("injected failure"))
                    if front.take_transient_failure():
                        return self._send(503, _error_body("injected outage"), {"Retry-After": "0.2"})
                    front.chat_prompts.append(body.decode())
                self._forward(body)

            def _forward(self, body):
                headers = {"Content-Type": "application/json", "Authorization": self.headers.get("Authorization", "")}
                r = front._client.request(self.command, origin + self.path, content=body or None, headers=headers)
                self._send(r.status_code, r.content)

            def _send(self, status, data, headers=None):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _error_body(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()


@pytest.fixture
def llm_front(fake_llm):
    front = FaultyFront(fake_llm)
    yield front
    front.stop()


@pytest.fixture
def llm_api(llm_front):
    """The fake server (behind the faulty front) as the default chat and embedding API."""
    return register_fake_api(llm_front, max_concurrent=4, requests_per_minute=0)


@pytest.fixture
def library(llm_api):
    from solution_library.testing import add_library_document

    return [add_library_document(title, text) for title, text in LIBRARY.items()]


def make_rfp(owner, questions, name="Acme RFP") -> RFP:
    rfp = RFP.objects.create(name=name, client="Acme", owner=owner)
    for i, text in enumerate(questions):
        Question.objects.create(rfp=rfp, number=str(i + 1), text=text, order=i, import_key=f"n:|{i + 1}")
    return rfp


def chat_requests(fake_llm) -> int:
    return len(fake_llm.requests_to("/v1/chat/completions"))
