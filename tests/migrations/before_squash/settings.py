"""The project's settings with every app's migrations as they were before the squash (kept here as data).

`manage.py migrate` with these builds a database as today's installs have it (tests/migrations/test_upgrade.py).
"""

from spelunker.settings import *  # noqa: F403

SQUASHED_APPS = (
    "answer_library",
    "audit",
    "jobs",
    "llm_manager",
    "rfp_manager",
    "solution_library",
    "spelunker",
    "teamwork",
    "trust_center",
)
MIGRATION_MODULES = {app: f"tests.migrations.before_squash.{app}" for app in SQUASHED_APPS}
