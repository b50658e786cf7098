"""PostgreSQL: per document, how many chunks hold each lexeme — kept by the database, filled once here.

Statement-level triggers on the chunk table read the rows a statement inserted, deleted or updated
(transition tables) and add or subtract their lexemes' counts in `solution_library_chunkwordcount`
(models.ChunkWordCount), in the same transaction: a bulk insert of a document's chunks is one
grouped INSERT, a rolled-back ingest leaves no count behind, and a task that runs twice changes
the counts exactly as often as it changes the chunks. Rows are per document, so concurrent
ingests never touch the same row. PostgreSQL allows transition tables only on single-event
triggers, hence three triggers over one function.

Django does not know the triggers: they live on the chunk table like its generated search_vector
(migration 0005). SQLite counts with its FTS5 table; there the count table stays empty.
"""

from django.db import migrations, models

CHUNK = "solution_library_chunk"
COUNTS = "solution_library_chunkwordcount"

# The lexemes of a set of chunk rows, per document: what the rows add to (or take from) the counts.
LEXEMES_OF = (
    "SELECT lexeme, document_id, count(*) AS chunks FROM {rows}, unnest(tsvector_to_array(search_vector)) AS lexeme "
    "GROUP BY lexeme, document_id"
)

FUNCTION = f"""
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

# The chunks stored before this migration, counted once.
FILL = f"INSERT INTO {COUNTS} (lexeme, document_id, chunks) {LEXEMES_OF.format(rows=CHUNK)}"

POSTGRES_FORWARD = [
    FUNCTION,
    f"""CREATE TRIGGER {CHUNK}_words_inserted AFTER INSERT ON {CHUNK} REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION solution_library_count_chunk_words()""",
    f"""CREATE TRIGGER {CHUNK}_words_deleted AFTER DELETE ON {CHUNK} REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION solution_library_count_chunk_words()""",
    f"""CREATE TRIGGER {CHUNK}_words_updated AFTER UPDATE ON {CHUNK}
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION solution_library_count_chunk_words()""",
    FILL,
    # A word's count sums its rows from the index alone (an index-only scan), not one table page per document.
    f"CREATE INDEX chunk_word_count_lexeme_idx ON {COUNTS} (lexeme) INCLUDE (chunks)",
]
POSTGRES_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {CHUNK}_words_inserted ON {CHUNK}",
    f"DROP TRIGGER IF EXISTS {CHUNK}_words_deleted ON {CHUNK}",
    f"DROP TRIGGER IF EXISTS {CHUNK}_words_updated ON {CHUNK}",
    "DROP FUNCTION IF EXISTS solution_library_count_chunk_words()",
    "DROP INDEX IF EXISTS chunk_word_count_lexeme_idx",
    f"DELETE FROM {COUNTS}",
]


def count_words(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in POSTGRES_FORWARD:
            schema_editor.execute(statement)


def stop_counting_words(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in POSTGRES_BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("solution_library", "0009_full_text_vector_in_row"),
    ]

    operations = [
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
        migrations.RunPython(count_words, stop_counting_words),
    ]
