"""The answers workspace in Chromium: keyboard-only approval of a page, filters, paging and bulk approval at 2,000 questions.

Writes the README's screenshots of the workspace (docs/img/workspace-30.png, workspace-2000.png).
No worker: the answers are written as a responder job would leave them.
"""
from pathlib import Path

import pytest

from rfp_manager.models import RFP, Answer, Question
from rfp_manager.services import workflow

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"
SECTIONS = ["Governance", "Data protection", "Operations", "Identity and access", "Resilience"]
SUBJECTS = [
    ("Is customer data encrypted at rest?", "Yes. Customer data is encrypted at rest with AES-256; keys are kept in an HSM [1]."),
    ("How often are backups taken?", "Backups are taken every hour and kept for 35 days; restores are tested every quarter [1]."),
    ("Which data centres host the service?", "Two data centres, in Frankfurt and Dublin, with automatic failover [1]."),
    ("How is access to production controlled?", "Single sign-on and hardware security keys are required for production [1]."),
    ("How often do you run penetration tests?", "An external penetration test runs every year; critical findings are fixed in 14 days [1]."),
    ("Who is your external auditor?", "There is no supporting content in the library for this question."),
]


def make_workspace(owner, count: int, name: str) -> RFP:
    """An RFP of `count` questions, answered as a responder and a reviewer leave them: drafts, verdicts, expert flags."""
    rfp = RFP.objects.create(name=name, client="Northwind", owner=owner)
    Question.objects.bulk_create([
        Question(rfp=rfp, section=SECTIONS[i % len(SECTIONS)], number=f"{i // 50 + 1}.{i % 50 + 1}", order=i,
                 text=f"{SUBJECTS[i % len(SUBJECTS)][0]} (control {i + 1})", import_key=f"k{i}")
        for i in range(count)
    ])
    answers = []
    for question in rfp.questions.order_by("order"):
        i = question.order
        if i % 10 == 9:
            continue  # some are not answered yet
        text = SUBJECTS[i % len(SUBJECTS)][1]
        expert = i % len(SUBJECTS) == len(SUBJECTS) - 1
        citations = [] if expert else [{"n": 1, "chunk_id": 1, "document_id": 1, "document_title": "Security handbook",
                                        "text": text, "cited": True}]
        answers.append(Answer(
            question=question, draft_text=text, needs_expert=expert, citations=citations,
            confidence=0.0 if expert else (0.35, 0.62, 0.91)[i % 3],
            review_verdict="" if expert or i % 4 == 0 else ("approved", "needs_revision", "approved")[i % 3],
            review_score=None if expert or i % 4 == 0 else (0.83, 0.48, 0.77)[i % 3],
        ))
    Answer.objects.bulk_create(answers)
    workflow.sync_status(rfp.questions.all())
    return rfp


def shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def summary(page) -> str:
    return page.inner_text("#page-summary")


def test_keyboard_only_approval_of_a_page_of_answers(logged_in_page, live_server, user):
    rfp = make_workspace(user, 30, "Northwind security questionnaire")
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"/rfps/{rfp.pk}/?sort=document&status=in_review")
    shown = page.locator("#answers tr.ws-row")
    ids = [int(row.get_attribute("id")[1:]) for row in shown.all()]
    assert ids and summary(page) == f"Questions 1–{len(ids)} of {len(ids)}"

    # The skip link is the first stop, and leads past the navigation and the panels to the answers.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    page.keyboard.press("j")
    for pk in ids:
        page.wait_for_function(f"document.activeElement && document.activeElement.id === 'q{pk}'")
        page.keyboard.press("a")
        page.wait_for_selector(f"#q{pk} .row-message:has-text('Approved')")
        page.wait_for_function(f"document.activeElement && document.activeElement.id === 'q{pk}'")  # focus kept across the swap
        page.keyboard.press("j")
    assert set(Question.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"approved"}
    assert all(a.approved_by == user for a in Answer.objects.filter(question_id__in=ids))

    # Edit from the keyboard: "e" opens the focused question's editor.
    page.goto(f"/rfps/{rfp.pk}/?sort=document")
    page.locator("#answers tr.ws-row").first.focus()
    page.keyboard.press("j")
    second = page.locator("#answers tr.ws-row").nth(1).get_attribute("id")[1:]
    page.keyboard.press("e")
    page.wait_for_url(f"**/rfps/questions/{second}/answer/")

    page.goto(f"/rfps/{rfp.pk}/")
    page.wait_for_selector("#workspace")
    assert "% approved" in page.inner_text("#progress")
    shoot(page, "workspace-30")


def test_filters_paging_and_bulk_approve_at_two_thousand_questions(logged_in_page, live_server, user):
    rfp = make_workspace(user, 2000, "Northwind supplier assessment (2,000 questions)")
    drafted = Question.objects.filter(rfp=rfp, status="drafted").count()
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"/rfps/{rfp.pk}/")
    assert summary(page) == "Questions 1–25 of 2000"
    shoot(page, "workspace-2000")

    # Filters swap the workspace in place and keep the URL (a reload or a shared link shows the same).
    page.select_option("#id_status", "drafted")
    page.wait_for_function(f"document.getElementById('page-summary').innerText === 'Questions 1–25 of {drafted}'")
    page.select_option("#id_section", "Resilience")
    resilient = Question.objects.filter(rfp=rfp, status="drafted", section="Resilience").count()
    page.wait_for_function(f"document.getElementById('page-summary').innerText === 'Questions 1–25 of {resilient}'")
    assert "status=drafted" in page.url and "section=Resilience" in page.url

    page.click("#page-next")
    page.wait_for_function(f"document.getElementById('page-summary').innerText === 'Questions 26–50 of {resilient}'")
    on_page = [int(row.get_attribute("id")[1:]) for row in page.locator("#answers tr.ws-row").all()]
    assert len(on_page) == 25 and set(Question.objects.filter(pk__in=on_page).values_list("section", flat=True)) == {"Resilience"}

    page.check("#select-page")
    assert page.inner_text("#selected-count") == "25 selected"
    page.click("#bulk-approve")
    page.wait_for_selector("#bulk-message:has-text('Approved 25 of 25 selected.')")
    assert set(Question.objects.filter(pk__in=on_page).values_list("status", flat=True)) == {"approved"}
    assert Question.objects.filter(rfp=rfp, status="approved").count() == 25
    # The workspace came back with the same filters: those 25 are no longer "drafted".
    page.wait_for_function(f"document.getElementById('page-summary').innerText.endsWith('of {resilient - 25}')")

    page.fill("#id_q", "penetration")
    page.press("#id_q", "Enter")
    page.wait_for_function("document.getElementById('page-summary').innerText.startsWith('Questions 1–')")
    assert all("penetration" in t for t in page.locator("#answers .q-text").all_inner_texts())
    page.goto(f"/rfps/{rfp.pk}/")
    assert "25 of 2000 questions" in page.inner_text("#progress")
