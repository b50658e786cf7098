"""Django's ModelBackend with the signed-in user read from Memcached: a signed-in request touches no database.

Every signed-in request loads its user (AuthenticationMiddleware, for the login
check and the audit trail). With the session already in Memcached
(SESSION_ENGINE cached_db), that row read was most of what a signed-in request
cost beyond an anonymous one (make bench, "Live progress under load": a job's
status poll answered from Memcached still waited on the user's row).

The user is kept for USER_SECONDS and forgotten the moment its row is saved or
deleted (signals.forget_user): a password change, a deactivation or a new
staff flag applies to the very next request, as before. Django's own session
check still compares the session's hash with the (fresh or forgotten) user's
password hash. A change that bypasses save() — a queryset update() — would show
after USER_SECONDS at most; nothing in the product updates users that way.
Permissions and roles are not part of the kept object: the copy is made right
after the row is read, before any permission is looked up on it.
With Memcached down every read is a miss and the row is read as before.
"""

from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache

USER_SECONDS = 60


def user_key(user_id) -> str:
    return f"auth-user:{user_id}"


def forget_user(sender, instance, **kwargs) -> None:
    """A user's row changed or went: the next request reads it again."""
    cache.delete(user_key(instance.pk))


class CachedModelBackend(ModelBackend):
    def get_user(self, user_id):
        """The user from Memcached, else from its row (None when gone or inactive, as ModelBackend says)."""
        key = user_key(user_id)
        user = cache.get(key)
        if user is None:
            user = super().get_user(user_id)
            if user is not None:
                cache.set(key, user, timeout=USER_SECONDS)
        return user
