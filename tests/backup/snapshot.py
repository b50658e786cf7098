"""Every row of every exported table and every stored file's SHA-256, as plain JSON two installs can compare.

Run in this process (`snapshot()`) or in another install's process (`python -m tests.backup.snapshot OUT`,
which writes it to the file OUT), so a backup restored into another database and media storage is compared row by row.
"""

import json

from django.core import serializers


def snapshot() -> dict:
    from spelunker.backup.contents import exported_models, field_storage, label
    from spelunker.backup.exporting import stored_files
    from spelunker.backup.manifest import sha256_of_stream

    tables = {label(model): rows(model) for model in exported_models()}
    files = {}
    for name, field in stored_files().items():
        with field_storage(field).open(name, "rb") as fh:
            files[name] = sha256_of_stream(fh)
    return {"tables": tables, "files": files}


def rows(model) -> list[dict]:
    """The table's rows as Django serializes them (natural keys), in an order and form both databases share.

    Many-to-many lists are sorted (their order is the database's), JSON values compared as JSON
    (PostgreSQL's jsonb orders keys its own way), rows sorted by their text (users have no id here).
    """
    serialized = serializers.serialize(
        "python", model._base_manager.all(), use_natural_foreign_keys=True, use_natural_primary_keys=True
    )
    many = [field.name for field in model._meta.many_to_many]
    for row in serialized:
        for name in many:
            row["fields"][name] = sorted(row["fields"][name])
    plain = [json.loads(json.dumps(row, default=str, sort_keys=True)) for row in serialized]
    return sorted(plain, key=lambda row: json.dumps(row, sort_keys=True))


def differences(expected: dict, found: dict) -> dict:
    """What differs, table by table: the rows only one side has (empty when both hold the same)."""
    diff = {}
    for table in sorted(set(expected["tables"]) | set(found["tables"])):
        want, got = expected["tables"].get(table, []), found["tables"].get(table, [])
        missing, extra = [r for r in want if r not in got], [r for r in got if r not in want]
        if missing or extra:
            diff[table] = {"missing": missing, "extra": extra}
    if expected["files"] != found["files"]:
        diff["files"] = {"expected": expected["files"], "found": found["files"]}
    return diff


if __name__ == "__main__":
    import sys
    from pathlib import Path

    import django

    django.setup()
    Path(sys.argv[1]).write_text(json.dumps(snapshot()))
