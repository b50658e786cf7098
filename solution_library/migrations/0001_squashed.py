"""The solution library's tables, with what Django does not know about them, and the sync schedule.

Squashed from 0001_initial … 0012_remove_document_delivery_fields (nothing was released): a database
made by those is taken as up to date (`replaces`), and this runs on fresh databases only, so the old
data migrations (chunk titles, a job per document) had nothing to do here and are gone.

Besides the models:
- the database's own full-text index over chunks (title, heading, text). PostgreSQL: a generated,
  stored `search_vector` tsvector column (title weighted A, heading B, text D) with a GIN index
  without a pending list (fastupdate off: new chunks would otherwise wait in an unsorted list every
  search scans whole, and the planner then preferred reading the whole table;
  tests/solution_library/test_postgres_full_text_plan.py); the tsvector kept in the row and the text
  moved out of it first (column storage MAIN / EXTERNAL: ranking reads one row page per matching chunk).
  SQLite: an FTS5 table with external content (the chunk table itself), kept in step by triggers.
  On SQLite a later migration that alters the chunk table rebuilds it and drops its triggers: such a
  migration must run `create_full_text` again (tests/solution_library/test_full_text.py fails if the
  triggers are missing).
- PostgreSQL: per document, how many chunks hold each lexeme (ChunkWordCount), kept by statement-level
  triggers on the chunk table that read the rows a statement inserted, deleted or updated (transition
  tables) in the same transaction: a rolled-back ingest leaves no count behind, and a task that runs
  twice changes the counts exactly as often as it changes the chunks. PostgreSQL allows transition
  tables only on single-event triggers, hence three triggers over one function. SQLite counts with its
  FTS5 table; there the count table stays empty.
- the Beat schedule of the documentation-source sync (a django-celery-beat row, edited in the admin).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

CHUNK = "solution_library_chunk"
FTS = "solution_library_chunk_fts"
COUNTS = "solution_library_chunkwordcount"
TASK_NAME = "solution_library.sync_all_documentation_sources"
PERIODIC_TASK_NAME = "Sync due documentation sources"

POSTGRES_FULL_TEXT = [
    f"""ALTER TABLE {CHUNK} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(heading, '')), 'B') ||
        setweight(to_tsvector('english', coalesce(text, '')), 'D')
    ) STORED""",
    f"CREATE INDEX chunk_search_vector_idx ON {CHUNK} USING GIN (search_vector) WITH (fastupdate = off)",
    f"ALTER TABLE {CHUNK} ALTER COLUMN search_vector SET STORAGE MAIN",
    f"ALTER TABLE {CHUNK} ALTER COLUMN text SET STORAGE EXTERNAL",
]
POSTGRES_NO_FULL_TEXT = [f"ALTER TABLE {CHUNK} DROP COLUMN search_vector"]

SQLITE_FULL_TEXT = [
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
SQLITE_NO_FULL_TEXT = [
    f"DROP TRIGGER IF EXISTS {FTS}_insert",
    f"DROP TRIGGER IF EXISTS {FTS}_delete",
    f"DROP TRIGGER IF EXISTS {FTS}_update",
    f"DROP TABLE IF EXISTS {FTS}",
]
FULL_TEXT = {
    "postgresql": (POSTGRES_FULL_TEXT, POSTGRES_NO_FULL_TEXT),
    "sqlite": (SQLITE_FULL_TEXT, SQLITE_NO_FULL_TEXT),
}

# The lexemes of a set of chunk rows, per document: what the rows add to (or take from) the counts.
LEXEMES_OF = (
    "SELECT lexeme, document_id, count(*) AS chunks FROM {rows}, unnest(tsvector_to_array(search_vector)) AS lexeme "
    "GROUP BY lexeme, document_id"
)

COUNT_FUNCTION = f"""
CREATE FUNCTION solution_library_count_chunk_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        -- Rows that drop to nothing go (a deleted document's, all of them), the others are lowered.
        DELETE FROM {COUNTS} AS counts USING ({LEXEMES_OF.format(rows="old_rows")}) AS gone
        WHERE counts.lexeme = gone.lexeme AND counts.document_id = gone.document_id AND counts.chunks <= gone.chunks;
        UPDATE {COUNTS} AS counts SET chunks = counts.chunks - gone.chunks
        FROM ({LEXEMES_OF.format(rows="old_rows")}) AS gone
        WHERE counts.lexeme = gone.lexeme AND counts.document_id = gone.document_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        -- In key order, so that two statements adding to the same document take its rows' locks in one order.
        INSERT INTO {COUNTS} (lexeme, document_id, chunks)
        SELECT * FROM ({LEXEMES_OF.format(rows="new_rows")}) AS added ORDER BY lexeme, document_id
        ON CONFLICT (lexeme, document_id) DO UPDATE SET chunks = {COUNTS}.chunks + EXCLUDED.chunks;
    END IF;
    RETURN NULL;
END $$"""

POSTGRES_WORD_COUNTS = [
    COUNT_FUNCTION,
    f"""CREATE TRIGGER {CHUNK}_words_inserted AFTER INSERT ON {CHUNK} REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION solution_library_count_chunk_words()""",
    f"""CREATE TRIGGER {CHUNK}_words_deleted AFTER DELETE ON {CHUNK} REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION solution_library_count_chunk_words()""",
    f"""CREATE TRIGGER {CHUNK}_words_updated AFTER UPDATE ON {CHUNK}
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION solution_library_count_chunk_words()""",
    # A word's count sums its rows from the index alone (an index-only scan), not one table page per document.
    f"CREATE INDEX chunk_word_count_lexeme_idx ON {COUNTS} (lexeme) INCLUDE (chunks)",
]
POSTGRES_NO_WORD_COUNTS = [
    f"DROP TRIGGER IF EXISTS {CHUNK}_words_inserted ON {CHUNK}",
    f"DROP TRIGGER IF EXISTS {CHUNK}_words_deleted ON {CHUNK}",
    f"DROP TRIGGER IF EXISTS {CHUNK}_words_updated ON {CHUNK}",
    "DROP FUNCTION IF EXISTS solution_library_count_chunk_words()",
    "DROP INDEX IF EXISTS chunk_word_count_lexeme_idx",
]
WORD_COUNTS = {"postgresql": (POSTGRES_WORD_COUNTS, POSTGRES_NO_WORD_COUNTS)}


def _run(statements: dict, schema_editor, direction: int) -> None:
    for statement in statements.get(schema_editor.connection.vendor, ([], []))[direction]:
        schema_editor.execute(statement)


def create_full_text(apps, schema_editor):
    _run(FULL_TEXT, schema_editor, 0)


def drop_full_text(apps, schema_editor):
    _run(FULL_TEXT, schema_editor, 1)


def count_words(apps, schema_editor):
    _run(WORD_COUNTS, schema_editor, 0)


def stop_counting_words(apps, schema_editor):
    _run(WORD_COUNTS, schema_editor, 1)


def create_schedule(apps, schema_editor):
    """Hourly check; each source's own sync_interval_hours decides whether it is due. An existing row keeps its edits."""
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_hour, _ = IntervalSchedule.objects.get_or_create(every=1, period="hours")
    PeriodicTask.objects.get_or_create(
        name=PERIODIC_TASK_NAME,
        defaults={
            "task": TASK_NAME,
            "interval": every_hour,
            "enabled": True,
            "description": "Queues a sync of every active documentation source whose interval has passed.",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=PERIODIC_TASK_NAME).delete()


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("solution_library", "0001_initial"),
        ("solution_library", "0002_sync_schedule"),
        ("solution_library", "0003_search_index_version_token"),
        ("solution_library", "0004_chunk_title_heading_model_position"),
        ("solution_library", "0005_chunk_full_text_index"),
        ("solution_library", "0006_job_reliability_fields"),
        ("solution_library", "0007_document_status_ready"),
        ("solution_library", "0007_full_text_index_without_pending_list"),
        ("solution_library", "0008_merge_20261125_1006"),
        ("solution_library", "0009_full_text_vector_in_row"),
        ("solution_library", "0010_chunk_word_counts"),
        ("solution_library", "0011_document_jobs"),
        ("solution_library", "0012_remove_document_delivery_fields"),
    ]

    dependencies = [
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        ("llm_manager", "0001_squashed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DocumentationSource",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200, unique=True)),
                ("start_url", models.URLField(help_text="First page to crawl, or a sitemap.xml", max_length=1000)),
                (
                    "allowed_host",
                    models.CharField(
                        help_text="Only pages on this host are fetched (e.g. docs.example.com)", max_length=255
                    ),
                ),
                ("page_limit", models.PositiveIntegerField(default=200)),
                (
                    "sync_interval_hours",
                    models.PositiveIntegerField(
                        default=24, help_text="How often the scheduled sync runs it; 0 = only on demand"
                    ),
                ),
                ("is_active", models.BooleanField(default=True)),
                ("last_synced_at", models.DateTimeField(blank=True, null=True)),
                ("sync_lock_token", models.CharField(blank=True, editable=False, max_length=255)),
                ("sync_lock_expires_at", models.DateTimeField(blank=True, editable=False, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="SearchIndexVersion",
            fields=[
                (
                    "embedding_model",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        serialize=False,
                        to="llm_manager.llmmodel",
                    ),
                ),
                ("version", models.CharField(max_length=32)),
            ],
        ),
        migrations.CreateModel(
            name="ChunkWordCount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("lexeme", models.TextField()),
                ("document_id", models.BigIntegerField()),
                ("chunks", models.PositiveIntegerField()),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("lexeme", "document_id"), name="chunk_word_count_unique")
                ],
            },
        ),
        migrations.CreateModel(
            name="Document",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("title", models.CharField(max_length=300)),
                ("file", models.FileField(max_length=500, upload_to="library/%Y/%m/")),
                (
                    "content_hash",
                    models.CharField(db_index=True, help_text="SHA-256 of the file's bytes", max_length=64),
                ),
                (
                    "file_type",
                    models.CharField(
                        choices=[
                            ("pdf", "PDF"),
                            ("docx", "Word (DOCX)"),
                            ("markdown", "Markdown"),
                            ("html", "HTML"),
                            ("text", "Plain text"),
                        ],
                        max_length=20,
                    ),
                ),
                ("size_bytes", models.PositiveBigIntegerField(default=0)),
                ("source_url", models.URLField(blank=True, max_length=1000)),
                (
                    "review_status",
                    models.CharField(
                        choices=[
                            ("processing", "Processing"),
                            ("pending_review", "Ready"),
                            ("approved", "Approved"),
                            ("failed", "Failed"),
                        ],
                        db_index=True,
                        default="processing",
                        max_length=20,
                    ),
                ),
                ("status_message", models.TextField(blank=True, help_text="Why processing failed")),
                (
                    "error_code",
                    models.CharField(
                        blank=True, help_text="Stable reason code (spelunker.jobs.models.ErrorCode)", max_length=40
                    ),
                ),
                ("text", models.TextField(blank=True, help_text="The text extracted from the file")),
                ("chunk_count", models.PositiveIntegerField(default=0)),
                ("processed_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "embedding_model",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="llm_manager.llmmodel",
                    ),
                ),
                (
                    "uploaded_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "source",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="solution_library.documentationsource",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="DocumentJob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "celery_task_id",
                    models.CharField(
                        blank=True, db_index=True, help_text="Celery task ID for Flower monitoring", max_length=255
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("processing", "Processing"),
                            ("completed", "Completed"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("message", models.TextField(blank=True, help_text="Why the job failed, or a short summary")),
                ("errors", models.JSONField(blank=True, default=list)),
                ("error_code", models.CharField(blank=True, max_length=40)),
                ("unfinished_deliveries", models.PositiveSmallIntegerField(default=0)),
                ("progress_at_delivery", models.PositiveIntegerField(default=0)),
                ("redispatch_count", models.PositiveSmallIntegerField(default=0)),
                ("stop_requested", models.BooleanField(default=False)),
                ("total_items", models.PositiveIntegerField(default=0)),
                ("processed_items", models.PositiveIntegerField(default=0)),
                ("successful_items", models.PositiveIntegerField(default=0)),
                ("failed_items", models.PositiveIntegerField(default=0)),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="jobs", to="solution_library.document"
                    ),
                ),
                (
                    "embedding_model",
                    models.ForeignKey(
                        blank=True,
                        help_text="The embedding model asked for; empty for the default one",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="llm_manager.llmmodel",
                    ),
                ),
                (
                    "started_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "document processing job",
                "ordering": ["-created_at"],
                "abstract": False,
            },
        ),
        migrations.CreateModel(
            name="EmbedBatchJob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "celery_task_id",
                    models.CharField(
                        blank=True, db_index=True, help_text="Celery task ID for Flower monitoring", max_length=255
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("processing", "Processing"),
                            ("completed", "Completed"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("message", models.TextField(blank=True, help_text="Why the job failed, or a short summary")),
                ("errors", models.JSONField(blank=True, default=list)),
                ("error_code", models.CharField(blank=True, max_length=40)),
                ("unfinished_deliveries", models.PositiveSmallIntegerField(default=0)),
                ("progress_at_delivery", models.PositiveIntegerField(default=0)),
                ("redispatch_count", models.PositiveSmallIntegerField(default=0)),
                ("stop_requested", models.BooleanField(default=False)),
                ("total_items", models.PositiveIntegerField(default=0)),
                ("processed_items", models.PositiveIntegerField(default=0)),
                ("successful_items", models.PositiveIntegerField(default=0)),
                ("failed_items", models.PositiveIntegerField(default=0)),
                ("document_ids", models.JSONField(default=list)),
                (
                    "started_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "target_model",
                    models.ForeignKey(
                        blank=True,
                        help_text="Re-embed the library with this model, then make it the default embedding model",
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="llm_manager.llmmodel",
                    ),
                ),
            ],
            options={
                "verbose_name": "embedding batch job",
                "ordering": ["-created_at"],
                "abstract": False,
            },
        ),
        migrations.CreateModel(
            name="SyncJob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "celery_task_id",
                    models.CharField(
                        blank=True, db_index=True, help_text="Celery task ID for Flower monitoring", max_length=255
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("processing", "Processing"),
                            ("completed", "Completed"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("message", models.TextField(blank=True, help_text="Why the job failed, or a short summary")),
                ("errors", models.JSONField(blank=True, default=list)),
                ("error_code", models.CharField(blank=True, max_length=40)),
                ("unfinished_deliveries", models.PositiveSmallIntegerField(default=0)),
                ("progress_at_delivery", models.PositiveIntegerField(default=0)),
                ("redispatch_count", models.PositiveSmallIntegerField(default=0)),
                ("stop_requested", models.BooleanField(default=False)),
                ("total_items", models.PositiveIntegerField(default=0)),
                ("processed_items", models.PositiveIntegerField(default=0)),
                ("successful_items", models.PositiveIntegerField(default=0)),
                ("failed_items", models.PositiveIntegerField(default=0)),
                ("documents_created", models.PositiveIntegerField(default=0)),
                ("documents_updated", models.PositiveIntegerField(default=0)),
                ("documents_skipped", models.PositiveIntegerField(default=0)),
                ("documents_failed", models.PositiveIntegerField(default=0)),
                ("documents_removed", models.PositiveIntegerField(default=0)),
                (
                    "source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sync_jobs",
                        to="solution_library.documentationsource",
                    ),
                ),
                (
                    "started_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "sync job",
                "ordering": ["-created_at"],
                "abstract": False,
            },
        ),
        migrations.CreateModel(
            name="Chunk",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("position", models.PositiveIntegerField()),
                (
                    "title",
                    models.CharField(
                        blank=True, help_text="The document's title when the chunk was made", max_length=300
                    ),
                ),
                (
                    "heading",
                    models.CharField(
                        blank=True, help_text="The section heading the passage sits under", max_length=300
                    ),
                ),
                ("text", models.TextField()),
                (
                    "start_char",
                    models.PositiveIntegerField(default=0, help_text="Offset of the passage in Document.text"),
                ),
                ("end_char", models.PositiveIntegerField(default=0)),
                ("embedding", models.BinaryField()),
                (
                    "embedding_model",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="llm_manager.llmmodel"
                    ),
                ),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chunks",
                        to="solution_library.document",
                    ),
                ),
            ],
            options={
                "ordering": ["document", "position"],
                "indexes": [models.Index(fields=["embedding_model", "id"], name="chunk_model_id_idx")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("document", "embedding_model", "position"), name="chunk_unique_model_position"
                    )
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="document",
            constraint=models.UniqueConstraint(
                condition=models.Q(("source__isnull", True)),
                fields=("content_hash",),
                name="uploaded_document_unique_hash",
            ),
        ),
        migrations.AddConstraint(
            model_name="document",
            constraint=models.UniqueConstraint(
                condition=models.Q(("source__isnull", False)),
                fields=("source", "source_url"),
                name="synced_document_unique_url",
            ),
        ),
        migrations.AddConstraint(
            model_name="syncjob",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status__in", ("pending", "processing"))),
                fields=("source",),
                name="one_active_sync_per_source",
            ),
        ),
        migrations.RunPython(create_full_text, drop_full_text),
        migrations.RunPython(count_words, stop_counting_words),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
