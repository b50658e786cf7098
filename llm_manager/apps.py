from django.apps import AppConfig


class LlmManagerConfig(AppConfig):
    name = "llm_manager"
    verbose_name = "LLM manager"

    def ready(self):
        from jobs.kinds import register

        from . import job_kinds

        register(*job_kinds.KINDS)  # what the jobs page lists and the sweeper watches
