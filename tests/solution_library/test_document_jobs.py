"""Documents as a job kind: a DocumentJob per request to process a document, run by `run_job`, whose end
reaches the document its pages and search read."""

import pytest
from celery.signals import task_retry
from django.conf import settings
from django.core.files.base import ContentFile
from django.urls import reverse

from jobs.models import OutboxMessage
from llm_manager.testing.fixtures import register_fake_api
from solution_library.models import Document, DocumentJob, ReviewStatus
from solution_library.services.documents import mark_failed, store_upload
from solution_library.tasks import EMBED_MAX_RETRIES, embed_document
from solution_library.testing import add_library_document

TEXT = b"Backups are taken every hour and kept for 35 days in a second region."


def outbox_kwargs(job: DocumentJob) -> list[dict]:
    messages = OutboxMessage.objects.filter(subject_model="solution_library.documentjob", subject_id=job.pk)
    return list(messages.values_list("kwargs", flat=True))


def run(document: Document, job: DocumentJob | None = None, **options) -> dict:
    kwargs = {"document_id": document.pk, **({"job_id": job.pk} if job else {})}
    return embed_document.apply(kwargs=kwargs, **options).get()


@pytest.mark.django_db
def test_each_request_to_process_a_document_is_a_job_with_its_message(user, user_client):
    document = store_upload("backups.txt", TEXT, user).document
    upload = DocumentJob.objects.get(document=document)
    assert (upload.status, upload.started_by_id) == ("processing", user.pk)
    assert outbox_kwargs(upload) == [{"document_id": document.pk, "embedding_model_id": None, "job_id": upload.pk}]

    Document.objects.filter(pk=document.pk).mark_failed("Bad file", "task_error")
    user_client.post(reverse("solution_library:document_retry", args=[document.pk]))
    retry = DocumentJob.objects.exclude(pk=upload.pk).get(document=document)
    assert outbox_kwargs(retry) == [{"document_id": document.pk, "embedding_model_id": None, "job_id": retry.pk}]
    user_client.post(reverse("solution_library:document_retry", args=[document.pk]))
    assert document.jobs.count() == 2, "a second click while it is queued queues nothing"


@pytest.mark.django_db
def test_a_job_runs_once_and_a_second_delivery_does_nothing():
    document = add_library_document("Backups", TEXT.decode())
    job = DocumentJob.objects.create(document=document, status="processing")
    first = run(document, job)
    job.refresh_from_db()
    assert first["success"] and (job.status, job.unfinished_deliveries) == ("completed", 0)
    again = run(document, job)
    assert again == {"success": True, "job_id": job.pk, "status": "completed", "skipped": True}


@pytest.mark.django_db
def test_processed_at_says_when_the_content_became_searchable_not_when_it_was_last_read(user, user_client):
    """A Retry of a ready document whose chunks come out the same is not a new document: the RFP page's redraft
    offer and the owners' notice read processed_at as "this became searchable then"."""
    document = add_library_document("Backups", TEXT.decode(), user)
    first = document.processed_at
    user_client.post(reverse("solution_library:document_retry", args=[document.pk]))
    assert run(document)["unchanged"] is True
    document.refresh_from_db()
    assert (document.review_status, document.processed_at) == (ReviewStatus.PENDING_REVIEW, first)

    document.file.save("backups.txt", ContentFile(TEXT + b" Restores are tested every quarter."), save=True)
    user_client.post(reverse("solution_library:document_retry", args=[document.pk]))
    assert run(document)["unchanged"] is False
    document.refresh_from_db()
    assert document.processed_at > first


@pytest.mark.django_db
def test_a_document_read_again_after_it_failed_became_searchable_again_then(user, user_client):
    """Failed, a document is out of search: a question drafted meanwhile did not see it, so when it is read again,
    even unchanged, its processed_at is the new time and the redraft offer counts it."""
    document = add_library_document("Backups", TEXT.decode(), user)
    first = document.processed_at
    mark_failed(document.pk, "The worker was stopped.")
    document.refresh_from_db()
    assert (document.review_status, document.processed_at) == (ReviewStatus.FAILED, None)
    user_client.post(reverse("solution_library:document_retry", args=[document.pk]))
    assert run(document)["unchanged"] is True
    document.refresh_from_db()
    assert document.review_status == ReviewStatus.PENDING_REVIEW and document.processed_at > first


@pytest.mark.django_db
def test_a_message_naming_another_document_is_refused():
    document = add_library_document("Backups", TEXT.decode())
    other = add_library_document("Other", "A different text about access reviews.")
    job = DocumentJob.objects.create(document=document, status="processing")
    assert run(other, job)["success"] is False
    job.refresh_from_db()
    assert job.status == "processing"


@pytest.mark.django_db
def test_a_message_without_a_job_id_runs_the_documents_active_job_or_a_new_one():
    document = add_library_document("Backups", TEXT.decode())
    Document.objects.filter(pk=document.pk).update(review_status=ReviewStatus.PROCESSING)
    waiting = DocumentJob.objects.create(document=document, status="processing")  # as the upgrade left it

    result = run(document)  # queued before the upgrade: it names the document alone

    assert result["job_id"] == waiting.pk and result["success"]
    assert list(document.jobs.values_list("status", flat=True)) == ["completed"]
    document.refresh_from_db()
    assert document.review_status == ReviewStatus.PENDING_REVIEW

    again = run(document)  # a ready document, asked for by the task's name: processed again, as a new job
    assert again["success"] and again["job_id"] != waiting.pk and document.jobs.count() == 2

    missing = embed_document.apply(kwargs={"document_id": document.pk + 1000}).get()
    assert missing["success"] is False and "not found" in missing["error"]


@pytest.mark.django_db
def test_a_poison_job_fails_its_document_with_the_message_and_code():
    document = add_library_document("Backups", TEXT.decode())
    job = DocumentJob.objects.create(
        document=document, status="processing", unfinished_deliveries=settings.JOB_MAX_UNFINISHED_DELIVERIES
    )
    assert run(document, job)["success"] is False
    job.refresh_from_db()
    document.refresh_from_db()
    assert (job.status, job.error_code) == ("failed", "poison_message")
    assert (document.review_status, document.error_code) == ("failed", "poison_message")
    assert document.status_message == job.message and "worker process dying" in job.message


@pytest.mark.django_db
def test_only_the_finish_that_wins_reaches_the_document():
    document = add_library_document("Backups", TEXT.decode())
    job = DocumentJob.objects.create(document=document, status="processing")
    assert job.finish("completed")
    assert not job.finish("failed", "Lost", "worker_lost")  # a late sweep of a job its task finished
    document.refresh_from_db()
    assert (document.review_status, document.error_code) == (ReviewStatus.PENDING_REVIEW, "")


@pytest.mark.django_db
def test_a_failure_the_pipeline_names_fails_the_job_with_the_documents_reason():
    document = add_library_document("Backups", TEXT.decode())
    document.file.storage.delete(document.file.name)  # the stored file vanished
    job = DocumentJob.objects.create(document=document, status="processing")
    assert run(document, job)["success"] is False
    job.refresh_from_db()
    document.refresh_from_db()
    assert (job.status, job.error_code, job.message) == ("failed", document.error_code, document.status_message)
    assert document.review_status == ReviewStatus.FAILED and document.error_code == "storage_unavailable"


@pytest.mark.django_db
def test_an_unavailable_embedding_service_is_retried_after_retry_after_then_fails_the_document(fake_llm):
    document = add_library_document("Backups", TEXT.decode())
    register_fake_api(fake_llm)  # the default embedding model is now the fake's
    fake_llm.configure(fault="429", retry_after=7)
    job = DocumentJob.objects.create(document=document, status="processing")
    waits = []
    on_retry = lambda request, reason, **kwargs: waits.append(reason.when)  # noqa: E731
    task_retry.connect(on_retry, weak=False)
    try:
        result = run(document, job)  # applied eagerly: each retry runs at once, with its countdown recorded
    finally:
        task_retry.disconnect(on_retry)
    assert len(waits) == EMBED_MAX_RETRIES and min(waits) >= 7
    assert result["success"] is False
    job.refresh_from_db()
    document.refresh_from_db()
    assert job.status == "failed" and "stayed unavailable" in job.message
    assert (document.review_status, document.status_message) == ("failed", job.message)
