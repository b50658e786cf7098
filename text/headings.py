"""Headings in a document's extracted text: a Markdown `#` line is a section heading, and no other line starts with `#`.

Extraction writes a document's headings (HTML's h1–h6, Word's outline levels,
a PDF's bookmarks and larger type, Markdown's own) as Markdown heading lines,
which the chunker, search and the pages read as the section a passage is in.
A document's body has lines that start with `#` too: a root shell's prompt
("# apt install nftables"), a configuration file's comments. Extraction
escapes them as Markdown does (`\\#`), so they stay text; they are shown as
written.
"""

import re

HEADING = re.compile(r"^#{1,6}[ \t]+(\S.*?)[ \t#]*$", re.MULTILINE)
BODY_HASH = re.compile(r"^([ \t]*)#", re.MULTILINE)  # a line that would read as a heading
_ESCAPED_HASH = re.compile(r"^([ \t]*)\\#", re.MULTILINE)


def as_body(text: str) -> str:
    """Body text whose lines starting with `#` are escaped: none of them reads as a heading."""
    return BODY_HASH.sub(r"\1\\#", text)


def as_written(text: str) -> str:
    """Body text as the document wrote it (escaped `#` lines unescaped), for a reader or a prompt."""
    return _ESCAPED_HASH.sub(r"\1#", text)
