"""The document's delivery fields, now on its jobs (moved there by 0011)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("solution_library", "0011_document_jobs"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="document",
            name="redispatch_count",
        ),
        migrations.RemoveField(
            model_name="document",
            name="unfinished_deliveries",
        ),
    ]
