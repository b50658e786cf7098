"""The test process's fast password hashes (tests/passwords.py) are ones the product's own hasher checks."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password


def test_a_test_users_password_is_one_pbkdf2_round_that_the_products_hasher_checks():
    encoded = make_password("correct horse")
    assert encoded.startswith("pbkdf2_sha256$1$")
    products_own = PBKDF2PasswordHasher()  # what a worker or make run's gunicorn uses
    assert products_own.verify("correct horse", encoded)
    assert not products_own.verify("wrong horse", encoded)
    assert products_own.must_update(encoded)  # signed in there, the hash is raised to the product's iterations
