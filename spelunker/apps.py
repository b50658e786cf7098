from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.db.backends.signals import connection_created
from django.db.models.signals import post_delete, post_save


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
        from .auth import forget_user

        connection_created.connect(_tune_sqlite, dispatch_uid="spelunker.sqlite_wal")
        # The signed-in user kept in Memcached (spelunker.auth) is forgotten whenever its row changes.
        user_model = get_user_model()
        post_save.connect(forget_user, sender=user_model, dispatch_uid="spelunker.forget_user_saved")
        post_delete.connect(forget_user, sender=user_model, dispatch_uid="spelunker.forget_user_deleted")
