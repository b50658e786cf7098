"""Visitors' search: answers only from published entries; otherwise the question goes to the team as a one-question RFP."""

import pytest

from answer_library.models import Entry
from rfp_manager.models import RFP
from trust_center.models import VisitorEvent, VisitorQuestion

from .conftest import PUBLISHED, UNPUBLISHED

pytestmark = pytest.mark.django_db


def _search(client, acme, q, address="127.0.0.1"):
    return client.get(acme.url, {"q": q}, REMOTE_ADDR=address)


def test_a_published_question_is_answered_with_its_published_text(client, acme):
    question, answer = PUBLISHED["Data protection"][0]
    response = _search(client, acme, question)
    result = response.content.decode().split('class="trust-result"', 1)[1]
    assert answer in result and "Send the question to the team" not in result
    assert VisitorEvent.objects.filter(kind="search", detail=question).exists()


def test_an_unpublished_entry_is_never_found_even_word_for_word(client, acme):
    response = _search(client, acme, UNPUBLISHED[0])
    html = response.content.decode()
    assert UNPUBLISHED[1] not in html
    assert "Send the question to the team" in html


def test_a_published_entry_shows_its_published_text_not_the_newer_draft(client, acme):
    question, answer = PUBLISHED["Infrastructure"][0]
    Entry.objects.filter(pk=acme.published[question].entry_id).update(answer_text="Unapproved new hosting text.")
    html = _search(client, acme, question).content.decode()
    assert answer in html and "Unapproved new hosting text." not in html


def test_library_documents_are_never_searched(client, acme):
    assert "Never published." not in _search(client, acme, "Internal runbook never published").content.decode()


def test_an_unanswered_question_goes_to_the_team_as_a_one_question_rfp(client, acme, team):
    response = client.post(
        f"{acme.url}ask/", {"question": "Do you support customer-managed keys?", "email": "vera@prospect.example"}
    )
    assert response.status_code == 200 and "went to our security team" in response.content.decode()
    asked = VisitorQuestion.objects.get()
    rfp = RFP.objects.get(pk=asked.rfp_id)
    assert rfp.owner == team and rfp.client == "vera@prospect.example"
    assert list(rfp.questions.values_list("text", flat=True)) == ["Do you support customer-managed keys?"]
    assert VisitorEvent.objects.filter(kind="question", email="vera@prospect.example").exists()


def test_questions_and_searches_are_rate_limited(client, acme, settings):
    settings.TRUST_CENTER_QUESTIONS_PER_HOUR = 1
    settings.TRUST_CENTER_SEARCHES_PER_HOUR = 1
    assert client.post(f"{acme.url}ask/", {"question": "One?"}).status_code == 200
    assert client.post(f"{acme.url}ask/", {"question": "Two?"}).status_code == 429
    assert RFP.objects.count() == 1
    assert _search(client, acme, "encryption").status_code == 200
    assert _search(client, acme, "encryption").status_code == 429
    assert _search(client, acme, "encryption", address="10.2.2.2").status_code == 200
