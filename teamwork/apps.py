from django.apps import AppConfig


class TeamworkConfig(AppConfig):
    """Working on an RFP as a team: roles, assignments with due dates, comments and mentions, notifications."""

    name = "teamwork"
    verbose_name = "Teamwork"

    def ready(self):
        from rfp_manager import access

        from . import signals  # noqa: F401  (connects the receivers)
        from .services import roles

        access.install(roles)  # the RFP pages ask these roles who may do what
