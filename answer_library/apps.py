from django.apps import AppConfig


class AnswerLibraryConfig(AppConfig):
    name = "answer_library"
    verbose_name = "Answer library"

    def ready(self):
        from jobs.kinds import register

        from . import (
            job_kinds,
            signals,  # noqa: F401  (records human edits as library candidates)
        )

        register(*job_kinds.KINDS)  # what the jobs page lists and the sweeper watches
