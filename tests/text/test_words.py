"""The word toolkit on its own: tokens, stop words, questionnaire phrasing, stems and citation markers.

Search, the drafts' sentence choice, the citation check and the answer library's match all read a
text through these; a change here moves every one of them (and make eval's figures) at once.
"""

import pytest

from text.words import CITATION, QUESTIONNAIRE_PHRASES, STEM_CHARS, WORD, initials, stem, stems


@pytest.mark.parametrize(
    "forms",
    [
        pytest.param(("encrypted", "encryption", "encrypts"), id="cut-to-stem-chars"),
        pytest.param(("logged", "log"), id="ed-and-doubled-consonant"),
        pytest.param(("running", "run"), id="ing-and-doubled-consonant"),
        pytest.param(("rolled", "roll"), id="doubled-l-kept"),
    ],
)
def test_word_forms_meet_at_one_stem(forms):
    assert len({stem(word) for word in forms}) == 1


def test_a_stem_is_cut_and_a_short_word_keeps_its_ending():
    assert stem("availability") == "availability"[:STEM_CHARS]
    assert stem("red") == "red"  # "r" + "ed" is no past tense: fewer than three letters would remain
    assert stem("sing") == "sing"


def test_stems_leave_out_stop_words_and_one_letter_words():
    assert stems("Is the data encrypted at rest, and is a key rotated?") == {"data", "encryp", "rest", "key", "rotat"}


def test_subject_stems_also_leave_out_the_questionnaires_own_phrasing():
    question = "Please describe how your organisation encrypts backups."
    assert stems(question) >= {"please", "descri", "organi"}
    assert stems(question, subject_only=True) == {"encryp", "backup"}


def test_questionnaire_phrases_are_removed_whole():
    assert QUESTIONNAIRE_PHRASES.sub(" ", "If so, is a plan in place, such as a runbook?").split() == [
        ",",
        "is",
        "a",
        "plan",
        ",",
        "a",
        "runbook?",
    ]


def test_tokens_are_runs_of_lower_case_letters_and_digits():
    assert WORD.findall("tls 1.3 in-transit") == ["tls", "1", "3", "in", "transit"]


def test_a_citation_marker_is_one_to_three_digits_in_brackets():
    assert CITATION.findall("Backups run nightly [1]. Kept 35 days [12][3], not [1234] or [a].") == ["1", "12", "3"]


def test_an_abbreviation_meets_the_capitalised_name_it_stands_for():
    assert {"uk", "eu"} <= stems("Data is kept in the United Kingdom or the European Union.")
    assert "mfa" in stems("Multi-Factor Authentication is on for every user.")
    assert stems("Is data kept in the UK?", subject_only=True) <= stems("Data is kept in the United Kingdom.")


def test_initials_come_only_from_runs_of_capitalised_words():
    assert initials("the united kingdom and multi-factor authentication") == set()
    assert initials("Backups run daily.") == set()  # one capitalised word opening a sentence names nothing
    assert initials("Stored in the United Kingdom.") == {"uk"}


def test_a_questions_subject_asks_for_no_initials_of_its_own_capitalised_words():
    assert stems("Is Single Sign-On Available?", subject_only=True) == {"single", "sign"}
