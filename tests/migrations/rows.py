"""A team's rows in a database made before the squash, written as today's code writes them.

Run by tests/migrations/test_upgrade.py inside `manage.py shell` against that database. bulk_create
keeps the app's signals (audit events, task dispatch) out of it: the rows, not their side effects, are
what an upgrade must keep. The chunk goes through the database's own full-text triggers.
"""

from django.contrib.auth import get_user_model

from llm_manager.models import LLMModel
from rfp_manager.models import RFP, Answer, Question
from solution_library.models import Chunk, Document


def create() -> None:
    owner = get_user_model().objects.create_user("owner", password="not-used-here")
    embedding_model = LLMModel.objects.get(is_system_default=True, model_type="embedding")
    (document,) = Document.objects.bulk_create(
        [Document(title="Backup policy", file="library/backup.txt", content_hash="0" * 64, file_type="text")]
    )
    Chunk.objects.bulk_create(
        [
            Chunk(
                document=document,
                position=0,
                title=document.title,
                text="Backups are taken every hour and kept for 35 days in a second region.",
                embedding=b"\0" * 4 * 384,
                embedding_model=embedding_model,
            )
        ]
    )
    (rfp,) = RFP.objects.bulk_create([RFP(name="Acme tender", owner=owner)])
    (question,) = Question.objects.bulk_create(
        [Question(rfp=rfp, text="How long are backups kept?", import_key="q1", status="approved")]
    )
    Answer.objects.bulk_create(
        [Answer(question=question, draft_text="For 35 days.", approved_text="For 35 days.", approved_by=owner)]
    )
