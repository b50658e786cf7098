"""Key facts: the matcher that says whether a draft states a fact, and the key-fact files it reads."""

import json

import pytest

from evaluation import report
from evaluation.dataset import EvalQuestion, document_paths, document_text, load_questions
from evaluation.facts import KeyFact, answers, key_facts_path, load_key_facts, states, words
from evaluation.measures import Draft, KeyFactScore, score_key_facts, team_view
from evaluation.split import SPLITS


def _fact(*groups: list[str]) -> KeyFact:
    return KeyFact("the fact", tuple(tuple(group) for group in groups), "a-document", "a sentence")


def test_number_words_are_read_as_digits_and_compound_tens_add_up():
    assert words("kept for ninety days") == words("kept for 90 days")
    assert words("twenty-five attempts") == words("25 attempts")
    assert words("after seven days") == words("after 7 days")
    assert words("thirty") == ["30"]


def test_the_ways_of_saying_a_frequency_meet():
    for said in ("once a year", "annually", "yearly", "every year", "every 12 months", "every twelve months"):
        assert states(f"The keys are rotated {said} [1].", _fact(["annually"])), said
    for said in ("quarterly", "every three months", "once a quarter"):
        assert states(f"Access is reviewed {said}.", _fact(["every 3 months"])), said
    assert states("Logs are rotated every day.", _fact(["daily"]))
    assert states("Reports go out every week.", _fact(["weekly"]))
    assert not states("The keys are rotated monthly.", _fact(["annually"]))
    assert not states("Reviewed every six months.", _fact(["quarterly"]))


def test_durations_said_in_other_units_meet():
    assert states("The token is valid for twenty-four hours.", _fact(["1 day"]))
    assert states("Kept for 12 months.", _fact(["one year"]))
    assert states("Sessions expire after an hour.", _fact(["60 minutes"]))


def test_word_forms_meet_by_their_stems_and_plurals():
    assert states("All data is encrypted at rest.", _fact(["encryption"]))
    assert states("Backup copies are made.", _fact(["backups"]))
    assert states("Records are kept 30 days.", _fact(["30 day"]))
    assert states("Under the retention policies.", _fact(["retention policy"]))
    assert not states("Served over HTTP and LDAP.", _fact(["https"])) and not states("LDAP", _fact(["ldaps"]))


def test_a_longer_word_is_not_stated_by_a_shorter_word_it_begins_with():
    """Words are stemmed as English words, not cut to six letters as the product's full-text stems are: a tool or
    attribute name does not meet the common word it begins with, nor a word the common word of another family."""
    assert not states("Users are created with adduser.", _fact(["createrole"]))
    assert not states("The system checks the files.", _fact(["checksecurity"]))
    assert not states("The auditor certified the process.", _fact(["certificate"]))
    assert not states("Interconnection of the two sites.", _fact(["interception"]))
    assert states("The role has the CREATEROLE attribute.", _fact(["createrole"]))
    assert states("Each host is reinstalled from scratch.", _fact(["reinstallation"]))


def test_an_alternative_must_stand_whole_and_in_order():
    assert not states("a day of 90 minutes", _fact(["90 days"]))
    assert not states("keys rotated, logged yearly", _fact(["rotated yearly"]))
    assert states("keys are RSA-2048", _fact(["rsa 2048"]))


def test_a_citation_marker_is_not_a_figure():
    assert not states("Passwords are hashed [8].", _fact(["8"]))
    assert states("At least 8 characters [2].", _fact(["8"]))


def test_every_group_needs_an_alternative_and_every_fact_must_be_stated():
    retention = _fact(["90 days", "three months"], ["archive", "archived"])
    assert states("Logs are archived and kept for ninety days.", retention)
    assert not states("Logs are kept for ninety days.", retention)
    encryption = _fact(["aes 256", "aes-256"])
    assert answers("Archived logs are kept 90 days, encrypted with AES-256.", [retention, encryption])
    assert not answers("Archived logs are kept 90 days.", [retention, encryption])
    assert not answers("anything", [])


def _key_fact_files() -> dict[str, list[dict]]:
    """{split: its key-fact file's items} for each split whose file is written; dev's must be."""
    files = {split: json.loads(key_facts_path(split).read_text()) for split in SPLITS if key_facts_path(split).exists()}
    assert "dev" in files
    return files


def test_a_key_fact_file_holds_every_answerable_question_of_its_split_in_id_order_with_one_to_three_groups_a_fact():
    for split, items in _key_fact_files().items():
        answerable = [q.id for q in load_questions(split=split) if q.answerable]
        relevant = {q.id: q.relevant for q in load_questions(split=split)}
        assert [item["id"] for item in items] == answerable, split
        for item in items:
            assert item["facts"], item["id"]
            for fact in item["facts"]:
                assert set(fact) <= {"fact", "all_of", "document", "source", "doubt"}, item["id"]
                assert 1 <= len(fact["all_of"]) <= 3 and all(fact["all_of"]), item["id"]
                assert fact["document"] in relevant[item["id"]] or fact.get("doubt"), item["id"]


def test_every_key_fact_is_stated_by_its_own_source_sentence_found_in_its_document():
    """Found whatever the spacing extraction gives it ("LDAP authentication , which…" where an HTML page's link
    ended), as make eval finds a source in a draft's passages."""
    texts = {path.stem: "".join(document_text(path).split()) for path in document_paths()}
    for split in _key_fact_files():
        for qid, facts in load_key_facts(split).items():
            for fact in facts:
                assert "".join(fact.source.split()) in texts[fact.document], f"{qid}: source not in {fact.document}"
                assert states(fact.source, fact), f"{qid}: its source does not state {fact.fact!r}"


def _draft(qid: str, text: str, split: str = "test", needs_expert: bool = False, passages=()) -> Draft:
    question = EvalQuestion(qid, f"question {qid}", frozenset({"a-document"}), split=split)
    cited = [{"n": n, "text": passage} for n, passage in enumerate(passages, start=1)]
    return Draft(question, text, cited, needs_expert=needs_expert, confidence=0.5, evidence=0.5)


def test_the_measure_counts_the_drafts_of_a_split_that_state_every_key_fact_of_their_question():
    facts = {
        "T1": [_fact(["90 days"])],
        "T2": [_fact(["aes 256"]), _fact(["annually"])],
        "T3": [_fact(["ldap"])],
        "D1": [_fact(["ldap"])],
    }
    drafts = [
        _draft("T1", "Logs are kept for ninety days [1]."),
        _draft("T2", "Data is encrypted with AES-256 and the keys are reviewed monthly [2]."),
        _draft("T3", "No supporting content. Nearest passage: LDAP authentication [1].", needs_expert=True),
        _draft("D1", "LDAP is supported [1].", split="dev"),
    ]
    score = score_key_facts(drafts, "test", facts)
    assert (score.questions, score.stated, score.no_support, score.missed) == (3, 1, 1, ["T2", "T3"])
    assert score.rate == pytest.approx(1 / 3)
    assert score_key_facts(drafts, "dev", facts).rate == 1.0


def test_the_measure_says_where_a_draft_lost_the_fact_retrieval_sentences_or_choice():
    facts = {"T1": [_fact(["90 days"])], "T2": [_fact(["aes 256"])], "T3": [_fact(["ldap"], ["saml"])]}
    drafts = [
        # chosen badly: the second passage's sentence states it
        _draft(
            "T1",
            "Logs are shipped to the SIEM [1].",
            passages=["Logs are shipped to the SIEM.", "Logs are kept for 90 days."],
        ),
        # retrieved nothing that states it
        _draft("T2", "Data is encrypted [1].", passages=["Data is encrypted at rest."]),
        # the passages state it only across two sentences
        _draft(
            "T3", "Sign-in uses LDAP [1].", passages=["Sign-in uses LDAP directories. It also accepts SAML assertions."]
        ),
    ]
    score = score_key_facts(drafts, "test", facts)
    assert (score.stated, score.in_passages, score.in_a_sentence) == (0, 2, 1)
    section = "\n".join(
        report._key_facts_section({"SQLite": {"key_facts": {"test": score, "dev": KeyFactScore(0, 0, 0)}}})
    )
    assert "Lost to retrieval (the retrieved passages do not state them): 1; to sentences" in section
    assert "does not quote): 1; to choice (a quotable sentence states each, the draft does not): 1." in section


def test_the_quality_page_shows_the_target_row_and_each_split_s_count():
    scores = {"test": KeyFactScore(questions=3, stated=2, no_support=1, missed=["T3"]), "dev": KeyFactScore(0, 0, 0)}
    row = report._at_least("drafts state the key fact ≥ 0.6", scores, "rate", report.KEY_FACTS_STATED)
    assert row == "| drafts state the key fact ≥ 0.6 | 0.667 | yes | 0.000 |"
    section = "\n".join(report._key_facts_section({"SQLite": {"key_facts": scores}}))
    assert "- SQLite, test: 2 of 3 drafts state every key fact of their question (0.667)" in section
    assert "- SQLite, dev: no key facts written yet" in section and "Not stated on test on SQLite: T3." in section


def _reviewed(qid: str, text: str, verdict: str, *, relevant=True, kind="answerable", needs_expert=False) -> Draft:
    relevant_documents = frozenset({"a-document"}) if kind == "answerable" else frozenset()
    question = EvalQuestion(qid, f"question {qid}", relevant_documents, kind=kind)
    draft = Draft(question, text, [], needs_expert=needs_expert, confidence=0.5, evidence=0.5, cites_relevant=relevant)
    draft.verdict = verdict
    return draft


def test_what_a_team_sees_counts_approved_wrong_drafts_as_the_owners_check_counts_them():
    facts = {qid: [_fact(["90 days"])] for qid in ("T1", "T2", "T3", "T4", "T5")}
    drafts = [
        _reviewed("T1", "Logs are kept for 90 days [1].", "approved"),  # holds the answer
        _reviewed("T2", "Logs are shipped to the SIEM [1].", "approved", relevant=False),  # wrong document, approved
        _reviewed("T3", "Logs are rotated [1].", "needs_revision", relevant=False),  # wrong document, flagged
        _reviewed("T4", "Logs are kept [1].", "approved"),  # right document, no answer, approved
        _reviewed("T5", "No supporting content.", "", needs_expert=True),  # drafted as no support: not counted
        _reviewed("N1", "Staff are trained [1].", "approved", kind="near_miss"),
        _reviewed("N2", "No supporting content.", "", kind="near_miss", needs_expert=True),
        _reviewed("N3", "Staff numbers grow [1].", "rejected", kind="near_miss"),
    ]
    view = team_view(drafts, "test", facts)
    assert (view.answerable, view.holding_answer, view.wrong_document, view.wrong_document_approved) == (5, 1, 2, 1)
    assert (view.without_answer, view.without_answer_approved) == (3, 2)
    assert (view.no_answer, view.no_answer_approved) == (3, 1)
    assert view.no_answer_not_approved_rate == pytest.approx(2 / 3)
    section = "\n".join(report._team_section({"SQLite": {"team": {"test": view, "dev": team_view([], "dev", {})}}}))
    assert "| drafts citing no document that answers, approved | 1 of 2 (50%) | – |" in section
    assert "| questions the library cannot answer that got an approved draft | 1 of 3 (33%) | – |" in section
    rows = report._held_out_rows([{"team": {"test": view, "dev": view}}])
    assert rows[1].startswith("| held-out aim: drafts citing no answering document, approved ≤ 30% | 0.500 | NO |")
    assert "| 0.667 | NO |" in rows[2]


def test_the_answer_a_click_away_counts_the_sentences_the_editor_offers_beside_each_draft():
    """A draft without the fact whose offered sentences state it counts, "no supporting content" with offered
    sentences included; an offered sentence that states no fact does not."""
    facts = {qid: [_fact(["90 days"])] for qid in ("T1", "T2", "T3", "T4")}
    drafts = [
        _reviewed("T1", "Logs are kept for 90 days [1].", "approved"),
        _reviewed("T2", "Logs are shipped to the SIEM [1].", "approved"),
        _reviewed("T3", "No supporting content.", "", needs_expert=True),
        _reviewed("T4", "Logs are rotated [1].", "needs_revision"),
    ]
    drafts[1].offered = ["Audit logs are kept for 90 days."]
    drafts[2].offered = ["Security logs are retained for 90 days."]
    drafts[3].offered = ["Logs are rotated nightly."]
    view = team_view(drafts, "test", facts)
    assert (view.holding_answer, view.within_reach) == (1, 3)
    section = "\n".join(report._team_section({"SQLite": {"team": {"test": view, "dev": team_view([], "dev", {})}}}))
    assert "| the answer a click away: in the draft or a sentence the editor offers beside it | 3 of 4 (75%) | – |" in (
        section
    )
