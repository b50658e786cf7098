"""What every fuzz test holds: no 500, a clear message, and nothing already stored changed or lost."""

import html
import re

from hypothesis import HealthCheck, settings

from llm_manager.models import LLMApi, LLMModel
from rfp_manager.models import RFP, Answer, InformationDocument, Question
from solution_library.models import Document

# Modest counts keep the suite fast on two cores; derandomized so a run is repeatable.
# docs/security.md quotes these (test_security_doc.py checks it).
EXAMPLES = {"import": 25, "upload": 25, "form": 20}


def fuzz_settings(kind: str):
    """Hypothesis settings for one kind of fuzz test; the test remembers its count for the docs."""
    apply = settings(
        max_examples=EXAMPLES[kind],
        deadline=None,
        derandomize=True,
        database=None,
        # The Django test database is a function-scoped fixture on purpose: each example sees what the
        # earlier ones stored, so "nothing already stored changed" covers fuzzed rows too.
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )

    def decorate(test):
        test = apply(test)
        test.fuzz_examples = EXAMPLES[kind]
        return test

    return decorate


WATCHED = (RFP, Question, Answer, InformationDocument, Document, LLMApi, LLMModel)
_MESSAGE = re.compile(r'class="[^"]*\b(?:msg-error|errorlist|errornote|error)\b[^"]*"[^>]*>(.*?)</(?:p|ul|div)>', re.S)


def snapshot() -> dict:
    return {model.__name__: {row["id"]: row for row in model.objects.values()} for model in WATCHED}


def changed_or_lost(before: dict, after: dict, may_change: set = frozenset()) -> list[str]:
    """Rows of `before` that `after` lost or changed, except (model name, pk) pairs in `may_change`."""
    problems = []
    for name, rows in before.items():
        for pk, row in rows.items():
            if (name, pk) in may_change:
                continue
            if pk not in after[name]:
                problems.append(f"{name} {pk} was deleted")
            elif after[name][pk] != row:
                problems.append(f"{name} {pk} changed: {row} -> {after[name][pk]}")
    return problems


def error_messages(response) -> list[str]:
    """The error texts a person sees on the page (form errors, page errors, admin notes)."""
    page = response.content.decode(errors="replace")
    texts = (html.unescape(re.sub(r"<[^>]+>", " ", m)).strip() for m in _MESSAGE.findall(page))
    return [t for t in texts if t]
