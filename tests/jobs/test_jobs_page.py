"""The jobs page: every kind in one list, grouped, filtered, acknowledged, polled — and who sees what."""

import re

import pytest
from django.urls import reverse

from jobs.kinds import grouped, job_rows
from jobs.models import SystemCheck
from llm_manager.models import ValidationRun
from rfp_manager.models import RFPBatchJob
from solution_library.models import Document, DocumentationSource, DocumentJob, EmbedBatchJob, SyncJob
from tests.rfp_manager.conftest import make_rfp

pytestmark = pytest.mark.django_db


@pytest.fixture
def jobs_of_every_kind(user, staff_user):
    mine = make_rfp(user, ["Q?"], name="Mine")
    theirs = make_rfp(staff_user, ["Q?"], name="Theirs")
    return {
        "document": failed_document_job(),
        "embed_batch": EmbedBatchJob.objects.create(status="processing", total_items=4, processed_items=1),
        "rfp_batch": RFPBatchJob.objects.create(
            rfp=mine,
            job_type="responder",
            status="failed",
            total_items=1,
            processed_items=1,
            failed_items=1,
            message="boom",
        ),
        "theirs": RFPBatchJob.objects.create(rfp=theirs, job_type="responder", status="completed"),
        "validation": ValidationRun.objects.create(status="completed"),
        "system_check": SystemCheck.objects.create(
            status="pending", message="Waiting for the message broker", error_code="broker_unavailable"
        ),
    }


def failed_document_job() -> DocumentJob:
    document = Document.objects.create(title="Policy", content_hash="a" * 64, file_type="text")
    job = DocumentJob.objects.get(document=document)  # its upload's job
    job.finish("failed", "Bad PDF", "task_error")
    return job


def row_ids(html: str, group: str) -> list[str]:
    section = re.search(rf'<section class="job-group" id="group-{group}".*?</section>', html, re.S).group(0)
    return re.findall(r'<tr id="job-([a-z_]+-\d+)"', section)


def test_staff_see_every_kind_grouped(jobs_of_every_kind, staff_client):
    jobs = jobs_of_every_kind
    html = staff_client.get(reverse("jobs:index")).content.decode()
    assert sorted(row_ids(html, "needs_attention")) == sorted(
        [f"document-{jobs['document'].pk}", f"rfp_batch-{jobs['rfp_batch'].pk}"]
    )
    assert sorted(row_ids(html, "running")) == sorted(
        [f"embed_batch-{jobs['embed_batch'].pk}", f"system_check-{jobs['system_check'].pk}"]
    )
    assert sorted(row_ids(html, "finished")) == sorted(
        [f"rfp_batch-{jobs['theirs'].pk}", f"validation-{jobs['validation'].pk}"]
    )
    assert "broker_unavailable" in html and "Waiting for the message broker" in html
    retry = reverse("rfp_manager:job_retry", args=[jobs["rfp_batch"].pk])
    assert f'action="{retry}"' in html, "a failed job with failed items offers Retry"
    assert reverse("solution_library:document_retry", args=[jobs["document"].document_id]) in html


def test_retry_is_offered_for_a_failed_or_cancelled_job_only(staff_user):
    failed = failed_document_job()
    done = Document.objects.create(title="Done", content_hash="b" * 64, file_type="text")
    DocumentJob.objects.filter(document=done).update(status="completed")
    source = DocumentationSource.objects.create(
        name="docs", start_url="http://127.0.0.1:9/", allowed_host="127.0.0.1:9"
    )
    synced = SyncJob.objects.create(source=source, status="completed")
    cancelled = SyncJob.objects.create(source=source, status="cancelled")
    offered = {row.key: bool(row.retry_url) for row in job_rows(staff_user)}
    assert offered[f"document-{failed.pk}"] and offered[f"sync-{cancelled.pk}"]
    assert not offered[f"document-{DocumentJob.objects.get(document=done).pk}"], "nothing to retry in a completed job"
    assert not offered[f"sync-{synced.pk}"]


def test_a_user_sees_documents_and_the_jobs_of_their_own_rfps_only(jobs_of_every_kind, user):
    keys = {row.key for row in job_rows(user)}
    assert keys == {f"document-{jobs_of_every_kind['document'].pk}", f"rfp_batch-{jobs_of_every_kind['rfp_batch'].pk}"}


def test_filters_by_kind_and_status(jobs_of_every_kind, staff_client, staff_user):
    assert {row.kind.key for row in job_rows(staff_user, kinds=["rfp_batch"])} == {"rfp_batch"}
    assert {row.key for row in job_rows(staff_user, status="failed")} == {
        f"document-{jobs_of_every_kind['document'].pk}",
        f"rfp_batch-{jobs_of_every_kind['rfp_batch'].pk}",
    }
    html = staff_client.get(reverse("jobs:index") + "?kind=validation&status=completed").content.decode()
    assert row_ids(html, "finished") == [f"validation-{jobs_of_every_kind['validation'].pk}"]
    assert row_ids(html, "needs_attention") == row_ids(html, "running") == []


def test_acknowledge_hides_a_job_and_only_a_job_the_user_may_see(jobs_of_every_kind, user_client, user):
    failed = jobs_of_every_kind["rfp_batch"]
    url = reverse("jobs:acknowledge", args=["rfp_batch", failed.pk])
    response = user_client.post(url, {"next": reverse("jobs:index") + "?kind=rfp_batch"})
    assert response.status_code == 302 and response.url == reverse("jobs:index") + "?kind=rfp_batch"
    assert f"rfp_batch-{failed.pk}" not in {row.key for row in job_rows(user)}
    assert user_client.post(url).status_code == 302, "acknowledging twice is harmless"
    theirs = reverse("jobs:acknowledge", args=["rfp_batch", jobs_of_every_kind["theirs"].pk])
    assert user_client.post(theirs).status_code == 404
    assert user_client.post(reverse("jobs:acknowledge", args=["system_check", 1])).status_code == 404
    assert user_client.post(url, {"next": "https://evil.example/"}).url == reverse("jobs:index")


def test_htmx_gets_the_list_alone_and_polls_fast_while_a_job_runs(jobs_of_every_kind, staff_client):
    html = staff_client.get(reverse("jobs:index"), headers={"HX-Request": "true"}).content.decode()
    assert '<div id="job-list"' in html and "<html" not in html
    assert 'hx-trigger="every 2s"' in html
    EmbedBatchJob.objects.update(status="completed")
    SystemCheck.objects.update(status="completed")
    html = staff_client.get(reverse("jobs:index"), headers={"HX-Request": "true"}).content.decode()
    assert 'hx-trigger="every 15s"' in html


def test_the_page_carries_no_inline_script(jobs_of_every_kind, staff_client):
    html = staff_client.get(reverse("jobs:index")).content.decode()
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []


def test_grouping_puts_a_silent_active_job_under_needs_attention(jobs_of_every_kind, staff_user):
    from datetime import timedelta

    from django.utils import timezone

    EmbedBatchJob.objects.update(updated_at=timezone.now() - timedelta(hours=1))
    groups = grouped(job_rows(staff_user))
    assert f"embed_batch-{jobs_of_every_kind['embed_batch'].pk}" in {row.key for row in groups["needs_attention"]}


def test_a_document_is_listed_once_by_its_newest_job(jobs_of_every_kind, staff_user):
    failed = jobs_of_every_kind["document"]
    retried = DocumentJob.objects.create(document=failed.document, status="processing")  # the Retry button
    rows = [row for row in job_rows(staff_user) if row.kind.key == "document"]
    assert [(row.key, row.status, row.title) for row in rows] == [(f"document-{retried.pk}", "processing", "Policy")]
    assert rows[0].url == reverse("solution_library:document", args=[failed.document_id])
