from django.apps import AppConfig


class JobsConfig(AppConfig):
    """The job toolkit every domain app builds on. It imports none of them: each registers its own job kinds."""

    name = "jobs"
    verbose_name = "Jobs"

    def ready(self):
        from . import shutdown  # noqa: F401  (the worker_shutting_down receiver that stops running jobs at a safe point)
        from .kinds import JobKind, register

        # A worker check is a snapshot of this moment: sent again later it would prove nothing.
        register(JobKind("system_check", "Worker check", "jobs.SystemCheck", "system_check", staff_only=True))
