"""gunicorn with the project's config, and a signed-in HTTP client: what the benchmarks that start at a click share."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from http.cookiejar import CookieJar
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Web:
    """gunicorn with the project's config (two sync workers, access log on stdout), on a free port."""

    def __init__(self, log: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "SPELUNKER_PORT": str(self.port)}
        self.log = open(log, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "spelunker.wsgi:application", "--config", "spelunker/gunicorn_conf.py"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=2).read()
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("gunicorn did not answer /healthz within 60 s")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self.log.close()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """urllib with a cookie jar: signs in through the login form, posts forms with their CSRF token."""

    def __init__(self, base: str):
        self.base, self.jar = base, CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.name == name), "")

    def get(self, path: str) -> str:
        return self.opener.open(self.base + path, timeout=30).read().decode()

    def post(self, path: str, data: dict) -> int:
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self.cookie("csrftoken")}).encode()
        return self._send(urllib.request.Request(self.base + path, data=body, headers={"Referer": self.base + path}))

    def post_file(self, path: str, field: str, filename: str, data: bytes) -> int:
        """One file in a multipart form, as the library page's upload script sends it (CSRF header, JSON answer)."""
        boundary = uuid.uuid4().hex
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
                f"Content-Type: text/plain\r\n\r\n"
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        headers = {
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "X-CSRFToken": self.cookie("csrftoken"),
            "Accept": "application/json",
            "Referer": self.base + path,
        }
        return self._send(urllib.request.Request(self.base + path, data=body, headers=headers))

    def _send(self, request: urllib.request.Request) -> int:
        try:
            response = self.opener.open(request, timeout=30)
            response.read()
            return response.status
        except urllib.error.HTTPError as exc:  # NoRedirect turns 302 into an "error"
            if exc.code in (301, 302, 303):
                return exc.code
            raise

    def sign_in(self, username: str, password: str) -> None:
        self.get("/login/")
        if self.post("/login/", {"username": username, "password": password}) != 302:
            raise RuntimeError("could not sign in")
