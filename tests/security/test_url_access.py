"""Every URL the resolver knows, walked: anonymous, signed-in non-owner, non-staff.

Each check loops over all patterns and reports every URL that breaks the
rule at once. The table of who may reach what is url_access.py.
"""

from urllib.parse import urlsplit

import pytest

from .conftest import member_client
from .url_access import (
    ADMIN,
    EDITOR,
    OPEN,
    OWNER,
    RFP_OWNER,
    SIGNED_IN,
    STAFF,
    TRUST_CENTER_OPEN,
    URL_ACCESS,
    VIEWER,
    all_routes,
    rule_for,
    walk,
)

pytestmark = pytest.mark.django_db

LOGIN_PATHS = {"/login/", "/admin/login/"}
EXPECTED_OPEN = {
    "healthz",
    "readyz",
    "login",
    "admin:login",
    "favicon",  # the icon: browsers fetch it before signing in
    *TRUST_CENTER_OPEN,  # prospects read the trust center without an account
}


def _request(client, rule, path, **headers):
    return client.generic(rule.method, path, headers=headers)


def _is_login_redirect(response) -> bool:
    return response.status_code == 302 and urlsplit(response["Location"]).path in LOGIN_PATHS


def _is_401_json(response) -> bool:
    return (
        response.status_code == 401
        and response["Content-Type"].startswith("application/json")
        and response.json()["login_url"] in LOGIN_PATHS
    )


def _report(problems: list[str]) -> str:
    return f"{len(problems)} URL(s) break the rule:\n  " + "\n  ".join(problems)


def test_every_url_has_an_access_rule():
    routes = all_routes()
    unclassified = sorted(r.key for r in routes if rule_for(r) is None)
    assert not unclassified, (
        "These URL names have no row in tests/security/url_access.py URL_ACCESS; add one per name "
        "(OPEN / SIGNED_IN / OWNER / STAFF, the world object for <pk>, GET or POST):\n  " + "\n  ".join(unclassified)
    )
    stale = sorted(set(URL_ACCESS) - {r.key for r in routes})
    assert not stale, f"URL_ACCESS rows for URLs that no longer exist: {stale}"


def test_only_health_login_and_the_trust_center_are_open():
    open_in_code = {r.key for r in all_routes() if r.open_in_code}
    open_in_table = {key for key, rule in URL_ACCESS.items() if rule.access == OPEN}
    assert open_in_code == open_in_table == EXPECTED_OPEN


def test_open_urls_answer_anyone(world, client):
    problems = [
        f"{path}: {r.status_code}"
        for _, rule, path in walk(world, OPEN)
        if (r := _request(client, rule, path)).status_code != 200
    ]
    assert not problems, _report(problems)


def test_anonymous_pages_go_to_login_and_scripts_get_401_json(world, client):
    problems = []
    for route, rule, path in walk(world, SIGNED_IN, OWNER, STAFF, EDITOR, ADMIN):
        page = _request(client, rule, path)
        as_json = _request(client, rule, path, Accept="application/json")
        as_htmx = _request(client, rule, path, **{"HX-Request": "true"})
        if not _is_login_redirect(page):
            problems.append(f"{rule.method} {path} ({route.key}): page gave {page.status_code}, not a login redirect")
        for kind, response in (("JSON", as_json), ("htmx", as_htmx)):
            if not _is_401_json(response):
                problems.append(f"{rule.method} {path} ({route.key}): {kind} gave {response.status_code}, not 401 JSON")
    assert not problems, _report(problems)


def _refused_and_granted(world, access, refused_status, other_client, rightful_client) -> list[str]:
    """Each URL of `access`: another user gets `refused_status`; on GET the rightful user gets the page."""
    problems = []
    for route, rule, path in walk(world, access):
        if (status := _request(other_client, rule, path).status_code) != refused_status:
            problems.append(f"{rule.method} {path} ({route.key}): another user got {status}, not {refused_status}")
        if rule.method == "GET" and (status := _request(rightful_client, rule, path).status_code) != (
            rule.rightful_status or 200
        ):
            problems.append(f"GET {path} ({route.key}): the rightful user got {status}")
    return problems


def test_another_users_rfp_objects_are_404_and_the_owners_are_not(world, bob_client, client_factory, user):
    problems = _refused_and_granted(world, OWNER, 404, bob_client, client_factory(user))
    assert not problems, _report(problems)


def test_staff_pages_refuse_other_users_and_answer_staff(world, bob_client, client_factory, staff_user):
    problems = _refused_and_granted(world, STAFF, 403, bob_client, client_factory(staff_user))
    assert not problems, _report(problems)


def test_the_admin_sends_non_staff_to_its_login(world, bob_client):
    problems = [
        f"{path} ({route.key}): {r.status_code}"
        for route, rule, path in walk(world, ADMIN)
        if not _is_login_redirect(r := _request(bob_client, rule, path))
    ]
    assert not problems, _report(problems)


def test_shared_pages_answer_every_signed_in_user(world, bob_client):
    problems = [
        f"{path} ({route.key}): {r.status_code}"
        for route, rule, path in walk(world, SIGNED_IN)
        if rule.method == "GET" and (r := _request(bob_client, rule, path)).status_code != 200
    ]
    assert not problems, _report(problems)


def test_library_editing_refuses_those_who_are_not_editors(world, bob_client):
    problems = [
        f"{rule.method} {path} ({route.key}): {r.status_code}"
        for route, rule, path in walk(world, EDITOR)
        if (r := _request(bob_client, rule, path)).status_code != 403
    ]
    assert not problems, _report(problems)


def test_a_viewer_reads_the_rfp_and_is_refused_every_change(world, client_factory, django_user_model):
    """Carol is a viewer of alice's RFP: its pages answer her; every action that needs more is a 403."""
    carol = member_client(world, client_factory, django_user_model, "carol", VIEWER)
    problems = []
    for route, rule, path in walk(world, OWNER):
        status = _request(carol, rule, path).status_code
        expected = (rule.rightful_status or 200) if rule.role == VIEWER else 403
        if status != expected:
            problems.append(
                f"{rule.method} {path} ({route.key}, needs {rule.role}): a viewer got {status}, not {expected}"
            )
    assert not problems, _report(problems)


def test_a_contributor_is_refused_what_only_owners_do(world, client_factory, django_user_model):
    dave = member_client(world, client_factory, django_user_model, "dave", "contributor")
    problems = [
        f"{rule.method} {path} ({route.key}): a contributor got {r.status_code}"
        for route, rule, path in walk(world, OWNER)
        if rule.role == RFP_OWNER and (r := _request(dave, rule, path)).status_code != 403
    ]
    assert not problems, _report(problems)
