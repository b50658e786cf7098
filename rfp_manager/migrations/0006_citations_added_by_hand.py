"""Citations a person inserted in the editor are marked `added_by_hand` when they were added, not one of the draft's
own passages (which an insert only marks cited). Before this mark, they were the inserted ones no draft scored."""

from django.db import migrations


def mark_added_by_hand(apps, schema_editor):
    Answer = apps.get_model("rfp_manager", "Answer")
    for answer in Answer.objects.exclude(citations=[]).only("citations").iterator():
        marked = [
            {**c, "added_by_hand": True} if c.get("inserted") and c.get("score") is None else c
            for c in answer.citations
        ]
        if marked != answer.citations:
            answer.citations = marked
            answer.save(update_fields=["citations"])


class Migration(migrations.Migration):
    dependencies = [
        ("rfp_manager", "0005_answer_may_answer"),
    ]

    operations = [migrations.RunPython(mark_added_by_hand, migrations.RunPython.noop)]
