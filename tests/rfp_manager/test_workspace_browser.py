"""The answers workspace in Chromium: keyboard-only approval of a page, filters, paging and bulk approval at 2,000 questions.
(The editor's library insert is part of the team's flow: tests/teamwork/test_browser.py.)

Takes the README's screenshots of the workspace (docs/img/workspace-30.png, workspace-2000.png, written there
when SPELUNKER_WRITE_DOCS=1: tests/screenshots.py).
No worker: the answers are written as a responder job would leave them.
"""

import re

import pytest
from playwright.sync_api import expect

from rfp_manager.models import Answer, Question
from rfp_manager.testing import make_answered_rfp
from tests.screenshots import shot

pytestmark = pytest.mark.browser


def shoot(page, tmp_path, name: str) -> None:
    """The workspace, from its heading down (the panels above it are the other screenshots' subject)."""
    page.set_viewport_size({"width": 1280, "height": 1300})
    page.evaluate("() => document.getElementById('questions').scrollIntoView()")
    shot(page, tmp_path, name, full_page=False)


def summary(page) -> str:
    return page.inner_text("#page-summary")


def test_keyboard_only_approval_of_a_page_of_answers(logged_in_page, live_server, user, tmp_path):
    rfp = make_answered_rfp(user, 30, "Northwind security questionnaire")
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
    approved = Question.objects.filter(rfp=rfp, status="approved").count()
    for pk in ids:
        expect(page.locator(f"#q{pk}")).to_be_focused()
        page.keyboard.press("a")
        page.wait_for_selector(f"#q{pk} .row-message:has-text('Approved')")
        approved += 1  # the bar and the counts follow in the same response, no reload
        expect(page.locator("#progress")).to_contain_text(f"{round(100 * approved / 30)}% approved · {approved} of 30")
        expect(page.locator("#progress .status-chip.badge-approved")).to_have_text(f"Approved {approved}")
        if pk == ids[0]:
            shoot(page, tmp_path, "workspace-after-approve")
        expect(page.locator(f"#q{pk}")).to_be_focused()  # kept across the swap
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

    page.goto(f"/rfps/{rfp.pk}/?sort=document")
    assert "% approved" in page.inner_text("#progress")
    page.locator("#answers tr.ws-row").nth(2).focus()  # the row being read shows its whole answer
    page.locator("#answers .row-select").nth(1).check()
    shoot(page, tmp_path, "workspace-30")


def test_filters_paging_and_bulk_approve_at_two_thousand_questions(logged_in_page, live_server, user, tmp_path):
    rfp = make_answered_rfp(user, 2000, "Northwind supplier assessment (2,000 questions)")
    drafted = Question.objects.filter(rfp=rfp, status="drafted").count()
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"/rfps/{rfp.pk}/?sort=document&page=41")
    assert summary(page) == "Questions 1001–1025 of 2000"
    shoot(page, tmp_path, "workspace-2000")
    page.goto(f"/rfps/{rfp.pk}/")
    assert summary(page) == "Questions 1–25 of 2000"

    # Filters swap the workspace in place and keep the URL (a reload or a shared link shows the same).
    page.select_option("#id_status", "drafted")
    expect(page.locator("#page-summary")).to_have_text(f"Questions 1–25 of {drafted}")
    page.select_option("#id_section", "Resilience")
    resilient = Question.objects.filter(rfp=rfp, status="drafted", section="Resilience").count()
    expect(page.locator("#page-summary")).to_have_text(f"Questions 1–25 of {resilient}")
    assert "status=drafted" in page.url and "section=Resilience" in page.url

    page.click("#page-next")
    expect(page.locator("#page-summary")).to_have_text(f"Questions 26–50 of {resilient}")
    on_page = [int(row.get_attribute("id")[1:]) for row in page.locator("#answers tr.ws-row").all()]
    assert len(on_page) == 25 and set(Question.objects.filter(pk__in=on_page).values_list("section", flat=True)) == {
        "Resilience"
    }

    page.check("#select-page")
    assert page.inner_text("#selected-count") == "25 selected"
    page.click("#bulk-approve")
    page.wait_for_selector("#bulk-message:has-text('Approved 25 of 25 selected.')")
    assert set(Question.objects.filter(pk__in=on_page).values_list("status", flat=True)) == {"approved"}
    assert Question.objects.filter(rfp=rfp, status="approved").count() == 25
    # The workspace came back with the same filters: those 25 are no longer "drafted".
    expect(page.locator("#page-summary")).to_have_text(re.compile(f"of {resilient - 25}$"))

    page.fill("#id_q", "penetration")
    page.press("#id_q", "Enter")
    expect(page.locator("#page-summary")).to_have_text(re.compile(r"^Questions 1–\d+ of \d+$"))
    expect(page.locator("#answers .q-text").first).to_contain_text("penetration")
    assert all("penetration" in t for t in page.locator("#answers .q-text").all_inner_texts())
    page.goto(f"/rfps/{rfp.pk}/")
    assert "25 of 2000 questions" in page.inner_text("#progress")


def test_a_redraft_replaces_its_row_when_the_job_is_done_without_a_reload(logged_in_page, live_server, user, tmp_path):
    """No worker: the test finishes the job as the responder would, while the row polls it."""
    from django.utils import timezone

    from rfp_manager.models import RFPBatchJob
    from rfp_manager.services import workflow

    rfp = make_answered_rfp(user, 3, "Northwind security questionnaire")
    question = rfp.questions.get(order=0)
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"/rfps/{rfp.pk}/?sort=document")
    page.evaluate("() => { window.notReloaded = true; }")
    page.locator(f"#q{question.pk}").focus()
    page.keyboard.press("r")
    page.wait_for_selector(f"#q{question.pk} .row-message:has-text('the new draft appears here when it is ready')")

    job = RFPBatchJob.objects.get(rfp=rfp, question_ids=[question.pk])
    answer = question.answer
    answer.draft_text, answer.generated_at = "Backups are taken every 15 minutes [1].", timezone.now()
    answer.save()
    workflow.sync_answer(answer)
    job.results.create(question=question, outcome="succeeded")
    RFPBatchJob.objects.filter(pk=job.pk).update(status="completed", completed_at=timezone.now())

    row = page.locator(f"#q{question.pk}")
    expect(row.locator(".row-message")).to_have_text(f"New draft for {question.label}.", timeout=15_000)
    expect(row.locator(".answer-text")).to_contain_text("every 15 minutes")
    assert page.evaluate("() => window.notReloaded") is True
    shoot(page, tmp_path, "workspace-redrafted")
