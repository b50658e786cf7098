"""Who may reach each URL: the table the URL walk (test_url_access.py) holds every pattern to.

Every URL pattern the resolver knows must have a row here, keyed by its URL
name ("namespace:name"); a new URL without one fails the walk, which lists
the missing names. The admin namespace is covered as a whole (its own
`admin_view` guards it), except its login page.

Adding a URL: pick its access class, the fixture object whose pk fills
`<pk>` (see conftest.py `world`), and the method that reaches the view
(POST for views that only accept POST, so the check reaches the permission
test rather than a 405).
"""

import re
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

OPEN = "open"  # anyone: health checks, the login pages and the trust center's public pages
SIGNED_IN = "signed_in"  # any signed-in user (the library, search, LLM list are shared)
OWNER = "owner"  # the people on the RFP (owner, roles, shared groups); others get 404
STAFF = "staff"  # staff only; other signed-in users get 403
EDITOR = "editor"  # answer library editors (answer_library.edit_library); other signed-in users get 403

# The least RFP role an OWNER-class URL needs (teamwork.services.roles); a lesser role gets 403.
VIEWER, CONTRIBUTOR, RFP_OWNER = "viewer", "contributor", "owner"
ADMIN = "admin"  # the Django admin: staff only, others are sent to the admin login


@dataclass(frozen=True)
class Rule:
    access: str
    obj: str | None = None  # the `world` object whose pk fills <pk>
    method: str = "GET"
    # What the rightful user gets on GET when it is not a success: the
    # fixture RFP has no client workbook to export into.
    rightful_status: int | None = None
    role: str = VIEWER  # OWNER class: the least role on the RFP that may


URL_ACCESS: dict[str, Rule] = {
    "favicon": Rule(OPEN),
    "healthz": Rule(OPEN),
    "readyz": Rule(OPEN),
    "login": Rule(OPEN),
    "admin:login": Rule(OPEN),
    # Signing out is for anyone signed in (the admin sends a non-staff user to its index).
    "admin:logout": Rule(SIGNED_IN, method="POST"),
    "home": Rule(SIGNED_IN),
    "logout": Rule(SIGNED_IN, method="POST"),
    "system": Rule(STAFF),
    "system_check_start": Rule(STAFF, method="POST"),
    "system_check": Rule(STAFF, "system_check"),
    "system_check_status": Rule(STAFF, "system_check"),
    # Library: shared by everyone signed in; sources and their jobs are staff work.
    "solution_library:index": Rule(SIGNED_IN),
    "solution_library:upload": Rule(SIGNED_IN, method="POST"),
    "solution_library:documents": Rule(SIGNED_IN),
    "solution_library:document": Rule(SIGNED_IN, "document"),
    "solution_library:document_status": Rule(SIGNED_IN, "document"),
    "solution_library:document_retry": Rule(SIGNED_IN, "document", "POST"),
    "solution_library:search": Rule(SIGNED_IN),
    "solution_library:chunk": Rule(SIGNED_IN, "chunk"),
    "solution_library:sources": Rule(STAFF),
    "solution_library:source": Rule(STAFF, "source"),
    "solution_library:source_sync": Rule(STAFF, "source", "POST"),
    "solution_library:sync_job": Rule(STAFF, "sync_job"),
    "solution_library:sync_job_status": Rule(STAFF, "sync_job"),
    "solution_library:embed_job": Rule(STAFF, "embed_job"),
    "solution_library:embed_job_status": Rule(STAFF, "embed_job"),
    # RFPs: the list and the create form are everyone's; each RFP and all under it is its owner's.
    "rfp_manager:index": Rule(SIGNED_IN),
    "rfp_manager:create": Rule(SIGNED_IN),
    "rfp_manager:detail": Rule(OWNER, "rfp"),
    "rfp_manager:edit": Rule(OWNER, "rfp"),
    "rfp_manager:import": Rule(OWNER, "rfp", "POST", role=RFP_OWNER),
    "rfp_manager:import_preview": Rule(OWNER, "question_import"),
    "rfp_manager:import_remap": Rule(OWNER, "question_import", "POST", role=RFP_OWNER),
    "rfp_manager:import_analysis_status": Rule(OWNER, "import_job"),
    "rfp_manager:document_upload": Rule(OWNER, "rfp", "POST", role=RFP_OWNER),
    "rfp_manager:document_summarize": Rule(OWNER, "information_document", "POST", role=RFP_OWNER),
    "rfp_manager:start_responder": Rule(OWNER, "rfp", "POST", role=RFP_OWNER),
    "rfp_manager:start_reviewer": Rule(OWNER, "rfp", "POST", role=RFP_OWNER),
    "rfp_manager:redraft_no_support": Rule(OWNER, "rfp", "POST", role=RFP_OWNER),
    "rfp_manager:job": Rule(OWNER, "rfp_job"),
    "rfp_manager:job_status": Rule(OWNER, "rfp_job"),
    "rfp_manager:job_cancel": Rule(OWNER, "rfp_job", "POST", role=RFP_OWNER),
    "rfp_manager:job_retry": Rule(OWNER, "rfp_job", "POST", role=RFP_OWNER),
    "rfp_manager:answer_edit": Rule(OWNER, "question"),
    "rfp_manager:answer_sources": Rule(OWNER, "question"),
    "rfp_manager:question_approve": Rule(OWNER, "question", "POST", role=RFP_OWNER),
    "rfp_manager:question_redraft": Rule(OWNER, "question", "POST", role=CONTRIBUTOR),
    # A library suggestion used or rejected: it replaces (or keeps) the answer, so whoever may edit it.
    "rfp_manager:suggestion_use": Rule(OWNER, "question", "POST", role=CONTRIBUTOR),
    "rfp_manager:suggestion_reject": Rule(OWNER, "question", "POST", role=CONTRIBUTOR),
    # The row polled while its re-draft runs: the walk asks without a job, which is a 404 for anyone.
    "rfp_manager:question_row": Rule(OWNER, "question", rightful_status=404),
    "rfp_manager:workspace_bulk": Rule(OWNER, "rfp", "POST", role=RFP_OWNER),
    "rfp_manager:export_xlsx": Rule(OWNER, "rfp"),
    "rfp_manager:export_csv": Rule(OWNER, "rfp"),
    "rfp_manager:export_workbook": Rule(OWNER, "rfp", rightful_status=404),
    "rfp_manager:export_docx": Rule(OWNER, "rfp"),
    # Nor a Word or PDF questionnaire to write into.
    "rfp_manager:export_document": Rule(OWNER, "rfp", rightful_status=404),
    "rfp_manager:export_document_download": Rule(OWNER, "rfp", rightful_status=404),
    "rfp_manager:export_choices": Rule(OWNER, "rfp", rightful_status=404),
    "rfp_manager:export_sources": Rule(OWNER, "rfp"),
    # The answer library is read like the document library; its editors change it, the others propose.
    # Approving an RFP's answer needs the right to edit that answer (an editor saves it, anyone else proposes it).
    "answer_library:index": Rule(SIGNED_IN),
    "answer_library:export": Rule(SIGNED_IN),
    "answer_library:entry": Rule(SIGNED_IN, "library_entry"),
    "answer_library:entry_reviewed": Rule(EDITOR, "library_entry", "POST"),
    "answer_library:entry_retire": Rule(EDITOR, "library_entry", "POST"),
    "answer_library:approve": Rule(OWNER, "answer", role=CONTRIBUTOR),
    "answer_library:candidate_dismiss": Rule(OWNER, "candidate", "POST", role=CONTRIBUTOR),
    "answer_library:review_queue": Rule(SIGNED_IN),
    "answer_library:findings": Rule(SIGNED_IN),
    "answer_library:findings_scan": Rule(EDITOR, method="POST"),
    "answer_library:finding_decide": Rule(EDITOR, "finding", "POST"),
    "answer_library:import": Rule(EDITOR, method="POST"),
    "answer_library:import_preview": Rule(SIGNED_IN, "library_import"),
    "answer_library:job": Rule(SIGNED_IN, "library_job"),
    "answer_library:job_status": Rule(SIGNED_IN, "library_job"),
    # LLMs: everyone may look; only staff validate.
    "llm_manager:index": Rule(SIGNED_IN),
    "llm_manager:api_detail": Rule(SIGNED_IN, "llm_api"),
    "llm_manager:api_validate": Rule(STAFF, "llm_api", "POST"),
    "llm_manager:validation_status": Rule(SIGNED_IN, "validation_run"),
    # The audit page: staff read every event, an RFP's owners the events of their RFPs (others an empty list).
    "audit:log": Rule(SIGNED_IN),
    "audit:export_csv": Rule(SIGNED_IN),
    # Teamwork: each person's own questions and notifications; an RFP's people and assignments are its owners'.
    "teamwork:my_questions": Rule(SIGNED_IN),
    "teamwork:notifications": Rule(SIGNED_IN),
    "teamwork:notifications_read": Rule(SIGNED_IN, method="POST"),
    "teamwork:undelivered": Rule(STAFF),
    "teamwork:resend": Rule(STAFF, "notification", "POST"),
    "teamwork:assign": Rule(OWNER, "rfp", role=RFP_OWNER),
    "teamwork:people": Rule(OWNER, "rfp"),
    "teamwork:comment": Rule(OWNER, "question", "POST", role=CONTRIBUTOR),
    # Jobs of every kind: each user sees (and acknowledges) the jobs they may see.
    "jobs:index": Rule(SIGNED_IN),
    "jobs:acknowledge": Rule(SIGNED_IN, "rfp_job", "POST"),
    # The demo questionnaire workbook, for the tour.
    "demo:rfp_workbook": Rule(SIGNED_IN),
    # The trust center: public pages for prospects; <slug>, <uuid> and <token> come from `world.trust`
    # (an approved request's document and link) or `world.trust_public` (a public document).
    "trust_center:page": Rule(OPEN, "trust"),
    "trust_center:logo": Rule(OPEN, "trust"),
    "trust_center:ask": Rule(OPEN, "trust", "POST"),
    "trust_center:download": Rule(OPEN, "trust_public"),
    "trust_center:request": Rule(OPEN, "trust"),
    "trust_center:access": Rule(OPEN, "trust"),
    "trust_center:access_download": Rule(OPEN, "trust"),
}
# The trust center's public URLs: open to anyone by design (each view sees only what its center published).
TRUST_CENTER_OPEN = {key for key in URL_ACCESS if key.startswith("trust_center:")}


@dataclass(frozen=True)
class Route:
    key: str  # the URL name, or the route itself for an unnamed pattern
    route: str  # the pattern as written, prefixes included
    namespace: str  # "" or e.g. "admin"
    open_in_code: bool  # its view is marked @login_not_required


def all_routes() -> list[Route]:
    """Every pattern the resolver knows, in order, including included URLconfs."""
    return list(_walk(get_resolver().url_patterns, namespace="", prefix=""))


def _walk(patterns, namespace: str, prefix: str):
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _walk(pattern.url_patterns, inner, route)
        elif isinstance(pattern, URLPattern):
            key = f"{namespace}{pattern.name or route}"
            yield Route(key, route, namespace.rstrip(":"), not getattr(pattern.callback, "login_required", True))


def walk(world, *access_classes: str):
    """(route, rule, path) for every pattern of the given access classes, <pk> filled from `world` (conftest.py)."""
    for route in all_routes():
        rule = rule_for(route)
        if rule and rule.access in access_classes:
            yield route, rule, sample_path(route, getattr(world, rule.obj) if rule.obj else None)


def rule_for(route: Route) -> Rule | None:
    if route.key in URL_ACCESS:
        return URL_ACCESS[route.key]
    if route.namespace == "admin":
        return Rule(ADMIN, method="GET")
    return None


def sample_path(route: Route, obj=None) -> str:
    """A concrete path for the pattern: each <part> the given object's attribute of that name, else a plausible value."""
    path = re.sub(r"\(\?P<url>\.\*\)", "no-such-page/", route.route)  # the admin's catch-all
    path = re.sub(r"\(\?P<\w+>([\w-]+)[^)]*\)", r"\1", path)  # a regex group: its first choice
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(getattr(obj, m.group(1), "1")), path)  # else admin object ids
    return "/" + path.replace("^", "").replace("$", "")
