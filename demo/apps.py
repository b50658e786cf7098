from django.apps import AppConfig


class DemoConfig(AppConfig):
    """Demo data for newcomers: `manage.py load_demo` and the demo documentation site (static files)."""

    name = "demo"
    verbose_name = "Demo data"
