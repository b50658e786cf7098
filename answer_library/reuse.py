"""The answer library as answering uses it: installed into rfp_manager.reuse by apps.py.

The responder reuses the entry `matching.triage` is sure of, and otherwise keeps
the entries that may fit as the question's suggestions (services/suggestions.py);
a batch job reads the index once (a RecentIndex) and sees an entry approved or
retired while it runs within RECHECK_SECONDS.
"""

from django.db.models import Count, Exists, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce

from core.excerpts import excerpt
from rfp_manager.reuse import ApprovedAnswers, ListedEntry, SuggestedEntry

from .models import Entry, Suggestion
from .services import facts, judge, matching, suggestions

RECHECK_SECONDS = 5.0


class AnswerLibrary(ApprovedAnswers):
    def snapshot(self, embedding_model):
        return matching.RecentIndex(embedding_model, max_age=RECHECK_SECONDS) if embedding_model else None

    def find(self, question, *, embedding_model=None, snapshot=None, question_id=None):
        rejected = suggestions.rejected_entry_ids(question_id) if question_id else frozenset()
        index = snapshot.get() if snapshot else None
        offer = judge.judged(
            question, matching.triage(question, leave_out=rejected, model=embedding_model, index=index)
        )
        if question_id:
            suggestions.keep(question_id, question, offer.suggestions)
        if offer.reuse is None:
            return None
        return suggestions.reusable(offer.reuse.entry, offer.reuse.score)

    def suggestions(self, question_id):
        return [
            SuggestedEntry(
                s.pk,
                s.entry_id,
                s.entry.question,
                s.entry.answer_text,
                s.entry.approved_at,
                str(s.entry.owner or ""),
                s.score,
            )
            for s in suggestions.pending(question_id)
        ]

    def use_suggestion(self, question, suggestion_id, user):
        return suggestions.use(question, suggestion_id, user)

    def reject_suggestion(self, question, suggestion_id, user):
        return suggestions.reject(question, suggestion_id, user)

    def apply_first_suggestions(self, questions, user):
        return suggestions.use_first(questions, user)

    def search(self, query, limit):
        return [
            ListedEntry(m.entry.pk, m.entry.question, m.entry.answer_text)
            for m in matching.ranked_matches(query, limit=limit)
        ]

    def citations(self, entry_ids):
        return {
            entry.pk: {"document_title": f"Answer library: {excerpt(entry.question, 80)}", "text": entry.answer_text}
            for entry in Entry.objects.filter(pk__in=entry_ids)
        }

    def answer_flags(self, prefix=""):
        saved = Entry.objects.filter(origin_answer=OuterRef(f"{prefix}pk")).exclude(status=Entry.Status.MERGED)
        marked = Entry.objects.filter(pk=OuterRef(f"{prefix}library_entry_id"), status=Entry.Status.NEEDS_REVIEW)
        waiting = (
            Suggestion.objects.filter(question_id=OuterRef(f"{prefix}question_id"), outcome=Suggestion.Outcome.PENDING)
            .values("question_id")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return {
            "saved_to_library": Exists(saved),
            "reused_entry_marked": Exists(marked),
            "suggested_entries": Coalesce(Subquery(waiting, output_field=IntegerField()), 0),
        }

    def fact_mismatches(self, rfp):
        return facts.check_rfp(rfp)
