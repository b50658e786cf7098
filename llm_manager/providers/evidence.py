"""Evidence chosen by meaning: which sentences of the retrieved passages answer which part of a question.

A sentence's relevance to a question (or to one part of it) is the embedding
model's cosine between the two, averaged with the lexical match (the share of
the question's subject words, weighed by rarity, that the sentence and the
heading it sits under hold). Either alone misleads: words alone take "the API,
single sign-on, multi-factor authentication" on a price list for an answer
about the API's authentication; meaning alone takes any sentence about
security for one about key rotation.

Used by the responder (rfp_manager's answering service passes the embedding
model's similarity, and gives the chosen sentences to the chat model as its
evidence), by the reviewer (does the answer address each part; does a passage
answer a part better than the answer does), and by the offline extractive chat
when a prompt carries no chosen evidence (the lexical half alone).
"""

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from text import questions
from text.words import stems

from . import grounding

# (queries, texts) → their cosine matrix, len(queries) × len(texts).
Similarity = Callable[[list[str], list[str]], list[list[float]]]

# How much the embedding model's cosine counts beside the lexical match (tuned on the demo RFP and the eval set).
SEMANTIC_WEIGHT = 0.5
# A sentence answers a part when its relevance reaches this (with the similarity; lexical only: LEXICAL_PART_MIN).
PART_MIN = 0.35
LEXICAL_PART_MIN = 0.5
# With no sentence above those, the best one for the whole question is taken from this share of them up.
FALLBACK_SHARE = 0.5
# A second sentence for the same part must be nearly as relevant as the part's first and hold a subject word of
# the part that the first does not: no padding. The first need only be relevant enough (PART_MIN): with an
# alignment, the sentence it puts first is not passed over because cosine and words put another far above it
# ("Nagios covers the second area, … alerting the administrators" under "Monitoring is a generic term…"; on dev,
# the key fact stated: 0.504 -> 0.513).
CLOSE_TO_BEST = 0.7
# The words of a sentence's heading count this much: "Rate limits" tells what the sentence under it is about,
# but not every sentence under "Product roadmap" is the roadmap.
HEADING_SHARE = 0.5
SENTENCES_PER_PART = 2
MAX_SENTENCES = 5
TARGET_ANSWER_CHARS = 700
# The reviewer: an answer less relevant than this to the whole question is about another topic, and a
# passage sentence more relevant than the answer's best by BETTER_BY to a part answers what the answer missed.
TOPIC_MIN = 0.3
LEXICAL_TOPIC_MIN = 0.3

BETTER_BY = 0.15
# The parts of one question are mostly answered by one document: a passage that answered an earlier part counts more.
SAME_PASSAGE_BONUS = 0.1
# A later passage's sentence must match clearly better to be quoted before the first passage's.
RANK_PENALTY = 0.02
# A list question ("List three customers") prefers a sentence that names several things, or a list's items.
LIST_BONUS = 0.15
ENUMERATION_NAMES = 4
# A part that asks how often, how long, where… prefers a sentence that states that kind of thing by this much, and
# passes over one that states none of it by as much: a definition does not answer "how often". A yes/no question
# ("Are administrators alerted…?") passes over a sentence that says what a word means ("Monitoring is a generic
# term…") by as much: it says what the subject is, never whether it is done (the reviewer's definition check,
# answering.definition_problems, flags a draft made only of them). On dev, the key fact stated: 0.496 -> 0.504.
KIND_BONUS = 0.2
# A "where" part takes a sentence that names the place ("Hosted in the UK (London and Manchester)…") over one that
# names only a kind of place ("Hosting: Orrery runs in data centres powered by 100% renewable electricity…"): the
# latter's bonus is this share of KIND_BONUS. It still answers where no sentence names one ("in a separate data centre").
KIND_OF_PLACE_SHARE = 0.5
# A sentence that names a thing (a tool, a standard, a figure) answers more often than one that talks about the
# subject in general: it counts this much more, when it is relevant enough to the part without it: naming things
# does not make a sentence about another subject ("certified to ISO/IEC 27001 for the development of…") answer
# "the API available to developers". On dev, the key fact stated: 0.383 at 0.05, 0.400 at 0.1.
SPECIFIC_BONUS = 0.1
# A sentence of a passage that matches the part by meaning as a whole answers it more often than an equally relevant
# sentence of another passage: the passage's cosine to the part counts this much (`passage_prior`). The embedding
# model tells the passage that answers more reliably than the sentence within it. On dev, the key fact stated: 0.409
# without, 0.417 from 0.3 to 0.7 (0.426 at 0.6); "How are encryption keys managed and rotated?" keeps to the
# whitepaper's key management instead of ending on "Orrery is a multi-tenant software-as-a-service platform".
PASSAGE_SHARE = 0.5
# A list item of fewer words than this that is not a table row reads as a heading (`terse`).
TERSE_WORDS = 5
# A sentence quoted for a part must be this share of PART_MIN relevant to the whole question: about its subject.
WHOLE_QUESTION_SHARE = 0.6
# A second sentence for a part must add at least this share of the part's subject (by weight), unless it is more
# relevant than the first (which the word-by-word match can put first: "Discover: … Typical duration: 2 weeks" before
# "A typical implementation takes 10 to 14 weeks" for "a typical timeline") or, in a question of one part, at least
# NEW_WORDS_NEAR as relevant (_may_repeat_the_first). On the dev drafts it took drafts stating the key fact from 59
# to 62 of 115, with 366 sentences quoted (359 before), 55 of them from a document the question does not list (61);
# at 0.85 the demo's "Where is the service hosted?" quoted its data centres' renewable electricity.
NEW_WORDS_SHARE = 0.2
NEW_WORDS_NEAR = 0.9
# A part's second sentence from another document than its first must reach this share of the first's relevance: one
# nearly as relevant from another document is on the question's topic, seldom on its subject ("Logs may contain
# personal … information" after a database's recovery). On the dev drafts it cut the sentences quoted from a
# document the question does not list from 70 to 61 (of 368), every key fact kept; at 0.85 one was lost.
OTHER_DOCUMENT_SHARE = 0.8
# A part's best sentence that is also a later part's best, by a lead over that part's next wider by this much, is left
# to the later part: "If monthly availability falls below 99.9%, … a service credit of 10%" answers "what service
# credits apply if it is missed", and "What monthly availability do you commit to" takes "Orrery is available 99.9% of
# every calendar month". On dev no draft changes; at 0 (any wider lead) four do, by a few hundredths, and two open on
# a sentence that answers less ("Compromised authenticators include…" before how a loss is reported).
LATER_PART_LEAD = 0.1
# List questions take the sibling items (rows of the same table, points of the same list) of a chosen item.
LIST_ITEMS = 8
# A chosen sentence of prose is quoted with the sentences either side of it in its paragraph, while
# the quotation stays within this many characters: the embedding model tells the paragraph that answers more
# reliably than the sentence within it that does (on dev, the key fact stated: 0.29 of drafts without, 0.36 with).
CONTEXT_CHARS = 1200
MIN_SENTENCE_CHARS, MAX_SENTENCE_CHARS = 12, 400
# A sentence holding this share of another's words (and no figure of its own) says the same thing (`same_sentence`).
SAME_WORDS = 0.8
# The sentences the answer editor offers beside a draft (`runners_up`): the ranking's first is often a sentence on the
# question's subject that does not answer, and the one that does sits a few places down. On the dev drafts, the key
# fact stated by the draft or one of these: 0.539 (the draft alone) -> 0.600 with 3, 0.635 with 5.
RUNNERS_UP = 5
# "…a fixed method in five phases": a sentence announcing how many things the list after it holds.
COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
ANNOUNCED_COUNT = re.compile(r"\b(two|three|four|five|six|seven|eight|[2-8])\s+(?:[a-z-]+\s+){0,2}?[a-z]+s\b", re.I)

CUT_AT_EXAMPLES = re.compile(r"\b(?:e\.g|i\.e)\.?$", re.IGNORECASE)
SIGNPOST_VERBS = (
    r"(?:will )?(?:\w+ly )?(?:sets? out|describes?|explains?|covers?|applies|defines?|outlines?|summari[sz]es?|is about"
    r"|presents?|reviews?|advises?|discuss(?:es)?|introduces?)\b"
)
SCOPE_SENTENCE = re.compile(
    r"^(?:This|The|These) (?:\w+ ){0,2}(?:agreement|policy|policies|document|statement|whitepaper|guide|section"
    r"|notice|page|chapter|procedure|standard|plan|terms|appendix|cheat sheet|article)s? "
    + SIGNPOST_VERBS
    + r"|\bthis (?:section|chapter|appendix|cheat sheet|article|document|guide) "
    + SIGNPOST_VERBS
    + r"|^We will (?:now |then )?(?:describe|present|discuss|explain|look at|see|cover)\b"
)
# A sentence that sends the reader elsewhere ("See Section 20.8.4 for details.", "For more details on account
# lockouts, see the Authentication Cheat Sheet."): the client needs the answer, not where the manual says more.
POINTER_SENTENCE = re.compile(
    r"^(?:see|refer to)\b|^for (?:more |further )?(?:details|information)\b[^.]*\bsee\b", re.I
)
# A sentence that points back ("However, this decision must be taken by…") is about what the one before it says.
POINTS_BACK = re.compile(
    r"^\W*(?:(?:however|so|thus|therefore|hence|also|but|then|yet|in (?:this|that) case)\b,?\s+)?"
    r"(?:this|these|that|those|such)\s+(?!is\b|are\b|was\b|were\b|means\b|can\b|will\b|may\b)\w+",
    re.IGNORECASE,
)
SENTENCE_START = re.compile(r"[\"'\u201c(]?[A-Z0-9]")
# A figure, an acronym, a CamelCase or code-like word, or a capitalised word inside the sentence.


@dataclass(frozen=True)
class Candidate:
    """A sentence or list item of a passage that may be quoted."""

    n: int  # the passage's number in the prompt
    rank: int  # the passage's place among the retrieved ones
    position: int  # the unit's place in its passage
    unit: grounding.Unit

    @property
    def text(self) -> str:
        return self.unit.text

    @property
    def in_context(self) -> str:
        """The sentence under its heading: "Rate limits: Each tenant may make 600 requests per minute"."""
        heading = self.unit.heading
        return f"{heading}: {self.text}" if heading and heading not in self.text else self.text


@dataclass(frozen=True)
class Choice:
    n: int
    text: str
    part: int
    score: float


@dataclass(frozen=True)
class Announced:
    """A sentence that announces a list by its count ("…in three editions") and the list right after its paragraph."""

    sentence: Candidate
    rows: tuple[Candidate, ...]  # every item of the list or table, a header row too
    items: tuple[Candidate, ...]  # the three it announces


def candidates(passages: dict[int, str]) -> list[Candidate]:
    """Every quotable sentence and list item of the passages, in the passages' order."""
    found = []
    for rank, (n, text) in enumerate(passages.items()):
        for position, unit in enumerate(grounding.passage_units(text)):
            if unit.kind != grounding.HEADING and _quotable(unit):
                found.append(Candidate(n, rank, position, unit))
    return found


def _quotable(unit: grounding.Unit) -> bool:
    """Prose of a readable length: not a command line, a path list or a stray fragment."""
    text = unit.text
    letters = sum(c.isalpha() or c.isspace() for c in text)
    if unit.kind == grounding.ITEM:  # one a chunk cut after "e.g." names none of its examples
        return (
            MIN_SENTENCE_CHARS <= len(text) <= MAX_SENTENCE_CHARS
            and letters >= 0.5 * len(text)
            and not CUT_AT_EXAMPLES.search(text)
        )
    # A sentence starts and ends as one: an unended piece is a PDF table's cell or a chunk cut mid-sentence, a
    # piece starting in lower case (") allows checking…", "is updated from time to time…") the tail of a sentence
    # whose subject is in the chunk before; a question is the FAQ's. A document's scope sentence ("This agreement
    # sets out…") says what the document covers, and a pointer ("See Section 20.8.4…") where it says more: never
    # the answer.
    return (
        MIN_SENTENCE_CHARS <= len(text) <= MAX_SENTENCE_CHARS
        and letters >= 0.75 * len(text)
        and (bool(SENTENCE_START.match(text)) or unit.opens_on_its_term)
        and _ends_a_statement(text)
        and not SCOPE_SENTENCE.search(text)
        and not POINTER_SENTENCE.search(text)
    )


def _ends_a_statement(text: str) -> bool:
    stop = grounding.SENTENCE_STOP.search(text)
    return bool(stop) and stop[1] != "?"


def under_bar(score: float) -> str:
    """A score that fell short of a bar, as the reviewer's words show it: cut, not rounded, to two places, so
    0.6496 under the bar 0.65 reads "0.64", never "0.65, where drafts that answer reach 0.65"."""
    return f"{math.floor(round(score * 100, 6)) / 100:.2f}"  # rounded first: 0.57 * 100 is 56.999…


def names_something(text: str) -> bool:
    """The sentence names a thing — a tool, a standard, a figure, a path — rather than talking about the subject
    in general: "Nagios sends an alert…" over "Monitoring is a generic term…"."""
    return questions.states(questions.NAME, text)


def terse(candidate: Candidate) -> bool:
    """A list item of a few words that is not a table row: a heading-like point ("Identifying security
    incidents."), an answer only to a question that asks for a list."""
    unit = candidate.unit
    return unit.kind == grounding.ITEM and ": " not in unit.text and len(unit.text.split()) < TERSE_WORDS


def relevance(
    queries: list[str],
    texts: list[str],
    similarity: Similarity | None = None,
    weights: dict[str, float] | None = None,
    contexts: list[str] | None = None,
    words: list[str] | None = None,
) -> list[list[float]]:
    """Relevance of each text to each query, 0..1: cosine and lexical match averaged (lexical alone without similarity).

    `contexts`: what the lexical match also reads for each text (its heading);
    `words`: the wording of each query the lexical match looks for (the query itself when not given).
    """
    contexts = contexts or [""] * len(texts)
    lexical = [
        [_lexical(stems(q, subject_only=True), t, c, weights) for t, c in zip(texts, contexts)]
        for q in words or queries
    ]
    if similarity is None or not texts:
        return lexical
    cosines = similarity(queries, [f"{c}: {t}" if c else t for t, c in zip(texts, contexts)])
    return [
        [SEMANTIC_WEIGHT * max(0.0, float(cos)) + (1 - SEMANTIC_WEIGHT) * lex for cos, lex in zip(cos_row, lex_row)]
        for cos_row, lex_row in zip(cosines, lexical)
    ]


def _lexical(wanted: set[str], text: str, context: str, weights: dict[str, float] | None) -> float:
    """The share of the wanted words in the text, the words only its heading holds counting HEADING_SHARE."""
    own = grounding.coverage(wanted, text, weights)
    with_heading = grounding.coverage(wanted, f"{context} {text}", weights) if context else own
    return own + HEADING_SHARE * (with_heading - own)


def part_minimum(similarity: Similarity | None) -> float:
    return PART_MIN if similarity is not None else LEXICAL_PART_MIN


def score_candidates(
    parts: list[questions.Part], found: list[Candidate], similarity=None, weights=None, alignment=None
) -> list[list[float]]:
    """Each candidate's relevance to each part; by `alignment` alone when given (the local encoder's word-by-word
    match: on dev it ranks a sentence that states a key fact first for 0.41 of questions, against 0.32 for
    cosine and words averaged, as a general sentence on the topic no longer outscores it)."""
    if alignment is not None:
        return alignment([p.text for p in parts], [c.in_context for c in found])
    return relevance(
        [p.text for p in parts],
        [c.text for c in found],
        similarity,
        weights,
        [c.unit.heading for c in found],
        [p.words for p in parts],
    )


@dataclass(frozen=True)
class Sentences:
    """The passages' sentences read against one question, once per draft: `choose` takes the draft's from them and
    `runners_up` the ones offered beside it, without splitting and scoring the passages a second time."""

    reading: questions.Reading
    passages: dict[int, str]
    found: list[Candidate]
    similarity: Similarity | None
    weights: dict[str, float] | None
    by_meaning: list[list[float]]  # each part's relevance of each sentence, by `similarity` and words
    in_order: list[list[float]]  # the same word by word (`alignment`), or by_meaning without it: a part's order
    about: list[bool]  # about the whole question (about_the_whole_question)


def read_sentences(
    question: str | questions.Reading,
    passages: dict[int, str],
    similarity: Similarity | None = None,
    weights: dict[str, float] | None = None,
    alignment: Similarity | None = None,
) -> Sentences:
    """The passages' sentences scored against each part of the question (`score_candidates`) and the whole of it."""
    reading = questions.read(question)
    weights = weights if weights is not None else reading.weights or None
    found = candidates(passages)
    if not found:
        return Sentences(reading, passages, [], similarity, weights, [], [], [])
    by_meaning = score_candidates(reading.parts, found, similarity, weights)
    in_order = score_candidates(reading.parts, found, similarity, weights, alignment) if alignment else by_meaning
    about = about_the_whole_question(reading, found, similarity, weights)
    return Sentences(reading, passages, found, similarity, weights, by_meaning, in_order, about)


def choose(
    question: str | questions.Reading,
    passages: dict[int, str],
    similarity: Similarity | None = None,
    weights: dict[str, float] | None = None,
    alignment: Similarity | None = None,
    documents: dict[int, int] | None = None,
) -> list[Choice]:
    """The sentences that answer the question, part by part in the question's order, each with its passage
    (`choose_from` the passages' sentences read against it)."""
    return choose_from(read_sentences(question, passages, similarity, weights, alignment), documents)


def choose_from(sentences: Sentences, documents: dict[int, int] | None = None) -> list[Choice]:
    """The sentences that answer the question, part by part in the question's order, each with its passage.

    For each part the most relevant sentence, and a second only when it is
    nearly as relevant (no sentence is padded in because it sits in the same
    passage). A part that asks how often, how long, where… takes a sentence
    that says it over one that only says what the subject is. A list question
    takes the chosen item's siblings: the rows of its table, the points of its list; a lone row (a summary table's
    "Certification: ISO/IEC 27001…") leaves room for a sentence that names more ("…and holds Cyber Essentials Plus").
    A sentence best for two parts goes to the one it answers far more clearly (`_left_to_a_later_part`).
    `documents`: {passage number: its document}: a part's second sentence from another document than its first must
    be nearly as relevant (OTHER_DOCUMENT_SHARE); without it, passages are not told apart by document.
    The sentences are ordered by their word-by-word match (`Sentences.in_order`, llm.word_alignment) when there is
    one; whether a sentence is relevant enough, and a second nearly as relevant as the first, is still read on the
    scale of similarity and words (`Sentences.by_meaning`), which PART_MIN and CLOSE_TO_BEST are set on (word by
    word, an unrelated sentence still meets each word somewhere, so its scores sit higher and closer together).
    """
    reading, passages, found = sentences.reading, sentences.passages, sentences.found
    parts, similarity, weights = reading.parts, sentences.similarity, sentences.weights
    if not found:
        return []
    least, chosen = part_minimum(similarity), []
    asks_whether = questions.YES_NO in reading.asks

    def bonused(scores):  # what the sentence says (how often, a name, a list) counts on either scale
        scores = _read_with_what_they_point_to(parts, found, scores, weights)
        if reading.wants_list:
            scores = [[score + LIST_BONUS * enumerates(c) for score, c in zip(row, found)] for row in scores]
        return [
            [
                score
                + KIND_BONUS * states_asked(part, c)
                + SPECIFIC_BONUS * (names_something(c.text) and score >= least)
                - KIND_BONUS * (asks_whether and questions.defines(c.text))
                - (0.0 if reading.wants_list else 1.0) * terse(c)
                for score, c in zip(row, found)
            ]
            for part, row in zip(parts, scores)
        ]

    scores = bonused(sentences.by_meaning)
    orders = scores if sentences.in_order is sentences.by_meaning else bonused(sentences.in_order)
    about_the_question = sentences.about
    prior = passage_prior(parts, passages, similarity)
    margins = _margins_of_the_best(
        [[s + prior[p].get(c.n, 0.0) for s, c in zip(o, found)] for p, o in enumerate(orders)], found
    )
    for part, (row, order) in enumerate(zip(scores, orders)):
        used = {c.n for _, c in chosen}
        stating = [states_asked(parts[part], c) > 0 for c in found]
        # its passage's meaning counts after the bonuses: naming a thing lifts only a sentence relevant by itself
        row, order = (
            [s + SAME_PASSAGE_BONUS * (c.n in used) + prior[part].get(c.n, 0.0) for s, c in zip(each, found)]
            for each in (row, order)
        )
        ranked = _ranked(order, found)
        wanted, held, first, held_lone_row = stems(parts[part].words, subject_only=True), None, 0.0, None
        if stating[ranked[0]] and _repeats(found[ranked[0]].text, [c for _, c in chosen]):
            continue  # the sentence that says what this part asks (how long…) is quoted already, for an earlier part
        for i in ranked:
            if _full(chosen):
                break
            if row[i] < (least if held is None else max(least, CLOSE_TO_BEST * first)):
                continue  # not relevant enough, or not nearly as relevant as the part's first sentence
            if _repeats(found[i].text, [c for _, c in chosen]):
                continue  # already quoted (for an earlier part, or from an overlapping chunk)
            if not about_the_question[i] or not about_the_head(parts[part], found[i], passages):
                continue  # about another subject
            if held is None and _left_to_a_later_part(i, part, margins):
                continue  # it answers a later part more clearly than this one: this part takes its own
            if (
                held is not None
                and _elsewhere(found[i], _first_of_part(chosen, part), documents)
                and row[i] < OTHER_DOCUMENT_SHARE * first
            ):
                continue  # another document's, and not nearly as relevant as the part's first: padding from elsewhere
            if held is not None and parts[part].checkable and not stating[i]:
                continue  # a second sentence for "how often" must say how often too: no padding
            own = wanted & stems(found[i].in_context)
            if (
                held is not None
                and not (held_lone_row is not None and _names_more(found[i], held_lone_row))
                and _weight(own - held, weights) < NEW_WORDS_SHARE * _weight(wanted, weights)
                and not _may_repeat_the_first(found[i], row[i], _first_of_part(chosen, part), first, len(parts))
            ):
                continue  # it says little of the part that the part's first sentence does not already say
            chosen.append((Choice(found[i].n, found[i].text, part, round(row[i], 3)), found[i]))
            first = row[i] if held is None else first
            held = own if held is None else held | own
            if reading.wants_list and enumerates(found[i]):
                item = found[i].unit.kind == grounding.ITEM
                siblings = _siblings(found[i], found, row, part, least / 2, chosen, wanted) if item else []
                chosen += siblings
                if siblings or not item or held_lone_row is not None:
                    break  # the list is the answer to this part
                held_lone_row = found[i]  # the first, a lone row of a summary table: a sentence may name more
            if sum(c.part == part for c, _ in chosen) >= SENTENCES_PER_PART:
                break
    if not chosen:
        chosen = _best_for_the_whole_question(reading.text, found, similarity, weights, least * FALLBACK_SHARE)
    chosen = _with_announced_list(_with_neighbours(chosen, found, reading), found, reading)
    chosen = _without_restatements(chosen, reading)
    return [choice for choice, _ in sorted(chosen, key=lambda c: (c[0].part, c[1].rank, c[1].position))]


def runners_up(sentences: Sentences, quoted: list[str]) -> list[tuple[int, str]]:
    """[(passage number, sentence)]: the RUNNERS_UP sentences most relevant to a part of the question (word by word
    when there is an alignment, as `choose_from` orders them) that are about the question and not in `quoted` (the
    draft's), best first. Not quoted: a person reads them and inserts the one that answers, as the library proposes
    and a person picks; no threshold here tells the sentence that answers from one on the same subject."""
    found = sentences.found
    best = [max(row[i] for row in sentences.in_order) for i in range(len(found))]
    offered: list[Candidate] = []
    for i in sorted(range(len(found)), key=lambda i: (-best[i], found[i].rank, found[i].position)):
        text = found[i].text
        if (
            sentences.about[i]
            and not terse(found[i])
            and not any(same_sentence(text, q) for q in quoted)
            and not _repeats(text, offered)
        ):
            offered.append(found[i])
        if len(offered) == RUNNERS_UP:
            break
    return [(c.n, c.text) for c in offered]


def about_the_whole_question(
    reading: questions.Reading, found: list[Candidate], similarity: Similarity | None, weights
) -> list[bool]:
    """Whether each sentence is about the question at all: one that matches a part by a word ("versions") but is
    about another subject ("Browser-based: current versions of Edge…") answers no part of it."""
    least = part_minimum(similarity) * WHOLE_QUESTION_SHARE
    whole = relevance([reading.text], [c.text for c in found], similarity, weights, [c.unit.heading for c in found])[0]
    return [score >= least for score in whole]


def passage_prior(
    parts: list[questions.Part], passages: dict[int, str], similarity: Similarity | None
) -> list[dict[int, float]]:
    """Per part, {passage number: PASSAGE_SHARE × the passage's cosine to the part}; nothing without a similarity."""
    if similarity is None or not passages:
        return [{} for _ in parts]
    numbers = list(passages)
    cosines = similarity([part.text for part in parts], [passages[n] for n in numbers])
    return [{n: PASSAGE_SHARE * max(0.0, float(cos)) for n, cos in zip(numbers, row)} for row in cosines]


def _read_with_what_they_point_to(
    parts: list[questions.Part], found: list[Candidate], scores: list[list[float]], weights
) -> list[list[float]]:
    """The scores, each sentence that points back ("However, this decision must be taken by the Chief Risk
    Officer") matched by words together with the sentence before it in its paragraph ("…possible to decide to
    accept the risk"), whose words it stands for; never above that sentence: it adds to what that one says."""
    before = _pointed_to(found)
    if not before:
        return scores
    pointing = list(before)
    queries, words = [p.text for p in parts], [p.words for p in parts]
    headings = [found[i].unit.heading for i in pointing]
    alone = relevance(queries, [found[i].text for i in pointing], None, weights, headings, words)
    joined = relevance(
        queries, [f"{found[before[i]].text} {found[i].text}" for i in pointing], None, weights, headings, words
    )
    scores = [list(row) for row in scores]
    for row, alone_row, joined_row in zip(scores, alone, joined):
        for i, own, together in zip(pointing, alone_row, joined_row):
            borrowed = row[i] + (1 - SEMANTIC_WEIGHT) * (together - own)
            row[i] = max(row[i], min(borrowed, row[before[i]]))
    return scores


def _pointed_to(found: list[Candidate]) -> dict[int, int]:
    """{index of a sentence that points back: index of the sentence of its paragraph just before it}."""
    at = {(c.n, c.position): i for i, c in enumerate(found)}
    pointed = {}
    for i, candidate in enumerate(found):
        if candidate.unit.kind != grounding.SENTENCE or not POINTS_BACK.match(candidate.text):
            continue
        previous = at.get((candidate.n, candidate.position - 1))
        if (
            previous is not None
            and found[previous].unit.kind == grounding.SENTENCE
            and found[previous].unit.paragraph == candidate.unit.paragraph
        ):
            pointed[i] = previous
    return pointed


def _best_for_the_whole_question(question, found, similarity, weights, least) -> list:
    """No sentence answers a part clearly: the one most relevant to the whole question, if it is about it at all.

    The evidence gate has already found the question's subject in the passages;
    a weak embedding model (the offline baseline) scores paraphrases low.
    """
    row = relevance([question], [c.text for c in found], similarity, weights, [c.unit.heading for c in found])[0]
    best = _ranked(row, found)[0]
    return (
        [(Choice(found[best].n, found[best].text, 0, round(row[best], 3)), found[best])] if row[best] >= least else []
    )


def about_the_head(part: questions.Part, candidate: Candidate, passages: dict[int, str]) -> bool:
    """Whether a sentence can answer an "including" item: "authentication" in "Describe the API, including
    authentication" is the API's, so a sentence from a passage that names neither the API nor its developers
    ("Orrery supports authenticator apps (TOTP)…", the sign-in's) answers another subject."""
    return not part.head or bool(stems(part.head, subject_only=True) & stems(passages[candidate.n]))


def states_asked(part: questions.Part, candidate: Candidate) -> float:
    """+1 when the sentence states a kind of thing the part asks for (how often, how long…), -1 when it states
    none of them, 0 when the part asks for nothing a sentence can be seen to state; KIND_OF_PLACE_SHARE when all it
    states is a kind of place ("in data centres") where a place is asked.

    Read under its heading ("Rate limits: 600 requests per minute"), except for a name: a heading ("History",
    "Monitoring") names no tool, and the quoted sentence must name the thing itself ("Munin covers…").
    """
    if not part.checkable:
        return 0.0
    stated = {
        kind
        for kind in part.checkable
        if questions.states(kind, candidate.text if kind == questions.NAME else candidate.in_context, part.words)
    }
    if not stated:
        return -1.0
    if stated == {questions.PLACE} and not questions.names_a_place(candidate.in_context):
        return KIND_OF_PLACE_SHARE
    return 1.0


def enumerates(candidate: Candidate) -> bool:
    """A list item, or a sentence that names several things: "…including Fenmoor Water Authority, Harrowgate…"."""
    return candidate.unit.kind == grounding.ITEM or names_several(candidate.text)


def names_several(text: str) -> bool:
    names = sum(word[:1].isupper() for word in text.split()[1:])
    return text.count(",") + len(re.findall(r"\band\b", text)) >= 2 and names >= ENUMERATION_NAMES


def _weight(stems: set[str], weights: dict[str, float] | None) -> float:
    return sum((weights or {}).get(stem, 1.0) for stem in stems)


def _siblings(
    item: Candidate, found: list[Candidate], row: list[float], part: int, least: float, chosen, wanted: set[str]
) -> list:
    """The other items of the same list or table as `item` that are about the question at all, when the list is
    one of the things asked: its heading names a subject word of the part (`wanted`) — "Certifications" for
    "which certifications"; the other rows of a "Summary of controls" ("Encryption at rest: AES-256") are not.
    A passage cut from the middle of a list has no heading: there an item is one of the things asked when it names
    the subject word the chosen item names ("LDAP authentication, which…", "RADIUS authentication, which…")."""
    heading_asked = wanted & stems(item.unit.heading)  # the whole list is what was asked
    subject_named = set() if item.unit.heading else wanted & stems(item.text)  # no heading: items naming it are
    if not heading_asked and not subject_named:
        return []
    taken = {c for _, c in chosen}
    return [
        (Choice(c.n, c.text, part, round(row[i], 3)), c)
        for i, c in enumerate(found)
        if _same_list(c, item)
        and c not in taken
        and c != item
        and row[i] >= least
        and (heading_asked or subject_named & stems(c.text))
    ][:LIST_ITEMS]


def _with_neighbours(chosen: list, found: list[Candidate], reading: questions.Reading) -> list:
    """The chosen sentences, each sentence of prose with the one before and the one after it in its paragraph
    when that one is about the question too: "Nagios covers the second area, … sending alerts"
    follows the "Munin covers the first area" the embedding model chose.

    About the question: it holds a subject word of the question or of the chosen sentence ("Our office dog is
    called Biscuit", beside "Backups are taken every hour", holds neither), and for a part that asks how often (how
    long, where…) it says that too, unless the chosen sentence points back to it ("However, this decision…"). List
    items and table rows are not widened: the next point is another subject.
    """
    subject = stems(reading.text, subject_only=True)
    at = {(c.n, c.position): c for c in found if c.unit.kind == grounding.SENTENCE}
    quoted = [candidate for _, candidate in chosen]
    length, widened = sum(len(c.text) for c in quoted), list(chosen)
    for choice, candidate in chosen:
        if candidate.unit.kind != grounding.SENTENCE:
            continue
        for step in (-1, 1):
            beside = at.get((candidate.n, candidate.position + step))
            if (
                beside is None
                or beside.unit.paragraph != candidate.unit.paragraph
                or not (subject | stems(candidate.text, subject_only=True)) & stems(beside.text)
                or (states_asked(reading.parts[choice.part], beside) < 0 and not _points_to(candidate, step))
                or _repeats(beside.text, quoted)
                or length + len(beside.text) > CONTEXT_CHARS
            ):
                continue
            widened.append((Choice(beside.n, beside.text, choice.part, choice.score), beside))
            quoted.append(beside)
            length += len(beside.text)
    return widened


def _with_announced_list(chosen: list, found: list[Candidate], reading: questions.Reading) -> list:
    """The chosen sentences, and when one announces a list by a count ("…licensed per named user per year, in three
    editions" before the three editions' rows), or two are items of such a list, the announcing sentence and its
    whole list in their order: the three editions are the answer, not the two rows the question's words met. Not
    when the question names one of the items ("What does the Enterprise edition cost?"): that item answers."""
    asked = stems(reading.text, subject_only=True)
    at = {(c.n, c.position): c for c in found}
    widened, done = list(chosen), set()
    for choice, candidate in chosen:
        announced = _announced_list(candidate, at)
        if announced is None or announced.sentence in done:
            continue
        if candidate.unit.kind == grounding.ITEM and sum(f in announced.items for _, f in chosen) < 2:
            continue  # one row chosen: that row answers, not the list
        if any(asked & stems(item.text.split(":")[0]) for item in announced.items if ":" in item.text):
            continue
        done.add(announced.sentence)
        quoted = [announced.sentence, *announced.items]
        widened = [(c, f) for c, f in widened if f not in quoted and f not in announced.rows]
        widened += [(Choice(f.n, f.text, choice.part, choice.score), f) for f in quoted]
    return widened


def _announced_list(candidate: Candidate, at: dict[tuple[int, int], Candidate]) -> Announced | None:
    """The announced list `candidate` announces or is an item of, if any. `at`: the candidates by (passage,
    position). An item's list can only be announced by a sentence of the paragraph right before the list."""
    if candidate.unit.kind == grounding.SENTENCE:
        return _list_announced_by(candidate, at)
    before = candidate.position - 1
    while (candidate.n, before) in at and at[candidate.n, before].unit.kind == grounding.ITEM:
        before -= 1  # back to the list's first row
    sentences = []
    while (candidate.n, before) in at and (
        not sentences or at[candidate.n, before].unit.paragraph == sentences[-1].unit.paragraph
    ):
        sentences.append(at[candidate.n, before])
        before -= 1
    for sentence in reversed(sentences):  # the paragraph's first announcement: "…in three editions", not "…years"
        announced = _list_announced_by(sentence, at)
        if announced and candidate in announced.items:
            return announced
    return None


def _list_announced_by(sentence: Candidate, at: dict[tuple[int, int], Candidate]) -> Announced | None:
    """The list or table right after `sentence`'s paragraph, when the sentence announces exactly as many things as
    it holds (a table's header row aside)."""
    count = ANNOUNCED_COUNT.search(sentence.text) if sentence.unit.kind == grounding.SENTENCE else None
    if count is None:
        return None
    position = sentence.position + 1
    while (sentence.n, position) in at and at[sentence.n, position].unit.kind == grounding.SENTENCE:
        if at[sentence.n, position].unit.paragraph != sentence.unit.paragraph:
            return None
        position += 1  # the rest of the sentence's paragraph
    rows = []
    while (sentence.n, position) in at and at[sentence.n, position].unit.kind == grounding.ITEM:
        rows.append(at[sentence.n, position])
        position += 1
    announced = COUNT_WORDS.get(count[1].lower()) or int(count[1])
    items = rows[1:] if len(rows) == announced + 1 else rows  # the first is the table's header row
    return Announced(sentence, tuple(rows), tuple(items)) if len(items) == announced else None


def _names_more(candidate: Candidate, row: Candidate) -> bool:
    """Whether a sentence names things a list's row does not: "…and holds Cyber Essentials Plus" beside the summary
    row "Certification: ISO/IEC 27001:2022 certified; SOC 2 Type II…"."""
    named = {word for word in candidate.text.split()[1:] if word[:1].isupper()}
    return len(named - set(row.text.split())) >= 2


def _margins_of_the_best(orders: list[list[float]], found: list[Candidate]) -> list[tuple[int, float]]:
    """For each part, (its best sentence, by how much it leads the part's next): "If monthly availability falls
    below 99.9%, … a service credit" leads "…the service credits if it is missed" by more than it leads "What monthly
    availability do you commit to", where "Orrery is available 99.9% of every calendar month" comes close."""
    margins = []
    for order in orders:
        ranked = _ranked(order, found)
        lead = _penalised(order, found, ranked[0]) - _penalised(order, found, ranked[1]) if len(ranked) > 1 else 0.0
        margins.append((ranked[0], lead))
    return margins


def _ranked(scores: list[float], found: list[Candidate]) -> list[int]:
    """The sentences' indexes, best first: by score less a small penalty for a later-ranked passage, then by passage
    rank and position, so ties read in the library's order."""
    return sorted(range(len(found)), key=lambda i: (-_penalised(scores, found, i), found[i].rank, found[i].position))


def _penalised(scores: list[float], found: list[Candidate], i: int) -> float:
    """Sentence i's score less RANK_PENALTY for each place its passage ranks below the first."""
    return scores[i] - RANK_PENALTY * found[i].rank


def _left_to_a_later_part(i: int, part: int, margins: list[tuple[int, float]]) -> bool:
    """Whether sentence i, best for this part, is the best of a later part by a wider lead: the later part quotes it,
    and this part takes the sentence that says what it asks."""
    best, lead = margins[part]
    return best == i and any(other == i and wider >= lead + LATER_PART_LEAD for other, wider in margins[part + 1 :])


def _first_of_part(chosen: list, part: int) -> Candidate:
    """The sentence chosen first for a part (the caller has chosen one)."""
    return next(candidate for choice, candidate in chosen if choice.part == part)


def _elsewhere(candidate: Candidate, first: Candidate, documents: dict[int, int] | None) -> bool:
    """Whether the sentence comes from another document than the part's `first`, when the passages' documents
    are known."""
    return bool(documents) and documents.get(candidate.n) != documents.get(first.n)


def _may_repeat_the_first(candidate: Candidate, score: float, first: Candidate, first_score: float, parts: int) -> bool:
    """Whether a part's next sentence may be quoted though the subject words it names are all its first's: when it is
    more relevant than the first (the answer, its words met by the first), or, in a question of one part, nearly as
    relevant (the first may be the wrong one: "…once it is scanned" for "who can open it"), unless it is another row of
    the first's table (one more phase, not the answer). In a question of several parts, the next part has its own."""
    if score >= first_score:
        return True
    return parts == 1 and score >= NEW_WORDS_NEAR * first_score and not _same_list(candidate, first)


def _same_list(candidate: Candidate, first: Candidate) -> bool:
    """Whether both are items of one list or table (the same passage and heading)."""
    return (
        candidate.unit.kind == first.unit.kind == grounding.ITEM
        and candidate.n == first.n
        and candidate.unit.heading == first.unit.heading
    )


def _points_to(candidate: Candidate, step: int) -> bool:
    """The sentence before a sentence that points back is what it points to: quoted with it whatever it states."""
    return step < 0 and bool(POINTS_BACK.match(candidate.text))


def _full(chosen: list) -> bool:
    return len(chosen) >= MAX_SENTENCES or sum(len(c.text) for c, _ in chosen) >= TARGET_ANSWER_CHARS


def _repeats(text: str, chosen: list[Candidate]) -> bool:
    """Overlapping chunks repeat sentences: quote each once."""
    return any(same_sentence(text, c.text) for c in chosen)


def _without_restatements(chosen: list, reading: questions.Reading) -> list:
    """The chosen sentences less a table row or list item whose values the others already say, and no word of the
    question's subject with them: a summary table's "Certification: ISO/IEC 27001:2022 certified; SOC 2 Type II report
    every year" before "…is certified to ISO/IEC 27001:2022 …, and holds Cyber Essentials Plus" and "An independent
    auditor issues a SOC 2 Type II report every year" says it twice. A row that alone holds a word of the question
    ("Key management: …" for "How are encryption keys managed…?") stays: it says what the others leave the reader to
    infer. Later ones go first: the draft keeps its opening."""
    subject, kept = stems(reading.text, subject_only=True), list(chosen)
    for entry in reversed(chosen):
        row = entry[1]
        others = [other.text for choice, other in kept if choice is not entry[0]]
        if row.unit.kind != grounding.ITEM or not others:
            continue
        words, figures = set().union(*map(stems, others)), set().union(*map(grounding.figures, others))
        row_words = stems(row.text)
        asked_in_row = [word for word in subject if _meets(word, row_words)]
        values = row.text.split(": ", 1)[-1]  # a row's label names a column, not something it says
        if _says_nothing_new(values, words, figures) and all(_meets(word, words) for word in asked_in_row):
            kept.remove(entry)
    return kept


def _meets(stem: str, among: set[str]) -> bool:
    """The stem is one of these, or a shorter or longer cut of one ("manag" meets "manage", "key" meets "keys"): the
    stems are cut, not lemmatised."""
    return any(stem.startswith(other) or other.startswith(stem) for other in among)


def same_sentence(text: str, other: str) -> bool:
    """Nearly the same words and no figure of its own: "…encrypted in transit with TLS 1.3" is not "…also encrypted
    with mutual TLS"."""
    return _says_nothing_new(text, stems(other), grounding.figures(other))


def _says_nothing_new(text: str, words: set[str], figures: set[str]) -> bool:
    """At least SAME_WORDS of the text's own stems are among these words, and every figure of it among these figures."""
    own = stems(text)
    return bool(own) and len(own & words) >= SAME_WORDS * len(own) and grounding.figures(text) <= figures


# --- does an answer address the question -----------------------------------------------------
def addressing_problems(
    question: str | questions.Reading,
    claims: list[tuple[str, list[int]]],
    passages: dict[int, str],
    similarity: Similarity | None = None,
    weights: dict[str, float] | None = None,
    answer_min: float | None = None,
) -> tuple[str, list[str]]:
    """(verdict it calls for: "rejected", "needs_revision" or "", reasons) on whether the answer addresses the question.

    An answer about another topic (its relevance to the whole question below
    TOPIC_MIN) is rejected. An answer on the topic that does not say what a
    part asks for (how often, how long, where…) needs revision: supported,
    but it does not answer (`kind_problems`); so does one less relevant than
    `answer_min` to the question (a bar on the similarity's own scale, given
    only for an embedding model it was chosen for). With the embedding model's
    similarity, an answer that leaves a part of the question unanswered while
    a passage it was given answers that part needs revision, and the reason names the passage.
    """
    reading = questions.read(question)
    question, weights = reading.text, weights if weights is not None else reading.weights or None
    answer = " ".join(sentence for sentence, _ in claims)
    contexts = [_context_of(sentence, [passages[n] for n in numbers if n in passages]) for sentence, numbers in claims]
    topic = relevance([question], [answer], similarity, weights, [" ".join(dict.fromkeys(contexts))])[0][0]
    if topic < (TOPIC_MIN if similarity is not None else LEXICAL_TOPIC_MIN):
        return "rejected", [
            f"Does not address the question: the answer is about another topic (relevance {under_bar(topic)} to the question)."
        ]
    reasons = kind_problems(reading, [sentence for sentence, _ in claims])
    names_the_list = reading.wants_list and any(names_several(sentence) for sentence, _ in claims)
    if (
        answer_min is not None
        and similarity is not None
        and topic < answer_min
        and not names_the_list
        and not states_every_part(reading, [sentence for sentence, _ in claims])
    ):
        reasons.append(
            "Supported but does not answer: on the question's topic, the draft says little of what it asks "
            f"(relevance {under_bar(topic)} to the question)."
        )
    parts, found = reading.parts, candidates(passages)
    if similarity is None or not found:
        # by words alone, a passage's wording decides more than what it says: no part check
        return ("needs_revision" if reasons else ""), reasons
    given = relevance(
        [p.text for p in parts],
        [sentence for sentence, _ in claims],
        similarity,
        weights,
        contexts,
        [p.words for p in parts],
    )
    available = score_candidates(parts, found, similarity, weights)
    # judged as the responder chooses: a sentence counts with its passage's meaning, when it is about the question
    # at all ("Browser-based: current versions of Edge…" is not lifted toward "protocol versions" by its passage)
    prior = passage_prior(parts, passages, similarity)
    about_the_question = about_the_whole_question(reading, found, similarity, weights)
    given = [
        [g + max((by_passage.get(n, 0.0) for n in numbers), default=0.0) for g, (_, numbers) in zip(row, claims)]
        for row, by_passage in zip(given, prior)
    ]
    available = [
        [a + by_passage.get(c.n, 0.0) * about for a, c, about in zip(row, found, about_the_question)]
        for row, by_passage in zip(available, prior)
    ]
    if reading.wants_list:  # judged as the responder chooses: a list question wants the names
        given = [[g + LIST_BONUS * names_several(s) for g, (s, _) in zip(row, claims)] for row in given]
        available = [[a + LIST_BONUS * enumerates(c) for a, c in zip(row, found)] for row in available]
    sentences = [sentence for sentence, _ in claims]
    for part, given_row, available_row in zip(parts, given, available):
        if part.checkable and answers_part(part, sentences):
            continue  # the draft says where (how often…)
        answering = [i for i, c in enumerate(found) if about_the_head(part, c, passages) and states_asked(part, c) >= 0]
        if not answering:
            continue
        best = max(answering, key=lambda i: available_row[i])
        quoted = any(same_sentence(found[best].text, sentence) for sentence in sentences)
        if (
            available_row[best] >= part_minimum(similarity)
            and available_row[best] - max(given_row) > BETTER_BY
            and not quoted  # the answer quotes that very sentence
        ):
            reasons.append(
                f"Does not answer \u201c{part.words}\u201d, which passage [{found[best].n}] does: "
                f"\u201c{found[best].text[:120]}\u201d"
            )
    return ("needs_revision" if reasons else ""), reasons


def states_every_part(reading: questions.Reading, sentences: list[str]) -> bool:
    """A question of several parts, each asking a kind of thing the draft states ("founded in 2011 in Bristol…
    Employees: 185"): the draft answers it, however low its relevance to the whole question reads."""
    parts = reading.parts
    return len(parts) > 1 and all(p.checkable and answers_part(p, sentences) for p in parts)


def kind_problems(reading: questions.Reading, sentences: list[str]) -> list[str]:
    """Supported but not an answer: a part asks how often (how long, where…) and no sentence says that about it.

    The reason says it as a person would: "asks how often; the draft says what it is".
    """
    reasons = []
    for part in reading.parts:
        if not answers_part(part, sentences):
            asked = " or ".join(questions.SAID_AS[kind] for kind in sorted(part.checkable))
            reasons.append(
                f"Supported but does not answer: asks {asked} (\u201c{part.words}\u201d); "
                f"the draft says {questions.what_it_says(' '.join(sentences))}."
            )
    return reasons


def answers_part(part: questions.Part, sentences: list[str]) -> bool:
    """Whether one of the sentences states the kind of thing the part asks for (how often, how long, where…);
    True for a part that asks for nothing a sentence can be seen to state (a yes/no question, a description).

    Whether a sentence is about the part's subject is for the choice (`choose`: relevance to the part and to
    the whole question) and the reviewer's topic check: asking it here as a share of the part's subject words
    as well rejected right answers that say it in their own words ("Hourly snapshots are kept for 7 days" for
    "how long are backups retained?").
    """
    if not part.checkable:
        return True
    return any(any(questions.states(kind, sentence, part.words) for kind in part.checkable) for sentence in sentences)


def _context_of(sentence: str, cited: list[str]) -> str:
    """The passage sentence the answer's sentence quotes or restates (its closest), under its heading.

    The answer is read as the responder read the passage: "The API uses OAuth 2.0" is about authentication.
    """
    unit = grounding.closest_unit(sentence, cited)
    return f"{unit.heading} {unit.text}" if unit else ""
