"""A job's JSON status comes from Memcached for at most half a poll, and a finished job is never shown running.

Against the real Memcached and PostgreSQL of the test stack, through Django's
test client. The clock the cache stamps its entries with is a fake one the
test moves (the outside world's time), so "half a poll later" is exact rather
than a sleep on a loaded machine.
"""

import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from jobs import live_status
from jobs.models import SystemCheck
from rfp_manager.models import RFP, RFPBatchJob
from tests.rfp_manager.conftest import make_rfp

pytestmark = pytest.mark.django_db

PROGRESS_TEMPLATE = "templates/jobs/_progress.html"


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    """The fake clock, and entries Memcached keeps for a minute of real time: its own expiry (STORED_SECONDS, whole
    real seconds) must not race the fake clock on a loaded machine, where two requests can be a second apart.
    The stamps alone decide freshness, which is what these tests check."""
    clock = Clock()
    monkeypatch.setattr(live_status.time, "time", clock.time)
    monkeypatch.setattr(live_status, "STORED_SECONDS", 60)
    return clock


@pytest.fixture
def job(user):
    rfp = make_rfp(user, ["Do you encrypt?", "Backups?"])
    return RFPBatchJob.objects.create(
        rfp=rfp, job_type="responder", started_by=user, question_ids=[1, 2], total_items=2, status="processing"
    )


def poll(client, job) -> dict:
    response = client.get(reverse("rfp_manager:job_status", args=[job.pk]), HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]  # browsers and proxies keep nothing: the cache is ours
    return response.json()


def test_polls_within_half_a_poll_share_one_read_of_the_row(user_client, job, clock):
    assert poll(user_client, job)["processed"] == 0
    RFPBatchJob.objects.filter(pk=job.pk).update(processed_items=1)  # as a worker writes its counters

    clock.now += live_status.MAX_AGE - 0.01
    assert poll(user_client, job)["processed"] == 0, "a poll within MAX_AGE is answered from the cache"
    clock.now += 0.02
    assert poll(user_client, job)["processed"] == 1, "an entry older than MAX_AGE is never served"


def test_within_a_tenth_of_a_poll_the_process_answers_from_its_own_copy(user_client, job, clock):
    """Even Memcached is asked once per process per LOCAL_AGE; a finish forgotten by another process (a worker
    deletes the Memcached entry, not this process's copy) is therefore seen here LOCAL_AGE later at most."""
    assert poll(user_client, job)["status"] == "processing"
    RFPBatchJob.objects.filter(pk=job.pk).update(status="completed")
    cache.delete(live_status.payload_key(RFPBatchJob, job.pk))  # what finish() in a worker process reaches

    clock.now += live_status.LOCAL_AGE - 0.01
    assert poll(user_client, job)["status"] == "processing", "within LOCAL_AGE: this process's copy"
    clock.now += 0.02
    assert poll(user_client, job)["status"] == "completed", "after LOCAL_AGE: Memcached, then the row"


def test_a_cancellation_is_shown_by_the_very_next_poll(user_client, job, clock):
    assert poll(user_client, job)["status"] == "processing"
    user_client.post(reverse("rfp_manager:job_cancel", args=[job.pk]))  # finish() forgets the cached payload
    data = poll(user_client, job)  # same instant: no waiting for the entry to age
    assert (data["status"], data["is_active"]) == ("cancelled", False)


def test_a_cancellation_whose_forget_is_lost_is_shown_within_one_poll(user_client, job, clock):
    """The worst case: the cache still holds the running job (a read that began before the cancellation stored it
    after, or Memcached missed the delete). The next poll, one interval later, reads the row."""
    poll_interval = float(re.search(r'hx-trigger="every (\d+(?:\.\d+)?)s"', open(PROGRESS_TEMPLATE).read()).group(1))
    assert live_status.MAX_AGE < poll_interval
    assert poll(user_client, job)["status"] == "processing"
    RFPBatchJob.objects.filter(pk=job.pk).update(status="cancelled")  # no finish(): nothing forgets the entry
    assert poll(user_client, job)["status"] == "processing", "this poll may be one late"
    clock.now += poll_interval
    assert poll(user_client, job)["status"] == "cancelled", "the next poll must show it"


def test_the_cache_never_answers_a_user_the_view_would_refuse(user_client, client, job, clock, django_user_model):
    poll(user_client, job)  # the owner's poll fills the payload
    stranger = django_user_model.objects.create_user("mallory", password="pw-mallory-123")
    client.force_login(stranger)
    response = client.get(reverse("rfp_manager:job_status", args=[job.pk]), HTTP_ACCEPT="application/json")
    assert response.status_code == 404


def test_withdrawn_access_ends_half_a_poll_after_it_was_last_checked(
    user_client, client, job, clock, django_user_model
):
    """Each user's access check keeps its own time: another user's poll that re-reads the row never extends it."""
    url = reverse("rfp_manager:job_status", args=[job.pk])
    poll(user_client, job)  # the owner's access is checked now
    new_owner = django_user_model.objects.create_user("olga", password="pw-olga-123456")
    RFP.objects.filter(pk=job.rfp_id).update(owner=new_owner)  # the first user may no longer see the RFP
    other = Client()  # not the `client` fixture: user_client is that client, signed in as the first user
    other.force_login(new_owner)
    clock.now += live_status.MAX_AGE - 0.1
    assert poll(other, job)["id"] == job.pk  # a new reader: the row is read again and the entry rewritten
    assert user_client.get(url, HTTP_ACCEPT="application/json").status_code == 200, "still within its half a poll"
    clock.now += 0.11
    assert user_client.get(url, HTTP_ACCEPT="application/json").status_code == 404


def test_a_staff_only_status_refuses_others_even_when_cached(staff_client, client, user, staff_user, clock):
    check = SystemCheck.objects.create(started_by=staff_user, total_items=3)
    url = reverse("system_check_status", args=[check.pk])
    assert staff_client.get(url, HTTP_ACCEPT="application/json").json()["total"] == 3
    client.force_login(user)
    assert client.get(url, HTTP_ACCEPT="application/json").status_code == 403


def test_the_htmx_partial_is_always_rendered_from_the_row(user_client, job, clock):
    poll(user_client, job)
    RFPBatchJob.objects.filter(pk=job.pk).update(processed_items=2)
    partial = user_client.get(reverse("rfp_manager:job_status", args=[job.pk]), HTTP_HX_REQUEST="true")
    assert "2 / 2 processed" in partial.content.decode()


def test_a_status_endpoint_without_an_access_check_loads_its_own_job_and_polls_its_own_url(staff_client, clock):
    """job_status_response's defaults: the job of the view's model with that pk (404 for none), and the view's
    own URL for the next htmx poll."""
    check = SystemCheck.objects.create(status="processing", total_items=4, processed_items=1)
    url = reverse("system_check_status", args=[check.pk])
    partial = staff_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert f'hx-get="{url}"' in partial and "1 / 4" in partial
    assert staff_client.get(url, HTTP_ACCEPT="application/json").json()["id"] == check.pk
    missing = reverse("system_check_status", args=[check.pk + 1])
    assert staff_client.get(missing, HTTP_HX_REQUEST="true").status_code == 404
    assert staff_client.get(missing, HTTP_ACCEPT="application/json").status_code == 404
