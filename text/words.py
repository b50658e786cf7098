"""Words: how a text is cut into tokens, which tokens say nothing, and how word forms meet.

One place for them, so that the full-text query (solution_library's lexical
ranking), the drafts' sentence choice and the citation check (llm_manager's
grounding), snippets and the answer library's match read a text the same way.

Words are compared by their stems, cut crudely to STEM_CHARS letters, so that
"encrypted", "encryption" and "encrypts" meet. A question's subject words
leave out the questionnaire's own phrasing ("Please describe…", "your
organisation"), which no library passage contains.
"""

import re

STEM_CHARS = 6
WORD = re.compile(r"[a-z0-9]+")  # a token of lower-cased text
# A run of capitalised words ("European Union", "Multi-Factor Authentication"), whose initials may stand for it.
NAME_RUN = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)+")
INITIALS_MAX = 4
# A citation marker in an answer: "[2]" cites passage 2 of the prompt.
CITATION = re.compile(r"\[(\d{1,3})\]")
# Phrases removed whole before single words are looked at: "if so", "in place".
QUESTIONNAIRE_PHRASES = re.compile(
    r"\b(if (so|yes|not|applicable)|in place|make sure|at (a|the) minimum|such as|e\.g\.|i\.e\.)", re.IGNORECASE
)

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
    """The stems of a text's content words (of a question's subject words with `subject_only`).

    A text's stems also hold the initials of its capitalised names, so that a question's "UK" meets a
    passage's "the United Kingdom"; a question's subject does not, so that "Is Single Sign-On Available?"
    asks for no "ssoa" that no passage could hold.
    """
    skip = STOPWORDS | QUESTIONNAIRE_WORDS if subject_only else STOPWORDS
    found = {stem(w) for w in WORD.findall(text.lower()) if w not in skip and len(w) > 1}
    return found if subject_only else found | initials(text)


def initials(text: str) -> set[str]:
    """The initials of every run of two to four capitalised words in the text, lower-cased: "European Union"
    gives "eu" and "The United Kingdom" gives "tu", "uk" and "tuk" (a run's first word may only open the sentence).
    """
    found = set()
    for run in NAME_RUN.finditer(text):
        letters = [word[0].lower() for word in re.split(r"[ -]", run.group())]
        for size in range(2, min(len(letters), INITIALS_MAX) + 1):
            found.update("".join(letters[i : i + size]) for i in range(len(letters) - size + 1))
    return found


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
