"""The RFP's own documents: read their text and summarize it as context for the answers."""

import logging
import re
from collections import Counter

from django.utils import timezone

from llm_manager import services as llm
from solution_library.services import parsing

from ..models import InformationDocument

logger = logging.getLogger(__name__)

MAX_SUMMARY_INPUT_CHARS = 12000
PARAGRAPHS_FOR_SUMMARY = 40
SUMMARY_QUESTION = "What does the client ask for (scope, requirements, deadlines, constraints)? Key terms: {terms}"
KEY_TERMS = 15
WORD = re.compile(r"[a-z][a-z0-9\-]{3,}")
COMMON_WORDS = frozenset(
    "this that with from have will must shall should would could their there which where when what your about "
    "into than them they been were also more most other some such only each both over under between within".split()
)
SUMMARY_SYSTEM = (
    "You summarize a document that came with a request for proposal (RFP), for the team answering it. "
    "Use only the numbered passages; keep names, dates and figures; at most eight sentences."
)


class DocumentTextError(ValueError):
    """The file's text cannot be read."""


def extract_text(name: str, data: bytes) -> str:
    """The document's text, read by the library's own parser: DOCX tables as well as paragraphs,
    PDF pages, HTML without its navigation, text in any common encoding."""
    try:
        return parsing.extract_text(data, parsing.detect_type(data, name))
    except parsing.UnsupportedFile as exc:
        raise DocumentTextError(str(exc)) from exc


def key_terms(text: str) -> str:
    """The document's most frequent content words: they point any model (extractive ones
    especially) at the sentences that carry the document."""
    counts = Counter(w for w in WORD.findall(text.lower()) if w not in COMMON_WORDS)
    return ", ".join(word for word, _ in counts.most_common(KEY_TERMS))


def summary_messages(text: str) -> list[dict]:
    """Paragraphs become the numbered passages of the shared prompt convention."""
    paragraphs = [" ".join(p.split()) for p in text[:MAX_SUMMARY_INPUT_CHARS].split("\n\n")]
    paragraphs = [p for p in paragraphs if p][:PARAGRAPHS_FOR_SUMMARY]
    if not paragraphs:
        raise DocumentTextError("The document has no readable text.")
    lines = [
        "Passages:",
        *(f"[{n}] {p}" for n, p in enumerate(paragraphs, start=1)),
        "",
        "Question: " + SUMMARY_QUESTION.format(terms=key_terms(text)),
    ]
    return [{"role": "system", "content": SUMMARY_SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def mark_summarizing(document: InformationDocument) -> None:
    document.status = InformationDocument.Status.SUMMARIZING
    document.summary_error = ""
    document.save(update_fields=["status", "summary_error"])


def summarize_document(document: InformationDocument) -> str:
    """Write the document's summary (re-running overwrites it: idempotent).

    LLM errors propagate so the task can retry the transient ones; the caller
    records the final failure with `record_summary_failure`.
    """
    with document.file.open("rb") as handle:
        text = extract_text(document.file.name, handle.read())
    result = llm.chat(summary_messages(text))
    document.summary = result.text.strip()
    document.status = InformationDocument.Status.SUMMARIZED
    document.summarized_at = timezone.now()
    document.summary_error = ""
    document.save(update_fields=["summary", "status", "summarized_at", "summary_error"])
    return document.summary


def record_summary_failure(document: InformationDocument, error: str) -> None:
    document.status = InformationDocument.Status.FAILED
    document.summary_error = error[:2000]
    document.save(update_fields=["status", "summary_error"])
