from django.apps import AppConfig


class AnswerLibraryConfig(AppConfig):
    name = "answer_library"
    verbose_name = "Answer library"

    def ready(self):
        from jobs.kinds import register
        from rfp_manager import reuse

        from . import (
            job_kinds,
            signals,  # noqa: F401  (records human edits as library candidates, clears the links of deleted entries)
        )
        from .reuse import AnswerLibrary

        register(*job_kinds.KINDS)  # what the jobs page lists and the sweeper watches
        reuse.install(AnswerLibrary())  # the responder reuses approved entries, the pages list them
