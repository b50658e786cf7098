"""`make run` as a subprocess, driven the way a person drives it from a terminal.

It starts in a session of its own with SIGINT and SIGQUIT back at their
defaults: a shell that runs the tests in the background (CI's, say) starts
them ignored, an ignored signal stays ignored through every exec, and then
the Ctrl-C that `interrupt()` sends would prove nothing.

Every process the run starts carries a marker in its environment, inherited
through make, supervisord, bin/stack's setsid and every exec. That is how
`processes()` finds all of them, the private RabbitMQ and Memcached included,
whatever their parent or process group.
"""

import os
import re
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

import httpx

MARK_VARIABLE = "SPELUNKER_STARTED_BY_TEST"
ROOT = Path(__file__).resolve().parent.parent
# The test run's own settings; a newcomer's shell has none of them.
NOT_A_NEWCOMERS = ("DATABASE_", "CELERY_", "KVDB_", "SPELUNKER_", "DJANGO_", "FLOWER_", "PYTEST_", "MAKE", "MFLAGS")


def newcomer_environment(**settings: str) -> dict[str, str]:
    """This shell's environment without the project's settings or its venv, plus `settings`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(NOT_A_NEWCOMERS) and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    venv_bin = str(ROOT / ".venv" / "bin")
    env["PATH"] = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if p != venv_bin and "/.venv/" not in p + "/"
    )
    return {**env, **settings}


def clone_head(destination: Path) -> None:
    """A fresh clone of the committed HEAD (the working tree's changes are not in it)."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(destination)], check=True)
    subprocess.run(["git", "checkout", "--quiet", head], cwd=destination, check=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _restore_terminal_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def _environ_of(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone meanwhile, or a kernel thread
        return b""


def _command_of(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class RunStack:
    """One `make run` (or bin/run-stack) subprocess with its output in a log file."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str], log_path: Path):
        self.command = command
        self.cwd = cwd
        self.mark = uuid.uuid4().hex
        self.env = {**env, MARK_VARIABLE: self.mark}
        self.log_path = log_path
        self.web_url = f"http://127.0.0.1:{env['SPELUNKER_PORT']}"
        self.flower_url = f"http://127.0.0.1:{env['FLOWER_PORT']}"
        self.proc: subprocess.Popen | None = None
        self.started_at = 0.0

    def start(self) -> "RunStack":
        # Append mode: supervisord reopens /dev/stdout for some of its output,
        # and only O_APPEND keeps those writes from overwriting each other.
        with open(self.log_path, "ab") as log:
            self.started_at = time.monotonic()
            self.proc = subprocess.Popen(
                self.command,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_restore_terminal_signals,
            )
        return self

    def output(self, tail: int = 8000) -> str:
        return self.log_path.read_text(errors="replace")[-tail:]

    def wait_ready(self, timeout: float) -> dict:
        """Poll /readyz until it answers 200; returns its JSON."""
        return self.wait_answer(f"{self.web_url}/readyz", timeout, until=lambda r: r.status_code == 200).json()

    def wait_answer(self, url: str, timeout: float, until=lambda response: True, **request) -> httpx.Response:
        """Poll `url` until a response satisfies `until` (by default: any HTTP answer at all); returns it.

        Separate programs start at their own pace: Flower may still be importing
        the project when the web already answers /readyz.
        """
        deadline = time.monotonic() + timeout
        last = "no answer at all"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"make run exited with {self.proc.returncode}:\n{self.output()}")
            try:
                response = httpx.get(url, timeout=5, **request)
                if until(response):
                    return response
                last = f"{response.status_code} {response.text[:500]}"
            except httpx.HTTPError as error:
                last = f"not answering ({error!r})"  # not listening yet
            time.sleep(0.5)
        # The last answer says which part was not ready (a worker, the broker, storage), not only that one wasn't.
        raise AssertionError(
            f"{url} gave no answer wanted after {timeout}s; the last: {last}; load average "
            f"{os.getloadavg()}:\n{self.output()}"
        )

    def processes(self) -> dict[int, str]:
        """pid -> command line of every live process this run started."""
        needle = f"{MARK_VARIABLE}={self.mark}".encode()
        found = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            if needle in _environ_of(pid).split(b"\0"):
                found[int(pid)] = _command_of(pid)
        return found

    def interrupt(self, timeout: float = 120) -> None:
        """Ctrl-C: SIGINT to the process group; wait for make to exit and every process to be gone."""
        os.killpg(self.proc.pid, signal.SIGINT)
        self._wait_until_gone(timeout)

    def terminate(self, timeout: float = 120) -> None:
        """`kill PID`, as a service manager stops it: SIGTERM to the started process alone; then wait the same."""
        self.proc.terminate()
        self._wait_until_gone(timeout)

    def _wait_until_gone(self, timeout: float) -> None:
        self.proc.wait(timeout)
        deadline = time.monotonic() + 30
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.5)

    def kill(self) -> None:
        """Last resort after a failed test: nothing of this run may outlive it."""
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def sign_in(base_url: str, username: str, password: str) -> httpx.Client:
    """A client signed in through the login form, CSRF token and all; fails unless it worked."""
    client = httpx.Client(base_url=base_url, timeout=30)
    form = client.get("/login/")
    assert form.status_code == 200, form.text[:500]
    response = client.post(
        "/login/", data={"username": username, "password": password, "csrfmiddlewaretoken": csrf_token(form.text)}
    )
    assert response.status_code == 302 and "/login/" not in response.headers["location"], response.text[:2000]
    home = client.get("/")
    assert home.status_code == 200 and f'<span class="who">{username}</span>' in home.text, home.text[:2000]
    return client


def csrf_token(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]
