"""The job toolkit's tables moved from the `spelunker` app to `jobs`: a database migrated before the move keeps
every row, its content types and its outbox subjects (jobs 0001, spelunker 0004)."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from jobs.models import JobAcknowledgement, OutboxMessage, QueueProbe, SystemCheck

BEFORE_THE_MOVE = ("spelunker", "0003_outbox_and_sweeper_schedules")


def migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor


def rows_before_the_move(leaves, user_id: int) -> dict:
    """One row in each moved table, written through the models as they were in the `spelunker` app."""
    nodes = [node for node in leaves if node[0] not in ("jobs", "spelunker")] + [BEFORE_THE_MOVE]
    old = MigrationExecutor(connection).loader.project_state(nodes, at_end=True).apps
    check = old.get_model("spelunker", "SystemCheck").objects.create(
        status="processing", started_by_id=user_id, total_items=3, processed_items=1
    )
    probe = old.get_model("spelunker", "QueueProbe").objects.create(check_run=check, queue="batch", worker="w@host")
    message = old.get_model("spelunker", "OutboxMessage").objects.create(
        task_name="spelunker.probe_queue",
        task_id="task-before-the-move",
        subject_model="spelunker.systemcheck",
        subject_id=check.pk,
    )
    acknowledgement = old.get_model("spelunker", "JobAcknowledgement").objects.create(
        kind="system_check", object_id=check.pk, acknowledged_by_id=user_id
    )
    content_type = old.get_model("contenttypes", "ContentType").objects.get(app_label="spelunker", model="systemcheck")
    return {
        "check": check.pk,
        "probe": probe.pk,
        "message": message.pk,
        "acknowledgement": acknowledgement.pk,
        "content_type": content_type.pk,
    }


@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_the_move_keeps_its_rows(user):
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    migrate([("jobs", None)])  # back to before the move: spelunker 0004 and jobs 0001 unapplied
    before = rows_before_the_move(leaves, user.pk)

    migrate(leaves)
    ContentType.objects.clear_cache()

    check = SystemCheck.objects.get(pk=before["check"])
    assert (check.status, check.started_by_id, check.processed_items) == ("processing", user.pk, 1)
    assert QueueProbe.objects.get(pk=before["probe"]).check_run_id == check.pk
    assert list(check.probes.values_list("queue", flat=True)) == ["batch"]
    message = OutboxMessage.objects.get(pk=before["message"])
    assert (message.task_id, message.subject_model) == ("task-before-the-move", "jobs.systemcheck")
    assert JobAcknowledgement.objects.get(pk=before["acknowledgement"]).object_id == check.pk
    # Permissions and admin history hang on the content type: the same row, now labelled `jobs`.
    assert ContentType.objects.get_for_model(SystemCheck).pk == before["content_type"]
