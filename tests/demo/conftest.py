import importlib

import pytest
from django.apps import apps
from django.core.management import call_command

from demo.services.loading import DOCS_START_PATH
from tests.workers import wait_for


@pytest.fixture
def offline_llm(transactional_db):
    """The offline baseline as default models, as `migrate` leaves them (transactional tests flush them)."""
    migration = importlib.import_module("llm_manager.migrations.0001_squashed")
    migration.create_offline_baseline(apps, None)


@pytest.fixture
def fresh_install_models(offline_llm):
    """The models `migrate` leaves on a fresh install: all-MiniLM-L6-v2 the default embedding model.

    What `make run`'s demo embeds, searches, drafts and reviews with; the README's screenshots show that.
    """
    migration = importlib.import_module("llm_manager.migrations.0002_local_minilm_default")
    migration.register_local_default(apps, None)


@pytest.fixture
def docs_url(live_server) -> str:
    """The demo documentation site, served by the live server's static files as `make run` serves it."""
    return f"{live_server.url}/static/{DOCS_START_PATH}"


def settled() -> bool:
    """Nothing of the demo is left for the worker: no sync running, no document processing."""
    from jobs.models import ACTIVE_STATUSES
    from solution_library.models import Document, ReviewStatus, SyncJob

    return not (
        SyncJob.objects.filter(status__in=ACTIVE_STATUSES).exists()
        or Document.objects.filter(review_status=ReviewStatus.PROCESSING).exists()
    )


@pytest.fixture
def load_demo(live_worker, staff_user, docs_url, offline_llm):
    """`load_demo(*args)` runs the real command (owner: the staff superuser) and returns its output.

    The demo queues work (embedding, a sync that queues more embedding): the
    test ends only once the worker has done it, so that no task of this test
    still holds the database while the next test empties it.
    """

    def run(*args) -> str:
        from io import StringIO

        out = StringIO()
        call_command("load_demo", "--docs-url", docs_url, *args, stdout=out)
        return out.getvalue()

    yield run
    wait_for(settled, timeout=120, message="the worker to finish the demo's documents and sync")
