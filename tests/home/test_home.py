"""The home page says where things stand: counts, jobs of every kind with their links, health, next steps."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from home.selectors import home_status
from jobs.kinds import job_kinds as registered_kinds
from jobs.models import QueueProbe, SystemCheck
from llm_manager.models import LLMApi, ValidationRun
from rfp_manager.models import RFP, RFPBatchJob
from solution_library.job_kinds import DOCUMENT_KIND
from solution_library.models import Document, DocumentationSource, EmbedBatchJob, ReviewStatus, SyncJob

pytestmark = pytest.mark.django_db


def document(title, status, message=""):
    return Document.objects.create(
        title=title,
        content_hash=title,
        file_type="text",
        review_status=status,
        status_message=message,
        chunk_count=3 if status == ReviewStatus.APPROVED else 0,
    )


def worker_check(answered: dict[str, str]) -> SystemCheck:
    """A finished check in which the queues of `answered` got an answer from the named worker."""
    check = SystemCheck.objects.create(status="completed", total_items=3)
    for queue in ("default", "embedding", "batch"):
        worker = answered.get(queue, "")
        QueueProbe.objects.create(
            check_run=check,
            queue=queue,
            worker=worker,
            latency_ms=12 if worker else None,
            answered_at=timezone.now() if worker else None,
        )
    return check


@pytest.fixture
def busy_site(staff_user):
    """Some of everything: documents in each state, and one job of each kind in a telling state."""
    for i in range(2):
        document(f"Ready {i}", ReviewStatus.APPROVED)
    document("Still parsing", ReviewStatus.PROCESSING)
    document("Broken scan", ReviewStatus.FAILED, "No text could be extracted")
    source = DocumentationSource.objects.create(
        name="Product docs", start_url="https://docs.example.com/", allowed_host="docs.example.com"
    )
    rfp = RFP.objects.create(name="Harbour RFP", owner=staff_user)
    api = LLMApi.objects.create(
        name="Team vLLM",
        base_url="http://gpu.example:8000/v1",
        health_status=LLMApi.HEALTH_UNHEALTHY,
        last_error="connection refused",
    )
    return {
        "sync": SyncJob.objects.create(source=source, status="completed", total_items=4, processed_items=4),
        "embed": EmbedBatchJob.objects.create(
            document_ids=[1, 2], status="processing", total_items=2, processed_items=1
        ),
        "responder": RFPBatchJob.objects.create(rfp=rfp, job_type="responder", status="failed", message="Boom"),
        "validation": ValidationRun.objects.create(api=api, status="completed"),
        "check": worker_check({"default": "default@host", "embedding": "embedding@host"}),
        "api": api,
    }


def test_an_empty_site_says_what_to_do_first(staff_client):
    page = staff_client.get(reverse("home")).content.decode()

    assert "No documents yet: upload some to the library, or load the demo." in page
    assert "manage.py load_demo" in page
    assert "No RFPs yet" in page and reverse("rfp_manager:create") in page
    assert "Check that every queue has a live worker" in page
    assert "No job is running and none ran in the last day." in page


def test_counts_jobs_of_every_kind_and_what_needs_attention(staff_client, busy_site):
    response = staff_client.get(reverse("home"))
    context, page = response.context, response.content.decode()

    library = context["library"]
    assert (library["total"], library["ready"], library["processing"], library["failed"]) == (4, 2, 1, 1)
    assert library["passages"] == 6 and library["sources"] == 1
    assert [j.kind.label for j in context["active_jobs"]] == ["Embedding batch"]
    assert {j.kind.label for j in context["finished_jobs"]} == {
        "Documentation sync",
        "Responder / reviewer",
        "LLM validation",
        "Worker check",
    }
    for name, job in [
        ("solution_library:sync_job", busy_site["sync"]),
        ("solution_library:embed_job", busy_site["embed"]),
        ("rfp_manager:job", busy_site["responder"]),
        ("system_check", busy_site["check"]),
    ]:
        assert f'href="{reverse(name, args=[job.pk])}"' in page
    assert f'href="{reverse("llm_manager:api_detail", args=[busy_site["api"].pk])}"' in page
    attention = " ".join(item["text"] for item in context["attention"])
    assert "1 document(s) failed" in attention
    assert f"Responder / reviewer (Responder job {busy_site['responder'].pk} for Harbour RFP) failed" in attention
    assert "LLM API Team vLLM is unhealthy: connection refused" in attention
    assert "No worker answered on queue(s) batch" in attention
    assert "Broken scan" in page and "No text could be extracted" in page
    assert "answered by default@host" in page
    # Something is running: the status block polls for updates.
    assert 'hx-trigger="every 3s"' in page


def test_others_see_neither_rfp_jobs_they_may_not_open_nor_staff_pages(user_client, busy_site):
    page = user_client.get(reverse("home")).content.decode()

    assert "Harbour RFP" not in page
    assert reverse("system_check", args=[busy_site["check"].pk]) not in page
    assert 'id="check-workers"' not in page
    assert "answered by default@host" in page  # whether the queues have workers is no secret


def test_htmx_gets_only_the_status_block(staff_client, busy_site):
    page = staff_client.get(reverse("home"), HTTP_HX_REQUEST="true").content.decode()

    assert 'id="home-status"' in page and "<html" not in page


def test_the_number_of_queries_does_not_grow_with_the_data(staff_user, busy_site):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            home_status(staff_user)
        return len(captured)

    few = queries()
    for i in range(20):
        document(f"More {i}", ReviewStatus.FAILED)
        SyncJob.objects.create(source=busy_site["sync"].source, status="failed")
        RFPBatchJob.objects.create(rfp=busy_site["responder"].rfp, job_type="reviewer", status="completed")
        worker_check({"default": "default@host"})

    job_kinds = sum(kind.key != DOCUMENT_KIND for kind in registered_kinds())
    assert queries() == few <= 9 + job_kinds  # see home/selectors.py: one per kind of thing shown
