"""Grounding by the words: does a passage answer a question, does a passage support a sentence.

Shared by the offline provider (its extractive drafts and its reviewer) and by
rfp_manager's answering service (the evidence gate before a draft, the citation
check after it), so a draft and its review measure support the same way.

Words are compared by their stems, cut crudely to STEM_CHARS letters, so that
"encrypted", "encryption" and "encrypts" meet. A question's subject words
leave out the questionnaire's own phrasing ("Please describe…", "your
organisation"), which no library passage contains.
"""
import re

STEM_CHARS = 6
WORD = re.compile(r"[a-z0-9]+")
CITATION = re.compile(r"\[(\d{1,3})\]")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
LEADING_CITATIONS = re.compile(r"^(\s*\[\d{1,3}\])+")
SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")
HEADING_LINE = re.compile(r"^#{1,6}\s.*$", re.MULTILINE)
TABLE_CELL_BREAK = re.compile(r"\s*\|\s*")
SENTENCE_ENDED = re.compile(r"[.!?:;,]$")
SHORT_LINE_CHARS = 60
LIST_ITEM_MARKS = ("- ", "* ", "• ")

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into over under about as is are was were be
    been being do does did done doing have has had having it its this that these those there here what which who whom
    whose when where why how can could should would will shall may might must not no nor so than too very just also
    only own same such both each few more most other some any all our your their his her my we you they he she i me us
    them yes via per etc used use using one two""".split()
)
QUESTIONNAIRE_WORDS = frozenset(
    """please describe explain provide provided detail details outline specify indicate confirm state list evidence
    demonstrate show tell give answer whether organisation organization company vendor supplier bidder respondent
    offeror contractor firm business solution solutions offering product proposed currently applicable ensure
    ensures approach way ways process processes procedure procedures support supports supported team teams staff
    steps step follow followed measures measure mechanism mechanisms technology technologies capability
    capabilities option options available tooling tools place carried out offer offers offered
    often many much make made taken""".split()
)


def stems(text: str, *, subject_only: bool = False) -> set[str]:
    """The stems of a text's content words (of a question's subject words with `subject_only`)."""
    skip = STOPWORDS | QUESTIONNAIRE_WORDS if subject_only else STOPWORDS
    return {stem(w) for w in WORD.findall(text.lower()) if w not in skip and len(w) > 1}


def stem(word: str) -> str:
    """The word without -ing/-ed (and a doubled last consonant), cut to STEM_CHARS.

    So "logged" and "log", "running" and "run" meet, as they do in the full-text
    index's own (Porter) stems, which these cut stems are also looked up against.
    """
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]
            break
    return word[:STEM_CHARS]


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
    """A passage as prose: Markdown heading lines dropped, other headings ended as sentences, table cells joined, one line."""
    text = HEADING_LINE.sub(" ", passage)
    text = "\n".join(_ended_lines(text.splitlines()))
    text = TABLE_CELL_BREAK.sub(", ", text)
    return " ".join(text.split())


def _ended_lines(lines: list[str]):
    """Each line, with a full stop added where a heading, list item or table row ends without one.

    A DOCX or PDF heading ("Data at rest") is a line of its own with no full stop, as is the
    line before a blank one, a list item and a table row; left as they are they run into the
    next sentence. A long line running on into a lower-case one is a wrapped sentence and is
    left alone."""
    for line, following in zip(lines, lines[1:] + [""]):
        stripped, next_start = line.strip(), following.lstrip()[:1]
        is_row, is_item = stripped.startswith("|"), stripped[:2] in LIST_ITEM_MARKS
        stripped = stripped.strip("| ") if is_row else stripped[2:] if is_item else stripped
        unended = stripped and not SENTENCE_ENDED.search(stripped)
        heading_like = len(stripped) <= SHORT_LINE_CHARS and (next_start.isupper() or next_start.isdigit())
        ends_here = is_row or is_item or not next_start or heading_like or next_start in "-*•|"
        yield stripped + "." if unended and ends_here else stripped


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
            sentence = sentence[leading.end():]
        numbers = [int(n) for n in CITATION.findall(sentence)]
        bare = SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(CITATION.sub(" ", sentence).split()))
        if bare.strip(" .") or numbers:
            result.append((bare, numbers))
    return result


def support(sentence: str, passages: list[str]) -> float:
    """Share of the sentence's content stems found in the passages it cites."""
    return coverage(stems(sentence), " ".join(passages))
