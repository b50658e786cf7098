"""Roles per RFP, enforced on the server: owner, contributor (what is assigned, or everything when shared), viewer."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse

from answer_library.models import Candidate, Entry
from audit.models import AuditEvent
from rfp_manager.models import Answer
from teamwork.models import Membership
from teamwork.services import assignments

from .conftest import draft_answers

pytestmark = pytest.mark.django_db


def _edit(client, question, text="Edited."):
    return client.post(reverse("rfp_manager:answer_edit", args=[question.pk]), {"final_text": text})


def test_a_viewer_reads_but_an_edit_is_refused_with_the_reason(rfp, carol, client):
    question = rfp.questions.first()
    client.force_login(carol)
    page = client.get(reverse("rfp_manager:answer_edit", args=[question.pk])).content.decode()
    assert 'id="edit-refusal"' in page and "viewers read, they do not change answers" in page

    response = _edit(client, question)

    assert response.status_code == 403 and "viewers read, they do not change answers" in response.content.decode()
    assert not Answer.objects.filter(question=question, final_text="Edited.").exists()


def test_a_viewer_opening_the_rfps_edit_address_reads_its_details_without_a_form(rfp, carol, client):
    client.force_login(carol)
    url = reverse("rfp_manager:edit", args=[rfp.pk])
    page = client.get(url).content.decode()
    assert 'id="read-only-note"' in page and "(your role: viewer)" in page and "owner, alice, changes them" in page
    assert 'id="rfp-details"' in page and rfp.name in page
    assert '<form method="post" class="stack panel">' not in page and 'name="name"' not in page
    assert client.post(url, {"name": "Renamed", "status": "draft"}).status_code == 403


# --- the workspace shows each person the controls they may use; the server refuses the rest --------------

OWNER_CONTROLS = [
    'approve-button"',
    'assign-control"',
    'id="bulk-approve"',
    'id="bulk-assign"',
    'row-select"',
    'id="start-responder"',
    'id="import-submit"',
    'id="assign-questions"',
]


def _workspace(client, rfp) -> str:
    return client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()


def test_a_viewer_sees_no_control_they_would_be_refused_and_a_direct_post_is_refused(rfp, carol, client, user_client):
    draft_answers(rfp.questions.all())  # each row could offer Approve, Re-draft, Save to the answer library
    question = rfp.questions.order_by("order").first()
    owner_page = _workspace(user_client, rfp)
    for control in [*OWNER_CONTROLS, 'class="link redraft-button"', 'class="approve-link"']:
        assert control in owner_page, control  # the owner's page has them: the test below looks for real markup
    client.force_login(carol)

    page = _workspace(client, rfp)

    for control in [*OWNER_CONTROLS, "redraft-button", 'class="approve-link"', "Re-draft", ">Approve<"]:
        assert control not in page, control
    assert f'href="{reverse("rfp_manager:answer_edit", args=[question.pk])}" class="edit-link">Open</a>' in page
    assert "your role: viewer" in page and "{#" not in page  # (a template comment of two lines would show)
    refused = [
        client.post(reverse("rfp_manager:question_approve", args=[question.pk])),
        client.post(reverse("rfp_manager:question_redraft", args=[question.pk])),
        client.post(
            reverse("rfp_manager:workspace_bulk", args=[rfp.pk]), {"action": "approve", "question": [question.pk]}
        ),
        client.post(
            reverse("rfp_manager:workspace_bulk", args=[rfp.pk]), {"action": "assign", "question": [question.pk]}
        ),
        client.get(reverse("teamwork:assign", args=[rfp.pk])),
        client.post(reverse("answer_library:approve", args=[question.answer.pk]), {"mode": "new"}),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    assert set(rfp.questions.values_list("status", flat=True)) == {"drafted"}


def test_a_contributor_sees_re_draft_on_their_own_questions_only(rfp, user, bob, client):
    draft_answers(rfp.questions.all())
    mine, other = rfp.questions.order_by("order")[:2]
    assignments.assign_questions(rfp, [mine], bob, None, user)
    client.force_login(bob)

    page = _workspace(client, rfp)

    row = {q: page.split(f'id="q{q.pk}"')[1].split("</tr>")[0] for q in (mine, other)}
    assert "redraft-button" in row[mine] and ">Edit</a>" in row[mine]
    assert "redraft-button" not in row[other] and ">Open</a>" in row[other]
    for control in OWNER_CONTROLS:
        assert control not in page, control
    assert client.post(reverse("rfp_manager:question_redraft", args=[other.pk])).status_code == 403
    assert client.post(reverse("rfp_manager:question_approve", args=[mine.pk])).status_code == 403


def test_a_contributor_edits_what_is_assigned_to_them_and_nothing_else(rfp, user, bob, client):
    mine, other = rfp.questions.order_by("order")[:2]
    assignments.assign_questions(rfp, [mine], bob, None, user)
    client.force_login(bob)
    assert _edit(client, mine).status_code == 302
    refused = _edit(client, other)
    assert refused.status_code == 403 and "Q2 is not assigned to you" in refused.content.decode()


def test_a_shared_group_contributes_on_every_question(rfp, django_user_model, client):
    team = Group.objects.create(name="bid team")
    rfp.shared_with.add(team)
    member = django_user_model.objects.create_user("gina")
    member.groups.add(team)
    client.force_login(member)
    assert _edit(client, rfp.questions.order_by("order")[3]).status_code == 302
    assert client.post(reverse("rfp_manager:start_responder", args=[rfp.pk])).status_code == 403  # owners run jobs


def test_the_owner_gives_and_takes_roles_and_each_change_is_audited(rfp, user, user_client, django_user_model):
    hank = django_user_model.objects.create_user("hank")
    client = Client()  # a second signed-in client beside alice's
    client.force_login(hank)
    assert client.get(reverse("rfp_manager:detail", args=[rfp.pk])).status_code == 404  # not on the RFP yet

    user_client.post(reverse("teamwork:people", args=[rfp.pk]), {"user": hank.pk, "role": "viewer"})
    assert client.get(reverse("rfp_manager:detail", args=[rfp.pk])).status_code == 200
    user_client.post(reverse("teamwork:people", args=[rfp.pk]), {"user": hank.pk, "role": "owner"})
    assert (
        client.post(reverse("teamwork:people", args=[rfp.pk]), {"remove": user.pk}).status_code == 404
    )  # not a member
    user_client.post(reverse("teamwork:people", args=[rfp.pk]), {"remove": hank.pk})

    assert not Membership.objects.filter(user=hank).exists()
    changes = [
        (e.detail["before"], e.detail["after"]) for e in AuditEvent.objects.filter(action="role_changed").order_by("pk")
    ]
    assert changes == [("", "viewer"), ("viewer", "owner"), ("owner", "")]


def test_a_contributor_may_not_change_roles(rfp, bob, client, django_user_model):
    client.force_login(bob)
    other = django_user_model.objects.create_user("ivan")
    assert (
        client.post(reverse("teamwork:people", args=[rfp.pk]), {"user": other.pk, "role": "owner"}).status_code == 403
    )
    assert not Membership.objects.filter(user=other).exists()


# --- the answer library: editors approve, retire, merge and decide; others propose ----------------------


def _entry(user):
    from answer_library.services.entries import save_entry

    return save_entry(Entry(), user, "test", question="Is data encrypted at rest?", answer_text="Yes.")


@pytest.fixture
def answered(rfp, user):
    question = rfp.questions.first()
    return Answer.objects.create(question=question, draft_text="Yes, AES-256.", final_text="Yes, with AES-256.")


def _approve(client, answer):
    return client.post(
        reverse("answer_library:approve", args=[answer.pk]),
        {
            "mode": "new",
            "question": answer.question.text,
            "answer_text": answer.final_text,
            "owner": answer.question.rfp.owner_id,
            "review_by": "2031-01-01",
        },
    )


def test_someone_who_is_not_an_editor_proposes_instead_of_approving(answered, user_client, offline_embedding):
    response = _approve(user_client, answered)
    assert response.status_code == 302
    assert not Entry.objects.exists()
    candidate = Candidate.objects.get(answer=answered)
    assert candidate.status == "open" and candidate.text == "Yes, with AES-256."


def test_an_editor_approves_into_the_library(answered, user, user_client, offline_embedding):
    user.user_permissions.add(Permission.objects.get(codename="edit_library"))
    assert _approve(user_client, answered).status_code == 302
    assert Entry.objects.get().answer_text == "Yes, with AES-256."
    assert AuditEvent.objects.get(action="library_changed").detail["after"] == "Yes, with AES-256."


def test_retiring_and_deciding_are_refused_to_those_who_are_not_editors(user, user_client, offline_embedding):
    entry = _entry(user)
    response = user_client.post(reverse("answer_library:entry_retire", args=[entry.pk]))
    assert response.status_code == 403 and "Only answer library editors" in response.content.decode()
    assert Entry.objects.get(pk=entry.pk).status == "active"
