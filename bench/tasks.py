"""Tasks that exist only for `make bench`, in workers started with `-A bench.benchapp`.

`noop` is the baseline of what the job toolkit costs: a task with nothing to
do. `tracked` is the same nothing run by `run_job` on a real job table
(SystemCheck), so its row is written at start and at end like every job's.
`progress` keeps a job's row changing, as a batch job does, while the status
endpoint is under load.
"""

import time

from celery import shared_task


def run_tracked(task, job_id: int, work) -> dict:
    # Imported here: the worker imports this module before Django's apps are ready.
    from jobs.models import SystemCheck
    from jobs.runner import run_job

    return run_job(task, SystemCheck, job_id, work)


@shared_task(name="bench.noop")
def noop(number: int) -> int:
    return number


@shared_task(bind=True, name="bench.tracked")
def tracked(self, job_id: int) -> dict:
    return run_tracked(self, job_id, lambda job: {"done": 1})


@shared_task(bind=True, name="bench.progress")
def progress(self, job_id: int, seconds: float, interval: float = 0.05) -> dict:
    def work(job):
        updates, deadline = 0, time.monotonic() + seconds
        while time.monotonic() < deadline:
            updates += 1
            job.set_counts(processed_items=updates % job.total_items, successful_items=updates % job.total_items)
            time.sleep(interval)
        return {"updates": updates}

    return run_tracked(self, job_id, work)
