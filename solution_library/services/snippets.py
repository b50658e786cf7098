"""The sentences of a passage that answer a search: a snippet around the best-matching sentence, words marked.

A passage's first lines are seldom its answer (a key-rotation search used to
show a passage cut at "…hardw…" before the sentence about rotation). The
snippet is the sentence holding most of the query's subject words, with its
neighbour when it is short, and the matched words wrapped in <mark>: the same
stems the drafts' sentence choice uses (text.words).
"""

import re
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from llm_manager.providers.grounding import readable, sentences
from text.words import stem, stems

SNIPPET_CHARS = 320
WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True)
class Snippet:
    html: SafeString  # escaped text with <mark> around the matched words
    matched: list[str]  # the query's words found in the passage, in the query's order
    text: str  # the same sentences, plain (what the answer editor inserts)


def query_stems(query: str) -> set[str]:
    return stems(query, subject_only=True) or stems(query)


def best_snippet(query: str, text: str, max_chars: int = SNIPPET_CHARS) -> Snippet:
    wanted = query_stems(query)
    parts = sentences(readable(text)) or [text]
    scores = [len(wanted & stems(s)) for s in parts]
    best = max(range(len(parts)), key=lambda i: (scores[i], -i))
    end = best + 2 if len(parts[best]) < max_chars // 2 and best + 1 < len(parts) else best + 1
    whole = " ".join(parts[best:end])
    chosen = _cut(whole, max_chars)
    lead = "… " if best > 0 else ""
    tail = " …" if end < len(parts) or len(chosen) < len(whole) else ""
    present = stems(text)
    matched = list(dict.fromkeys(w.lower() for w in WORD.findall(query) if stem(w.lower()) in wanted & present))
    return Snippet(mark_safe(lead + highlight(chosen, wanted) + tail), matched, chosen)


def _cut(text: str, max_chars: int) -> str:
    """At most max_chars, ending at a word boundary."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0]


def highlight(text: str, wanted: set[str]) -> str:
    """The text escaped, each word whose stem is wanted inside <mark>."""
    out, last = [], 0
    for match in WORD.finditer(text):
        if stem(match.group(0).lower()) in wanted:
            out += [escape(text[last : match.start()]), f"<mark>{escape(match.group(0))}</mark>"]
            last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)
