"""The whole stack end to end: view → on_commit → RabbitMQ → real worker → job row → page."""

import pytest
from django.urls import reverse

from jobs.models import SystemCheck
from jobs.services import record_probe_answer
from tests.workers import wait_for

pytestmark = [pytest.mark.integration]


def test_system_check_is_answered_by_a_worker_on_every_queue(live_worker, staff_client):
    response = staff_client.post(reverse("system_check_start"))
    check = SystemCheck.objects.get()
    assert response.status_code == 302 and response.url == reverse("system_check", args=[check.pk])

    def finished():
        check.refresh_from_db()
        return not check.is_active

    wait_for(finished, timeout=30, message="the system check to finish")
    assert check.status == "completed"
    assert check.processed_items == check.total_items == 3
    probes = {p.queue: p for p in check.probes.all()}
    assert set(probes) == {"default", "embedding", "batch"}
    assert all(p.worker == live_worker.name for p in probes.values())
    assert all(p.celery_task_id for p in probes.values())

    status = staff_client.get(reverse("system_check_status", args=[check.pk])).json()
    assert status["status"] == "completed" and status["progress"] == 100
    page = staff_client.get(reverse("system_check", args=[check.pk]))
    assert live_worker.name.encode() in page.content


@pytest.mark.django_db
def test_probe_answer_is_idempotent(staff_user):
    check = SystemCheck.objects.create(total_items=1)
    check.probes.create(queue="default")
    first = record_probe_answer(check.pk, "default", "w1", "t1")
    second = record_probe_answer(check.pk, "default", "w2", "t2")
    check.refresh_from_db()
    probe = check.probes.get()
    assert first["success"] and second["skipped"]
    assert (check.status, check.processed_items, probe.worker) == ("completed", 1, "w1")


@pytest.mark.django_db
def test_a_probe_answer_counted_before_a_parallel_one_never_lowers_the_count(staff_user):
    """Another probe's answer already counted 2 (its row shows it); this late answer counts only itself."""
    check = SystemCheck.objects.create(total_items=3, processed_items=2, successful_items=2)
    check.probes.create(queue="default")
    record_probe_answer(check.pk, "default", "w1", "t1")
    check.refresh_from_db()
    assert (check.processed_items, check.successful_items) == (2, 2)
