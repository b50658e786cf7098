"""The start of a text where only so much fits (a report line, a notification, an email subject)."""

import textwrap

SUBJECT_CHARS = 200  # an email subject: a mail program shows its start, the body says it all
MARK = " …"


def excerpt(text: str, chars: int) -> str:
    """`text` in at most `chars` characters, on one line: cut after a whole word and ending " …" when cut, so a
    reader never takes "how many peopl" for the question. A first word longer than that (a URL) is cut inside."""
    short = textwrap.shorten(text, chars, placeholder=MARK)
    if short == MARK.strip() and text.strip():
        return " ".join(text.split())[: chars - 1] + "…"
    return short
