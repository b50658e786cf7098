"""The answer library as answering uses it: installed into rfp_manager.reuse by apps.py.

The responder reuses the entry `matching.find_match` accepts; a batch job
reads the index once (a RecentIndex) and sees an entry approved or retired
while it runs within RECHECK_SECONDS.
"""

from django.db.models import Exists, OuterRef

from rfp_manager.reuse import ApprovedAnswers, ListedEntry, Reusable

from .models import Entry
from .services import facts, matching

RECHECK_SECONDS = 5.0


class AnswerLibrary(ApprovedAnswers):
    def snapshot(self, embedding_model):
        return matching.RecentIndex(embedding_model, max_age=RECHECK_SECONDS) if embedding_model else None

    def find(self, question, *, embedding_model=None, snapshot=None):
        match = matching.find_match(question, model=embedding_model, index=snapshot.get() if snapshot else None)
        if match is None:
            return None
        entry = match.entry
        return Reusable(entry.pk, entry.answer_text, entry.sources, entry.choice, match.score)

    def search(self, query, limit):
        return [
            ListedEntry(m.entry.pk, m.entry.question, m.entry.answer_text)
            for m in matching.ranked_matches(query, limit=limit)
        ]

    def citations(self, entry_ids):
        return {
            entry.pk: {"document_title": f"Answer library: {entry.question[:80]}", "text": entry.answer_text}
            for entry in Entry.objects.filter(pk__in=entry_ids)
        }

    def answer_flags(self, prefix=""):
        saved = Entry.objects.filter(origin_answer=OuterRef(f"{prefix}pk")).exclude(status=Entry.Status.MERGED)
        marked = Entry.objects.filter(pk=OuterRef(f"{prefix}library_entry_id"), status=Entry.Status.NEEDS_REVIEW)
        return {"saved_to_library": Exists(saved), "reused_entry_marked": Exists(marked)}

    def fact_mismatches(self, rfp):
        return facts.check_rfp(rfp)
