"""The models and the migration history agree: a model changed without its migration fails here, not at a user's upgrade."""

import pytest
from django.core.management import call_command


def test_makemigrations_finds_nothing_to_write(db, capsys):
    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=1)
    except SystemExit as missing:  # --check exits 1 when a model change has no migration
        pytest.fail(f"models changed without a migration (exit {missing.code}):\n{capsys.readouterr().out}")
    assert "No changes detected" in capsys.readouterr().out
