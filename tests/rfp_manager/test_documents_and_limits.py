"""Information-document summaries and the batch time limit, through real workers."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from rfp_manager.models import InformationDocument, RFPBatchJob
from tests.workers import wait_for

from .conftest import QUESTIONS, make_rfp

pytestmark = pytest.mark.integration

SCOPE = (
    "Acme Corp seeks a hosted document platform for 4,000 employees.\n\n"
    "Proposals are due on 15 March 2027 and must include pricing for three years.\n\n"
    "The platform must keep data inside the European Union and support single sign-on."
)


def test_uploaded_document_is_summarized_and_used_as_context(
    live_worker, library, llm_front, fake_llm, user, user_client
):
    rfp = make_rfp(user, QUESTIONS[:1])
    upload = SimpleUploadedFile("scope.txt", SCOPE.encode())
    response = user_client.post(
        reverse("rfp_manager:document_upload", args=[rfp.pk]), {"title": "Scope", "file": upload}
    )
    assert response.status_code == 302
    document = InformationDocument.objects.get(rfp=rfp)

    def summarized():
        document.refresh_from_db()
        return document.status == "summarized"

    wait_for(summarized, timeout=30, message="the summary")
    assert "European Union" in document.summary or "4,000 employees" in document.summary
    first = document.summary

    # The button re-runs it: same text, one row (idempotent).
    user_client.post(reverse("rfp_manager:document_summarize", args=[document.pk]))
    wait_for(lambda: len(fake_llm.requests_to("/v1/chat/completions")) == 2, message="second summary call")
    wait_for(summarized, message="second summary")
    assert document.summary == first and InformationDocument.objects.filter(rfp=rfp).count() == 1

    # The responder prompt carries the summary as context.
    user_client.post(reverse("rfp_manager:start_responder", args=[rfp.pk]))
    job = RFPBatchJob.objects.get(rfp=rfp)
    wait_for(lambda: RFPBatchJob.objects.get(pk=job.pk).status == "completed", message="responder job")
    responder_prompt = json.loads(llm_front.chat_prompts[-1])["messages"][-1]["content"]
    assert responder_prompt.startswith(f"About this RFP: {' '.join(first.split())[:80]}")


def test_admin_action_summarizes_selected_documents(live_worker, llm_api, staff_user, staff_client):
    rfp = make_rfp(staff_user, QUESTIONS[:1])
    document = InformationDocument.objects.create(
        rfp=rfp, title="Scope", file=SimpleUploadedFile("scope.txt", SCOPE.encode()), uploaded_by=staff_user
    )
    response = staff_client.post(
        reverse("admin:rfp_manager_informationdocument_changelist"),
        {"action": "summarize_documents", "_selected_action": [document.pk]},
    )
    assert response.status_code == 302
    wait_for(lambda: InformationDocument.objects.get(pk=document.pk).status == "summarized", message="the summary")
    assert InformationDocument.objects.get(pk=document.pk).summary


def test_soft_time_limit_fails_the_job_with_a_message(live_worker, library, fake_llm, user, user_client, settings):
    """A job dispatched with a 3-second soft limit (RFP_BATCH_SOFT_TIME_LIMIT) stops, failed, with a message."""
    settings.RFP_BATCH_SOFT_TIME_LIMIT = 3
    fake_llm.configure(latency_ms=400)
    rfp = make_rfp(user, [f"{QUESTIONS[i % 6]} (variant {i})" for i in range(60)])
    user_client.post(reverse("rfp_manager:start_responder", args=[rfp.pk]))
    job = RFPBatchJob.objects.get(rfp=rfp)
    job = wait_for(
        lambda: RFPBatchJob.objects.filter(pk=job.pk, status="failed").first(),
        timeout=60,
        message="the job to fail on its time limit",
    )
    assert "time limit" in job.message and "exceeded" in job.message
    assert 0 < job.processed_items < 60
    assert job.processed_items == job.results.count()  # the counts stay true after the stop


@pytest.mark.django_db
def test_upload_with_the_broker_down_keeps_the_summary_waiting_until_the_broker_is_back(
    user, user_client, unreachable_broker, django_capture_on_commit_callbacks
):
    from jobs.dispatch import publish_pending
    from jobs.models import OutboxMessage

    rfp = make_rfp(user, QUESTIONS[:1])
    upload = SimpleUploadedFile("scope.txt", SCOPE.encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = user_client.post(
            reverse("rfp_manager:document_upload", args=[rfp.pk]), {"title": "Scope", "file": upload}
        )
    assert response.status_code == 302  # the upload itself is kept, no 500
    document = InformationDocument.objects.get(rfp=rfp)
    message = OutboxMessage.objects.get(subject_model="rfp_manager.informationdocument", subject_id=document.pk)
    assert (
        document.status == "uploaded"
        and message.sent_at is None
        and message.task_name.endswith("summarize_information_document")
    )
    unreachable_broker()  # the broker is back
    assert publish_pending()["sent"] == 1
