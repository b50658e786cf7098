"""What the page shows: the entries' approved snapshots and the documents, and the team's approval of new text.

An entry's text reaches the page only through `approve_text`, called by a
person (the admin): publishing an entry takes its text as it is then, and an
entry edited or marked for review later keeps showing that text, flagged for
the team as "newer text waiting", until someone approves the new one. An entry
that is still in the review queue cannot be approved: its owner must look at it
in the library first. A retired or merged entry leaves the page.
"""

from dataclasses import dataclass

from django.db.models import Prefetch
from django.utils import timezone

from answer_library.models import Entry
from core.excerpts import excerpt

from ..models import PublishedEntry, Section, TrustCenter

SHOWN_STATUSES = (Entry.Status.ACTIVE, Entry.Status.NEEDS_REVIEW)


class NotApprovable(Exception):
    """The entry's current text may not go on the page yet."""


def approve_text(published: PublishedEntry, user) -> PublishedEntry:
    """Show the entry's current text from now on (`user` approved it for the page)."""
    entry = published.entry
    if entry.status != Entry.Status.ACTIVE:
        raise NotApprovable(
            f"“{excerpt(entry.question, 60)}” is {entry.get_status_display().lower()}: review it first."
        )
    published.question = entry.question
    published.answer_text = entry.answer_text
    published.choice = entry.choice
    published.entry_version = entry.version
    published.reviewed_at = entry.approved_at
    published.approved_by = user
    published.approved_at = timezone.now()
    published.save()
    return published


def publish(section: Section, entry: Entry, user) -> PublishedEntry:
    """Put the entry on the page with its current text."""
    published = PublishedEntry(section=section, entry=entry, order=section.entries.count())
    return approve_text(published, user)


def has_newer_text(published: PublishedEntry) -> bool:
    """The library holds a version of the entry that the page does not show yet."""
    return published.entry.version != published.entry_version


def shown_entries(center: TrustCenter):
    """The published entries visitors may see: approved at least once, entry not retired or merged."""
    return PublishedEntry.objects.filter(
        section__center=center, approved_at__isnull=False, entry__status__in=SHOWN_STATUSES
    )


@dataclass
class PageSection:
    title: str
    entries: list[PublishedEntry]


def page_sections(center: TrustCenter) -> list[PageSection]:
    """The sections with their shown entries, in the team's order; empty sections are left out."""
    sections = center.sections.prefetch_related(
        Prefetch("entries", queryset=shown_entries(center).order_by("order", "pk"), to_attr="shown")
    )
    return [PageSection(s.title, s.shown) for s in sections if s.shown]


def live_center(slug: str) -> TrustCenter | None:
    return TrustCenter.objects.filter(slug=slug, is_live=True).first()
