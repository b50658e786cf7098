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

from .words import stems

HEADING = re.compile(r"^#{1,6}[ \t]+(\S.*?)[ \t#]*$", re.MULTILINE)
BODY_HASH = re.compile(r"^([ \t]*)#", re.MULTILINE)  # a line that would read as a heading
_ESCAPED_HASH = re.compile(r"^([ \t]*)\\#", re.MULTILINE)


def as_body(text: str) -> str:
    """Body text whose lines starting with `#` are escaped: none of them reads as a heading."""
    return BODY_HASH.sub(r"\1\\#", text)


def as_written(text: str) -> str:
    """Body text as the document wrote it (escaped `#` lines unescaped), for a reader or a prompt."""
    return _ESCAPED_HASH.sub(r"\1#", text)


def section_of(passage: str, heading: str, sentence: str) -> str:
    """The heading of the section of `passage` that `sentence` comes from: where a person finds a quote.

    A passage's `heading` (the chunker's) is the section it starts in, or, when it opens on a document's preamble,
    the first heading inside it. So a quote from before the passage's first heading line sits under `heading`,
    unless that line is `heading` itself (then it is the preamble: no section, ""), and a quote after a heading
    line sits under that line ("Product roadmap", not the "Public-sector customers" the passage starts in). The
    section is the one holding the most of the sentence's words, since a draft may reword or tidy what it quotes;
    `heading` when the passage has no heading line or no section holds any of them.
    """
    inside = list(HEADING.finditer(passage))
    wanted = stems(sentence)
    if not inside or not wanted:
        return heading
    opening = heading if heading and not inside[0].group(1).startswith(heading) else ""
    ends = [m.start() for m in inside[1:]] + [len(passage)]
    sections = [(opening, passage[: inside[0].start()])]
    sections += [(m.group(1), passage[m.end() : end]) for m, end in zip(inside, ends)]
    held = [len(wanted & stems(text)) for _, text in sections]
    return sections[held.index(max(held))][0] if max(held) else heading
