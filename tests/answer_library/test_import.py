"""Seeding the library from an answered questionnaire: the questionnaire mapping, a job with progress, idempotent."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import Workbook

from answer_library import tasks
from answer_library.models import Entry, LibraryJob
from answer_library.services import importing

from ..questionnaires.workbooks import save

pytestmark = pytest.mark.django_db

ROWS = [
    ("1.1", "Do you encrypt customer data at rest?", "Yes", "All customer data is encrypted with AES-256."),
    ("1.2", "Is multi-factor authentication enforced for administrators?", "Yes", ""),
    ("1.3", "Do you allow customers to host the product on premises?", "No", "The product is offered as SaaS only."),
    ("1.4", "How long are backups retained?", "", "Backups are kept for 35 days."),
    ("1.5", "Do you hold a SOC 2 Type II report?", "", ""),  # unanswered: left out
]


def answered_workbook() -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Security"
    sheet.append(["Acme security questionnaire"])
    sheet.append([])
    sheet.append(["ID", "Question", "Compliance (Yes/No)", "Response"])
    for row in ROWS:
        sheet.append(list(row))
    return save(workbook)


def upload(data: bytes, name: str = "acme-answered.xlsx") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


def test_importing_an_answered_workbook_creates_the_right_entries(user, llm_api):
    record = importing.prepare(upload(answered_workbook()), user, tags=["acme"])
    job = importing.create_job(record, user)

    result = tasks.batch_import_answered_workbook.apply(args=[job.pk]).get()

    job.refresh_from_db()
    assert result["success"] and job.status == "completed"
    assert (job.total_items, job.processed_items, job.successful_items) == (4, 4, 4)
    got = {e.question: (e.choice, e.answer_text) for e in Entry.objects.all()}
    assert got == {
        "Do you encrypt customer data at rest?": ("yes", "All customer data is encrypted with AES-256."),
        "Is multi-factor authentication enforced for administrators?": ("yes", "Yes"),
        "Do you allow customers to host the product on premises?": ("no", "The product is offered as SaaS only."),
        "How long are backups retained?": ("", "Backups are kept for 35 days."),
    }
    entry = Entry.objects.get(question="How long are backups retained?")
    assert entry.origin == Entry.Origin.IMPORT and entry.tags == ["acme"] and entry.owner == user
    assert entry.origin_label == "acme-answered.xlsx, Security row 7" and entry.review_by
    assert any(s["reason"] == "no answer in this row" for s in record.skipped)


def test_running_the_import_again_adds_no_entry_and_no_version(user, llm_api):
    record = importing.prepare(upload(answered_workbook()), user)
    tasks.batch_import_answered_workbook.apply(args=[importing.create_job(record, user).pk])
    second = importing.create_job(record, user)  # the first has finished: a second import of the same file

    tasks.batch_import_answered_workbook.apply(args=[second.pk])

    second.refresh_from_db()
    assert second.status == "completed" and second.summary["entries"] == 4
    assert Entry.objects.count() == 4
    assert all(e.version == 1 for e in Entry.objects.all())


def test_an_imported_entry_is_reused_by_the_responder(user, llm_api, library, chat_model, fake_llm):
    from rfp_manager.services import answering

    from .conftest import chat_requests, make_rfp

    importing.run_import_job(importing.create_job(importing.prepare(upload(answered_workbook()), user), user))
    rfp = make_rfp(user, ["Do you encrypt customer data at rest?"])

    answer = answering.generate_answer(rfp.questions.get(), model=chat_model)

    assert Entry.objects.get(pk=answer.library_entry_id).origin == Entry.Origin.IMPORT and answer.choice == "yes"
    assert chat_requests(fake_llm) == 0


def test_the_pages_preview_then_start_the_job(user_client, llm_api):
    response = user_client.post("/answers/imports/", {"file": upload(answered_workbook()), "tags": "acme"})
    assert response.status_code == 302
    preview = user_client.get(response["Location"]).content.decode()
    assert "4 answered questions found" in preview and "All customer data is encrypted with AES-256." in preview

    started = user_client.post(response["Location"])

    job = LibraryJob.objects.get()
    assert started["Location"] == f"/answers/jobs/{job.pk}/"
    assert user_client.get(f"/answers/jobs/{job.pk}/status/").json()["total"] == 4
    assert "Answer library import" in user_client.get("/jobs/").content.decode()


def test_a_workbook_without_answers_is_refused_with_a_reason(user, llm_api):
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["ID", "Question", "Response"])
    for number, question, *_ in ROWS:
        sheet.append([number, question, ""])
    buffer = io.BytesIO()
    workbook.save(buffer)

    with pytest.raises(importing.LibraryImportError, match="No answered question"):
        importing.prepare(upload(buffer.getvalue()), user)


def large_answered_workbook(rows: int) -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Security"
    sheet.append(["ID", "Question", "Compliance (Yes/No)", "Response"])
    for number in range(1, rows + 1):
        sheet.append([f"Q{number}", f"Do you encrypt the backups of system {number} at rest?", "Yes", "With AES-256."])
    return save(workbook)


def test_a_large_file_is_read_by_a_job_and_the_upload_answers_at_once(user_client, llm_api):
    data = large_answered_workbook(5_000)
    assert importing.read_in_a_job(upload(data))

    # Not timed (speed is bench/'s to measure): the request reads nothing, so the job holds no rows yet.
    response = user_client.post("/answers/imports/", {"file": upload(data), "tags": "acme"})

    assert response.status_code == 302
    job = LibraryJob.objects.get()
    assert job.job_type == LibraryJob.READ and job.library_import.rows == []  # nothing read in the request
    assert "being read and analysed by a worker" in user_client.get(response["Location"]).content.decode()
    assert user_client.post(response["Location"]).status_code == 409  # no import before the preview

    tasks.read_answered_workbook.apply(args=[job.pk])

    job.refresh_from_db()
    assert job.status == "completed"
    assert "5000 answered questions found" in user_client.get(response["Location"]).content.decode()
    user_client.post(response["Location"])
    assert LibraryJob.objects.filter(job_type=LibraryJob.IMPORT, total_items=5_000).exists()


def test_a_large_file_without_answers_fails_its_reading_job_with_the_reason(user_client, llm_api):
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["ID", "Question", "Response"])
    for number in range(1, 5_001):
        sheet.append([f"Q{number}", f"Do you encrypt the backups of system {number} at rest?", ""])
    response = user_client.post("/answers/imports/", {"file": upload(save(workbook))})
    job = LibraryJob.objects.get()

    tasks.read_answered_workbook.apply(args=[job.pk])

    job.refresh_from_db()
    assert job.status == "failed" and job.error_code == "file_refused" and "No answered question" in job.message
    page = user_client.get(response["Location"]).content.decode()
    assert "This file was not imported" in page and "No answered question" in page
    assert not Entry.objects.exists()
