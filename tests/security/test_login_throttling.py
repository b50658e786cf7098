"""Password guessing is throttled (django-axes) on the login form and the admin login alike."""

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.utils import timezone

pytestmark = pytest.mark.django_db

LOGIN_FORMS = {"login form": "/login/", "admin login": "/admin/login/"}
LOCKED_MESSAGE = "Too many failed sign-in attempts"


def _attempt(client, url, username, password):
    return client.post(url, {"username": username, "password": password})


def _fail(client, url, username, times):
    return [_attempt(client, url, username, "not-the-password").status_code for _ in range(times)]


@pytest.mark.parametrize("url", LOGIN_FORMS.values(), ids=LOGIN_FORMS.keys())
def test_the_limit_locks_the_username_even_for_the_right_password(client, staff_user, url):
    limit = settings.AXES_FAILURE_LIMIT
    assert _fail(client, url, "staff", limit - 1) == [200] * (limit - 1)  # the form again, with its error
    locked = _attempt(client, url, "staff", "not-the-password")
    assert locked.status_code == 429 and LOCKED_MESSAGE in locked.content.decode()
    right = _attempt(client, url, "staff", "pw-staff-123")
    assert right.status_code == 429 and "_auth_user_id" not in client.session


def test_one_lockout_covers_both_forms(client, staff_user):
    _fail(client, "/login/", "staff", settings.AXES_FAILURE_LIMIT)
    assert _attempt(client, "/admin/login/", "staff", "pw-staff-123").status_code == 429


def test_a_locked_username_does_not_lock_other_users(client, user, staff_user):
    _fail(client, "/login/", "staff", settings.AXES_FAILURE_LIMIT)
    assert _attempt(client, "/login/", "alice", "pw-alice-123").status_code == 302


def test_a_success_before_the_limit_resets_the_count(client, user):
    limit = settings.AXES_FAILURE_LIMIT
    _fail(client, "/login/", "alice", limit - 1)
    assert _attempt(client, "/login/", "alice", "pw-alice-123").status_code == 302
    client.logout()
    assert _fail(client, "/login/", "alice", limit - 1) == [200] * (limit - 1)


def test_the_lock_lifts_after_the_cool_off(client, user):
    _fail(client, "/login/", "alice", settings.AXES_FAILURE_LIMIT)
    assert _attempt(client, "/login/", "alice", "pw-alice-123").status_code == 429
    # Let the cool-off pass: the failures now lie further back than it.
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timezone.timedelta(minutes=1)
    )
    assert _attempt(client, "/login/", "alice", "pw-alice-123").status_code == 302
