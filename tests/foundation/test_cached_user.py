"""The signed-in user comes from Memcached (spelunker.auth), and any change to its row applies to the next request.

Against the test stack's real Memcached and PostgreSQL, through Django's test client.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

pytestmark = pytest.mark.django_db


def user_rows_read(client) -> int:
    """How many queries on the user table one signed-in request made."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("teamwork:notifications"), HTTP_ACCEPT="text/html").status_code == 200
    return sum('FROM "auth_user"' in q["sql"] for q in queries.captured_queries)


def signed_in(client) -> bool:
    return client.get(reverse("teamwork:notifications")).status_code == 200


def test_a_signed_in_request_reads_the_user_row_once_then_memcached(user_client):
    assert user_rows_read(user_client) == 1
    assert user_rows_read(user_client) == 0


def test_a_deactivated_user_is_signed_out_by_the_next_request(user_client, user):
    assert user_rows_read(user_client) == 1  # now kept in Memcached
    user.is_active = False
    user.save()
    assert not signed_in(user_client)


def test_a_changed_password_ends_other_sessions_at_the_next_request(user_client, user):
    assert signed_in(user_client)
    user.set_password("pw-alice-changed-456")
    user.save()
    assert not signed_in(user_client)


def test_a_deleted_user_is_signed_out_by_the_next_request(user_client, user):
    assert signed_in(user_client)
    user.delete()
    assert not signed_in(user_client)


def test_a_new_staff_flag_shows_on_the_next_request(user_client, user):
    assert user_client.get(reverse("admin:index")).status_code == 302  # not staff: to the admin's login
    user.is_staff = user.is_superuser = True
    user.save()
    assert user_client.get(reverse("admin:index")).status_code == 200
