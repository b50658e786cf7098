"""A worker imports the LLM providers before its pool starts, not at a batch job's first call (spelunker/celery.py)."""

import os
import subprocess
import sys

from tests.workers import ROOT

CHECK = """
import sys
import django
django.setup()
from celery.signals import worker_init
from spelunker.celery import app
lazy = "llm_manager.providers.openai_compat" not in sys.modules
worker_init.send(sender=None)
print(lazy, all(f"llm_manager.providers.{name}" in sys.modules for name in ("local", "offline", "openai_compat")))
"""


def test_a_worker_imports_every_provider_before_it_takes_a_task():
    """Imported at the first call instead, the OpenAI client's second of importing held the import lock while a
    batch job's other threads waited; a web process that calls no model still does not import it."""
    done = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "spelunker.settings"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]
