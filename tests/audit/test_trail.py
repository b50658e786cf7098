"""An audit trail of every change, in sentences, filterable by RFP and user, and exported as formula-safe CSV."""

import csv
import io

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from answer_library.models import Entry
from answer_library.services.entries import save_entry
from audit.models import AuditEvent
from audit.sentences import sentence
from rfp_manager.models import Answer
from teamwork.services import assignments, members
from tests.rfp_manager.conftest import make_rfp
from tests.solution_library.conftest import offline_embedding  # noqa: F401  (the library upload embeds)

pytestmark = pytest.mark.django_db


@pytest.fixture
def rfp(user):
    return make_rfp(user, ["Do you encrypt data at rest?", "Do you rotate keys?"])


def _sentences(action=None) -> list[str]:
    events = AuditEvent.objects.order_by("pk")
    return [sentence(e) for e in (events.filter(action=action) if action else events)]


def test_an_edit_is_recorded_with_the_text_before_and_after(rfp, user, user_client):
    question = rfp.questions.get(number="1")
    Answer.objects.create(question=question, draft_text="Yes, AES-256 [1].")
    user_client.post(reverse("rfp_manager:answer_edit", args=[question.pk]), {"final_text": "Yes: AES-256 at rest."})

    event = AuditEvent.objects.get(action="answer_edited")
    assert sentence(event) == f"alice edited the answer to Q1 of RFP {rfp.pk} Acme RFP."
    assert (event.detail["before"], event.detail["after"]) == ("Yes, AES-256 [1].", "Yes: AES-256 at rest.")
    page = user_client.get(reverse("audit:log")).content.decode()
    assert "alice edited the answer to Q1" in page and "Yes: AES-256 at rest." in page and "{&#x27;" not in page


def test_an_approval_by_a_person_is_recorded_and_a_jobs_drafts_are_not_one_by_one(rfp, user, user_client):
    question = rfp.questions.get(number="1")
    answer = Answer.objects.create(question=question, draft_text="Drafted by a job.")  # no request: revision only
    assert not AuditEvent.objects.filter(action__startswith="answer_").exists()
    from audit.context import _current_user

    token = _current_user.set(user)  # as inside a request
    try:
        answer.review_verdict, answer.review_feedback = "approved", "Checked by hand."
        answer.save()
    finally:
        _current_user.reset(token)
    # The reviewer's verdict "approved" (read "supported") is a review, never a person's approval.
    assert _sentences("answer_approved") == []
    assert _sentences("answer_reviewed") == [
        f"alice had the answer to Q1 of RFP {rfp.pk} Acme RFP reviewed (reviewer's verdict: supported)."
    ]
    user_client.post(reverse("rfp_manager:question_approve", args=[question.pk]))
    assert _sentences("answer_approved") == [f"alice approved the answer to Q1 of RFP {rfp.pk} Acme RFP."]
    assert list(answer.revisions.order_by("pk").values_list("kind", "actor", "text")) == [
        ("drafted", None, "Drafted by a job."),
        ("reviewed", user.pk, "Checked by hand."),
        ("approved", user.pk, "Drafted by a job."),
    ]


def test_imports_uploads_assignments_comments_and_roles_read_as_sentences(rfp, user, user_client, django_user_model):
    user_client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"text": "3. Do you pen-test yearly?"}, follow=True)
    preview = AuditEvent.objects.none()  # the preview alone imports nothing
    from rfp_manager.models import QuestionImport

    user_client.post(reverse("rfp_manager:import_preview", args=[QuestionImport.objects.get().pk]))
    user_client.post(
        reverse("rfp_manager:document_upload", args=[rfp.pk]),
        {"title": "Scope", "file": SimpleUploadedFile("scope.txt", b"The scope.")},
    )
    bob = django_user_model.objects.create_user("bob")
    members.set_role(rfp, bob, "contributor", user)
    assignments.assign_questions(rfp, list(rfp.questions.filter(number__in=["1", "2"])), bob, None, user)
    user_client.post(reverse("teamwork:comment", args=[rfp.questions.get(number="1").pk]), {"text": "=1+1 @bob"})

    assert not preview
    assert _sentences() == [
        f"alice imported questions into RFP {rfp.pk} Acme RFP from Pasted text: 1 question(s).",
        f"alice uploaded “Scope” to RFP {rfp.pk} Acme RFP.",
        f"alice changed bob's role on RFP {rfp.pk} Acme RFP from no role to contributor.",
        f"alice assigned Q1, Q2 of RFP {rfp.pk} Acme RFP to bob.",
        f"alice commented on Q1 of RFP {rfp.pk} Acme RFP: “=1+1 @bob”.",
    ]


def test_library_changes_by_a_person_are_recorded(user, user_client, offline_embedding):
    user.user_permissions.add(Permission.objects.get(codename="edit_library"))
    entry = save_entry(Entry(), user, "test", question="Is data encrypted?", answer_text="Yes.")  # outside a request
    user_client.post(reverse("answer_library:entry_retire", args=[entry.pk]))
    user_client.post(reverse("solution_library:upload"), {"files": SimpleUploadedFile("policy.md", b"# Policy\\nAll.")})

    assert _sentences() == [
        f"alice saved version 2 of answer library entry {entry.pk} (Retired).",
        "alice uploaded “policy” to the document library.",
    ]


def test_the_log_filters_by_rfp_and_user_and_exports_formula_safe_csv(
    rfp, user, user_client, staff_user, django_user_model
):
    other = make_rfp(user, ["Q?"], name="Globex renewal")
    bob = django_user_model.objects.create_user("bob")
    members.set_role(rfp, bob, "owner", user)
    bob_client = Client()
    bob_client.force_login(bob)
    question = rfp.questions.get(number="1")
    Answer.objects.create(question=question, draft_text="+1 yes")
    bob_client.post(reverse("rfp_manager:answer_edit", args=[question.pk]), {"final_text": '=HYPERLINK("http://evil")'})
    user_client.get(reverse("rfp_manager:export_csv", args=[other.pk]))
    staff = Client()
    staff.force_login(staff_user)

    by_rfp = staff.get(reverse("audit:log"), {"rfp": other.pk}).content.decode()
    by_user = staff.get(reverse("audit:log"), {"user": bob.pk}).content.decode()
    assert "exported the answers of" in by_rfp and "bob edited" not in by_rfp
    assert "bob edited the answer to Q1" in by_user and "exported the answers" not in by_user

    exported = staff.get(reverse("audit:export_csv"), {"user": bob.pk})
    assert exported["Content-Disposition"].startswith('attachment; filename="audit-')
    rows = list(csv.reader(io.StringIO(exported.content.decode("utf-8-sig"))))
    assert rows[0] == ["When (UTC)", "Who", "Action", "RFP", "What happened", "Before", "After"]
    assert [r[1:] for r in rows[1:]] == [
        [
            "bob",
            "Edited an answer",
            "Acme RFP",
            f"bob edited the answer to Q1 of RFP {rfp.pk} Acme RFP.",
            "'+1 yes",
            '\'=HYPERLINK("http://evil")',
        ]
    ]


def test_answers_approved_at_once_are_recorded_one_by_one(rfp, user, user_client):
    """The workspace's bulk approve (a bulk update: no signals) still writes one event per answer, once."""
    for q in rfp.questions.all():
        Answer.objects.create(question=q, draft_text=f"Answer {q.number}.")
    selection = {"action": "approve", "question": [q.pk for q in rfp.questions.all()]}
    for _ in range(2):  # approving what is approved is no change, and no event
        user_client.post(reverse("rfp_manager:workspace_bulk", args=[rfp.pk]), selection)
    assert sorted(_sentences("answer_approved")) == [
        f"alice approved the answer to Q{n} of RFP {rfp.pk} Acme RFP." for n in ("1", "2")
    ]
    assert sorted(e.detail["after"] for e in AuditEvent.objects.filter(action="answer_approved")) == [
        "Answer 1.",
        "Answer 2.",
    ]
