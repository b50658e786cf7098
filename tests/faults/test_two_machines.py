"""Two machines that share no disk, and a whole worker machine lost and replaced by an empty one.

Machine A runs the web, Beat and the default queue's worker; machine B the embedding and batch
workers: the Procfile's own commands, each machine with its own working folder (SPELUNKER_VAR_DIR,
search index, temp). They share PostgreSQL, RabbitMQ, Memcached and the S3 server only. The test
drives A over HTTP as a person would; no process of its own serves a queue.
"""

import re
import time

import httpx
import pytest

from rfp_manager.models import RFPBatchJob
from solution_library.models import Document
from solution_library.services.chunking import chunk_text
from tests.machines import Machine
from tests.s3 import S3Media
from tests.stack_run import csrf_token, sign_in
from tests.workers import ALL_QUEUES, database_url_for_current_connection, wait_for

from .jobs import exact, job_figures, rfp_with_questions

pytestmark = [pytest.mark.machines, pytest.mark.integration]

MACHINE_A = ["web", "scheduler", "worker-default"]
MACHINE_B = ["worker-embedding", "worker-batch"]
# Words no other passage of the test library holds, so the search result is the uploaded document's.
UPLOADED_TEXT = (
    "Quarterly tabletop exercises rehearse the zeppelin failover runbook.\n\n"
    "The zeppelin runbook names an owner, a deputy and the escalation path for each region."
)


@pytest.fixture
def machines(tmp_path, transactional_db, queue_to_own_workers):
    """Start machines with `start(name, roles)`; every queue is theirs (the session worker steps aside)."""
    for queue in ALL_QUEUES.split(","):
        queue_to_own_workers(queue)
    media = S3Media()
    shared = {"DATABASE_URL": database_url_for_current_connection(), **media.env}
    started = []

    def start(name: str, roles: list[str]) -> Machine:
        machine = Machine(name, tmp_path / name, roles, shared).start()
        started.append(machine)
        return machine

    start.media = media
    yield start
    for machine in started:
        machine.stop()


def post(client: httpx.Client, page: str, url: str, accept: str = "text/html", **kwargs) -> httpx.Response:
    """POST as the page's form does: with the CSRF token the page carries."""
    token = csrf_token(client.get(page).text)
    return client.post(
        url, data={"csrfmiddlewaretoken": token}, headers={"X-CSRFToken": token, "Accept": accept}, **kwargs
    )


def test_two_machines_share_no_disk_and_a_whole_worker_machine_is_replaced(
    record, machines, chat_library, fake_llm, user, tmp_path
):
    case = record(
        "Two machines sharing no disk; the whole worker machine killed and replaced by an empty one",
        "machine A (web, Beat, default worker) and machine B (embedding and batch workers) with separate "
        "working folders; every process of B gets SIGKILL during a responder job and a fresh B' with an "
        "empty folder takes over",
    )
    a = machines("A", MACHINE_A)
    b = machines("B", MACHINE_B)
    case.event("machine A (web, Beat, default worker) and machine B (embedding, batch workers) ready")
    browser = sign_in(a.url, user.get_username(), "pw-alice-123")

    # --- an upload on A is processed on B and searchable on A
    uploaded_at = time.monotonic()
    response = post(
        browser,
        "/library/",
        "/library/upload/",
        accept="application/json",
        files={"files": ("zeppelin-runbook.txt", UPLOADED_TEXT.encode())},
    )
    assert response.status_code == 200, response.text[:1000]
    document_id = response.json()["results"][0]["document"]["id"]
    # The result list shows each passage's document title in bold (the page also repeats the query).
    found = "<strong>zeppelin-runbook</strong>"
    wait_for(
        lambda: found in browser.get("/library/search/", params={"q": "zeppelin runbook"}).text,
        timeout=120,
        interval=0.5,
        message="the upload to be searchable on A",
    )
    upload_to_searchable = round(time.monotonic() - uploaded_at, 2)
    case.event(f"uploaded on A; searchable on A {upload_to_searchable} s later")
    document = Document.objects.get(pk=document_id)
    case.check(
        "the uploaded document",
        (document.review_status, document.chunk_count),
        ("pending_review", len(chunk_text(UPLOADED_TEXT))),
    )
    case.check("its file is in the bucket", machines.media.keys(), [document.file.name])
    case.check(
        "files in either machine's media folder", a.files(a.var_dir / "media") + b.files(b.var_dir / "media"), []
    )
    case.check(
        "processed by B's embedding worker", _ran_on(b, "solution_library.embed_document", "worker-embedding"), True
    )
    case.figure("upload on A to searchable on A (s)", upload_to_searchable)

    # --- a responder job on B, followed on A's progress page; all of B killed; B' takes over
    total = 60
    fake_llm.configure(latency_ms=150)
    rfp = rfp_with_questions(user, total)
    started_at = time.monotonic()
    response = post(browser, f"/rfps/{rfp.pk}/", f"/rfps/{rfp.pk}/jobs/responder/")
    assert response.status_code == 302, response.text[:1000]
    job = RFPBatchJob.objects.filter(rfp=rfp).latest("created_at")
    job_page = browser.get(f"/rfps/jobs/{job.pk}/")
    case.check(
        "A's progress page of the job",
        (job_page.status_code, f"/rfps/jobs/{job.pk}/status/" in job_page.text),
        (200, True),
    )
    seen = []

    def progress_on_a() -> dict:
        payload = browser.get(f"/rfps/jobs/{job.pk}/status/", headers={"Accept": "application/json"}).json()
        seen.append(payload["processed"])
        return payload

    wait_for(
        lambda: progress_on_a()["processed"] >= total // 3,
        timeout=180,
        interval=0.3,
        message="a third of the questions done",
    )
    b.kill()
    killed_at, done_at_kill = time.monotonic(), seen[-1]
    case.event(f"every process of B killed (SIGKILL) with {done_at_kill} of {total} questions done, as A's page showed")
    case.check("B was killed mid-job", 0 < done_at_kill < total, True)
    folder_before = (tmp_path / "B-prime").exists()
    fresh = machines("B-prime", MACHINE_B)
    replaced_in = round(time.monotonic() - killed_at, 1)
    case.event(f"B' started with an empty working folder, ready {replaced_in} s after the kill")
    final = wait_for(
        lambda: (p := progress_on_a()) and not p["is_active"] and p,
        timeout=300,
        interval=0.5,
        message="the job to finish, followed on A",
    )
    job_seconds = round(time.monotonic() - started_at, 1)
    case.event(f"job {final['status']} as A's page shows: {final['processed']} processed, {final['failed']} failed")

    case.check("the job's counters, result rows and answers", job_figures(job), exact(total))
    case.check(
        "A's page: status and counts at the end",
        (final["status"], final["processed"], final["succeeded"]),
        ("completed", total, total),
    )
    case.check("A's page never showed the count go back", seen == sorted(seen), True)
    case.check("B' working folder (var, search index, temp) existed before it started", folder_before, False)
    case.check(
        "B' built its search index from the database (files in its own folder)",
        bool(fresh.files(fresh.index_dir)),
        True,
    )
    case.check("B' ran the job's remaining questions", _ran_on(fresh, "rfp_manager.batch", "worker-batch"), True)
    case.figure("questions done when B was killed", done_at_kill)
    case.figure("responder job of 60 questions, B killed and replaced: start to completed (s)", job_seconds)
    case.figure("B killed to B' ready (s)", replaced_in)


def _ran_on(machine: Machine, task_prefix: str, role: str) -> bool:
    """The machine's worker of `role` received a task whose name starts with `task_prefix` (its own log says so)."""
    return bool(re.search(rf"Task {re.escape(task_prefix)}\S*\[[^\]]+\] received", machine.log(role, tail=None)))
