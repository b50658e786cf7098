"""Structured logging: one JSON object per line.

Inside a Celery task every record carries the task's id and name, and the job
id when the task names one (`job_id` in its kwargs or in `extra={}`).
"""

import logging

from pythonjsonlogger.json import JsonFormatter as _BaseJsonFormatter


class JsonFormatter(_BaseJsonFormatter):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("timestamp", True)
        super().__init__("%(levelname)s %(name)s %(message)s", *args, **kwargs)


class TaskContextFilter(logging.Filter):
    """Add task_id, task_name and job_id from the task being executed, if any."""

    def filter(self, record):
        from celery import current_task

        task = current_task
        if task and getattr(task, "request", None) and task.request.id:
            record.task_id = getattr(record, "task_id", task.request.id)
            record.task_name = getattr(record, "task_name", task.name)
            job_id = (task.request.kwargs or {}).get("job_id")
            if job_id is not None and not hasattr(record, "job_id"):
                record.job_id = job_id
        return True
