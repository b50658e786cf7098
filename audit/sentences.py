"""An audit event as a sentence a person reads: "alice assigned Q1, Q2 to bob, due 2026-12-01"."""

from rfp_manager.models import Answer

from .models import AuditEvent

A = AuditEvent.Action


def _short(text, limit: int = 160) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quoted(text) -> str:
    return f"“{_short(text)}”" if text else "(empty)"


def _questions(labels) -> str:
    labels = list(labels or [])
    return ", ".join(labels[:8]) + (f" and {len(labels) - 8} more" if len(labels) > 8 else "")


def _role(value) -> str:
    return value or "no role"


def _verdict(value: str) -> str:
    """The reviewer's verdict in the workspace's words ("supported"), never "approved"."""
    return dict(Answer.Verdict.choices).get(value, value.replace("_", " ")).lower()


EXPORT_FORMATS = {
    "export_xlsx": "an Excel file",
    "export_csv": "a CSV file",
    "export_workbook": "the client's own workbook",
}

SENTENCES = {
    A.EXPORT: lambda d, t: (
        f"exported the answers of {t} as {EXPORT_FORMATS.get(d.get('format'), d.get('format', 'a file'))}"
    ),
    A.JOB_STARTED: lambda d, t: f"started {t}",
    A.JOB_CANCELLED: lambda d, t: f"cancelled {t}",
    A.LLM_API_CHANGED: lambda d, t: (
        f"{'created' if d.get('created') else 'changed'} {t}"
        + (f" ({', '.join(d['changed'])})" if d.get("changed") else "")
    ),
    A.LLM_API_DELETED: lambda d, t: f"deleted {t}",
    A.SHARING_CHANGED: lambda d, t: (
        f"changed who {t} is shared with: now {', '.join(d.get('groups') or []) or 'nobody'}"
    ),
    A.ANSWER_EDITED: lambda d, t: f"edited the answer to {t}",
    A.ANSWER_APPROVED: lambda d, t: f"approved the answer to {t}",
    A.ANSWER_REVIEWED: lambda d, t: (
        f"had the answer to {t} reviewed (reviewer's verdict: {_verdict(d.get('verdict', ''))})"
    ),
    A.ASSIGNED: lambda d, t: (
        f"assigned {_questions(d.get('questions'))} of {t} to {d.get('assignee')}"
        + (f", due {d['due']}" if d.get("due") else "")
    ),
    A.COMMENTED: lambda d, t: f"commented on {t}: {_quoted(d.get('text'))}",
    A.QUESTIONS_IMPORTED: lambda d, t: (
        f"imported questions into {t} from {d.get('source') or 'pasted text'}: {d.get('count', 0)} question(s)"
    ),
    A.DOCUMENT_UPLOADED: lambda d, t: f"uploaded {_quoted(d.get('title'))} to {t}",
    A.LIBRARY_CHANGED: lambda d, t: (
        f"saved version {d.get('version')} of {t}" + (f" ({d['note']})" if d.get("note") else "")
    ),
    A.LIBRARY_IMPORT: lambda d, t: f"started an import into the answer library from {t}",
    A.ROLE_CHANGED: lambda d, t: (
        f"changed {d.get('user')}'s role on {t} from {_role(d.get('before'))} to {_role(d.get('after'))}"
    ),
}


def sentence(event: AuditEvent) -> str:
    """Who did what to what, in words (the actor's name first)."""
    who = event.actor.get_username() if event.actor_id else "The system"
    build = SENTENCES.get(event.action)
    what = build(event.detail or {}, event.target) if build else f"{event.get_action_display().lower()}: {event.target}"
    return f"{who} {what}."


def before_after(event: AuditEvent) -> tuple[str, str]:
    """The text before and after the change, where the event keeps them ("" otherwise)."""
    detail = event.detail or {}
    if "before" in detail or "after" in detail:
        return str(detail.get("before") or ""), str(detail.get("after") or "")
    return "", ""
