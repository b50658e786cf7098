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
- headings, which a PDF shows only by a larger font: a line set in a font
  clearly larger than the body's becomes a Markdown heading line, as HTML and
  DOCX headings do, so a passage knows its section (the chunker reads `#`
  lines, and search ranks the heading with the passage).
"""

import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field

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
SENTENCE_ENDS = ".!?:;)\"”'’"


@dataclass
class Page:
    lines: list[str]  # NFKC-folded, whitespace collapsed; blank lines kept (they count in a page's edge)
    # each visual line's text (spaces left out: pypdf spaces fragments its own way) → the size most of it is set in
    line_sizes: dict[str, float] = field(default_factory=dict)
    characters_by_size: Counter = field(default_factory=Counter)


def read_pages(reader) -> list[Page]:
    """Each page's lines, with the font sizes its text was set in (one extraction per page)."""
    return [_read_page(page) for page in reader.pages]


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


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _spaceless(folded: str) -> str:
    return folded.replace(" ", "")


def pages_text(pages: list[Page]) -> str:
    """The document's text: pages as paragraphs, split at headings (`#` lines), running matter dropped, NFKC-folded."""
    body = _body_size(pages)
    levels = _heading_levels(pages, body)
    running = _running_lines(pages)
    kept_pages = []
    for page in pages:
        kept = []
        for number, line in enumerate(page.lines):
            if not line or (_at_edge(number, len(page.lines)) and _figures_aside(line) in running):
                continue
            level = levels.get(page.line_sizes.get(_spaceless(line), 0.0), 0)
            if level and len(line) <= HEADING_MAX_CHARS:
                kept.append(f"\n\n{'#' * level} {line}\n\n")  # a paragraph of its own, as HTML's headings are
            else:
                kept.append(line + "\n")
        kept_pages.append("".join(kept).strip())
    return _joined(page for page in kept_pages if page)


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


def _running_lines(pages: list[Page]) -> set[str]:
    """Lines (figures aside) found at a page's edge on at least RUNNING_SHARE of the pages, and on two at least."""
    if len(pages) < 2:
        return set()
    seen = Counter()
    for page in pages:
        edge = {_figures_aside(line) for n, line in enumerate(page.lines) if _at_edge(n, len(page.lines))}
        seen.update(edge - {""})
    needed = max(2, math.ceil(RUNNING_SHARE * len(pages)))
    return {line for line, count in seen.items() if count >= needed}
