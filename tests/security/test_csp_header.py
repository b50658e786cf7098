"""The Content-Security-Policy header itself: scripts only from our files, a nonce only where asked."""

import pytest

pytestmark = pytest.mark.django_db


def _directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in header.split(";"))}


def test_pages_allow_no_inline_script_and_no_eval(user_client):
    script_src = _directives(user_client.get("/library/"))["script-src"]
    assert script_src == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval', no nonce: the page asked for none


def test_the_login_page_has_the_policy_too(client):
    directives = _directives(client.get("/login/"))
    assert directives["frame-ancestors"] == ["'none'"] and directives["object-src"] == ["'none'"]


def test_only_the_template_that_asks_gets_a_nonce(staff_client):
    response = staff_client.get("/admin/django_celery_beat/periodictask/add/")
    nonce = next(v for v in _directives(response)["script-src"] if v.startswith("'nonce-"))
    assert f'nonce="{nonce[7:-1]}"' in response.content.decode()
