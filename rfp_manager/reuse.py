"""What answering asks of an answer library, without knowing which one is installed.

An answer library (the `answer_library` app) keeps approved answers to reuse:
the responder takes one as it is when it answers the question, the editor can
insert one, the RFP page lists answers that state a canonical fact differently.
It sits above this app (it reads RFP answers to learn from them), so this app
never imports it: the library installs itself here from its AppConfig.ready(),
the way apps register their job kinds with the job toolkit. Until one is
installed, `ApprovedAnswers` holds nothing: every question is drafted from the
documents and the pages show no entries.

An answer records the entry it reused by id only (Answer.library_entry_id);
the library owns that link and clears it when an entry goes.
"""

from dataclasses import dataclass

from django.db.models import BooleanField, IntegerField, Value


@dataclass(frozen=True)
class Reusable:
    """An approved answer that answers a question, to be written as its answer unchanged."""

    entry_id: int
    text: str
    citations: list[dict]
    choice: str
    score: float  # how well the question matched the entry, 0–1


@dataclass(frozen=True)
class ListedEntry:
    """An entry the editor may insert into an answer."""

    entry_id: int
    question: str
    text: str


@dataclass(frozen=True)
class SuggestedEntry:
    """An entry the library suggests for a question it did not reuse automatically: a person may use or reject it."""

    suggestion_id: int
    entry_id: int
    question: str
    text: str
    approved_at: object  # a datetime, or None for an entry never approved in an RFP
    owner: str
    score: float


class ApprovedAnswers:
    """The interface, and what it gives when no library is installed: nothing."""

    def snapshot(self, embedding_model):
        """What a batch job reads once and passes to every `find` (None: `find` reads the library itself)."""
        return None

    def find(self, question: str, *, embedding_model=None, snapshot=None, question_id=None) -> Reusable | None:
        """The approved answer to reuse for this question, or None when no entry answers it surely enough.

        `question_id`: the Question being answered; when none is reused, the entries that may fit are kept as
        its suggestions (replacing the pending ones), and those a person rejected for it are left out.
        """
        return None

    def suggestions(self, question_id: int) -> list[SuggestedEntry]:
        """The question's pending suggestions, best first."""
        return []

    def use_suggestion(self, question, suggestion_id: int, user) -> bool:
        """A person picks the suggestion: its entry's answer becomes the question's (as an automatic reuse), with
        who chose it. False when it is not a pending suggestion of that question."""
        return False

    def reject_suggestion(self, question, suggestion_id: int, user) -> bool:
        """A person says the entry does not answer the question: not suggested for it again."""
        return False

    def apply_first_suggestions(self, questions: list, user) -> int:
        """use_suggestion with each question's first pending suggestion; how many were used."""
        return 0

    def search(self, query: str, limit: int) -> list[ListedEntry]:
        """The entries best matching a query, best first (may raise LLMError: no embedding model)."""
        return []

    def citations(self, entry_ids: list[int]) -> dict[int, dict]:
        """Entry id → the citation an inserted entry gets (document_title, text); unknown ids are left out."""
        return {}

    def answer_flags(self, prefix: str = "") -> dict:
        """Annotations for Answer rows (prefix "") or rows holding an answer (prefix "answer__" for questions):

        saved_to_library — the answer was approved into the library;
        reused_entry_marked — the entry it reused waits for a review;
        suggested_entries — how many entries are suggested for the question, pending a person's choice.
        """
        return {
            **{name: Value(False, output_field=BooleanField()) for name in ("saved_to_library", "reused_entry_marked")},
            "suggested_entries": Value(0, output_field=IntegerField()),
        }

    def fact_mismatches(self, rfp) -> list:
        """The RFP's answers that state a canonical fact differently (each with question_id, question_label,
        fact, stated, canonical)."""
        return []


_library = ApprovedAnswers()


def install(library: ApprovedAnswers) -> None:
    """Make `library` the one answering uses (the answer library's AppConfig.ready() calls it)."""
    global _library
    _library = library


def approved_answers() -> ApprovedAnswers:
    return _library
