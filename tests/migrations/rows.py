"""A team's rows in a database made before the squash, written with the models as that database has them.

Run by tests/migrations/test_upgrade.py inside `manage.py shell` against that database. The models are
the migration state's (historical models), not today's: a field added since the squash has no column
there yet. bulk_create keeps the app's signals (audit events, task dispatch) out of it: the rows, not
their side effects, are what an upgrade must keep. The chunk goes through the database's own full-text triggers.
"""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def create() -> None:
    models = MigrationExecutor(connection).loader.project_state().apps
    user, llm_model, document, chunk, rfp, question, answer = (
        models.get_model(app, name)
        for app, name in (
            ("auth", "User"),
            ("llm_manager", "LLMModel"),
            ("solution_library", "Document"),
            ("solution_library", "Chunk"),
            ("rfp_manager", "RFP"),
            ("rfp_manager", "Question"),
            ("rfp_manager", "Answer"),
        )
    )
    (owner,) = user.objects.bulk_create([user(username="owner", password="!")])
    embedding_model = llm_model.objects.get(is_system_default=True, model_type="embedding")
    (policy,) = document.objects.bulk_create(
        [document(title="Backup policy", file="library/backup.txt", content_hash="0" * 64, file_type="text")]
    )
    chunk.objects.bulk_create(
        [
            chunk(
                document=policy,
                position=0,
                title=policy.title,
                text="Backups are taken every hour and kept for 35 days in a second region.",
                embedding=b"\0" * 4 * 384,
                embedding_model=embedding_model,
            )
        ]
    )
    (tender,) = rfp.objects.bulk_create([rfp(name="Acme tender", owner=owner)])
    (asked,) = question.objects.bulk_create(
        [question(rfp=tender, text="How long are backups kept?", import_key="q1", status="approved")]
    )
    answer.objects.bulk_create(
        [answer(question=asked, draft_text="For 35 days.", approved_text="For 35 days.", approved_by=owner)]
    )
