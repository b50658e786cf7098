"""Reading a question once: what it asks for, its subject words, its parts, the question it follows up.

`read(text)` is computed once per question and handed to every stage that
needs it — retrieval's evidence gate, the sentence choice, the draft, the
reviewer and the answer library's match — so that they differ only in what
they do with it, not in how they read it.

What a question asks for is read from English's own question words ("how
often", "how long", "where", "who", "which standards"), not from any
question of the evaluation set. `states(kind, sentence)` is the other side:
whether a sentence states that kind of thing at all ("quarterly", "for 90
days", "in the EU", "the system owner"). It is lenient on purpose: it cannot
tell that a sentence answers, only that one saying no frequency does not
answer "how often": the typical wrong draft is a true sentence about the
subject that says what it is, not how often it is done.
"""

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from .words import CITATION, QUESTIONNAIRE_PHRASES, WORD, stem, stems

# --- what is asked -------------------------------------------------------------------------------

FREQUENCY, DURATION, TIME, COUNT, PERSON, PLACE = "frequency", "duration", "time", "count", "person", "place"
YES_NO, LIST, STANDARD, NAME, DESCRIPTION = "yes_no", "list", "standard", "name", "description"
# The kinds a sentence can be seen to state or not (`states`); the others any sentence about the subject may answer.
CHECKABLE = frozenset({FREQUENCY, DURATION, TIME, COUNT, PERSON, PLACE, STANDARD, NAME})
# The kinds of thing asked as a person says them: "asks how often; the draft says what it is".
SAID_AS = {
    FREQUENCY: "how often",
    DURATION: "how long",
    TIME: "when or how long it takes",
    COUNT: "how many or how much",
    PERSON: "who",
    PLACE: "where",
    STANDARD: "which standard, algorithm or version",
    NAME: "a name",
    LIST: "a list",
    YES_NO: "yes or no",
    DESCRIPTION: "a description",
}

# An imperative that asks for the things themselves, opening the part: "State the algorithms…", "List any tools…".
NAME_THE = r"^(?:please )?(?:state|name|list|specify|give|identify|indicate)(?: (?:the|your|any|all|each))?"
# How long something takes, said as a noun: "Describe your approach and a typical timeline" asks for a time.
TIME_NOUNS = r"(?:timelines?|timescales?|time[- ]?frames?|lead[- ]times?|turnaround(?: times?)?)"
# Earlier alternatives win where two start at the same place: "how many days" asks for a time, as "how soon"
# does, "how many" alone for a count.
ASKS = re.compile(
    r"\b(?:(?P<person>who(?:m|se)?|which (?:team|role|person|people|staff|group|department)s?)"
    r"|(?P<place>where|in (?:which|what) (?:\w+ )?(?:country|countries|region|location|data cent(?:er|re))s?"
    r"|(?:stays?|remains?|resides?) (?:only |solely |entirely )?(?:in|within|inside))"
    r"|(?P<frequency>how (?:often|frequently|regularly)|at what (?:interval|frequency)|(?:what|which) "
    r"(?:interval|frequency|schedule)|how many times)"
    r"|(?P<time>how (?:quickly|soon|fast)|when|how long does it take|within what time|(?:what|which) (?:date|year|month)"
    rf"|how many (?:seconds|minutes|hours|days|weeks|months|years)|{TIME_NOUNS})"
    r"|(?P<duration>how long|for what period|retention period)"
    r"|(?P<count>how (?:many|much)|what (?:(?!high )\w+ )?(?:percentage|proportion|share|number|availability|uptime"
    r"|limits?|amount|price|cost|fees?|capacity))"
    rf"|(?P<standard>(?:which|what|{NAME_THE}) (?:\w+ )?(?:standards?|certifications?|algorithms?|protocols?|versions?"
    r"|ciphers?|frameworks?|accreditations?))"
    rf"|(?P<name>(?:which|what|{NAME_THE}) (?:\w+ )?(?:tools?|tooling|software|products?|programs?|packages?|utilit(?:y|ies)"
    r"|commands?|technolog(?:y|ies)|vendors?|providers?|mechanisms?)|describe the (?:\w+ )?(?:tools?|tooling"
    r"|software|programs?|mechanisms?|technolog(?:y|ies))))\b",
    re.IGNORECASE,
)
# A question opening with an auxiliary verb is a yes/no question: a "who" or "when" later in it is a relative
# clause ("staff who handle personal data"), not what it asks for.
AUXILIARIES = r"(?:do|does|did|is|are|was|were|can|could|will|would|has|have|had|must|should|may|shall)\b"
YES_NO_OPENING = re.compile(r"^\W*" + AUXILIARIES, re.IGNORECASE)
AUXILIARY_NEXT = re.compile(r"\s+" + AUXILIARIES, re.IGNORECASE)
PRONOUN_NEXT = re.compile(r"\s+(?:it|they|we|you|he|she|its|their|our|your)\b", re.IGNORECASE)
# A list is asked by "List…", "What are…", "Which of…" or "which" and a plural ("Which data centres…",
# "Which hypervisors…"); "Which external firm performed…" asks for one.
LIST_QUESTION = re.compile(
    r"^\s*(?:please\s+)?(?:list|name|enumerate|what are|which of)\b"
    r"|^\s*which(?:\s+[\w-]+)?\s+[\w-]+(?<!ss)(?<!us)(?<!is)s\b|\b(?:two|three|four|five|six|several)\s+\w+",
    re.IGNORECASE,
)
# "If yes, describe…", "If not, why?": a follow-up, read with the question before it.
FOLLOW_UP = re.compile(r"^\W*(?:if (?:yes|so|not|no)|where applicable|in that case)\b", re.IGNORECASE)
# What a question names: a run of capitalised words, acronyms and numbers after a sentence's first word
# ("Extended Validation", "ISO 27001", "SOC 2", "LDAP"); "I" is no name.
NAMED = re.compile(r"\b(?!I\b)[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d+)\b)*")
# A sentence's first word, after the number a question may still carry ("Z.1 Who is…", "(b) Which…"): capitalised
# as a sentence starts, not as a name.
SENTENCE_START = re.compile(
    r"(?:^|(?<=[.?!:]))\s*(?:\(?(?:[A-Za-z]{1,4}[.\-]?)?\d+(?:\.\d+)*[.):]?\s+|\(?[a-z]\)\s+)?\S+"
)

# --- what a sentence states ----------------------------------------------------------------------

NUMBERS = (
    r"(?:\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|ninety|hundred|thousand|million)"
)
# "a day", "several weeks": a duration or time, though no count.
NUMBER_WORDS = rf"(?:{NUMBERS}|an?|several|few)"
TIME_UNIT = r"(?:second|minute|hour|day|week|fortnight|month|quarter|year)s?"
# The capitalised keywords of a requirement ("the CSP SHALL", "MUST NOT"; RFC 2119's) are emphasis: neither a
# name nor a standard.
NOT_A_REQUIREMENT_KEYWORD = r"(?!(?:MUST|SHALL|SHOULD|MAY|NOT|REQUIRED|RECOMMENDED|OPTIONAL)\b)"
# A place by its name ("in the UK", "at Frankfurt") or path ("/var/backups"), not a kind of place ("in data centres").
NAMED_PLACE = r"\b(?:in|at|on|from|under|within|inside|outside|to) (?:the |a |an )?(?:[A-Z][\w-]+)|(?:^|\s)/[\w.-]+"
STATES = {
    FREQUENCY: re.compile(
        r"\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annual(?:ly)?|bi-?annual(?:ly)?"
        r"|semi-annual(?:ly)?|every|each (?:day|night|week|month|quarter|year|hour|minute|time|run|boot)"
        r"|once|twice|\d+ times|times (?:a|per|each)|per (?:day|week|month|year|hour|minute|second)"
        r"|a (?:day|week|month|year)|regular(?:ly)?|periodic(?:al|ally)?|continuous(?:ly)?|constantly"
        r"|real[- ]time|intervals?|frequen\w*|schedul\w*|cron\w*|whenever|routine(?:ly)?"
        r"|only (?:when|if|after)|at (?:boot|startup|login|logon)|on (?:every|each) \w+)\b",
        re.IGNORECASE,
    ),
    DURATION: re.compile(
        rf"\b(?:{NUMBER_WORDS}[ -]{TIME_UNIT}|until|indefinite(?:ly)?|permanent(?:ly)?|forever|as long as"
        r"|lifetime|expir\w*|retention period)\b",
        re.IGNORECASE,
    ),
    TIME: re.compile(
        # "within 72 hours", "within one business day"; not a bare "within" ("within the organization")
        rf"\b(?:{NUMBER_WORDS}[ -]{TIME_UNIT}|within (?:{NUMBER_WORDS} )?(?:\w+ )?{TIME_UNIT}"
        r"|immediately|promptly|as soon as|at once|in real time"
        r"|at (?:the )?(?:end|start|beginning|time) of|(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
        r"|\d{1,2}:\d{2}|midnight|noon|o'clock|(?:in|since|from|until) (?:19|20)\d\d)\b",
        re.IGNORECASE,
    ),
    COUNT: re.compile(rf"\b{NUMBERS}\b|%|\bpercent\b|\b(?:none|single|unlimited)\b", re.IGNORECASE),
    PERSON: re.compile(
        r"\b(?:administrators?|admins?|owners?|officers?|managers?|management|teams?|staff|employees?|personnel"
        r"|users?|operators?|engineers?|auditors?|assessors?|committees?|board|departments?|providers?|vendors?"
        r"|third[- ]part(?:y|ies)|contractors?|customers?|clients?|root|superusers?|analysts?|developers?"
        r"|custodians?|controllers?|processors?|everyone|nobody|anyone|person|people|individuals?|members?"
        r"|responsib\w+|accountab\w+|[A-Z]{2,}O"
        r"|firms?|agenc(?:y|ies)|partners?|suppliers?|sub-?processors?|consultan\w+|accountants?"
        r"|(?-i:LLP|Ltd|Limited|Inc|LLC|GmbH|plc))\b",
        re.IGNORECASE,
    ),
    PLACE: re.compile(
        NAMED_PLACE
        + r"|(?i:\b(?:(?:in|on|to|at) (?:the |a |an |another |other |each |every |separate |its )?(?:[\w-]+ )?"
        r"(?:regions?|countr(?:y|ies)|data ?cent(?:er|re)s?|sites?|premises|cloud|director(?:y|ies)|folders?"
        r"|files?|disks?|servers?|machines?|hosts?|buildings?|rooms?|databases?|repositor(?:y|ies)|media|tapes?"
        r"|locations?)|on-prem\w*|off-?site|on-?site|abroad|locally|remotely)\b)",
    ),
    STANDARD: re.compile(
        rf"\b{NOT_A_REQUIREMENT_KEYWORD}[A-Z][A-Z0-9]{{1,}}(?:[-/ ]?[0-9][\w.:-]*)?\b|\bversion \d|\b\d+(?:\.\d+)+\b"
        r"|\b(?:standards?|certif\w+|complian\w+|accredit\w+|algorithms?|protocols?)\b",
    ),
}

# A time set by an event: "at the time of authentication", "at the end of each session".
AT_AN_EVENT = re.compile(r"\bat (?:the )?(?:end|start|beginning|time) of (?:the |an? |each |every )?([a-z]+)", re.I)

# What reads as a figure or a place but is neither: a citation marker ("[2]"), a reference ("in Section 5.2.2",
# "see Table 3"), a clause number ("4.1.2") or a heading's own number ("9.10. Backup").
REFERENCE = re.compile(
    rf"{CITATION.pattern}|"
    r"\b(?:sections?|chapters?|figures?|tables?|appendix|annex|clauses?|pages?|steps?|rfc)\s+[\dA-Z][\w.]*"
    r"|\b\d+(?:\.\d+){2,}\b|^\s*\d+(?:\.\d+)*\.?(?=\s)",
    re.IGNORECASE | re.MULTILINE,
)
READ_WITHOUT_REFERENCES = frozenset({DURATION, TIME, COUNT, PLACE})

# A sentence's capitalised first word names a thing unless it reads as a general word: "Nagios covers…", not
# "Monitoring is…", "The…" or "Backups…".
FIRST_WORD = re.compile(r"[\"'\u201c(]?([A-Z][a-z]+)\b(?![-'])")
GENERAL_WORD = re.compile(
    r"^(?:the|this|that|these|those|there|then|thus|it|its|in|on|at|as|an?|if|when|while|each|every|all|some|"
    r"most|many|for|to|by|with|from|however|moreover|also|one|after|before|since|once|such|other|both|here|"
    r"no|not|only|we|you|they|our|your|their|what|which|who|how|where|because|although|unlike|like|"
    r"instead|even|so|but|and|or|more|less|any|another|a)$|(?:ing|ion|ions|ment|ness|ity|ly|ed|er|ers|ble|"
    r"ups|al|ic|ive|ure|ance|ence|ics|ies|es|ts|ks|ds|rs|ls|ns|ms|ys|ps|age|ate|ise|ize|or|le|se|ce)$",
    re.IGNORECASE,
)
# Anywhere in it: a figure, an acronym, a camel-cased, dotted or slashed name, a capitalised word inside the sentence,
# or a program named in lower case as manuals name them ("the logcheck program", "the adduser command"; not "the same
# program", "the backup program").
NAMES_A_THING = re.compile(
    rf"\d|\b{NOT_A_REQUIREMENT_KEYWORD}[A-Z]{{2,}}|\b[A-Za-z][a-z]+[A-Z]\w*|\w[_/]\w|\w\.\w|(?<=[a-z,;] )[A-Z][a-z]+"
    r"|\b[Tt]he (?!(?:same|main|other|following|whole|new|old|first|last|next|previous|default|original|actual|real"
    r"|backup|security|web|mail|system|user|server|client)\b)[a-z][\w.-]* (?:program|command|tool|daemon|utility)s?\b"
)


@dataclass(frozen=True)
class Part:
    """One thing a question asks: `text` as the embedding model reads it, `words` as the lexical match does,
    `asks` the kinds of thing it asks for."""

    text: str
    words: str
    asks: frozenset[str] = frozenset()
    head: str = ""  # an "including" item's head: "authentication" is asked of "Describe the API…"

    @property
    def checkable(self) -> frozenset[str]:
        """The kinds it asks for that a sentence can be seen to state (none for a yes/no part)."""
        return frozenset() if YES_NO in self.asks else self.asks & CHECKABLE


@dataclass(frozen=True)
class Reading:
    """A question read once. `weights`: its subject stems' rarity in the library, filled in by the caller that
    knows the library (`weighed`); empty until then, when every word counts the same. `asker`: the lower-cased words
    of the client's name ("Eastbrook County Council"), which a question may use ("the council's developers") and an
    answer, the supplier's, has no reason to repeat."""

    text: str
    asks: frozenset[str]
    subject: frozenset[str]
    parts: tuple[Part, ...]
    parent: str = ""
    contrasts: tuple["Contrast", ...] = ()
    names: tuple[str, ...] = ()
    asker: frozenset[str] = frozenset()
    weights: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def wants_list(self) -> bool:
        return LIST in self.asks

    @property
    def checkable(self) -> frozenset[str]:
        """The kinds the whole question asks for that a sentence can be seen to state (none for a yes/no one)."""
        return frozenset() if YES_NO in self.asks else self.asks & CHECKABLE

    @property
    def follows_up(self) -> bool:
        return bool(FOLLOW_UP.match(self.text))

    @property
    def asked(self) -> str:
        """The question as the word-by-word checks read it: a follow-up ("If yes, describe…") with the question it
        follows, whose subject it answers about."""
        return _with_parent(self.text, self.parent)

    def weighed(self, weights: dict[str, float]) -> "Reading":
        return replace(self, weights=dict(weights))


def read(question: "str | Reading", parent: str = "", asker: str = "") -> Reading:
    """The question's reading (a Reading is returned as it is, so every stage may take either); `asker`, the
    client's name, when the caller knows it."""
    if isinstance(question, Reading):
        return question
    return _read(question or "", parent, asker)


@lru_cache(maxsize=4096)
def _read(text: str, parent: str, asker: str) -> Reading:
    parent = parent if FOLLOW_UP.match(text) else ""
    asker_words = frozenset(WORD.findall(asker.lower()))
    # A follow-up's subject is its parent's: "If yes, describe how they are tested" is about what the parent asks.
    return Reading(
        text=text,
        asks=asks(text),
        subject=frozenset(stems(_with_parent(text, parent), subject_only=True)),
        parts=tuple(_parts(text, parent)),
        parent=parent,
        contrasts=contrasts(text),
        # "Will Eastbrook's records…" asks nothing about Eastbrook: a draft need not name its client.
        names=tuple(name for name in named(text) if not set(WORD.findall(name.lower())) <= asker_words),
        asker=asker_words,
    )


def _with_parent(text: str, parent: str) -> str:
    return f"{parent} {text}" if parent else text


def asks(text: str) -> frozenset[str]:
    """The kinds of thing a question (or one part of it) asks for; DESCRIPTION when it names none of the others.
    Its examples ask nothing ("…, such as when it happened, where, who was involved…")."""
    text = _without_examples(text)
    found = {match.lastgroup for match in ASKS.finditer(text) if not _subordinate(match, text)}
    if YES_NO_OPENING.match(_after_condition(text)):
        found = {YES_NO}
    if LIST_QUESTION.search(text):
        found.add(LIST)
    return frozenset(found or {DESCRIPTION})


def _after_condition(text: str) -> str:
    """The question after an opening condition that asks nothing itself: "can the database be restored…" of "In the
    event of data corruption, can the database be restored…"."""
    condition = _opening_condition(text)
    return text[condition.end() :] if condition else text


def _opening_condition(text: str) -> re.Match | None:
    """The text's opening clause that sets a condition and asks nothing itself (CONDITION_CLAUSE; its group 1)."""
    condition = CONDITION_CLAUSE.match(text)
    return condition if condition and asks(condition.group(1)) == {DESCRIPTION} else None


def _subordinate(match: re.Match, text: str) -> bool:
    """A bare "who", "where" or "when" that opens a clause rather than asks: "the employee who leaves", "the region
    where it is stored", "What is done when a key is compromised?", "When an account has an old hash, how…".

    It asks when an auxiliary verb follows it ("When does…", "where do your servers…"), or when it opens the
    part and, for "when", a pronoun follows ("…: when it was founded, where it is based").
    """
    word = match.group(0).lower()
    if word not in {"who", "whom", "whose", "where", "when"}:
        return False
    after = text[match.end() :]
    if AUXILIARY_NEXT.match(after):
        return False
    opens = not text[: match.start()].strip(" ,;:-\"'(")
    return not opens or (word == "when" and not PRONOUN_NEXT.match(after))


def states(kind: str, sentence: str, about: str = "") -> bool:
    """Whether the sentence states that kind of thing at all (always, for a kind no pattern can check).

    `about`: the words of the part asked, when known; a time set by the very event it asks about ("at the time
    of authentication" for "when does a user have to authenticate again?") says nothing of when.
    """
    if kind == NAME:
        return names_something(sentence)
    pattern = STATES.get(kind)
    if kind in READ_WITHOUT_REFERENCES:
        sentence = REFERENCE.sub(" ", sentence)
    if kind == TIME and about:
        sentence = _without_events_of(stems(about, subject_only=True), sentence)
    return pattern is None or bool(pattern.search(sentence))


def names_a_place(sentence: str) -> bool:
    """Whether the sentence names the place it states ("Hosted in the UK…"), beyond a kind of place ("Orrery runs
    in data centres powered by…")."""
    return bool(re.search(NAMED_PLACE, REFERENCE.sub(" ", sentence)))


def _without_events_of(subject: set[str], sentence: str) -> str:
    return AT_AN_EVENT.sub(lambda m: " " if stem(m.group(1).lower()) in subject else m.group(0), sentence)


# A means stated in plain words: "copied with dd", "synchronised using rsync", "sent through a VPN" is not, which
# names no particular thing after its article.
MEANS = re.compile(
    r"\b(?:with|using|via|through)\s+(?!(?:the|a|an|its|their|our|your|this|that|these|those|some|each|every|all|any"
    r"|no|more|less|other|such)\b)[a-z][\w-]*",
    re.IGNORECASE,
)


def names_a_means(sentence: str) -> bool:
    """The sentence says what something is done with: "each disk is copied with dd"."""
    return bool(MEANS.search(sentence))


def named(question: str) -> tuple[str, ...]:
    """The things a question names, each once: "Do your public websites use Extended Validation certificates?" ->
    ("Extended Validation",). A sentence's first word is capitalised as a sentence starts, not as a name."""
    body = SENTENCE_START.sub(" ", question)
    return tuple(dict.fromkeys(match.group(0) for match in NAMED.finditer(body)))


def mentions(text: str, name: str) -> bool:
    """Whether `text` names `name`: its words in any order and spacing ("ISO/IEC 27001:2022" names "ISO 27001"),
    or an acronym's words written out ("single sign-on" names "SSO")."""
    said, wanted = WORD.findall(text.lower()), WORD.findall(name.lower())
    if set(wanted) <= set(said):
        return True
    initials = "".join(word[0] for word in said)
    return len(wanted) == 1 and name.isupper() and len(name) > 1 and wanted[0] in initials


def names_something(sentence: str) -> bool:
    """The sentence names a thing — a tool, a standard, a figure, a path — rather than talking about its subject
    in general: "Nagios covers the second area…", not "Monitoring is a generic term…"."""
    first = FIRST_WORD.match(sentence)
    return bool(NAMES_A_THING.search(sentence)) or bool(first and not GENERAL_WORD.search(first.group(1)))


def what_it_says(sentence: str) -> str:
    """The kind of thing a sentence states, as a person says it, for "the draft says …": its first checkable kind,
    else "what it is"."""
    for kind in (FREQUENCY, DURATION, COUNT, PLACE):
        if states(kind, sentence):
            return SAID_AS[kind]
    return "what it is"


# A sentence that says what a word means: "Monitoring is a generic term…", "SSO refers to…", "…is defined as…".
DEFINES = re.compile(
    r"\b(?:is|are) (?:a|an|the) (?:\w+ ){0,2}(?:term|word|name|concept|notion)s?\b|\brefers? to\b"
    r"|\b(?:is|are) defined as\b|\bstands? for\b",
    re.IGNORECASE,
)


def defines(sentence: str) -> bool:
    """Whether the sentence says what a word means: that says what a thing is, never whether it is done."""
    return bool(DEFINES.search(sentence))


# --- what it asks about rather than something else -----------------------------------------------

# "Are they hashed rather than kept in clear text?": what is asked about is "hashed"; "kept in clear text" is what
# it is asked against, and a draft that speaks of that one only has not said which of the two it is.
CONTRAST = re.compile(r"\b(?:rather than|instead of)\b", re.IGNORECASE)
# Read back from the contrast, the asked-about thing starts after the last of these words that leaves it a
# subject word: "…authenticate with keys rather than…", "Are they hashed rather than…", "…by converting its data
# files in place instead of…" (after "by": "place" alone says nothing).
ASKED_ABOUT_START = re.compile(
    rf"\b(?:with|by|in|on|using|via|through|from|against|to|into|they|it|we|you|{AUXILIARIES})\s+", re.IGNORECASE
)
# The asked-against thing ends where its clause does: "…rather than passwords when logging in remotely?".
ASKED_AGAINST_END = re.compile(r"[,.;:?!]|\b(?:when|while|if|where|because|so that|and (?:how|what|why))\b", re.I)


@dataclass(frozen=True)
class Contrast:
    """ "X rather than Y" in a question: X and Y as the question says them. X's last subject word (its `head`:
    "hashed" of "Are they hashed", "keys" of "with hardware security keys") is what it asks about; the words
    before it may be the question's subject ("Are backups encrypted rather than…")."""

    about_text: str
    against_text: str

    @property
    def head(self) -> str:
        words = [stem(w) for w in WORD.findall(QUESTIONNAIRE_PHRASES.sub(" ", self.about_text.lower()))]
        return next((w for w in reversed(words) if stems(w, subject_only=True)), "")

    @property
    def against(self) -> frozenset[str]:
        return frozenset(stems(self.against_text, subject_only=True))

    def only_the_other(self, text: str) -> bool:
        """Whether the text speaks of Y and not of X: it meets a word of Y and not X's head."""
        said = stems(text)
        return not _met(frozenset({self.head}), said) and bool(_met(self.against, said))


def _met(wanted: frozenset[str], said: set[str]) -> set[str]:
    """The wanted stems that the said ones meet, one the start of the other ("key" and "keys", "data" and
    "database"): the stems cut no plural."""
    return {w for w in wanted if any(s.startswith(w) or w.startswith(s) for s in said if min(len(s), len(w)) >= 3)}


def contrasts(text: str) -> tuple[Contrast, ...]:
    """The question's "X rather than Y" and "X instead of Y", each read within its own clause."""
    found = []
    for match in CONTRAST.finditer(text):
        before = re.split(r"[,.;:?!]", text[: match.start()])[-1]
        starts = [0] + [start.end() for start in ASKED_ABOUT_START.finditer(before)]
        about = next((before[i:] for i in reversed(starts) if stems(before[i:], subject_only=True)), "")
        contrast = Contrast(about.strip(), ASKED_AGAINST_END.split(text[match.end() :], maxsplit=1)[0].strip())
        if contrast.head and contrast.against:
            found.append(contrast)
    return tuple(found)


# --- its parts -----------------------------------------------------------------------------------

WH_WORDS = (
    r"how|when|where|what|which|who|whom|whose|whether|why|can|could|do|does|did|is|are|will|would|should|has|have"
)
# A part that only names a time ("a typical timeline") asks it of the question's first part, as an "including" item does.
TIMED = rf"(?:an?|the|your)\s+(?:[\w-]+\s+)?{TIME_NOUNS}\b"
TIME_OF_THE_HEAD = re.compile(rf"^{TIMED}\W*$", re.IGNORECASE)
# Where a question that asks several things divides: "…founded, where it is based and how many…", "…? Confirm…",
# "…approach and a typical timeline".
PART_BREAK = re.compile(
    rf"(?<=[?.!])\s+|\s*[;:]\s+|,?\s+and\s+(?=(?:{WH_WORDS})\b|{TIMED})|,\s+(?=(?:{WH_WORDS}|including)\b)",
    re.IGNORECASE,
)
# A part that says "they" or "it" is about the subject of the question's first part: "…and how long are they kept";
# so is one that says "that" after its verb: "…and is that session encrypted?" asks of the remote login's session.
PRONOUN = re.compile(
    r"\b(?:they|them|their|it|its|these|those|this|(?:(?<=is )|(?<=are )|(?<=was ))that)\b", re.IGNORECASE
)
INCLUDING = re.compile(r"^including\s+", re.IGNORECASE)
EXAMPLES = re.compile(r"\b(?:such as|for example|e\.g\.)", re.IGNORECASE)
# Where a run of examples ends: the end of its sentence, or of its clause at ";".
EXAMPLES_END = re.compile(r"[?.!;](?:\s|$)")
LIST_ITEM_BREAK = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)


# A clause that sets a condition or a scene for the question after its comma: "In the event of data corruption,
# can…", "When an account still has an old hash, how…", "On a server, where…".
CONDITION_WORDS = r"(?:in|on|at|for|during|after|before|once|if|as|when|whenever|while|upon|following|given|where)"
CONDITION_CLAUSE = re.compile(rf"^\W*({CONDITION_WORDS}\b[^,?.;:]*),\s+(?=(?:{WH_WORDS})\b)", re.IGNORECASE)
WHEN_OPENING = re.compile(r"when\b", re.IGNORECASE)


def _clauses(question: str) -> list[tuple[str, frozenset[str]]]:
    """The question's pieces at PART_BREAK with the kinds each asks, a piece that asks nothing of its own kept with
    the clause it belongs to: a condition with the question after it ("In the event of data corruption, can the
    database be restored…": one thing asked, not "In the event of data corruption" and a second), a trailing "when"
    clause with the one before it ("Do you apply a secret…, when hashing passwords?": `asks` found its "when"
    subordinate)."""
    found: list[tuple[str, frozenset[str]]] = []
    condition = ""
    for start, piece in _pieces(question):
        kinds = asks(piece)
        if condition:
            piece, condition = f"{condition}, {piece}", ""
        elif _opening_condition(question[start:]):
            condition = piece
            continue
        elif found and kinds == {DESCRIPTION} and WHEN_OPENING.match(piece):
            found[-1] = (f"{found[-1][0]}, {piece}", found[-1][1])
            continue
        found.append((piece, kinds))
    return found + ([(condition, asks(condition))] if condition else [])


def _pieces(question: str) -> list[tuple[int, str]]:
    """[(where it starts in the question, the piece)] of the non-empty pieces between PART_BREAKs."""
    examples = _examples(question)
    breaks = [b for b in PART_BREAK.finditer(question) if not _among(examples, b.start())]
    starts, ends = [0, *(b.end() for b in breaks)], [*(b.start() for b in breaks), len(question)]
    pieces = [(start, question[start:end].strip(" ,.?")) for start, end in zip(starts, ends)]
    return [(start, piece) for start, piece in pieces if piece]


def _among(examples: list[tuple[int, int]], at: int) -> bool:
    """Whether a comma or "and" at `at` lists examples after "such as" ("…carry, such as when it happened, where, who
    was involved and what was done?"): they say what the one question means, they are no parts of their own."""
    return any(start <= at < end for start, end in examples)


def _without_examples(piece: str) -> str:
    """The piece without its examples: "…, such as when it happened, where, who was involved…" asks no "who"; the
    sentences after them still ask what they ask."""
    for start, end in reversed(_examples(piece)):
        piece = piece[:start] + piece[end:]
    return piece


def _examples(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of examples: from "such as" (or "for example") to the end of its sentence."""
    spans = []
    for examples in EXAMPLES.finditer(text):
        if spans and examples.start() < spans[-1][1]:
            continue  # within the examples before it
        stop = EXAMPLES_END.search(text, examples.end())
        spans.append((examples.start(), stop.start() if stop else len(text)))
    return spans


def _parts(question: str, parent: str = "") -> list[Part]:
    """The things a question asks, in its order; the question itself when it asks one thing.

    "Describe the API, including authentication and rate limits" asks about the
    API, its authentication and its rate limits: an "including" list gives one
    part per item, read with the head of the question for its meaning and
    alone for its words; a part that says "they" is read with the head (a
    follow-up's head is its parent question). Parts with no subject word
    ("Describe your company") are left out.
    """
    parts, head = [], parent
    for piece, kinds in _clauses(question or ""):
        if INCLUDING.match(piece) and head:
            items = [i.strip() for i in LIST_ITEM_BREAK.split(INCLUDING.sub("", piece)) if i.strip()]
            parts += [Part(f"{head}: {item}", item, asks(head), head) for item in items]
        elif TIME_OF_THE_HEAD.match(piece) and head:
            parts.append(Part(f"{head}: {piece}", piece, kinds, head))
        else:
            refers = head and PRONOUN.search(piece) and stems(head, subject_only=True)
            parts.append(Part(f"{piece} ({head})", f"{piece} {head}", kinds) if refers else Part(piece, piece, kinds))
            head = head or piece
    parts = [p for p in parts if stems(p.words, subject_only=True)]
    if len(parts) > 1:
        return parts
    whole = f"{question.strip()} ({parent})" if parent else question.strip()
    return [Part(whole, f"{question.strip()} {parent}".strip(), asks(question))]
