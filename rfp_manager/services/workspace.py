"""The answers workspace: an RFP's questions filtered, sorted and cut into pages on the server.

Everything here is a queryset operation on indexed columns (the question's
status, the answer's confidence) so that a questionnaire of thousands of
questions costs a page of rows, a count and a few small aggregates per request.
"""

from django.core.paginator import Paginator
from django.db.models import Case, F, IntegerField, Q, Value, When
from django.urls import reverse
from django.utils.http import urlencode

from ..reuse import approved_answers
from .answering import attention_order, parents

PAGE_SIZE = 25

# Confidence bands as a reader sees them; the bounds match the colours of the confidence column.
LOW_BELOW, HIGH_FROM = 0.5, 0.8
CONFIDENCE_BANDS = [
    ("low", "Low (below 0.5)"),
    ("medium", "Medium (0.5 to 0.8)"),
    ("high", "High (0.8 and over)"),
    ("none", "No confidence yet"),
]
ORIGINS = [
    ("library", "From the answer library"),
    ("drafted", "Drafted from the documents"),
    ("edited", "Edited by a person"),
]
SORTS = [
    ("attention", "Needs attention first"),
    ("document", "Document order"),
    ("confidence", "Lowest confidence first"),
    ("-confidence", "Highest confidence first"),
    ("status", "By status"),
]

BAND_FILTERS = {
    "low": Q(answer__confidence__lt=LOW_BELOW),
    "medium": Q(answer__confidence__gte=LOW_BELOW, answer__confidence__lt=HIGH_FROM),
    "high": Q(answer__confidence__gte=HIGH_FROM),
    "none": Q(answer__confidence__isnull=True),
}
# The same rules as Answer.origin, as filters.
ORIGIN_FILTERS = {
    # __gt="" rather than a negation: a negated condition on the joined answer would also match no answer at all.
    "edited": Q(answer__final_text__gt=""),
    "library": Q(answer__final_text="", answer__library_entry_id__isnull=False),
    "drafted": Q(
        answer__final_text="",
        answer__library_entry_id__isnull=True,
        answer__needs_expert=False,
        answer__draft_text__gt="",
    ),
}
STATUS_ORDER = ["needs_expert", "in_review", "drafted", "unanswered", "approved"]

# Who answers a question: teamwork.Assignment, one per question.
ASSIGNEE_LOOKUP = "assignment__assignee"


def assign_url(rfp, question_ids=()) -> str:
    """The assignment page (teamwork:assign) with these questions ticked."""
    url = reverse("teamwork:assign", args=[rfp.pk])
    return f"{url}?{urlencode([('q', pk) for pk in question_ids])}" if question_ids else url


def sections(rfp) -> list[str]:
    return list(rfp.questions.exclude(section="").order_by("section").values_list("section", flat=True).distinct())


def rows(questions):
    """Questions with what a row shows: the answer and its people, and what the answer library knows of the answer."""
    related = ["answer", "answer__edited_by", "answer__approved_by", ASSIGNEE_LOOKUP]
    return questions.select_related(*related).annotate(**approved_answers().answer_flags("answer__"))


def filtered_questions(rfp, filters: dict, user):
    """The RFP's questions matching `filters` (a WorkspaceFilterForm's cleaned_data), in its sort order."""
    questions = rows(rfp.questions.all())
    if filters.get("q"):
        words = filters["q"].strip()
        questions = questions.filter(
            Q(text__icontains=words)
            | Q(number__iexact=words)
            | Q(answer__final_text__icontains=words)
            | Q(answer__draft_text__icontains=words)
        )
    if filters.get("section"):
        questions = questions.filter(section=filters["section"])
    if filters.get("status"):
        questions = questions.filter(status=filters["status"])
    if filters.get("verdict") == "none":
        questions = questions.filter(Q(answer__isnull=True) | Q(answer__review_verdict=""))
    elif filters.get("verdict"):
        questions = questions.filter(answer__review_verdict=filters["verdict"])
    if filters.get("band"):
        questions = questions.filter(BAND_FILTERS[filters["band"]])
    if filters.get("origin"):
        questions = questions.filter(ORIGIN_FILTERS[filters["origin"]])
    if filters.get("assignee"):
        questions = questions.filter(**{f"{ASSIGNEE_LOOKUP}_id": filters["assignee"]})
    if filters.get("mine"):
        questions = questions.filter(**{ASSIGNEE_LOOKUP: user})
    if filters.get("suggested"):
        questions = questions.filter(suggested_entries__gt=0)  # counted by the library's answer_flags
    return sorted_questions(questions, filters.get("sort") or "attention")


def sorted_questions(questions, sort: str):
    if sort == "document":
        return questions.order_by("order", "pk")
    if sort in ("confidence", "-confidence"):
        confidence = F("answer__confidence")
        key = confidence.asc(nulls_first=True) if sort == "confidence" else confidence.desc(nulls_last=True)
        return questions.order_by(key, "order", "pk")
    if sort == "status":
        rank = Case(*[When(status=s, then=Value(n)) for n, s in enumerate(STATUS_ORDER)], output_field=IntegerField())
        return questions.annotate(status_rank=rank).order_by("status_rank", "order", "pk")
    return attention_order(questions)


def page_of(questions, number: int | None, size: int | None = None):
    """One page of the questions (the last page when `number` is past the end); PAGE_SIZE unless `size`.

    Each follow-up ("If yes, describe…") carries the question it follows up as `follows_up`, which its row shows.
    """
    page = Paginator(questions, size or PAGE_SIZE).get_page(number or 1)
    page.object_list = with_parents(list(page.object_list))
    return page


def with_parents(questions: list) -> list:
    """The questions, each follow-up with `follows_up` set to its parent question (answering.parents)."""
    found = parents(questions)
    for question in questions:
        question.follows_up = found.get(question.pk)
    return questions
