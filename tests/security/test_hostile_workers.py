"""The questionnaire reading job with real workers: the upload answers at once, the preview opens when the worker
is done, a file refused while read fails its job with the reason, and a file that slips past every limit costs
its worker process its memory budget, not the machine — the worker goes on serving."""

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from rfp_manager.models import RFP, QuestionImportJob
from tests.samples import sample_questionnaire
from tests.workers import wait_for

from . import hostile_files

pytestmark = [pytest.mark.integration, pytest.mark.hostile]

UPLOAD_ANSWERS_WITHIN_S = 1.0  # the issue: "the upload request answers in well under a second whatever the file"
# Limits a file slips past: what the worker process's memory budget must then catch.
NO_FILE_LIMITS = {
    "SPELUNKER_FILE_LIMIT_UNCOMPRESSED_MB": "100000",
    "SPELUNKER_FILE_LIMIT_COMPRESSION_RATIO": "1000000",
    "SPELUNKER_FILE_LIMIT_PARAGRAPHS": "100000000",
}


@pytest.fixture
def owner(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def rfp(user):
    return RFP.objects.create(name="Supplier assessment", owner=user)


def _upload(client, rfp, name: str, data: bytes) -> tuple[str, QuestionImportJob]:
    """Upload as a person does; the request must answer at once and leave a reading job."""
    started = time.monotonic()
    response = client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": SimpleUploadedFile(name, data)})
    elapsed = time.monotonic() - started
    assert response.status_code == 302, response.content.decode()[:2000]
    assert elapsed < UPLOAD_ANSWERS_WITHIN_S, f"the upload of {name} took {elapsed:.2f} s"
    return response["Location"], QuestionImportJob.objects.filter(question_import__rfp=rfp).latest("pk")


def _finished(client, job: QuestionImportJob, timeout: float = 90) -> dict:
    """Poll the job's status endpoint as the page does, until the job is no longer active."""
    url = reverse("rfp_manager:import_analysis_status", args=[job.pk])

    def done():
        payload = client.get(url).json()
        return payload if not payload["is_active"] else None

    return wait_for(done, timeout=timeout, interval=0.5, message=f"reading job {job.pk} to finish")


def test_a_large_questionnaire_is_read_by_a_worker_and_its_preview_opens_when_ready(live_worker, owner, rfp):
    preview_url, job = _upload(owner, rfp, "SAMM_spreadsheet.xlsx", sample_questionnaire("SAMM_spreadsheet.xlsx"))
    assert owner.get(preview_url).status_code == 200  # the progress page, or the preview if the worker was quick
    status = _finished(owner, job)
    assert status["status"] == "completed" and status["processed"] == status["total"] == 3
    assert "Import 90 questions" in owner.get(preview_url).content.decode()


def test_a_file_refused_while_read_fails_its_job_with_the_reason_and_the_worker_keeps_serving(live_worker, owner, rfp):
    """A workbook within the package limits, past the row limit: only reading it can tell."""
    preview_url, job = _upload(owner, rfp, "rows.xlsx", hostile_files.workbook_of_rows(150_000))
    status = _finished(owner, job)
    assert status["status"] == "failed" and "FILE_LIMIT_ROWS" in status["message"]
    page = owner.get(preview_url).content.decode()
    assert "This file was not imported" in page and "FILE_LIMIT_ROWS" in page
    assert not rfp.questions.exists()

    _, next_job = _upload(owner, rfp, "SAMM_spreadsheet.xlsx", sample_questionnaire("SAMM_spreadsheet.xlsx"))
    assert _finished(owner, next_job)["status"] == "completed"


def test_a_file_that_slips_past_every_limit_costs_one_process_its_memory_budget(
    make_worker, queue_to_own_workers, owner, rfp, settings
):
    """With the file limits lifted, a Word document of two million paragraphs reaches python-docx: the pool
    process's memory budget stops it, the job fails saying so, and the worker serves the next file."""
    for name, value in NO_FILE_LIMITS.items():
        setattr(settings, name.removeprefix("SPELUNKER_"), int(value))  # the upload request's own checks
    queue_to_own_workers("default")
    make_worker(queues="default", concurrency=1, env={**NO_FILE_LIMITS, "SPELUNKER_WORKER_MEMORY_LIMIT_MB": "400"})

    _, job = _upload(owner, rfp, "policy.docx", hostile_files.docx_of_paragraphs(2_000_000))
    status = _finished(owner, job)
    assert status["status"] == "failed", status
    job.refresh_from_db()
    assert job.error_code == "memory_limit" and "SPELUNKER_WORKER_MEMORY_LIMIT_MB" in job.message

    _, next_job = _upload(owner, rfp, "SAMM_spreadsheet.xlsx", sample_questionnaire("SAMM_spreadsheet.xlsx"))
    assert _finished(owner, next_job)["status"] == "completed"
