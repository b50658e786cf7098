"""Responder and reviewer jobs through a real worker, RabbitMQ, the database and the fake LLM server."""

import threading

import pytest
from django.test import Client
from django.urls import reverse

from rfp_manager.models import Answer, JobQuestionResult, RFPBatchJob
from tests.workers import wait_for

from .conftest import FAIL_MARKER, QUESTIONS, chat_requests, make_rfp

pytestmark = pytest.mark.integration


def _finished(job_id, timeout=60):
    def check():
        job = RFPBatchJob.objects.get(pk=job_id)
        return job if not job.is_active and job.processed_items == job.total_items or job.status == "failed" else None

    return wait_for(check, timeout=timeout, message=f"job {job_id} to finish")


def _start(client, rfp, kind, **data):
    response = client.post(reverse(f"rfp_manager:start_{kind}", args=[rfp.pk]), data)
    assert response.status_code == 302, response.content[:500]
    return RFPBatchJob.objects.filter(rfp=rfp, job_type=kind).latest("created_at")


def test_responder_then_reviewer_complete_with_exact_counts(live_worker, library, user, user_client):
    rfp = make_rfp(user, QUESTIONS)

    job = _finished(_start(user_client, rfp, "responder").pk)
    assert (job.status, job.total_items, job.processed_items, job.successful_items, job.failed_items) == (
        "completed",
        6,
        6,
        6,
        0,
    )
    assert job.celery_task_id  # written from inside the task
    answers = Answer.objects.filter(question__rfp=rfp)
    assert answers.count() == 6
    encryption = answers.get(question__text__startswith="How is customer data encrypted")
    assert "AES-256" in encryption.draft_text
    cited = encryption.cited_passages
    assert cited and cited[0]["document_title"] == "Security handbook"

    review = _finished(_start(user_client, rfp, "reviewer").pk)
    assert (review.status, review.processed_items, review.successful_items, review.failed_items) == (
        "completed",
        6,
        6,
        0,
    )
    assert not answers.filter(review_verdict="").exists()
    assert set(answers.values_list("reviewer_job", flat=True)) == {review.pk}


def test_review_when_done_chains_one_reviewer(live_worker, library, user, user_client):
    rfp = make_rfp(user, QUESTIONS[:3])
    responder = _finished(_start(user_client, rfp, "responder", review_when_done="on").pk)
    reviewer = wait_for(lambda: RFPBatchJob.objects.filter(chained_from=responder).first(), message="chained reviewer")
    reviewer = _finished(reviewer.pk)
    assert (reviewer.job_type, reviewer.status, reviewer.successful_items) == ("reviewer", "completed", 3)
    assert RFPBatchJob.objects.filter(rfp=rfp, job_type="reviewer").count() == 1


def test_failures_are_recorded_and_retry_reruns_only_them(live_worker, library, llm_front, fake_llm, user, user_client):
    # The failing questions are answerable from the library, so they reach the model (and its failure).
    questions = list(QUESTIONS[:4]) + [f"{FAIL_MARKER} {QUESTIONS[4]}", f"{FAIL_MARKER} {QUESTIONS[5]}"]
    rfp = make_rfp(user, questions)

    job = _finished(_start(user_client, rfp, "responder").pk)
    assert (job.status, job.processed_items, job.successful_items, job.failed_items) == ("completed", 6, 4, 2)
    assert sorted(e["item"] for e in job.errors) == ["Q5", "Q6"]
    assert all("injected failure" in e["error"] for e in job.errors)
    page = user_client.get(reverse("rfp_manager:job", args=[job.pk])).content.decode()
    assert "Retry 2 failed questions" in page and "injected failure" in page

    llm_front.fail_marker = None  # the outage is over
    before = chat_requests(fake_llm)
    response = user_client.post(reverse("rfp_manager:job_retry", args=[job.pk]))
    assert response.status_code == 302
    retry = RFPBatchJob.objects.get(retry_of=job)
    assert sorted(retry.question_ids) == sorted(
        rfp.questions.filter(text__startswith=FAIL_MARKER).values_list("pk", flat=True)
    )
    retry = _finished(retry.pk)
    assert (retry.status, retry.total_items, retry.successful_items, retry.failed_items) == ("completed", 2, 2, 0)
    assert chat_requests(fake_llm) - before == 2  # only the two failed questions were asked again
    assert Answer.objects.filter(question__rfp=rfp).count() == 6


def test_transient_errors_are_retried_per_question(live_worker, library, llm_front, fake_llm, user, user_client):
    llm_front.transient_failures = 2  # below the circuit breaker's threshold of three
    rfp = make_rfp(user, QUESTIONS[:1])
    job = _finished(_start(user_client, rfp, "responder").pk)
    assert (job.status, job.successful_items, job.failed_items) == ("completed", 1, 0)
    assert llm_front.failed == 2 and chat_requests(fake_llm) == 1  # two 503s, then the answer


def test_cancel_stops_a_running_job_and_keeps_its_answers(live_worker, library, fake_llm, user, user_client):
    fake_llm.configure(latency_ms=300)
    rfp = make_rfp(user, [f"{QUESTIONS[i % 6]} (variant {i})" for i in range(40)])
    job = _start(user_client, rfp, "responder")
    wait_for(lambda: RFPBatchJob.objects.get(pk=job.pk).processed_items >= 4, timeout=60, message="some progress")

    assert user_client.post(reverse("rfp_manager:job_cancel", args=[job.pk])).status_code == 302

    def calls_stopped():
        count = chat_requests(fake_llm)
        threading.Event().wait(1.5)
        return chat_requests(fake_llm) == count

    wait_for(calls_stopped, timeout=10, message="no more chat calls after cancel")
    job.refresh_from_db()
    wait_for(
        lambda: RFPBatchJob.objects.get(pk=job.pk).processed_items == JobQuestionResult.objects.filter(job=job).count(),
        message="final counts",
    )
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert 4 <= job.processed_items < 40
    assert Answer.objects.filter(question__rfp=rfp).count() == job.successful_items


def test_twenty_simultaneous_starts_create_one_job(live_worker, library, fake_llm, user):
    fake_llm.configure(latency_ms=500)  # the winner's job stays active while the other clicks arrive
    rfp = make_rfp(user, QUESTIONS)
    barrier = threading.Barrier(20)
    statuses = []

    def click():
        client = Client()
        client.force_login(user)
        barrier.wait()
        statuses.append(client.post(reverse("rfp_manager:start_responder", args=[rfp.pk])).status_code)

    threads = [threading.Thread(target=click) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert sorted(statuses) == [302] + [409] * 19
    assert RFPBatchJob.objects.filter(rfp=rfp).count() == 1
    _finished(RFPBatchJob.objects.get(rfp=rfp).pk)


@pytest.fixture
def session_worker_off_batch(celery_worker_process):
    """Keep the shared session worker off the batch queue, so the job goes to the worker we kill."""
    from spelunker.celery import app

    app.control.cancel_consumer("batch", destination=[celery_worker_process.name], reply=True)
    yield
    app.control.add_consumer("batch", destination=[celery_worker_process.name], reply=True)


def test_redelivered_job_resumes_without_duplicate_answers(
    session_worker_off_batch, make_worker, library, fake_llm, user, user_client
):
    """SIGKILL the worker mid-job; the broker redelivers to a second worker, which finishes it."""
    fake_llm.configure(latency_ms=250)
    total = 16
    rfp = make_rfp(user, [f"{QUESTIONS[i % 6]} (variant {i})" for i in range(total)])
    first = make_worker(queues="batch", concurrency=1)
    job = _start(user_client, rfp, "responder")
    wait_for(
        lambda: RFPBatchJob.objects.get(pk=job.pk).processed_items >= 4, timeout=60, message="progress before the crash"
    )
    job.refresh_from_db()
    wait_for(
        lambda: job.celery_task_id in (first.active_task_ids() or set()),
        timeout=10,
        message="the job to be running on the worker we kill",
    )
    first.kill()
    done_before_crash = JobQuestionResult.objects.filter(job=job).count()
    calls_before = chat_requests(fake_llm)

    make_worker(queues="batch", concurrency=1)
    job = _finished(job.pk, timeout=90)
    assert (job.status, job.processed_items, job.successful_items, job.failed_items) == ("completed", total, total, 0)
    assert Answer.objects.filter(question__rfp=rfp).count() == total
    # Resumed, not restarted: only the questions not done before the crash were asked again.
    assert chat_requests(fake_llm) - calls_before == total - done_before_crash

    # Running the finished job's task again is a no-op; forcing it back to "processing" resumes with nothing to do.
    from rfp_manager.tasks import batch_generate_responder_answers

    assert batch_generate_responder_answers.apply(args=(rfp.pk, user.pk, job.pk)).get()["skipped"] is True
    RFPBatchJob.objects.filter(pk=job.pk).update(status="processing")
    calls = chat_requests(fake_llm)
    result = batch_generate_responder_answers.apply(args=(rfp.pk, user.pk, job.pk)).get()
    assert result["success"] and chat_requests(fake_llm) == calls
    assert Answer.objects.filter(question__rfp=rfp).count() == total
    job.refresh_from_db()
    assert (job.processed_items, job.successful_items) == (total, total)


@pytest.mark.django_db
def test_a_message_naming_another_rfp_or_kind_is_refused_and_the_job_left_untouched(user):
    from rfp_manager.tasks import batch_generate_responder_answers, batch_generate_reviewer_answers

    rfp, other = make_rfp(user, QUESTIONS[:1]), make_rfp(user, QUESTIONS[:1], name="Other RFP")
    job = RFPBatchJob.objects.create(rfp=rfp, job_type="responder", total_items=1, started_by=user)

    wrong_rfp = batch_generate_responder_answers.apply(args=(other.pk, user.pk, job.pk)).get()
    wrong_kind = batch_generate_reviewer_answers.apply(args=(rfp.pk, user.pk, job.pk)).get()

    assert "does not match its message" in wrong_rfp["error"] and wrong_rfp["success"] is False
    assert "does not match its message" in wrong_kind["error"]
    job.refresh_from_db()
    assert (job.status, job.celery_task_id, job.unfinished_deliveries) == ("pending", "", 0)
