"""Tell an RFP's owner that the library may now answer questions drafted "no supporting content" before it could.

The RFP page offers the redraft (rfp_manager's `batch.drafted_before_library_grew`); this notice reaches an owner
who is not looking at the page: documents often finish processing long after the answering job that needed them.
"""

from django.urls import reverse

from rfp_manager.services.batch import StaleDrafts, rfps_drafted_before_library_grew

from ..models import Notification
from .notifications import notify


def tell_owners_the_library_grew() -> int:
    """Periodic: one notice to the owner of each open RFP with such drafts; how many were sent.

    Idempotent, and never a nag: the notice's key is the newest of those drafts, so an RFP is told again only
    after a redraft (or a new answering job) left newer "no supporting content" drafts behind and the library
    grew once more. A run twice, or a run for each of twenty documents, tells each owner once.
    """
    sent = 0
    for stale in rfps_drafted_before_library_grew():
        sent += (
            notify(
                stale.rfp.owner,
                Notification.Kind.LIBRARY_GREW,
                _notice_text(stale),
                url=reverse("rfp_manager:detail", args=[stale.rfp.pk]) + "#library-grew",
                dedupe_key=f"{Notification.Kind.LIBRARY_GREW}:{stale.rfp.pk}:{stale.newest.isoformat()}",
            )
            is not None
        )
    return sent


def _notice_text(stale: StaleDrafts) -> str:
    questions = "1 question" if stale.count == 1 else f"{stale.count} questions"
    them = "it" if stale.count == 1 else "them"
    return (
        f"{questions} of “{stale.rfp.name}” got “no supporting content” before library documents became ready: "
        f"the library may answer {them} now. Redraft {them} from the RFP's page."
    )
