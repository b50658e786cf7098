"""The database's own full-text index over chunks (title, heading, text).

PostgreSQL: a generated, stored `search_vector` tsvector column (title weighted
A, heading B, text D) with a GIN index; the database keeps it current on every
insert and update. SQLite: an FTS5 table with external content (the chunk table
itself), kept in step by triggers.

Django does not know these objects. On SQLite a later migration that alters the
chunk table rebuilds it and drops its triggers: such a migration must run
`create_full_text` again (tests/solution_library/test_full_text.py fails if the
triggers are missing).
"""

from django.db import migrations

CHUNK = "solution_library_chunk"
FTS = "solution_library_chunk_fts"

POSTGRES_FORWARD = [
    f"""ALTER TABLE {CHUNK} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(heading, '')), 'B') ||
        setweight(to_tsvector('english', coalesce(text, '')), 'D')
    ) STORED""",
    f"CREATE INDEX chunk_search_vector_idx ON {CHUNK} USING GIN (search_vector)",
]
POSTGRES_BACKWARD = [f"ALTER TABLE {CHUNK} DROP COLUMN search_vector"]

SQLITE_FORWARD = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS {FTS} USING fts5(
        title, heading, text, content='{CHUNK}', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    )""",
    f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS}_insert AFTER INSERT ON {CHUNK} BEGIN
        INSERT INTO {FTS}(rowid, title, heading, text) VALUES (new.id, new.title, new.heading, new.text);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS}_delete AFTER DELETE ON {CHUNK} BEGIN
        INSERT INTO {FTS}({FTS}, rowid, title, heading, text) VALUES ('delete', old.id, old.title, old.heading, old.text);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS}_update AFTER UPDATE ON {CHUNK} BEGIN
        INSERT INTO {FTS}({FTS}, rowid, title, heading, text) VALUES ('delete', old.id, old.title, old.heading, old.text);
        INSERT INTO {FTS}(rowid, title, heading, text) VALUES (new.id, new.title, new.heading, new.text);
    END""",
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {FTS}_insert",
    f"DROP TRIGGER IF EXISTS {FTS}_delete",
    f"DROP TRIGGER IF EXISTS {FTS}_update",
    f"DROP TABLE IF EXISTS {FTS}",
]
STATEMENTS = {"postgresql": (POSTGRES_FORWARD, POSTGRES_BACKWARD), "sqlite": (SQLITE_FORWARD, SQLITE_BACKWARD)}


def _run(schema_editor, direction: int) -> None:
    for statement in STATEMENTS.get(schema_editor.connection.vendor, ([], []))[direction]:
        schema_editor.execute(statement)


def create_full_text(apps, schema_editor):
    _run(schema_editor, 0)


def drop_full_text(apps, schema_editor):
    _run(schema_editor, 1)


def copy_document_titles(apps, schema_editor):
    """Chunks made before this migration carry their document's title from now on."""
    schema_editor.execute(
        f"UPDATE {CHUNK} SET title = (SELECT d.title FROM solution_library_document d WHERE d.id = {CHUNK}.document_id)"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("solution_library", "0004_chunk_title_heading_model_position"),
    ]

    operations = [
        migrations.RunPython(copy_document_titles, migrations.RunPython.noop),
        migrations.RunPython(create_full_text, drop_full_text),
    ]
