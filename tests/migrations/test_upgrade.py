"""A database made by today's migrations (before the squash) is taken by the squashed history as up to date.

The old migrations are kept as data in tests/migrations/before_squash and run by `manage.py migrate`
with its settings; a team's rows are written into that database (rows.py); then `migrate` runs with the
squashed history, as an upgrade of a running install does. Nothing of the squash may run again (only
migrations made after it), every row must keep its values, and the schema must be the one a fresh
database gets (indexes, triggers, the full-text tables and PostgreSQL's column storage included: schema.py).
On SQLite (make run's default) and on the PostgreSQL of the test stack.
"""

import os
import sqlite3
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg.rows import dict_row

from tests.migrations.schema import postgres_schema, sqlite_schema

ROOT = Path(__file__).resolve().parents[2]
BEFORE_SQUASH = "tests.migrations.before_squash.settings"
SQUASHED = {
    ("answer_library", "0001_squashed"),
    ("audit", "0001_squashed"),
    ("jobs", "0001_squashed"),
    ("llm_manager", "0001_squashed"),
    ("llm_manager", "0002_local_minilm_default"),
    ("rfp_manager", "0001_squashed"),
    ("solution_library", "0001_squashed"),
    ("spelunker", "0001_squashed"),
    ("teamwork", "0001_squashed"),
    ("trust_center", "0001_squashed"),
}


def manage(database_url: str, *arguments: str, settings_module: str = "spelunker.settings") -> str:
    environment = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": settings_module}
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def after_the_squash() -> set[tuple[str, str]]:
    """The migrations made since the squash, on top of it: an upgrade applies them, and only them."""
    from django.db.migrations.loader import MigrationLoader

    apps = {app for app, _ in SQUASHED}
    return {key for key in MigrationLoader(None, ignore_no_migrations=True).graph.nodes if key[0] in apps} - SQUASHED


def lost(before: dict, after: dict) -> dict:
    """{table: its rows of `before` that `after` no longer holds with the same values}, read with `before`'s
    columns: a migration made since the squash may add a column, or rows (a new model's permissions)."""
    missing = {}
    for table, rows in before.items():
        kept = [{column: row[column] for column in rows[0]} for row in after.get(table, [])] if rows else []
        if gone := [row for row in rows if row not in kept]:
            missing[table] = gone
    return missing


def check_upgrade(old: str, fresh: str, rows_of, schema_of) -> None:
    """Build the old database with a team's rows and a fresh one, migrate the old one and compare.

    `old` and `fresh` are database URLs; rows_of and schema_of read a database by its URL.
    """
    manage(old, "migrate", "--no-input", settings_module=BEFORE_SQUASH)
    manage(old, "shell", "-c", "from tests.migrations import rows; rows.create()", settings_module=BEFORE_SQUASH)
    before = rows_of(old)
    manage(fresh, "migrate", "--no-input")

    output = manage(old, "migrate", "--no-input")

    assert not any(f"Applying {app}.{name}" in output for app, name in SQUASHED), output
    after = rows_of(old)
    recorded_before, recorded_after = before.pop("django_migrations"), after.pop("django_migrations")
    recorded = {(row["app"], row["name"]) for row in recorded_after} - {
        (row["app"], row["name"]) for row in recorded_before
    }
    assert recorded == SQUASHED | after_the_squash()
    assert before["rfp_manager_answer"] and before["solution_library_chunk"]  # the team's rows were written
    assert lost(before, after) == {}
    assert schema_of(old) == schema_of(fresh)


def sqlite_rows(path: Path) -> dict:
    with sqlite3.connect(path) as database:
        tables = [name for (name,) in database.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        database.row_factory = sqlite3.Row
        rows = {table: as_dicts(database.execute(f'SELECT * FROM "{table}"')) for table in tables}
    # SQLite's id counters, not a team's rows: they move with the migrations' records and the permissions
    # of migrations made since the squash.
    del rows["sqlite_sequence"]
    return rows


def as_dicts(rows) -> list[dict]:
    """Each row as {column: value}, in an order that does not depend on the database's."""
    return sorted((dict(row) for row in rows), key=repr)


def postgres_rows(url: str) -> dict:
    with psycopg.connect(url, row_factory=dict_row) as database:
        query = "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        tables = [row["tablename"] for row in database.execute(query)]
        return {table: as_dicts(database.execute(f'SELECT * FROM "{table}"')) for table in tables}


def sqlite_path(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///"))


@pytest.mark.timeout(900)
def test_a_sqlite_database_from_before_the_squash_is_up_to_date(tmp_path):
    check_upgrade(
        f"sqlite:///{tmp_path / 'old.sqlite3'}",
        f"sqlite:///{tmp_path / 'fresh.sqlite3'}",
        rows_of=lambda url: sqlite_rows(sqlite_path(url)),
        schema_of=lambda url: sqlite_schema(sqlite_path(url)),
    )


@contextmanager
def postgres_databases(*names: str):
    """Empty databases on the test stack's PostgreSQL server, dropped afterwards: their URLs."""
    server = settings.DATABASES["default"]
    assert server["ENGINE"] == "django.db.backends.postgresql", "runs on the stack's PostgreSQL (bin/test-stack)"
    base = f"postgres://{server['USER']}:{server['PASSWORD']}@{server['HOST']}:{server['PORT']}"
    unique = [f"upgrade_{name}_{uuid.uuid4().hex[:8]}" for name in names]
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        for name in unique:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield [f"{base}/{name}" for name in unique]
        finally:
            for name in unique:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.timeout(900)
def test_a_postgresql_database_from_before_the_squash_is_up_to_date():
    with postgres_databases("old", "fresh") as (old, fresh):
        check_upgrade(old, fresh, rows_of=postgres_rows, schema_of=postgres_schema)
