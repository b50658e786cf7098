"""The job toolkit's tables now belong to the `jobs` app (see jobs 0001): dropped from this app's state only.

The tables stay, under their old names, as the `jobs` models' db_table.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("spelunker", "0003_outbox_and_sweeper_schedules"),
        ("jobs", "0001_toolkit_tables_from_spelunker"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="jobacknowledgement",
                    name="acknowledged_by",
                ),
                migrations.DeleteModel(
                    name="OutboxMessage",
                ),
                migrations.RemoveField(
                    model_name="queueprobe",
                    name="check_run",
                ),
                migrations.RemoveField(
                    model_name="systemcheck",
                    name="started_by",
                ),
                migrations.DeleteModel(
                    name="JobAcknowledgement",
                ),
                migrations.DeleteModel(
                    name="QueueProbe",
                ),
                migrations.DeleteModel(
                    name="SystemCheck",
                ),
            ],
            database_operations=[],
        ),
    ]
