"""Cited sources read [1], [2], … in the order the answer cites them, in the text and the source list alike."""

from text.citations import closing_gaps, renumbered


def passages(*numbers):
    return [{"n": n, "chunk_id": 100 + n} for n in numbers]


def test_a_lone_second_passage_becomes_the_first():
    text, sources = renumbered("Backups run hourly [2].", passages(1, 2, 3))
    assert text == "Backups run hourly [1]."
    assert [(s["n"], s["chunk_id"]) for s in sources] == [(1, 102), (2, 101), (3, 103)]


def test_gaps_close_in_order_of_first_citation_and_repeats_keep_their_number():
    text, sources = renumbered("Encrypted [4]; keys rotate [1]; see also [4] and [9].", passages(1, 2, 3, 4))
    assert text == "Encrypted [1]; keys rotate [2]; see also [1] and [9]."  # [9] names no passage: left alone
    assert [(s["n"], s["chunk_id"]) for s in sources] == [(1, 104), (2, 101), (3, 102), (4, 103)]


def test_an_answer_citing_nothing_keeps_its_passages_as_they_were():
    assert renumbered("No supporting content in the library.", passages(1, 2)) == (
        "No supporting content in the library.",
        passages(1, 2),
    )


def listed(n, cited=False, inserted=False):
    return {"n": n, "chunk_id": 100 + n, "cited": cited, "inserted": inserted}


def test_an_inserted_source_takes_the_first_number_only_an_uncited_passage_held():
    """The draft cites [1] and [2]; a person inserts a sentence of passage [6] and a search result added as [8]: they
    become [3] and [4], in the order the text cites them, and the uncited passages [3] and [4] take 6 and 8."""
    sources = [listed(1, True), listed(2, True), *(listed(n) for n in (3, 4, 5, 7)), listed(6, True, True)]
    sources.append(listed(8, True, True))
    text, sources = closing_gaps("Encrypted [1]. Keys [2]. Added [8]. Rotated yearly [6]; again [8].", sources)
    assert text == "Encrypted [1]. Keys [2]. Added [3]. Rotated yearly [4]; again [3]."
    assert [(s["n"], s["chunk_id"], s["cited"]) for s in sources] == [
        (1, 101, True),
        (2, 102, True),
        (3, 108, True),
        (4, 106, True),
        (5, 105, False),
        (6, 104, False),
        (7, 107, False),
        (8, 103, False),
    ]
    assert closing_gaps(text, sources) == (text, sources)  # saved again: nothing moves


def test_the_drafts_own_citations_keep_their_numbers_and_a_gap_no_insert_made_stays():
    """Only what a person inserted moves: the draft's text shows its own numbers, so [3] stays [3] beside an
    uncited [2]."""
    sources = [listed(1, True), listed(2), listed(3, True)]
    assert closing_gaps("Encrypted [1]. Rotated [3].", sources) == ("Encrypted [1]. Rotated [3].", sources)
