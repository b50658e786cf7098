from django.apps import AppConfig


class SolutionLibraryConfig(AppConfig):
    name = "solution_library"
    verbose_name = "Solution library"

    def ready(self):
        from jobs.kinds import register

        from . import (
            job_kinds,
            signals,  # noqa: F401  (registers the post_save receivers)
        )

        register(*job_kinds.KINDS)  # what the jobs page lists and the sweeper watches
