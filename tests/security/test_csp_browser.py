"""The Content-Security-Policy, in Chromium: every HTML page shows no violation, and the
live features (the upload script, htmx refreshes, the passage page's scroll) still work."""

import pytest

from tests.solution_library import files

from .url_access import OWNER, SIGNED_IN, STAFF, all_routes, rule_for, sample_path

pytestmark = [pytest.mark.browser, pytest.mark.integration]

# Recorded in the page before any of its scripts run; the console message is Chromium's own wording.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation",
    (e) => window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`));
document.addEventListener("htmx:load", (e) => { if (e.target === document.body) window.__htmxStarted = true; });
"""
# A page is done when it has loaded, htmx (where the page has it) has processed it, and no htmx request is in
# flight. Not "networkidle": a page that polls (a job in progress, the jobs list, the home status) keeps the
# network busy under load and never reaches it.
PAGE_SETTLED = """() => document.readyState === "complete" && (!window.htmx || window.__htmxStarted === true)
    && !document.querySelector(".htmx-request")"""
# What a GET page of url_access.py may answer instead of HTML: status endpoints and exports.
NOT_PAGES = (
    "application/json",
    "text/csv",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/pdf",
)
ADMIN_PAGES = [
    "/admin/",
    "/admin/django_celery_beat/periodictask/add/",
    "/admin/rfp_manager/rfp/",
    "/admin/solution_library/document/",
    "/admin/llm_manager/llmapi/",
    "/admin/auth/user/",
]


def _watched(page):
    """The page, recording CSP violations from both the DOM event and the console."""
    console = []
    page.add_init_script(RECORD_VIOLATIONS)
    page.on("console", lambda msg: console.append(msg.text) if "Content Security Policy" in msg.text else None)
    page.csp_console = console
    return page


def _violations(page) -> list[str]:
    """This document's violations (the console list is emptied: it outlives a navigation)."""
    found = page.evaluate("window.__cspViolations || []") + page.csp_console
    page.csp_console.clear()
    return found


def _html_pages(world, *access_classes) -> list[str]:
    paths = []
    for route in all_routes():
        rule = rule_for(route)
        if rule and rule.access in access_classes and rule.method == "GET":
            paths.append(sample_path(route, getattr(world, rule.obj) if rule.obj else None))
    return paths


def _visit_all(page, paths) -> dict[str, list[str]]:
    """Visit every path that answers HTML; return the violations per path."""
    found = {}
    for path in paths:
        response = page.request.get(path)  # shares the page's cookies; a download is not a page
        content_type = response.headers.get("content-type", "")
        if not content_type.startswith("text/html"):
            assert content_type.startswith(NOT_PAGES), f"{path} answered {response.status} {content_type}"
            continue
        page.goto(path)
        page.wait_for_function(PAGE_SETTLED)
        found[path] = _violations(page)
    return found


def test_every_page_shows_no_csp_violation(live_server, world, user, staff_user, logged_in_page, browser):
    owner_page = _watched(logged_in_page(user, "pw-alice-123"))
    seen = _visit_all(owner_page, _html_pages(world, SIGNED_IN, OWNER))
    staff_page = _watched(logged_in_page(staff_user, "pw-staff-123"))
    seen |= _visit_all(staff_page, _html_pages(world, STAFF) + ADMIN_PAGES)

    assert {path: v for path, v in seen.items() if v} == {}
    assert set(ADMIN_PAGES) < set(seen) and len(seen) > 2 * len(ADMIN_PAGES), sorted(seen)
    # The periodic task form's own inline script ran under its nonce.
    staff_page.goto("/admin/django_celery_beat/periodictask/add/")
    assert staff_page.locator(".field-crontab_translation").is_hidden()


def test_upload_htmx_and_passage_scroll_work_under_the_policy(
    live_worker, offline_embedding, user, logged_in_page, tmp_path
):
    long_doc = tmp_path / "runbook.md"
    long_doc.write_bytes(
        files.markdown_bytes(
            "Runbook",
            files.long_paragraphs("failover", 120) + ["Restores are rehearsed on the first Monday of every quarter."],
        )
    )
    page = _watched(logged_in_page(user, "pw-alice-123"))
    page.goto("/library/")
    page.set_input_files("#file-input", [str(long_doc)])  # the upload script (static/js/library_upload.js)
    page.wait_for_function(
        "() => document.querySelector('li[data-filename=\"runbook.md\"]')?.dataset.status === 'pending_review'",
        timeout=60_000,
    )
    page.locator("#documents").get_by_text("Runbook").wait_for()  # htmx refreshed the documents table

    page.goto("/library/search/?q=When+are+restores+rehearsed%3F")
    page.locator("article.result a").first.click()
    page.wait_for_function("() => window.scrollY > 0")  # static/js/scroll_to_passage.js ran
    assert "first Monday" in page.locator("mark#passage").inner_text()
    page.screenshot(path=str(tmp_path / "passage.png"))
    assert _violations(page) == []
