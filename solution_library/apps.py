from django.apps import AppConfig


class SolutionLibraryConfig(AppConfig):
    name = "solution_library"
    verbose_name = "Solution library"

    def ready(self):
        from . import signals  # noqa: F401  (registers the post_save receivers)
