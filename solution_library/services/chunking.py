"""Split a document's text into overlapping passages on natural boundaries.

The text is cut into units — paragraphs, or sentences of a long paragraph, or
word runs of an overlong sentence — and units are packed into chunks of about
`target_chars`. Each chunk after the first repeats the last units of the one
before (about `overlap_chars`), so a passage that straddles a boundary is
still found whole. A chunk does not end on a heading line: the heading opens
the next chunk, whose section it names. Chunks are slices of the text, so their offsets let a page
highlight the passage within its document. Each chunk also carries the
heading of the section it starts in (Markdown-style `#` lines, which the
parsers write for every format's headings: text.headings), which search ranks with it.
"""

import re
from dataclasses import dataclass

from text.contents import CONTENTS_HEADING, is_contents_or_index
from text.headings import HEADING

TARGET_CHARS = 1000
OVERLAP_CHARS = 200

PARAGRAPH = re.compile(r"\S(?:.*?\S)?(?=\n\s*\n|\s*\Z)", re.DOTALL)
SENTENCE = re.compile(r"\S.*?(?:[.!?](?=\s)|\Z)", re.DOTALL)
WORDS = re.compile(r"\S+")
HEADING_MAX_CHARS = 300


@dataclass(frozen=True)
class TextChunk:
    position: int
    start: int
    end: int
    text: str
    heading: str = ""


def chunk_text(
    text: str, target_chars: int = TARGET_CHARS, overlap_chars: int = OVERLAP_CHARS, *, keep_contents: bool = False
) -> list[TextChunk]:
    """The document's passages. Its contents and index pages are left out (text.contents: they match a question's
    words and answer nothing): the text around them is packed on each side, never across them. `keep_contents`:
    every paragraph packed, as before (evaluation/contents_pages.py measures the difference)."""
    headings = [(m.start(), m.group(1)[:HEADING_MAX_CHARS]) for m in HEADING.finditer(text)]
    chunks: list[TextChunk] = []
    runs = [[m.span() for m in PARAGRAPH.finditer(text)]] if keep_contents else _runs_between_contents(text)
    for paragraphs in runs:
        _pack(text, list(_units(text, paragraphs, target_chars)), headings, target_chars, overlap_chars, chunks)
    return chunks


def _runs_between_contents(text: str) -> list[list[tuple[int, int]]]:
    """The paragraphs' spans, in runs split where a contents or index page was taken out (with its heading).
    A document that is nothing but such pages keeps them: it can still be found."""
    paragraphs = [m.span() for m in PARAGRAPH.finditer(text)]
    runs: list[list[tuple[int, int]]] = [[]]
    for n, (start, end) in enumerate(paragraphs):
        heading = paragraphs[n - 1] if n and CONTENTS_HEADING.fullmatch(text[slice(*paragraphs[n - 1])]) else None
        if is_contents_or_index(text[heading[0] if heading else start : end]):
            if heading and runs[-1] and runs[-1][-1] == heading:
                runs[-1].pop()
            runs.append([])
        else:
            runs[-1].append((start, end))
    runs = [run for run in runs if run]
    return runs or [paragraphs]


def _pack(text, units, headings, target_chars: int, overlap_chars: int, chunks: list[TextChunk]) -> None:
    """Pack units into chunks of about target_chars, each after the first repeating about overlap_chars."""
    first = 0
    while first < len(units):
        last = first
        while last + 1 < len(units) and units[last + 1][1] - units[first][0] <= target_chars:
            last += 1
        while last + 1 < len(units) and last > first and _is_heading(text, units[last]):
            last -= 1  # a heading opens the next chunk: at this one's end it names a section the chunk does not hold
        start, end = units[first][0], units[last][1]
        chunks.append(TextChunk(len(chunks), start, end, text[start:end], _heading_at(headings, start, end)))
        if last + 1 >= len(units):
            break
        first = _overlap_start(units, first, last, overlap_chars, target_chars)


def _is_heading(text: str, unit: tuple[int, int]) -> bool:
    return bool(HEADING.fullmatch(text, *unit))


def _heading_at(headings: list[tuple[int, str]], start: int, end: int) -> str:
    """The last heading at or before `start`; else the first inside the chunk (a preamble has none)."""
    before = [title for offset, title in headings if offset <= start]
    if before:
        return before[-1]
    inside = [title for offset, title in headings if offset < end]
    return inside[0] if inside else ""


def _overlap_start(units, first: int, last: int, overlap_chars: int, target_chars: int) -> int:
    """Index of the unit the next chunk starts at: back from `last` by about
    overlap_chars, always moving on, and leaving room for the next new unit."""
    nxt = last + 1
    new_end = units[last + 1][1]
    while (
        nxt - 1 > first
        and units[last][1] - units[nxt - 1][0] <= overlap_chars
        and new_end - units[nxt - 1][0] <= target_chars
    ):
        nxt -= 1
    return nxt


def _units(text: str, paragraphs: list[tuple[int, int]], limit: int):
    """(start, end) spans of the paragraphs, or of their sentences or word runs, each at most `limit` long."""
    for start, end in paragraphs:
        if end - start <= limit:
            yield start, end
            continue
        for sentence in SENTENCE.finditer(text, start, end):
            if sentence.end() - sentence.start() <= limit:
                yield sentence.span()
            else:
                yield from _word_runs(text, sentence.start(), sentence.end(), limit)


def _word_runs(text: str, start: int, end: int, limit: int):
    """Runs of whole words; a single word longer than `limit` is cut in slices."""
    run_start = run_end = None
    for word in WORDS.finditer(text, start, end):
        if run_start is not None and word.end() - run_start > limit:
            yield run_start, run_end
            run_start = None
        if word.end() - word.start() > limit:
            for piece in range(word.start(), word.end(), limit):
                yield piece, min(piece + limit, word.end())
            continue
        if run_start is None:
            run_start = word.start()
        run_end = word.end()
    if run_start is not None:
        yield run_start, run_end
