from django.apps import AppConfig


class AnswerLibraryConfig(AppConfig):
    name = "answer_library"
    verbose_name = "Answer library"

    def ready(self):
        from . import signals  # noqa: F401  (records human edits as library candidates)
