"""The test process hashes passwords with PBKDF2 at one iteration instead of Django's million.

Every user a test makes and every password sign-in cost a hash of ~0.4 s on this machine: about a
fifth of `make test`'s rest lane went to them. The hashes stay `pbkdf2_sha256$1$…`, their iteration
count inside, so a process on the product's own settings (a Celery worker, make run's gunicorn in
the supervised and two-machine tests) checks them as they are, and upgrades them to the million when
such a user signs in. Nothing here reaches the product: tests/conftest.py installs it in the test
process only.
"""

from django.contrib.auth.hashers import PBKDF2PasswordHasher, get_hashers, get_hashers_by_algorithm


class OneIterationPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1


def use_fast_hashing(settings) -> None:
    settings.PASSWORD_HASHERS = [f"{__name__}.{OneIterationPBKDF2PasswordHasher.__name__}"]
    # Django caches the hashers it has built; override_settings would clear them, a plain assignment does not.
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()
