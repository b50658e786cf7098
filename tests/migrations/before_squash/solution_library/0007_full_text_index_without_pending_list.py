"""PostgreSQL: the chunks' GIN index without a pending list (fastupdate off).

With GIN's default fast update, new chunks wait in an unsorted pending list until a vacuum
merges it into the index; every search scans that list whole, and the planner, counting its
pages, preferred reading the whole table (every tsvector, from out-of-line storage) to using the
index — right after an upload or a sync, when the list is fullest. Without it each insert
updates the index at once (a few more writes per chunk, paid by the embedding worker), and a
search reads only the chunks that match (tests/solution_library/test_postgres_full_text_plan.py).
"""

from django.db import migrations

INDEX = "chunk_search_vector_idx"


def without_pending_list(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER INDEX {INDEX} SET (fastupdate = off)")
        schema_editor.execute(f"SELECT gin_clean_pending_list('{INDEX}')")  # what waits there now


def with_pending_list(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER INDEX {INDEX} RESET (fastupdate)")


class Migration(migrations.Migration):
    dependencies = [("solution_library", "0006_job_reliability_fields")]

    operations = [migrations.RunPython(without_pending_list, with_pending_list)]
