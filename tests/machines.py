""" "Machines" for tests and benchmarks: groups of the Procfile's processes that share no disk.

A Machine runs some of the Procfile's processes (the commands `make run` and docker compose run)
with a working folder of its own: its own SPELUNKER_VAR_DIR, search index folder and temp folder.
What machines share is only what separate hosts would share: PostgreSQL, RabbitMQ, Memcached and
the S3 media storage, given in `shared_env`. `kill()` is a host losing power: SIGKILL to every
process of the machine at once, nothing flushed, nothing acknowledged.
"""

import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.test_deployment import read_procfile

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
# The Procfile's worker names, as celery expands `-n NAME@%h` on this host.
WORKER_NAMES = {"worker-default": "default", "worker-embedding": "embedding", "worker-batch": "batch"}


class Machine:
    def __init__(
        self,
        name: str,
        folder: Path,
        roles: list[str],
        shared_env: dict[str, str],
        overrides: dict[str, str] | None = None,
    ):
        self.name = name
        self.folder = folder
        self.roles = roles
        self.commands = {role: read_procfile()[role] for role in roles}
        for role, command in (overrides or {}).items():
            self.commands[role] = command
        self.var_dir = folder / "var"
        self.index_dir = folder / "search-index"
        self.tmp_dir = folder / "tmp"
        self.port = _free_port() if "web" in roles else None
        self.env = {
            **os.environ,
            **shared_env,
            "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}",
            "SPELUNKER_VAR_DIR": str(self.var_dir),
            "SPELUNKER_SEARCH_INDEX_DIR": str(self.index_dir),
            "SPELUNKER_MEDIA_ROOT": str(self.var_dir / "media"),
            "TMPDIR": str(self.tmp_dir),
            **({"SPELUNKER_PORT": str(self.port), "WEB_CONCURRENCY": "2"} if self.port else {}),
        }
        self.processes: dict[str, subprocess.Popen] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def worker_names(self) -> list[str]:
        host = socket.gethostname()
        return [f"{WORKER_NAMES[role]}@{host}" for role in self.roles if role in WORKER_NAMES]

    def start(self, timeout: float = 180) -> "Machine":
        for folder in (self.var_dir, self.index_dir, self.tmp_dir):
            folder.mkdir(parents=True, exist_ok=True)
        for role, command in self.commands.items():
            log = open(self.folder / f"{role}.log", "ab")
            self.processes[role] = subprocess.Popen(
                shlex.split(command),
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        from spelunker.celery import app

        deadline = time.monotonic() + timeout
        waiting = set(self.worker_names())
        web_ready = self.port is None
        while (waiting or not web_ready) and time.monotonic() < deadline:
            for role, proc in self.processes.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{self.name}: {role} exited with {proc.returncode}:\n{self.log(role)}")
            if waiting:
                for reply in app.control.ping(destination=sorted(waiting), timeout=1) or []:
                    waiting -= set(reply)
            if not web_ready:
                web_ready = _answers(f"{self.url}/readyz")
        if waiting or not web_ready:
            raise TimeoutError(
                f"{self.name} not ready after {timeout}s (workers not answering: {waiting}, web ready: {web_ready})"
            )

    def log(self, role: str, tail: int | None = 4000) -> str:
        text = (self.folder / f"{role}.log").read_text(errors="replace")
        return text[-tail:] if tail else text

    def files(self, folder: Path) -> list[Path]:
        return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []

    def kill(self) -> None:
        """SIGKILL to every process of the machine (each leads its own process group: pool children too)."""
        for proc in self.processes.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        for proc in self.processes.values():
            proc.wait(30)

    def stop(self) -> None:
        """The polite end of a test: SIGTERM (warm shutdown), then SIGKILL what is still there."""
        for proc in self.processes.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.processes.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
