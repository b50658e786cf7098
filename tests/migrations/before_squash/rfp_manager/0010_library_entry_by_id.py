"""Answer.library_entry becomes a plain id (the answer library owns the link, see rfp_manager/reuse.py).

The column keeps its name, values and index; only the foreign-key constraint goes (the first step drops it on
every database), then Django's idea of the field changes without touching the table.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("answer_library", "0004_entry_as_answered"),
        ("rfp_manager", "0009_merge_reviewed_text_and_docx_pdf_kinds"),
    ]

    operations = [
        migrations.AlterField(
            model_name="answer",
            name="library_entry",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="uses",
                to="answer_library.entry",
            ),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="answer", name="library_entry"),
                migrations.AddField(
                    model_name="answer",
                    name="library_entry_id",
                    field=models.BigIntegerField(blank=True, db_index=True, null=True),
                ),
            ],
        ),
    ]
