"""A PDF's text as its reader sees it: running headers and footers dropped, headings marked, ligatures undone.

pypdf gives each page's text line by line. Four things in that text mislead
search and drafts, whoever made the PDF (a word processor, a browser's "print",
a typesetter):

- typographic ligatures ("ﬁ", "ﬀ", "ﬃ") that no question is typed with, and
  that the embedding model's vocabulary does not hold: Unicode's compatibility
  normalisation (NFKC) folds them back to letters;
- running headers and footers (a title, a date, a path, "Page 3 of 12")
  repeated on every page, which a chunk would otherwise quote as content: a line
  found at the top or the bottom of most pages, its figures aside, is dropped;
- page breaks, which cut paragraphs: a page that ends inside a sentence runs
  on into the next page's first line, in one paragraph;
- hyphenation, which cuts words at a line's end ("manip-" / "ulation"): a
  word the document writes whole elsewhere is made whole again;
- headings, which a PDF shows only by its bookmarks (the outline a reader's
  side panel lists) or by a larger font: a line that is a bookmark's title on
  the page the bookmark opens, or a line set in a font clearly larger than the
  body's, becomes a Markdown heading line, as HTML and DOCX headings do, so a
  passage knows its section (the chunker reads `#` lines, and search ranks the
  heading with the passage). A heading set on two lines is one heading.
"""

import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from text import headings

# A font at least this much larger than the body's marks a heading; footnotes and captions are smaller, never
# larger, and bold body text is the same size.
HEADING_RATIO = 1.15
HEADING_MAX_CHARS = 200
HEADING_LEVELS = 3
# Running headers and footers sit in the first and last two lines of a page; a line there that recurs on at least
# this share of the pages (and on two at least) is running matter, not content.
EDGE_LINES = 2
RUNNING_SHARE = 0.5
FIGURES = re.compile(r"\d+")
WORD = re.compile(r"[a-z]+")
# A word broken at a line's end (within a paragraph, or where a page runs on): not a compound's later part.
HYPHENATED = re.compile(r"(?<![\w-])([A-Za-z]+)-\n([a-z]+)\b")
SENTENCE_ENDS = ".!?:;)\"”'’"


@dataclass
class Page:
    lines: list[str]  # NFKC-folded, whitespace collapsed; blank lines kept (they count in a page's edge)
    # each visual line's text (spaces left out: pypdf spaces fragments its own way) → the size most of it is set in
    line_sizes: dict[str, float] = field(default_factory=dict)
    characters_by_size: Counter = field(default_factory=Counter)
    # line number → outline depth (1 first) of the lines that are a bookmark's title on the page it opens; a title
    # set on two lines is marked on its first, and its second line's number is in second_lines
    bookmarked: dict[int, int] = field(default_factory=dict)
    second_lines: set[int] = field(default_factory=set)
    rows: set[int] = field(default_factory=set)  # line numbers that are a table's rows, each a paragraph of its own

    def is_bookmarked(self, number: int) -> bool:
        return number in self.bookmarked or number in self.second_lines


@dataclass(frozen=True)
class FoundTable:
    """A table found on a page (pdf_tables): its cells' text in reading order, and its rows as the text shows them."""

    cells: list[str]
    rows: list[str]  # "Area: Encryption at rest. Control: AES-256 for every record, index and backup."


def read_pages(reader, tables: dict[int, list[FoundTable]] | None = None) -> list[Page]:
    """Each page's lines, with the font sizes its text was set in (one extraction per page) and its bookmarks;
    the lines of a page's `tables` cells replaced by the tables' rows."""
    pages = [_read_page(page) for page in reader.pages]
    for number, found in (tables or {}).items():
        for table in found:
            _place(pages[number], table)
    titles: dict[int, dict[str, int]] = defaultdict(dict)  # page index → {title key: depth}
    for title, depth, number in _bookmarks(reader):
        titles[number].setdefault(_bookmark_key(title), depth)
    for number, page in enumerate(pages):
        _mark_bookmarked_lines(page, titles.get(number, {}))
    return pages


def _bookmarks(reader) -> list[tuple[str, int, int]]:
    """(title, depth, page index) of each entry of the PDF's outline, depth 1 at the top."""
    found = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):  # pypdf lists an entry's children right after it
                walk(item, depth + 1)
            elif item.title:
                found.append((item.title, depth, reader.get_destination_page_number(item)))

    try:
        walk(reader.outline, 1)
    except Exception:  # pypdf raises many kinds on a damaged outline: it costs the headings, not the document
        return []
    return found


def _bookmark_key(text: str) -> str:
    return _spaceless(_folded(text)).lower()


def _mark_bookmarked_lines(page: Page, titles: dict[str, int]) -> None:
    """Mark the page's lines that are one of `titles` (its bookmarks' titles), alone or as two lines together."""
    if not titles:
        return
    for number, line in enumerate(page.lines):
        if number in page.second_lines:
            continue
        if (one_line := _bookmark_key(line)) in titles:
            page.bookmarked[number] = titles[one_line]
        elif (two_lines := _bookmark_key(" ".join(page.lines[number : number + 2]))) in titles:
            page.bookmarked[number] = titles[two_lines]
            page.second_lines.add(number + 1)


def _read_page(page) -> Page:
    fragments: dict[float, list[tuple[str, float]]] = defaultdict(list)  # baseline → (text, size)

    def collect(text, cm, tm, font_dict, font_size):
        if text.strip() and font_size:
            size = font_size * math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3])
            baseline = round(tm[5] * cm[3] + cm[5])
            fragments[baseline].append((text, round(size, 1)))

    text = page.extract_text(visitor_text=collect) or ""
    result = Page([_folded(line) for line in text.split("\n")])
    for parts in fragments.values():
        by_size = Counter()
        for part, size in parts:
            by_size[size] += len(part.strip())
        result.characters_by_size.update(by_size)
        result.line_sizes[_spaceless(_folded("".join(part for part, _ in parts)))] = by_size.most_common(1)[0][0]
    return result


def _place(page: Page, table: FoundTable) -> None:
    """Replace the run of the page's lines that holds exactly the table's cells, in order, with its rows. pypdf
    may read a table otherwise (two cells' lines interleaved): then no run matches and its lines stay as they are."""
    target = _spaceless(_folded("".join(table.cells)))
    lines = [_spaceless(line) for line in page.lines]
    for start, line in enumerate(lines):
        if not line or not target.startswith(line):
            continue
        taken, end = 0, start  # how much of the target the run's lines hold, and where the run ends
        while end < len(lines) and target.startswith(lines[end], taken):
            taken, end = taken + len(lines[end]), end + 1
        if taken == len(target):
            page.lines[start:end] = table.rows
            page.rows = {n if n < start else n + len(table.rows) - (end - start) for n in page.rows}
            page.rows.update(range(start, start + len(table.rows)))
            return


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _spaceless(folded: str) -> str:
    return folded.replace(" ", "")


def pages_text(pages: list[Page]) -> str:
    """The document's text: pages as paragraphs, split at headings (`#` lines), running matter dropped, NFKC-folded."""
    levels = _heading_levels(pages, _body_size(pages))
    running = _running_lines(pages)
    kept_pages = []
    for page in pages:
        kept: list[tuple[int, str, bool]] = []  # (heading level or 0, line, whether it is a table's row)
        for number, line in enumerate(page.lines):
            if not line or _running(page, number, running):
                continue
            if number in page.second_lines and kept:
                kept[-1] = (kept[-1][0], f"{kept[-1][1]} {line}", kept[-1][2])
            else:
                row = number in page.rows
                kept.append(
                    (0 if row else _heading_level(line, page.bookmarked.get(number, 0), page, levels), line, row)
                )
        kept_pages.append("".join(_as_text(*each) for each in kept).strip())
    return _dehyphenated(_joined(page for page in kept_pages if page))


def _as_text(level: int, line: str, row: bool) -> str:
    """A kept line as the document's text: a heading, or a table's row, is a paragraph of its own, as a heading in
    HTML and a row in a Word file are; other lines run on in their page's paragraph."""
    if level:
        return f"\n\n{'#' * level} {line}\n\n"
    return f"\n\n{headings.as_body(line)}\n\n" if row else headings.as_body(line) + "\n"


def _dehyphenated(text: str) -> str:
    """Words a typesetter broke at a line's end ("manip-" / "ulation") made whole again, when the document writes
    them whole elsewhere: a hyphen at a line's end may as well be a compound's own ("single-" / "sign-on"), which
    a browser or a word processor breaks at and does not hyphenate."""
    words = set(WORD.findall(text.lower()))

    def whole(broken: re.Match) -> str:
        word = broken[1] + broken[2]
        return word if word.lower() in words else broken[0]

    return HYPHENATED.sub(whole, text)


def _heading_level(line: str, bookmark_depth: int, page: Page, levels: dict[float, int]) -> int:
    """The line's heading level (0: not a heading): its bookmark's depth, else its font size's level."""
    if len(line) > HEADING_MAX_CHARS:
        return 0
    return min(bookmark_depth or levels.get(page.line_sizes.get(_spaceless(line), 0.0), 0), HEADING_LEVELS)


def _joined(pages) -> str:
    """Pages as paragraphs, except that a page ending inside a sentence runs on into the next one's first line."""
    text = ""
    for page in pages:
        if text:
            runs_on = text[-1] not in SENTENCE_ENDS and page[0].islower()
            text += "\n" if runs_on else "\n\n"
        text += page
    return text


def _body_size(pages: list[Page]) -> float:
    """The size most characters are set in."""
    sizes = Counter()
    for page in pages:
        sizes.update(page.characters_by_size)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _heading_levels(pages: list[Page], body: float) -> dict[float, int]:
    """{font size: heading level}: the sizes clearly above the body's, largest first, as levels 1, 2, 3."""
    larger = sorted({size for page in pages for size in page.line_sizes.values() if size >= body * HEADING_RATIO})
    return {size: min(level, HEADING_LEVELS) for level, size in enumerate(reversed(larger), start=1)}


def _at_edge(number: int, count: int) -> bool:
    return number < EDGE_LINES or number >= count - EDGE_LINES


def _figures_aside(line: str) -> str:
    """A line with its figures masked: "Page 3 of 12" and "Page 4 of 12" are the same running footer."""
    return FIGURES.sub("#", line.lower())


def _running(page: Page, number: int, running: set[str]) -> bool:
    """The page's line is running matter: one of `running`, at the page's edge, and not a heading its bookmark opens
    (a running header that repeats a chapter's title is that chapter's heading on the page the chapter starts)."""
    return (
        _at_edge(number, len(page.lines))
        and not page.is_bookmarked(number)
        and _figures_aside(page.lines[number]) in running
    )


def _running_lines(pages: list[Page]) -> set[str]:
    """Lines (figures aside) found at a page's edge on at least RUNNING_SHARE of the pages, and on two at least.

    A bookmarked heading is not counted: a short report's contents page and the section's own page would
    otherwise make its title look like a running line.
    """
    if len(pages) < 2:
        return set()
    seen = Counter()
    for page in pages:
        edge = {
            _figures_aside(line)
            for n, line in enumerate(page.lines)
            if _at_edge(n, len(page.lines)) and not page.is_bookmarked(n)
        }
        seen.update(edge - {""})
    needed = max(2, math.ceil(RUNNING_SHARE * len(pages)))
    return {line for line, count in seen.items() if count >= needed}
