"""A visitor's question: answered from the published entries only, or sent to the team as a one-question RFP.

The match is the answer library's own (`find_match`) over an index of the
published entries alone, so a draft, an unpublished entry or a document can
never be found, nor change how long a search takes. What is shown is the
entry's published text, not its current one.
"""

import hashlib

from django.db import transaction

from answer_library.services import matching
from core.excerpts import excerpt
from llm_manager import services as llm
from rfp_manager.models import RFP, Question

from ..models import PublishedEntry, TrustCenter, VisitorQuestion
from . import publishing


def answer(center: TrustCenter, question: str) -> PublishedEntry | None:
    """The published entry that answers the question, or None."""
    shown = publishing.shown_entries(center).select_related("entry")
    by_entry = {p.entry_id: p for p in shown}
    if not by_entry or not question.strip():
        return None
    model = llm.get_default_model("embedding")
    index = matching.Index.load(model, entries=[p.entry for p in by_entry.values()])
    match = matching.find_match(question, index=index, model=model)
    return by_entry.get(match.entry.pk) if match else None


@transaction.atomic
def send_to_team(center: TrustCenter, text: str, email: str = "") -> VisitorQuestion:
    """The question lands in the team's RFP list: a one-question RFP owned by the center's inbox owner."""
    text = " ".join(text.split())
    rfp = RFP.objects.create(
        name=f"Trust center question: {excerpt(text, 80)}",
        client=email or "Anonymous visitor",
        owner=center.inbox_owner,
    )
    key = "trust:" + hashlib.sha256(text.encode()).hexdigest()[:32]
    Question.objects.create(rfp=rfp, number="1", text=text, order=0, import_key=key)
    return VisitorQuestion.objects.create(center=center, text=text, email=email, rfp=rfp)
