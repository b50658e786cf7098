"""Flower, started with the Procfile's own command, answers only with credentials."""

import os
import shlex
import socket
import subprocess
import sys

import httpx
import pytest

from tests.test_deployment import read_procfile
from tests.workers import ROOT, wait_for

pytestmark = [pytest.mark.integration]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def flower():
    port = free_port()
    env = {**os.environ, "FLOWER_PORT": str(port), "FLOWER_ADDRESS": "127.0.0.1", "FLOWER_BASIC_AUTH": "ops:s3cret-pw"}
    program, *args = shlex.split(read_procfile()["flower"])
    assert program == "celery"
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"

    def answering():
        try:
            return httpx.get(url, timeout=1)
        except httpx.TransportError:
            return None

    try:
        wait_for(answering, timeout=30, message="Flower to answer")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def test_flower_requires_basic_auth(flower):
    assert httpx.get(flower, timeout=5).status_code == 401
    assert httpx.get(flower, auth=("ops", "wrong"), timeout=5).status_code == 401
    assert httpx.get(flower, auth=("ops", "s3cret-pw"), timeout=5).status_code == 200
