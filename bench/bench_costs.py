"""What one document and one question cost the shared services: SQL statements, broker messages, storage traffic.

    bin/stack start .run/costs --with-postgres --with-s3
    set -a; source .run/costs/env; set +a
    .venv/bin/python bench/bench_costs.py [--documents 10] [--questions 40]

Counts, not times (a loaded machine does not change them): the model of docs/deployment.md
multiplies them by the work of 10 and 100 worker machines. Everything runs in this process as
the web and the worker would run it, against the stack's PostgreSQL, RabbitMQ and S3 server:

- a document: the upload (store_upload, the web's side: the row, the object, the outbox row and
  its message) and its processing (process_document, the worker's side: read the object, parse,
  chunk, embed through the fake OpenAI-compatible server, store chunks);
- a question: a responder job over `--questions` questions (run_responder_job, the batch
  worker's side: search, answer through the fake LLM, result rows), divided by the count.

SQL statements are counted on every connection of the process (the job answers questions on a
thread pool, each thread with its own connection); each is one round trip to PostgreSQL, and a
transaction adds its BEGIN and COMMIT. Broker messages are the task messages this process
publishes; a real worker adds its acknowledgement and, with task events on (settings), about
four event messages per task. Storage traffic is counted on the S3 client: requests by
operation, bytes sent and received.
"""

import argparse
import os
import threading
from collections import Counter

from _setup import setup_django


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.sql = 0
        self.messages = 0
        self.s3 = Counter()

    def snapshot(self) -> dict:
        with self.lock:
            return {"sql": self.sql, "messages": self.messages, **dict(self.s3)}


COUNTS = Counts()


def count_sql(execute, sql, params, many, context):
    with COUNTS.lock:
        COUNTS.sql += 1
    return execute(sql, params, many, context)


def install_counters() -> None:
    from celery.signals import before_task_publish
    from django.core.files.storage import default_storage
    from django.db import connection
    from django.db.backends.signals import connection_created

    connection.execute_wrappers.append(count_sql)
    connection_created.connect(lambda connection, **_: connection.execute_wrappers.append(count_sql), weak=False)

    def published(**_):
        with COUNTS.lock:
            COUNTS.messages += 1

    before_task_publish.connect(published, weak=False)
    client = getattr(default_storage, "connection", None)
    if client is None:
        return
    events = client.meta.client.meta.events

    def called(model, **_):
        with COUNTS.lock:
            COUNTS.s3[f"s3 {model.name}"] += 1

    def sent(request, **_):
        body = request.body
        size = len(body) if isinstance(body, bytes | str) else int(request.headers.get("Content-Length", 0) or 0)
        with COUNTS.lock:
            COUNTS.s3["s3 bytes sent"] += size

    def received(http_response, model, **_):
        if model.name in ("GetObject",):  # a HEAD's Content-Length is the object's size, not bytes sent to us
            with COUNTS.lock:
                COUNTS.s3["s3 bytes received"] += int(http_response.headers.get("Content-Length", 0) or 0)

    events.register("before-call.s3", called)
    events.register("before-send.s3", sent)
    events.register("after-call.s3", received)


def difference(after: dict, before: dict, per: int = 1) -> dict:
    return {
        key: round((after.get(key, 0) - before.get(key, 0)) / per, 1)
        for key in sorted(set(after) | set(before))
        if after.get(key, 0) != before.get(key, 0)
    }


def document_costs(count: int, user) -> dict:
    from solution_library.services.documents import process_document, store_upload

    text = "\n\n".join(
        f"Section {p}: our backup policy keeps encrypted copies in two regions, reviewed every "
        f"{p + 1} months by the owner of register {p * 31}."
        for p in range(20)
    )
    upload, processing = [], []
    for n in range(count):
        data = f"Document {n}.\n\n{text}".encode()
        before = COUNTS.snapshot()
        document = store_upload(f"costs-{n}.txt", data, user).document
        middle = COUNTS.snapshot()
        process_document(document.pk)
        upload.append(difference(middle, before))
        processing.append(difference(COUNTS.snapshot(), middle))
    return {"size_bytes": len(data), "upload": mean(upload), "processing": mean(processing)}


def question_costs(count: int, user) -> dict:
    from rfp_manager.models import RFP, Question, RFPBatchJob
    from rfp_manager.services.batch import create_batch_job, run_responder_job

    rfp = RFP.objects.create(name="costs", owner=user)
    Question.objects.bulk_create(
        Question(
            rfp=rfp, number=str(i + 1), text=f"How are backups encrypted? (item {i})", order=i, import_key=f"n:|{i + 1}"
        )
        for i in range(count)
    )
    job = create_batch_job(rfp, RFPBatchJob.JOB_TYPE_RESPONDER, user)
    job.start("costs")  # as the task does on its first delivery
    before = COUNTS.snapshot()
    run_responder_job(job)
    return difference(COUNTS.snapshot(), before, per=count)


def purge_embedding_queue() -> None:
    from spelunker.celery import app

    with app.connection_for_write() as conn:
        app.amqp.queues["embedding"].bind(conn.default_channel).purge()


def mean(rows: list[dict]) -> dict:
    keys = sorted({key for row in rows for key in row})
    return {key: round(sum(row.get(key, 0) for row in rows) / len(rows), 1) for key in keys}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=10)
    parser.add_argument("--questions", type=int, default=40)
    args = parser.parse_args()
    for name in ("ENDPOINT_URL", "BUCKET", "ACCESS_KEY_ID", "SECRET_ACCESS_KEY"):  # the stack's S3 as the media storage
        if os.environ.get(f"STACK_S3_{name}"):
            os.environ.setdefault(f"SPELUNKER_S3_{name}", os.environ[f"STACK_S3_{name}"])
    setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection

    from llm_manager.testing.fake_openai import FakeOpenAI
    from llm_manager.testing.fixtures import register_fake_api
    from solution_library.models import Document

    fake = FakeOpenAI().start()
    register_fake_api(fake, max_concurrent=8)
    user, _ = get_user_model().objects.get_or_create(username="bench-costs")
    install_counters()
    try:
        documents = document_costs(args.documents, user)
        questions = question_costs(args.questions, user)
    finally:
        Document.objects.filter(title__startswith="costs-").delete()
        from rfp_manager.models import RFP

        RFP.objects.filter(name="costs").delete()
        fake.stop()
        purge_embedding_queue()  # the uploads' messages: this process processed the documents itself
    print(f"database: {connection.vendor}; media: {settings.STORAGES['default']['BACKEND']}")
    print(f"one document of {documents['size_bytes']} bytes, the upload (web): {documents['upload']}")
    print(f"one document, its processing (embedding worker): {documents['processing']}")
    print(f"one question of a responder job of {args.questions} (batch worker): {questions}")


if __name__ == "__main__":
    main()
