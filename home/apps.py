from django.apps import AppConfig


class HomeConfig(AppConfig):
    """The dashboard: the top layer, reading every app, read by none."""

    name = "home"
    verbose_name = "Home"
