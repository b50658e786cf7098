"""The Celery app for a worker whose parser dies on one document, like a parser killed for running out of memory.

`celery -A tests.faults.poison_worker worker …` is the real app with one
change in each pool process: extracting the text of a document that
contains POISON_MARKER kills that process with SIGKILL, as the kernel's
OOM killer would. Everything else (the task, acks, redelivery) is real.
"""

import os
import signal

from celery.signals import worker_process_init

from spelunker.celery import app  # noqa: F401  (the app this worker runs)

POISON_MARKER = "POISON-PILL"


@worker_process_init.connect
def make_the_parser_die_on_the_poison_document(**kwargs):
    from solution_library.services import documents

    extract = documents.extract_text

    def extract_or_die(data: bytes, file_type: str) -> str:
        text = extract(data, file_type)
        if POISON_MARKER in text:
            os.kill(os.getpid(), signal.SIGKILL)
        return text

    documents.extract_text = extract_or_die
