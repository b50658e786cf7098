"""Only JSON on the wire: a pickled task message, published straight to each queue, is refused
by a real worker; nothing is unpickled, nothing runs, and the worker goes on consuming."""

import pathlib
import pickle
import uuid

import pytest
from django.conf import settings

from jobs.models import QueueProbe, SystemCheck
from spelunker.celery import app
from tests.workers import wait_for

pytestmark = pytest.mark.integration

REFUSAL = "Refusing to deserialize untrusted content of type pickle"


class TouchWhenUnpickled:
    """Unpickling this creates `marker`: proof that a worker deserialized the payload."""

    def __init__(self, marker: pathlib.Path):
        self.marker = marker

    def __reduce__(self):
        return pathlib.Path.touch, (self.marker,)


def _publish_pickled_task(queue: str, kwargs: dict, gadget) -> str:
    """A Celery protocol 2 task message whose body is pickle, sent past Celery's own serializer."""
    task_id = str(uuid.uuid4())
    body = pickle.dumps(
        ((), kwargs, {"callbacks": None, "errbacks": None, "chain": None, "chord": None, "gadget": gadget})
    )
    headers = {
        "lang": "py",
        "task": "spelunker.probe_queue",
        "id": task_id,
        "root_id": task_id,
        "parent_id": None,
        "group": None,
        "retries": 0,
        "eta": None,
        "expires": None,
        "timelimit": [None, None],
        "argsrepr": "()",
        "kwargsrepr": repr(kwargs),
        "origin": "test_json_only_on_the_wire",
    }
    with app.connection_for_write() as conn:
        conn.Producer().publish(
            body,
            exchange="",
            routing_key=queue,
            headers=headers,
            correlation_id=task_id,
            content_type="application/x-python-serialize",
            content_encoding="binary",
            delivery_mode=2,
        )
    return task_id


def _refusals(worker) -> int:
    return worker.log_path.read_text(errors="replace").count(REFUSAL)


def _queue_depth(queue: str) -> int:
    with app.connection_for_write() as conn:
        return conn.default_channel.queue_declare(queue=queue, passive=True).message_count


@pytest.mark.parametrize("queue", settings.CELERY_QUEUE_NAMES)
def test_a_pickled_message_is_refused_and_nothing_runs(live_worker, user, tmp_path, queue):
    check = SystemCheck.objects.create(started_by=user, total_items=1)
    probe = QueueProbe.objects.create(check_run=check, queue=queue)
    marker = tmp_path / "unpickled"
    refused_before = _refusals(live_worker)

    _publish_pickled_task(queue, {"job_id": check.pk, "queue": queue}, TouchWhenUnpickled(marker))

    wait_for(lambda: _refusals(live_worker) > refused_before, message=f"the worker to refuse the message on {queue}")
    wait_for(lambda: _queue_depth(queue) == 0, message=f"{queue} to be empty (the refused message is dropped)")
    probe.refresh_from_db()
    assert (probe.answered_at, probe.worker, marker.exists()) == (None, "", False)

    # The worker goes on consuming: the same task, sent the ordinary way (JSON), runs.
    app.send_task("spelunker.probe_queue", kwargs={"job_id": check.pk, "queue": queue}, queue=queue)
    wait_for(lambda: QueueProbe.objects.get(pk=probe.pk).answered_at, message=f"a JSON task on {queue} to run")
