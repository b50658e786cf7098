"""Key facts: what an acceptable answer to each answerable question must state, and whether a draft states it.

key_facts/dev.json and key_facts/test.json hold, per answerable question of
the split and in id order, {"id", "facts": [{"fact", "all_of", "document",
"source"[, "doubt"]}]}. Each fact was written by reading its document
("source" is the document's sentence that states it). A fact is stated by a
draft when every group of "all_of" has one alternative present in the draft,
both read the same way (`words`): lower case, citation markers dropped,
number words as digits, the ways of saying a frequency or a duration made one
("once a year" = "annually" = "every 12 months"), each word by its English
(Snowball) stem: "encrypted" and "encryption" meet, and "certified" does not
state "certificate", nor "checks" "checksecurity". The matcher does not use the
product's own stems (text.words, cut to 6 letters for the full-text index), so
that what judges a draft is not what built it. An alternative is present when
its words stand in that order, side by side, in the draft. A question is answered
when the draft states every one of its facts. A word can still meet another
word of its family ("accountability" reads as "account"): write alternatives as
the document's phrases, and look at words(alternative) when in doubt. A fact
whose document does not quite answer its question says why in "doubt".
"""

import json
from dataclasses import dataclass
from pathlib import Path

import snowballstemmer

from text.words import CITATION, WORD

HERE = Path(__file__).resolve().parent
KEY_FACTS = HERE / "key_facts"

UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
UNITS += "seventeen eighteen nineteen"
NUMBER_WORDS = {word: value for value, word in enumerate(UNITS.split())}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
# Protocol names whose "s" says "secure", not "more than one": "https" is not "http".
NOT_PLURAL = frozenset({"https", "ldaps", "ftps", "imaps", "smtps", "pops"})
# The same frequency or duration said in other words, after number words became digits: each phrase → one word.
SAME_MEANING = {
    "annually": "once a year, once per year, every year, each year, yearly, annual, every 12 months, once every year",
    "semiannually": "twice a year, twice per year, every 6 months, semi annually, semi annual, biannually, half yearly",
    "quarterly": "every 3 months, every quarter, each quarter, once a quarter, once per quarter, quarterly",
    "monthly": "once a month, once per month, every month, each month, monthly",
    "weekly": "once a week, once per week, every week, each week, every 7 days, weekly",
    "daily": "once a day, once per day, every day, each day, every 24 hours, nightly, every night, daily",
    "hourly": "once an hour, once per hour, every hour, each hour, every 60 minutes, hourly",
    "1 year": "a year, 12 months, 365 days",
    "2 year": "24 months",
    "1 month": "a month",
    "1 week": "a week, 7 days",
    "1 day": "a day, 24 hours",
    "1 hour": "an hour, 60 minutes",
    "1 minute": "a minute, 60 seconds",
}


def _number_words(tokens: list[str]) -> list[str]:
    """'twenty four' → '24', 'ninety' → '90', 'seven' → '7'; other tokens unchanged."""
    out, after_tens = [], False
    for token in tokens:
        unit = NUMBER_WORDS.get(token)
        if after_tens and unit is not None and 0 < unit < 10:
            out[-1] = str(int(out[-1]) + unit)
        else:
            out.append(str(TENS.get(token, unit if unit is not None else token)))
        after_tens = token in TENS
    return out


def _plural(token: str) -> str:
    """'days' → 'day', 'policies' → 'policy'; 'access', 'is', 'https' unchanged: plurals meet their singular."""
    if token in NOT_PLURAL:
        return token
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")) else token


def _tokens(text: str) -> list[str]:
    return [_plural(t) for t in _number_words(WORD.findall(CITATION.sub(" ", text).lower()))]


def _phrase_table() -> list[tuple[list[str], list[str]]]:
    """(phrase tokens, replacement tokens), the longest phrases first so that 'once a year' wins over 'a year'."""
    table = [
        (_tokens(phrase), _tokens(canonical))
        for canonical, phrases in SAME_MEANING.items()
        for phrase in phrases.split(", ")
    ]
    return sorted(table, key=lambda row: -len(row[0]))


PHRASES = _phrase_table()
STEMMER = snowballstemmer.stemmer("english")


def words(text: str) -> list[str]:
    """The text as the matcher reads it: normalised tokens (see the module's docstring), stemmed, in order."""
    tokens, out, at = _tokens(text), [], 0
    while at < len(tokens):
        for phrase, replacement in PHRASES:
            if tokens[at : at + len(phrase)] == phrase:
                out += replacement
                at += len(phrase)
                break
        else:
            out.append(tokens[at])
            at += 1
    return [token if token in NOT_PLURAL else STEMMER.stemWord(token) for token in out]


def _holds(text_words: list[str], alternative: list[str]) -> bool:
    width = len(alternative)
    return width > 0 and any(text_words[i : i + width] == alternative for i in range(len(text_words) - width + 1))


@dataclass(frozen=True)
class KeyFact:
    fact: str
    all_of: tuple[tuple[str, ...], ...]
    document: str
    source: str
    doubt: str = ""


def states(draft_text: str, fact: KeyFact) -> bool:
    """Whether the draft states the fact: each of its groups has an alternative in the draft."""
    draft = words(draft_text)
    return all(any(_holds(draft, words(alternative)) for alternative in group) for group in fact.all_of)


def answers(draft_text: str, facts: list[KeyFact]) -> bool:
    """Whether the draft states every one of a question's key facts (False for a question without any)."""
    return bool(facts) and all(states(draft_text, fact) for fact in facts)


def key_facts_path(split: str) -> Path:
    return KEY_FACTS / f"{split}.json"


def load_key_facts(split: str) -> dict[str, list[KeyFact]]:
    """{question id: its key facts} for one split; empty when the split's file is not written yet."""
    path = key_facts_path(split)
    if not path.exists():
        return {}
    return {
        item["id"]: [
            KeyFact(
                f["fact"], tuple(tuple(group) for group in f["all_of"]), f["document"], f["source"], f.get("doubt", "")
            )
            for f in item["facts"]
        ]
        for item in json.loads(path.read_text())
    }
