"""A person's approval keeps the text it approved (an edit or a redraft since makes it stale), and the
reviewer's verdict "approved" reads "Supported": only a person approves."""

from django.db import migrations, models


def keep_approved_texts(apps, schema_editor):
    """Every approval standing today approved the text its answer shows (approvals were withdrawn on change)."""
    Answer = apps.get_model("rfp_manager", "Answer")
    for answer in Answer.objects.filter(approved_at__isnull=False).iterator():
        Answer.objects.filter(pk=answer.pk).update(approved_text=answer.final_text or answer.draft_text)


class Migration(migrations.Migration):
    dependencies = [("rfp_manager", "0010_library_entry_by_id")]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="approved_text",
            field=models.TextField(blank=True, help_text="The text the person approved"),
        ),
        migrations.AlterField(
            model_name="answer",
            name="review_verdict",
            field=models.CharField(
                blank=True,
                choices=[("approved", "Supported"), ("needs_revision", "Needs revision"), ("rejected", "Rejected")],
                max_length=20,
            ),
        ),
        migrations.RunPython(keep_approved_texts, migrations.RunPython.noop),
    ]
