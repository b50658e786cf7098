"""In Chromium, the flow a team runs: the owner assigns five questions to a colleague, who gets the email, signs in,
finds them under "My questions", answers one and comments with a mention; the owner approves it and exports; a
viewer is refused an edit. SPELUNKER_WRITE_DOCS=1 writes the README's screenshots to docs/img/."""
import csv
import io
from datetime import timedelta

from django.contrib.auth.models import Permission
from django.utils import timezone

from answer_library.models import Entry
from teamwork.models import Assignment, Role
from tests.answer_library.test_browser import shot

from .conftest import add_member, make_rfp

ANSWER = "Yes: AES-256 for data at rest, keys in an HSM rotated yearly."


def test_assign_answer_comment_approve_export_and_a_viewer_refused(logged_in_page, live_server, live_worker,
                                                                    mail_server, user, django_user_model,
                                                                    offline_embedding, tmp_path):
    rfp = make_rfp(user)
    make_rfp(user, name="Globex renewal", questions=["Do you offer single sign-on?"])
    bob = add_member(rfp, django_user_model, "bob", Role.CONTRIBUTOR)
    carol = add_member(rfp, django_user_model, "carol", Role.VIEWER)
    user.user_permissions.add(Permission.objects.get(codename="edit_library"))
    due = timezone.localdate() + timedelta(days=3)

    # Given alice's RFP, she assigns its first five questions to bob with a due date.
    alice = logged_in_page(user, "pw-alice-123")
    alice.goto(f"/rfps/{rfp.pk}/")
    alice.click("#assign-questions")
    for question in rfp.questions.order_by("order")[:5]:
        alice.check(f"input[name=questions][value='{question.pk}']")
    alice.select_option("#id_assignee", label="bob")
    alice.fill("#id_due_date", due.isoformat())
    alice.click("#assign-submit")
    alice.wait_for_selector(f"text=Assigned 5 question(s) to bob, due {due:%Y-%m-%d}.")

    # Then bob gets the email through the SMTP server,
    [email] = mail_server.wait_for("bob@example.com")
    assert "alice assigned you 5 questions (Q1, Q2, Q3, Q4, Q5)" in email["Subject"]

    # and, signed in, finds them under "My questions", soonest due first.
    page = logged_in_page(bob, "pw-bob-12345")
    page.click("nav >> text=My questions")
    rows = page.locator("#my-questions tbody tr")
    assert rows.count() == 5 and "Do you encrypt data at rest?" in rows.first.inner_text()
    assert due.isoformat() in rows.first.inner_text()
    shot(page, tmp_path, "my-questions")

    # When he answers the first and comments with a mention of alice,
    rows.first.locator("text=Answer").click()
    page.fill("textarea[name=final_text]", ANSWER)
    page.click("button:has-text('Save final answer')")
    page.wait_for_selector("text=Saved the final answer to Q1")
    page.goto(f"/rfps/questions/{rfp.questions.get(number='1').pk}/answer/")
    page.fill("#id_comment_text", "@alice I wrote the key rotation from the policy: please check the wording.")
    page.click("#comment-form button")
    page.wait_for_selector("text=Comment added. Notified alice.")
    assert "please check the wording" in page.inner_text("#answer-history")
    page.click("nav >> text=My questions")
    assert page.locator("#my-questions tbody tr").count() == 4  # answered: off the open list
    assert Assignment.objects.filter(assignee=bob, answered_at__isnull=False).count() == 1

    # then alice is notified in the app (and by email), approves the answer for the library and exports.
    alice.goto("/")
    alice.click("#nav-notifications")
    alice.click("text=bob mentioned you on Q1")
    alice.wait_for_selector(f"text={ANSWER}")
    alice.click("#approve-for-library")
    alice.click("#approve-submit")
    alice.wait_for_selector("text=Saved to the library as entry")
    assert Entry.objects.get().answer_text == ANSWER
    with alice.expect_download() as download:
        alice.click("#export-csv")
    exported = list(csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert [r[3] for r in exported if r[2] == "Do you encrypt data at rest?"] == [ANSWER]

    # The audit page tells the story in sentences, and filters by person.
    alice.goto("/audit/")
    alice.select_option("select[name=rfp]", label="Acme tender")
    alice.click("#audit-filters button")
    story = alice.inner_text("#audit-events")
    for line in ("alice assigned Q1, Q2, Q3, Q4, Q5 of", "bob edited the answer to Q1", "bob commented on Q1",
                 "alice saved version 1 of answer library entry", "alice exported the answers of"):
        assert line in story, line
    shot(alice, tmp_path, "audit")

    # And carol, a viewer, reads the answer but is refused an edit — by the page and by the server.
    viewer = logged_in_page(carol, "pw-carol-12345")
    viewer.goto(f"/rfps/questions/{rfp.questions.get(number='1').pk}/answer/")
    assert "viewers read, they do not change answers" in viewer.inner_text("#edit-refusal")
    assert viewer.is_disabled("button:has-text('Save final answer')")
    viewer.eval_on_selector("button:has-text('Save final answer')", "b => b.disabled = false")
    viewer.fill("textarea[name=final_text]", "Carol's change")
    viewer.click("button:has-text('Save final answer')")
    assert "viewers read, they do not change answers" in viewer.inner_text("#refusal")
    assert rfp.questions.get(number="1").answer.final_text == ANSWER
