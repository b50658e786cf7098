from django.apps import AppConfig


class RfpManagerConfig(AppConfig):
    name = "rfp_manager"
    verbose_name = "RFP manager"

    def ready(self):
        from jobs.kinds import register

        from . import job_kinds

        register(*job_kinds.KINDS)  # what the jobs page lists and the sweeper watches
