"""Who changed what: answer history on the question, and the audit log (tests/audit/test_trail.py: every change)."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from audit.models import AnswerRevision, AuditEvent
from llm_manager.models import LLMApi
from rfp_manager.models import Answer, RFPBatchJob
from tests.rfp_manager.conftest import make_rfp

pytestmark = pytest.mark.django_db


@pytest.fixture
def rfp(user):
    return make_rfp(user, ["Do you encrypt data at rest?"])


@pytest.fixture
def question(rfp):
    return rfp.questions.get()


def _events(action):
    return list(AuditEvent.objects.filter(action=action))


def test_an_answer_keeps_who_drafted_reviewed_and_edited_it_with_the_previous_text(rfp, question, user, user_client):
    responder = RFPBatchJob.objects.create(rfp=rfp, job_type="responder", started_by=user, question_ids=[question.pk])
    answer = Answer.objects.create(question=question, draft_text="Yes, AES-256 [1].", responder_job=responder)
    reviewer = RFPBatchJob.objects.create(rfp=rfp, job_type="reviewer", started_by=user, question_ids=[question.pk])
    answer.review_verdict, answer.review_feedback, answer.reviewer_job = "approved", "Supported by [1].", reviewer
    answer.save()
    url = reverse("rfp_manager:answer_edit", args=[question.pk])
    user_client.post(url, {"final_text": "Yes: AES-256 at rest."})
    user_client.post(url, {"final_text": "Yes: AES-256 at rest, TLS 1.3 in transit."})

    history = [(r.kind, r.actor, r.previous_text, r.text) for r in AnswerRevision.objects.order_by("pk")]
    assert history == [
        ("drafted", user, "", "Yes, AES-256 [1]."),
        ("reviewed", user, "", "Supported by [1]."),  # the reviewer's verdict is never an approval
        ("edited", user, "Yes, AES-256 [1].", "Yes: AES-256 at rest."),
        ("edited", user, "Yes: AES-256 at rest.", "Yes: AES-256 at rest, TLS 1.3 in transit."),
    ]
    page = user_client.get(url).content.decode()
    assert 'id="answer-history"' in page and "Reviewed" in page and "Yes: AES-256 at rest." in page
    assert "Reviewer: supported" in page and "Approved by" not in page
    # A machine's draft is the machine's, with who started it; an edit is the person's.
    assert "<strong>Drafted</strong> by Spelunker (started by alice)" in page
    assert "<strong>Edited</strong> by alice" in page and "Drafted</strong> by alice" not in page


def test_job_start_and_cancel_are_recorded_once(rfp, user, user_client):
    user_client.post(reverse("rfp_manager:start_responder", args=[rfp.pk]))
    job = RFPBatchJob.objects.get(rfp=rfp)
    for _ in range(2):  # the second click finds the job already cancelled
        user_client.post(reverse("rfp_manager:job_cancel", args=[job.pk]))
    started, cancelled = _events("job_started"), _events("job_cancelled")
    assert [(e.actor, e.rfp, e.detail["job_id"]) for e in started] == [(user, rfp, job.pk)]
    assert [(e.actor, e.rfp, e.detail["job_id"]) for e in cancelled] == [(user, rfp, job.pk)]


def test_exports_are_recorded(rfp, user, user_client):
    user_client.get(reverse("rfp_manager:export_csv", args=[rfp.pk]))
    user_client.get(reverse("rfp_manager:export_xlsx", args=[rfp.pk]))
    assert [(e.actor, e.rfp, e.detail["format"]) for e in reversed(_events("export"))] == [
        (user, rfp, "export_csv"),
        (user, rfp, "export_xlsx"),
    ]


def test_a_refused_export_is_not_recorded(rfp, client, django_user_model):
    client.force_login(django_user_model.objects.create_user("bob", password="pw-bob-12345"))
    assert client.get(reverse("rfp_manager:export_csv", args=[rfp.pk])).status_code == 404
    assert _events("export") == []


def test_sharing_changes_are_recorded(rfp, user, user_client):
    team = Group.objects.create(name="bid team")
    user.groups.add(team)
    user_client.post(
        reverse("rfp_manager:edit", args=[rfp.pk]),
        {"name": rfp.name, "client": "", "status": "draft", "shared_with": [team.pk]},
    )
    [event] = _events("sharing_changed")
    assert (event.actor, event.rfp, event.detail) == (user, rfp, {"change": "add", "groups": ["bid team"]})


def test_llm_api_changes_are_recorded_without_the_key(staff_user, staff_client):
    staff_client.post(
        reverse("admin:llm_manager_llmapi_add"),
        {
            "name": "Local vLLM",
            "kind": LLMApi.KIND_OPENAI,
            "base_url": "http://127.0.0.1:9/v1",
            "api_key": "sk-secret-1",
            "timeout_seconds": "30",
            "max_concurrent_requests": "2",
            "requests_per_minute": "0",
            "models-TOTAL_FORMS": "0",
            "models-INITIAL_FORMS": "0",
        },
    )
    api = LLMApi.objects.get(name="Local vLLM")
    api.api_key = "sk-secret-2"
    api.save()
    changes = [(e.actor, e.detail["changed"]) for e in reversed(_events("llm_api_changed")) if "Local vLLM" in e.target]
    assert changes[0][0] == staff_user and "api_key" in changes[0][1]
    assert changes[1] == (None, ["api_key"])  # outside a request: the system
    assert "sk-secret" not in str(list(AuditEvent.objects.values()))


def test_staff_read_every_event_and_an_owner_those_of_their_rfps(rfp, user_client, staff_user, django_user_model):
    user_client.get(reverse("rfp_manager:export_csv", args=[rfp.pk]))
    staff_client = Client()  # not the `staff_client` fixture: that would sign the same client in as staff
    staff_client.force_login(staff_user)
    page = staff_client.get(reverse("audit:log"), {"action": "export"}).content.decode()
    assert "alice exported the answers of RFP" in page and "as a CSV file." in page
    assert "alice exported the answers" in user_client.get(reverse("audit:log")).content.decode()  # her own RFP
    outsider = Client()
    outsider.force_login(django_user_model.objects.create_user("bob"))
    assert "alice exported" not in outsider.get(reverse("audit:log")).content.decode()
    assert "alice exported" not in outsider.get(reverse("audit:export_csv")).content.decode()
