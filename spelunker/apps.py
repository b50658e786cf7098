from django.apps import AppConfig
from django.db.backends.signals import connection_created


def _tune_sqlite(sender, connection, **kwargs):
    """WAL lets the web process read while a worker writes (embedded default)."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode=WAL;")
            cursor.execute("PRAGMA synchronous=NORMAL;")


class SpelunkerConfig(AppConfig):
    name = "spelunker"
    verbose_name = "Spelunker system"

    def ready(self):
        from . import checks  # noqa: F401  (registers the system checks)

        connection_created.connect(_tune_sqlite, dispatch_uid="spelunker.sqlite_wal")
