import importlib

import pytest
from django.apps import apps
from django.core.management import call_command

from demo.services.loading import DOCS_START_PATH


@pytest.fixture
def offline_llm(transactional_db):
    """The offline baseline as default models, as `migrate` leaves them (transactional tests flush them)."""
    migration = importlib.import_module("llm_manager.migrations.0003_offline_baseline")
    migration.create_offline_baseline(apps, None)


@pytest.fixture
def docs_url(live_server) -> str:
    """The demo documentation site, served by the live server's static files as `make run` serves it."""
    return f"{live_server.url}/static/{DOCS_START_PATH}"


@pytest.fixture
def load_demo(staff_user, docs_url, offline_llm):
    """`load_demo(*args)` runs the real command (owner: the staff superuser) and returns its output."""

    def run(*args) -> str:
        from io import StringIO

        out = StringIO()
        call_command("load_demo", "--docs-url", docs_url, *args, stdout=out)
        return out.getvalue()

    return run
