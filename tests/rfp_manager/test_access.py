"""Who may do what on an RFP (rfp_manager.access): the teamwork roles once teamwork installed them, and only the
owner and superusers when no policy is installed."""

import importlib

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from rfp_manager import access
from teamwork.models import Role
from tests.teamwork.conftest import add_member, bob, carol, rfp  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture
def nothing_installed():
    """The access module as it starts, before any app installs a policy; the installed one is put back after."""
    installed = access.install(access.OwnerOnly())  # taken out, to be put back
    importlib.reload(access)
    yield
    access.install(installed)


@pytest.fixture
def team_owner(rfp, django_user_model):
    """Given the owner role by name: an owner for teamwork, but not the RFP's `owner`."""
    return add_member(rfp, django_user_model, "olga", Role.OWNER)


def _status(client, person, url: str, data=None) -> int:
    client.force_login(person)
    return (client.post(url, data) if data is not None else client.get(url)).status_code


def test_without_a_policy_only_the_owner_and_superusers_open_an_rfp(
    nothing_installed, rfp, user, staff_user, bob, team_owner, client
):
    url = reverse("rfp_manager:detail", args=[rfp.pk])
    assert [_status(client, person, url) for person in (user, staff_user, bob, team_owner)] == [200, 200, 403, 403]
    assert access.access(rfp, AnonymousUser()).role is None


def test_without_a_policy_only_the_owner_edits_answers(nothing_installed, rfp, user, bob, client):
    question = rfp.questions.get(number="1")
    url = reverse("rfp_manager:answer_edit", args=[question.pk])
    assert _status(client, bob, url, {"final_text": "Changed."}) == 403
    assert access.edit_refusal(question, bob) == "Only the owner of “Acme tender” may change its answers."
    assert access.edit_refusal(question, user) == ""
    assert access.people(rfp) == [user]


def test_the_rfp_pages_ask_the_teamwork_roles(rfp, user, bob, carol):
    assert access.access(rfp, bob).role == Role.CONTRIBUTOR
    assert access.require(rfp, carol, access.VIEWER).label == "viewer"
    with pytest.raises(PermissionDenied, match="You are a viewer of “Acme tender”; this needs the owner role."):
        access.require(rfp, carol, access.OWNER)
    assert [p.get_username() for p in access.people(rfp)] == ["alice", "bob", "carol"]
