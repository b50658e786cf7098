"""Cited sources read [1], [2], … in the order the answer cites them, in the text and the source list alike."""

from text.citations import renumbered


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
