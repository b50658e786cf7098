"""PostgreSQL: each chunk's tsvector kept in its row, its text out of it (column storage).

The search's full-text step ranks the chunks that match: ts_rank_cd reads each one's tsvector.
A chunk row carries ~1 KB of text, ~1.5 KB of embedding and ~1.1 KB of tsvector, past the 2 KB
at which PostgreSQL moves values out of line, and it moved the tsvector (the largest left after
compressing the embedding): ranking 1,000 matching chunks read ~5,000 pages, the TOAST index and
TOAST table's besides the row's own, and decompressed every vector. With the tsvector's storage
MAIN (kept in the row unless nothing else fits) and the text's EXTERNAL (moved out first; the
search reads the text of its 50 passages only), ranking reads one row page per matching chunk
(tests/solution_library/test_postgres_full_text_plan.py counts them).

Storage applies to rows written from now on: the table is rewritten once (VACUUM FULL, which
also rebuilds its indexes) so the chunks already stored follow it. VACUUM cannot run inside a
transaction, hence a non-atomic migration; it locks the chunk table while it runs (about a minute
per million chunks on two cores): search and ingestion wait for it.
"""

from django.db import migrations

CHUNK = "solution_library_chunk"


def vector_in_row(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {CHUNK} ALTER COLUMN search_vector SET STORAGE MAIN")
        schema_editor.execute(f"ALTER TABLE {CHUNK} ALTER COLUMN text SET STORAGE EXTERNAL")
        schema_editor.execute(f"VACUUM FULL {CHUNK}")


def vector_out_of_row(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {CHUNK} ALTER COLUMN search_vector SET STORAGE EXTENDED")
        schema_editor.execute(f"ALTER TABLE {CHUNK} ALTER COLUMN text SET STORAGE EXTENDED")


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("solution_library", "0008_merge_20261125_1006")]

    operations = [migrations.RunPython(vector_in_row, vector_out_of_row)]
