"""Small helpers the fault cases share: RFPs to answer, starting a responder job from its page, waiting for the end."""

from django.urls import reverse

from rfp_manager.models import Answer, JobQuestionResult, RFPBatchJob
from tests.rfp_manager.conftest import QUESTIONS, make_rfp
from tests.workers import wait_for


def rfp_with_questions(owner, count: int, name: str = "Acme RFP", first: int = 0):
    """`count` questions, variants `first`… : RFPs of one case given distinct ranges ask distinct questions."""
    variants = range(first, first + count)
    return make_rfp(owner, [f"{QUESTIONS[i % len(QUESTIONS)]} (variant {i})" for i in variants], name=name)


def start_responder(client, rfp) -> RFPBatchJob:
    response = client.post(reverse("rfp_manager:start_responder", args=[rfp.pk]))
    assert response.status_code == 302, response.content[:500]
    return RFPBatchJob.objects.filter(rfp=rfp, job_type="responder").latest("created_at")


def finished(job_id: int, timeout: float = 300) -> RFPBatchJob:
    def check():
        job = RFPBatchJob.objects.get(pk=job_id)
        return None if job.is_active else job

    return wait_for(check, timeout=timeout, interval=0.5, message=f"job {job_id} to finish")


def processed(job_id: int) -> int:
    return RFPBatchJob.objects.values_list("processed_items", flat=True).get(pk=job_id)


def job_figures(job: RFPBatchJob) -> dict:
    """The counters on the row and what the result rows and answers say: equal when the job is exact."""
    job.refresh_from_db()
    return {
        "status": job.status,
        "total": job.total_items,
        "processed": job.processed_items,
        "succeeded": job.successful_items,
        "failed": job.failed_items,
        "result_rows": JobQuestionResult.objects.filter(job=job).count(),
        "answers": Answer.objects.filter(question__rfp=job.rfp).exclude(draft_text="").count(),
    }


def exact(total: int) -> dict:
    """What job_figures says of a job that answered all `total` questions, each once."""
    return {
        "status": "completed",
        "total": total,
        "processed": total,
        "succeeded": total,
        "failed": 0,
        "result_rows": total,
        "answers": total,
    }


def running_on(worker, job_id: int) -> bool:
    """Whether `worker` reports the job's current task among those it runs (the id is read afresh each time)."""
    task_id = RFPBatchJob.objects.values_list("celery_task_id", flat=True).get(pk=job_id)
    return task_id in (worker.active_task_ids() or set())


def wait_until_running_on(worker, job_id: int, timeout: float = 30) -> None:
    """Wait for the job to run on `worker`; on a time-out, say what the job and the worker showed."""
    try:
        wait_for(lambda: running_on(worker, job_id), timeout=timeout, message=f"job {job_id} running on the worker")
    except AssertionError as exc:
        job = RFPBatchJob.objects.get(pk=job_id)
        raise AssertionError(
            f"{exc}: the job is {job.status} at {job.processed_items} of {job.total_items}, task "
            f"{job.celery_task_id!r}; the worker is {'alive' if worker.alive else 'gone'} and runs "
            f"{worker.active_task_ids()}; the end of its log:\n{worker.log()[-2000:]}"
        ) from None
