"""core.excerpts: a text cut to fit never ends inside a word without saying it was cut."""

import pytest

from core.excerpts import excerpt


@pytest.mark.parametrize(
    ("text", "chars", "expected"),
    [
        ("Where are you based?", 80, "Where are you based?"),  # fits: unchanged
        ("Describe your company: how many people it employs", 30, "Describe your company: how …"),
        ("line one\nline two", 80, "line one line two"),  # one line
        ("https://example.com/a/very/long/path and more", 12, "https://exa…"),  # a first word longer than the room
        ("", 10, ""),
    ],
)
def test_an_excerpt_ends_on_a_whole_word_and_says_it_was_cut(text, chars, expected):
    assert excerpt(text, chars) == expected and len(excerpt(text, chars)) <= chars
