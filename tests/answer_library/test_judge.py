"""A configured chat model judges the middle band: its yes turns the best suggestion into a reuse (fake server)."""

import pytest

from answer_library.models import Entry
from answer_library.services import entries, judge
from answer_library.services.matching import Match, Triage

pytestmark = pytest.mark.django_db


@pytest.fixture
def backups(llm_api, user) -> Entry:
    return entries.save_entry(
        Entry(), user, "test", question="How often are backups taken?", answer_text="Backups are taken hourly."
    )


def suggested(entry) -> Triage:
    return Triage(None, [Match(entry, 0.5, entry.question)])


def judge_requests(fake_llm) -> list[dict]:
    """The judge's calls (the fake logs each chat's last message: the question beside the entry)."""
    return [r for r in fake_llm.requests_to("/v1/chat/completions") if "\nEntry: " in (r["prompt"] or "")]


def test_the_judges_yes_turns_the_best_suggestion_into_a_reuse(backups, settings, fake_llm):
    settings.ANSWER_LIBRARY_JUDGE = True

    offer = judge.judged("Are backups taken hourly?", suggested(backups))

    assert offer.reuse.entry == backups and offer.suggestions == []
    assert len(judge_requests(fake_llm)) == 1


def test_the_judges_no_leaves_the_suggestions_for_a_person(backups, settings, fake_llm):
    settings.ANSWER_LIBRARY_JUDGE = True

    offer = judge.judged("How long are backups retained?", suggested(backups))

    assert offer.reuse is None and [m.entry for m in offer.suggestions] == [backups]
    assert len(judge_requests(fake_llm)) == 1


def test_an_unreachable_model_leaves_the_suggestions_and_no_judge_is_asked_unless_configured(
    backups, settings, fake_llm
):
    settings.ANSWER_LIBRARY_JUDGE = False
    assert judge.judged("Are backups taken hourly?", suggested(backups)).reuse is None
    assert judge_requests(fake_llm) == []

    settings.ANSWER_LIBRARY_JUDGE = True
    fake_llm.configure(fault="401")  # a rejected key: no retry, the person decides
    assert judge.judged("Are backups taken hourly?", suggested(backups)).reuse is None
