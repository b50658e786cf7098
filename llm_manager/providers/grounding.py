"""Grounding by the words: does a passage answer a question, does a passage support a sentence.

Shared by the offline provider (its extractive drafts and its reviewer) and by
rfp_manager's answering service (the evidence gate before a draft, the citation
check after it), so a draft and its review measure support the same way. Words
are compared by their stems (text.words).
"""

import itertools
import re
from dataclasses import dataclass

from text import headings
from text.words import CITATION, stems

# A sentence ends at ".", "!" or "?" before one that starts as a sentence does; "e.g." and "i.e." end none ("…to
# other systems e.g. Common Event Format over syslog" is one sentence).
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b[eE]\.g\.)(?<!\b[iI]\.e\.)\s+(?=[A-Z0-9\"'(\[])")
LEADING_CITATIONS = re.compile(rf"^(\s*{CITATION.pattern})+")
SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")
SENTENCE_ENDED = re.compile(r"[.!?:;,]$")
# Ends as a sentence does: its stop (group 1), then perhaps a closing bracket or quote ("…Consult the documentation.)").
SENTENCE_STOP = re.compile(r"([.!?])[)\"'\u201d]?$")
SHORT_LINE_CHARS = 60
# "(see Section 12.1.1, “Software RAID”)", "(see also Table 9.89)": where else the source says more.
CROSS_REFERENCE = re.compile(r"\s*\((?:see|cf\.)\s[^()]*(?:\([^()]*\)[^()]*)*\)", re.IGNORECASE)
# A listing: this many lines or more in a row, each at most LISTING_CHARS long and ending on no punctuation.
LISTING_LINES, LISTING_CHARS = 3, 40
FAQ_QUESTION_CHARS = 150
HEADING, SENTENCE, ITEM = "heading", "sentence", "item"
MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+")
TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")
LIST_ITEM = re.compile(r"^(?:[-*•+]|\d{1,2}[.)])\s+")
# A table row as solution_library's parser writes it: "Fact: Founded. Value: 2011." (two or more labelled cells).
# A cell's value may hold a colon that no label follows ("What happens: The tenant is set up: classes, roles").
LABELLED_VALUE = r"(?:[^:.]|\.(?! )|:(?! [A-Z]))*?[.!?;]"
LABELLED_ROW = re.compile(rf"^[A-Z][^:.]{{0,40}}: {LABELLED_VALUE}(?: [A-Z][^:.]{{0,40}}: {LABELLED_VALUE})+$")
LABELLED_CELL_BREAK = re.compile(r"(?<=[.!?;]) (?=[A-Z][^:.]{0,40}: )")
MARKDOWN_INLINE = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # ![alt](src)
    (re.compile(r"\[([^\]]+)\]\((?:[^)]*)\)"), r"\1"),  # [text](url)
    (re.compile(r"(\*\*|__)(\S(?:.*?\S)?)\1"), r"\2"),  # **bold**, __bold__
    (re.compile(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])"), r"\1"),  # *emphasis*
    (re.compile(r"(?<!\w)_(\S(?:[^_]*?\S)?)_(?!\w)"), r"\1"),  # _emphasis_, never a snake_case name's
    (re.compile(r"`([^`]*)`"), r"\1"),  # `code`
    (re.compile(r"^\s*>\s?"), ""),  # > quote
)
# A sentence is supported when the passage it cites holds this share of its content words.
SUPPORTED_SHARE = 0.75
# Punctuation a sentence goes on with: "…the previously recorded image (", "AIDE", ") allows…".
CLOSING_MARKS = ").,;:!?"
OPENING_MARKS = ("(", ",", ":", "\u2014", "\u2013", "/")
# A line that stops on a word no sentence ends with is cut mid-sentence.
UNENDED_CLAUSE = re.compile(
    r"\b(?:the|a|an|of|to|in|with|by|for|and|or|from|as|on|at|is|are|was|were|be|its|their|this|that|these|via"
    r"|using|use|called|named|into|than|such|like)$",
    re.IGNORECASE,
)
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|cannot|without)\b|n't\b", re.IGNORECASE)


def coverage(wanted: set[str], text: str, weights: dict[str, float] | None = None) -> float:
    """Share of the wanted stems that the text contains (0 when nothing is wanted).

    With `weights` (a stem's informativeness, e.g. its inverse document
    frequency) the share is of the weight, so a rare word counts more than a common one.
    """
    if not wanted:
        return 0.0
    weight = (lambda stem: weights.get(stem, 1.0)) if weights else (lambda stem: 1.0)
    return sum(weight(s) for s in wanted & stems(text)) / sum(weight(s) for s in wanted)


def readable(passage: str) -> str:
    """A passage as one line of plain prose: Markdown gone, a heading ended with a colon, rows and items as sentences."""
    return " ".join(f"{unit.text}:" if unit.kind == HEADING else unit.text for unit in passage_units(passage))


@dataclass(frozen=True)
class Unit:
    """One piece of a passage: a heading, a sentence of prose, or a list item or table row.

    `heading` is the nearest heading above it in the passage: "Rate limits" says
    what "Each tenant may make 600 requests per minute" is about. `paragraph`
    counts the passage's paragraphs: sentences that share it were written together.
    """

    kind: str
    text: str
    heading: str = ""
    paragraph: int = 0

    @property
    def opens_on_its_term(self) -> bool:
        """A definition's first sentence that passage_units gave the term it defines: "log_statement (enum):
        Controls…" starts as its lower-case term does, not as a sentence."""
        return bool(self.heading) and self.text.startswith(f"{self.heading}: ")


def passage_units(passage: str) -> list[Unit]:
    """The passage's headings, sentences and list items in order, as plain text (no Markdown).

    Lines are read as a DOCX or PDF extraction and a Markdown file give them: a
    `#` line or a short unended line between sentences is a heading, a `- `
    line or a table row an item, other lines wrap the paragraph they are in.
    """
    units: list[Unit] = []
    heading, paragraph, paragraphs, defining = "", [], itertools.count(1), False

    def end_paragraph():
        nonlocal defining
        if paragraph:
            number = next(paragraphs)
            said = sentences(" ".join(paragraph))
            if defining:
                said[0] = _with_its_term(heading, said[0])
            units.extend(Unit(SENTENCE, s, heading, number) for s in said)
        paragraph.clear()
        defining = False

    lines, listing = _apart_from_listings([plain(line) for line in passage.splitlines()])
    for index, line in enumerate(lines):
        if index in listing:  # a paragraph of its own, under the heading before it, never quoted (no sentence)
            end_paragraph()
            units.append(Unit(SENTENCE, line.strip(), heading, next(paragraphs)))
            continue
        kind, text = _line_kind(
            line, lines[index - 1] if index else "", lines[index + 1] if index + 1 < len(lines) else ""
        )
        if kind != SENTENCE or not text:
            end_paragraph()
        if kind == HEADING:
            heading = text.rstrip(":")
            units.append(Unit(HEADING, heading, heading))
            defining = heading[:1].islower()  # a defined term ("log_statement (enum)"), not a title
        elif kind == ITEM:
            units.append(Unit(ITEM, text, heading))
        elif text:
            paragraph.append(text)
    end_paragraph()
    return units


def _with_its_term(term: str, sentence: str) -> str:
    """A definition's first sentence with the term it defines, when it leaves the term out: "log_statement (enum):
    Controls which SQL statements are logged." ("Connection limit can specify…" names its own)."""
    return sentence if term.split()[0].lower() in sentence.lower() else f"{term}: {sentence}"


def _apart_from_listings(lines: list[str]) -> tuple[list[str], set[int]]:
    """(the lines `rejoined` between listings, the indexes of the listings' lines among them). A listing's lines (a
    configuration file, a command's output: LISTING_LINES or more short unended lines in a row) join no sentence:
    "Example 14.1. interfaces file calling firewall script auto eth0 iface eth0 inet static address 192.168.0.1 …
    This obviously assumes…" was read as one."""
    listing = _listing_lines(lines)
    result, kept_apart, block = [], set(), []
    for index, line in enumerate(lines):
        if index in listing:
            result += rejoined(block)
            kept_apart.add(len(result))
            result.append(line)
            block = []
        else:
            block.append(line)
    return result + rejoined(block), kept_apart


def _listing_lines(lines: list[str]) -> set[int]:
    """The indexes of the lines in runs of LISTING_LINES or more short, unended lines that are no Markdown."""
    found, run = set(), []
    for index, line in enumerate([*lines, ""]):
        stripped = line.strip()
        if (
            stripped
            and len(stripped) <= LISTING_CHARS
            and not SENTENCE_ENDED.search(stripped)
            and not (MARKDOWN_HEADING.match(stripped) or LIST_ITEM.match(stripped) or stripped.startswith("|"))
        ):
            run.append(index)
            continue
        if len(run) >= LISTING_LINES:
            found.update(run)
        run = []
    return found


def rejoined(lines: list[str]) -> list[str]:
    """The lines with a sentence an HTML page's inline marks cut apart put back together.

    An extraction sets a link's or a code word's text on a line of its own:
    "This is typically done using the", "adduser", "command which takes…";
    "Nagios", "covers the second area…". A line that goes on a sentence (it
    starts in lower case or with closing punctuation) joins the line before,
    and so does any line after one that stops on a word no sentence ends with
    ("the", "of"), blank lines between them notwithstanding. Headings, list items and table rows stay apart, and so
    does a term a manual defines on the line before its definition ("connection limit", "Connection limit can…").
    """
    joined: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        previous = next((i for i in range(len(joined) - 1, -1, -1) if joined[i].strip()), None)
        if (
            stripped
            and previous is not None
            and _continues(joined[previous].strip(), stripped)
            and not _defined_term(joined[previous].strip(), stripped, _next_text(lines, index))
        ):
            glue = "" if stripped[0] in CLOSING_MARKS or joined[previous].endswith(("(", "/")) else " "  # "(AIDE"
            joined[previous] = f"{joined[previous].rstrip()}{glue}{headings.as_written(stripped)}"
            del joined[previous + 1 :]
            continue
        joined.append(line)
    return joined


def _defined_term(previous: str, line: str, following: str) -> bool:
    """A short unended line in lower case between a sentence's end and a line that starts one: the term of a
    definition list ("log_statement (enum)", "Controls which SQL statements are logged."), read as its heading."""
    return (
        bool(SENTENCE_STOP.search(previous))
        and len(line) <= SHORT_LINE_CHARS
        and not SENTENCE_ENDED.search(line)
        and following[:1].isupper()
    )


def _next_text(lines: list[str], index: int) -> str:
    return next((line.strip() for line in lines[index + 1 :] if line.strip()), "")


def _continues(previous: str, line: str) -> bool:
    if MARKDOWN_HEADING.match(previous) or previous.startswith("|") or TABLE_SEPARATOR.match(line):
        return False
    if LIST_ITEM.match(line) or line.startswith(("|", "#")):
        return False
    return (
        line[0].islower()
        or line[0] in CLOSING_MARKS + "/~"
        or previous.endswith(OPENING_MARKS)
        or bool(UNENDED_CLAUSE.search(previous))
    )


def _line_kind(line: str, previous: str, following: str) -> tuple[str, str]:
    """(kind, text) of one line; a blank line is a SENTENCE with no text (it ends the paragraph)."""
    stripped = line.strip()
    if MARKDOWN_HEADING.match(stripped):
        return HEADING, MARKDOWN_HEADING.sub("", stripped).strip()
    stripped = headings.as_written(stripped)  # "\# apt install nftables": a body line, as the document wrote it
    if TABLE_SEPARATOR.match(stripped):
        return SENTENCE, ""
    if stripped.startswith("|"):
        return ITEM, _row([cell.strip() for cell in stripped.strip("|").split("|")])
    if LABELLED_ROW.match(stripped):
        first, *others = [cell.rstrip(".") for cell in LABELLED_CELL_BREAK.split(stripped)]
        # "Fact: Founded. Value: 2011." → "Founded: 2011."; with more columns their labels stay ("Standard: No").
        others = [cell.split(": ", 1)[-1] for cell in others] if len(others) == 1 else others
        return ITEM, _row([first.split(": ", 1)[-1], *others])
    if not any(character.isalnum() for character in stripped):
        return SENTENCE, ""  # a line of marks alone ("”", an HTML page's <quote>) is neither a heading nor text
    mark = LIST_ITEM.match(stripped)
    if mark:
        return ITEM, _ended(stripped[mark.end() :])
    previous, next_start = previous.strip(), following.lstrip()[:1]
    between_sentences = not previous or bool(SENTENCE_ENDED.search(previous)) or len(previous) <= SHORT_LINE_CHARS
    before_text = not next_start or next_start.isupper() or next_start.isdigit() or next_start in "-*•|#"
    if (
        stripped
        and between_sentences
        and before_text
        and (
            len(stripped) <= SHORT_LINE_CHARS
            and not SENTENCE_ENDED.search(stripped)
            or len(stripped) <= FAQ_QUESTION_CHARS
            and stripped.endswith("?")  # a FAQ's question heads its answer
        )
    ):
        return HEADING, stripped
    return SENTENCE, stripped


def _row(cells: list[str]) -> str:
    """A table row as a sentence: "Employees: 185, of whom 70 in engineering." (first cell, then the others)."""
    cells = [c for c in cells if c]
    if len(cells) < 2:
        return _ended(" ".join(cells))
    return _ended(f"{cells[0]}: {'; '.join(cells[1:])}")


def _ended(text: str) -> str:
    text = text.strip()
    return text if not text or SENTENCE_ENDED.search(text) else text + "."


def plain(text: str) -> str:
    """Markdown emphasis, code marks, links and images as the words they show."""
    for pattern, replacement in MARKDOWN_INLINE:
        text = pattern.sub(replacement, text)
    return text


def figures(text: str) -> set[str]:
    """The figures a text states ("35", "99.9", "1.3"); citation marks ([1]) are not figures."""
    return {n.replace(",", ".").rstrip(".") for n in NUMBER.findall(CITATION.sub(" ", text))}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def cited_sentences(answer: str) -> list[tuple[str, list[int]]]:
    """Each sentence of an answer with the passage numbers it cites, citations removed from the text."""
    result: list[tuple[str, list[int]]] = []
    for sentence in sentences(answer):
        leading = LEADING_CITATIONS.match(sentence)
        if leading and result:
            # "Backups run nightly. [2] Next…": a citation after the full stop belongs to the sentence before it.
            result[-1][1].extend(int(n) for n in CITATION.findall(leading.group(0)))
            sentence = sentence[leading.end() :]
        numbers = [int(n) for n in CITATION.findall(sentence)]
        bare = SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(CITATION.sub(" ", sentence).split()))
        if bare.strip(" .") or numbers:
            result.append((bare, numbers))
    return result


def support(sentence: str, passages: list[str]) -> float:
    """Share of the sentence's content stems found in the passages it cites."""
    return coverage(stems(sentence), " ".join(passages))


def unsupported(sentence: str, passages: list[str]) -> str:
    """Why the passages a sentence cites do not support it ("" when they do).

    Its words must be theirs (SUPPORTED_SHARE of them), every figure it states
    must be one they state ("kept for 30 days" against "35 days"), and it must
    say "not" where they do ("is not encrypted" against "is encrypted").
    """
    if not passages:
        return "it cites no passage"
    if support(sentence, passages) < SUPPORTED_SHARE:
        return "the passage it cites does not say it"
    missing = figures(sentence) - figures(" ".join(passages))
    if missing:
        return f"the passage it cites does not give the figure {', '.join(sorted(missing))}"
    if _negations(sentence) != _negations(closest_sentence(sentence, passages)):
        return "the passage it cites says otherwise (a negation differs)"
    return ""


def closest_unit(sentence: str, passages: list[str]) -> Unit | None:
    """The passages' sentence or item most like `sentence` (by shared content words over all of both)."""
    own = stems(sentence)
    units = [u for p in passages for u in passage_units(p) if u.kind != HEADING]
    return max(units, key=lambda unit: _likeness(own, stems(unit.text)), default=None)


def closest_sentence(sentence: str, passages: list[str]) -> str:
    """The passages' sentence most like `sentence`: within the closest unit, as a list item may hold two
    ("Peer authentication, which… local connection. This is not supported for remote connections.")."""
    unit = closest_unit(sentence, passages)
    if unit is None:
        return ""
    own = stems(sentence)
    return max(sentences(unit.text) or [unit.text], key=lambda each: _likeness(own, stems(each)))


def _likeness(own: set[str], theirs: set[str]) -> float:
    """Shared content words over all of both (Jaccard)."""
    return len(own & theirs) / len(own | theirs) if own | theirs else 0.0


def _negations(text: str) -> list[str]:
    return sorted(m.group(0).lower().replace("n't", "not") for m in NEGATION.finditer(text))


def support_problems(claims: list[tuple[str, list[int]]], passages: dict[int, str]) -> list[str]:
    """One finding per sentence of an answer (cited_sentences) that its cited passages do not support."""
    problems = []
    for sentence, numbers in claims:
        why = unsupported(sentence, [passages[n] for n in numbers if n in passages])
        if why:
            problems.append(f'Not supported by the passage it cites ({why}): "{sentence[:100]}"')
    return problems


def cited_text(chosen: list[tuple[int, str]]) -> str:
    """Sentences as an answer, each ended by the citation of its passage: "Backups run hourly [2].".

    A list item of two sentences ("Peer authentication, which… local connection. This is not supported for
    remote connections.") cites its passage after each: the reviewer reads a draft sentence by sentence
    (cited_sentences), and an item's first sentence would otherwise cite nothing. A pointer to another part of the
    source ("(see Section 12.1.1, “Software RAID”)") is left out: the client has the answer, not the manual."""
    return " ".join(
        f"{CROSS_REFERENCE.sub('', part).rstrip(' .!?;:')} [{n}]."
        for n, sentence in chosen
        for part in sentences(sentence)
    )
