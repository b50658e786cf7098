import importlib

import pytest
from django.apps import apps

from tests.conftest import session_uses_the_database


def run_data_migration(module: str, function: str) -> None:
    getattr(importlib.import_module(f"llm_manager.migrations.{module}"), function)(apps, None)


@pytest.fixture(scope="session", autouse=True)
def llm_migration_data(request, django_db_setup, django_db_blocker):
    """Restore what `migrate` creates (offline baseline, hourly schedule) in a reused test database.

    Transactional tests empty every table when they finish, and --reuse-db keeps
    that emptied database for the next session; the data migrations are
    idempotent, so running their functions again gives the fresh-install state.
    A run of database-free tests alone (test_evidence.py) has no test database to restore.
    """
    if not session_uses_the_database(request.session):
        return
    with django_db_blocker.unblock():
        run_data_migration("0001_squashed", "create_offline_baseline")
        run_data_migration("0001_squashed", "create_schedule")
