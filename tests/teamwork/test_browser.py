"""In Chromium, the flow a team runs: the owner assigns five questions to a colleague, who gets the email, signs in,
finds them under "My questions", answers one with a passage inserted from the library (its citation kept) and
comments with a mention, whose email reaches alice; she approves the answer for the library, bulk-approves the
page of answers and exports; a viewer is refused an edit. SPELUNKER_WRITE_DOCS=1 writes the README's screenshots
to docs/img/."""

import csv
import io
import re
from datetime import timedelta

from django.contrib.auth.models import Permission
from django.utils import timezone
from playwright.sync_api import expect

from answer_library.models import Entry
from rfp_manager.models import Answer
from solution_library.testing import add_library_document
from teamwork.models import Assignment, Role
from tests.rfp_manager.conftest import LIBRARY
from tests.screenshots import shot

from .conftest import add_member, draft_answers, make_rfp

PASSAGE = "encrypted at rest with AES-256"


def test_assign_answer_with_an_insert_mention_bulk_approve_export_and_a_viewer_refused(
    logged_in_page, live_server, live_worker, mail_server, user, django_user_model, offline_embedding, tmp_path
):
    rfp = make_rfp(user)
    make_rfp(user, name="Globex renewal", questions=["Do you offer single sign-on?"])
    draft_answers(rfp.questions.exclude(number="1"))  # the responder drafted all but the first
    add_library_document("Security handbook", LIBRARY["Security handbook"])
    bob = add_member(rfp, django_user_model, "bob", Role.CONTRIBUTOR)
    carol = add_member(rfp, django_user_model, "carol", Role.VIEWER)
    user.email = "alice@example.com"
    user.save()
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
    expect(rows).to_have_count(5)  # waits for the page the click opened; count() alone may read the old one
    assert "Do you encrypt data at rest?" in rows.first.inner_text()
    assert due.isoformat() in rows.first.inner_text()
    shot(page, tmp_path, "my-questions")

    # When he answers the first with a passage of the library, inserted from the answer editor with its citation,
    rows.first.locator("text=Answer").click()
    page.fill("#sources-query", "encrypted at rest")
    page.click("#sources-search")
    insert = page.locator(".passage-source:has-text('Security handbook') .insert-source").first
    expect(insert).to_be_visible()
    assert page.locator(".passage-source mark").count() > 0  # the matched words are marked
    page.fill("textarea[name=final_text]", "Yes.")
    insert.click()
    expect(insert).to_have_text("Inserted as [1]: save to keep it")
    answer = page.input_value("textarea[name=final_text]")
    assert answer.startswith("Yes. ") and PASSAGE in answer and answer.rstrip(".!?").endswith(" [1]")
    shot(page, tmp_path, "editor-insert")
    page.click("button:has-text('Save final answer')")
    page.wait_for_selector("text=Saved the final answer to Q1")
    first = rfp.questions.get(number="1")
    expect(page.locator(f"#q{first.pk} .citations")).to_contain_text("[1] Security handbook")
    cited = {c["n"]: c for c in Answer.objects.get(question=first).citations}
    assert cited[1]["document_title"] == "Security handbook" and cited[1]["cited"]

    # and comments with a mention of alice,
    page.goto(f"/rfps/questions/{first.pk}/answer/")
    page.fill("#id_comment_text", "@alice I wrote the key rotation from the policy: please check the wording.")
    page.click("#comment-form button")
    page.wait_for_selector("text=Comment added. Notified alice.")
    assert "please check the wording" in page.inner_text("#answer-history")
    page.click("nav >> text=My questions")
    expect(page.locator("#my-questions tbody tr")).to_have_count(4)  # answered: off the open list (waits for the page)
    assert Assignment.objects.filter(assignee=bob, answered_at__isnull=False).count() == 1

    # then alice gets the mention by email through the SMTP server and in the app, and approves the answer for the
    # library,
    [mention] = mail_server.wait_for("alice@example.com")
    assert (
        "bob mentioned you on Q1" in mention["Subject"]
        and "please check the wording" in mention.get_body(("plain",)).get_content()
    )
    alice.goto("/")
    alice.click("#nav-notifications")
    alice.click("text=bob mentioned you on Q1")
    alice.wait_for_selector(f"text={PASSAGE}")
    alice.click("#approve-for-library")
    alice.click("#approve-submit")
    alice.wait_for_selector("text=Saved to the library as entry")
    assert Entry.objects.get().answer_text == answer

    # approves every answer of the page at once (select the page, Approve), and exports.
    alice.goto(f"/rfps/{rfp.pk}/?sort=document")
    alice.check("#select-page")
    assert alice.inner_text("#selected-count") == "8 selected"
    alice.click("#bulk-approve")
    alice.wait_for_selector("#bulk-message:has-text('Approved 8 of 8 selected.')")
    assert set(rfp.questions.values_list("status", flat=True)) == {"approved"}
    assert "100% approved" in alice.inner_text("#progress")
    with alice.expect_download() as download:
        alice.click("#export-csv")
    exported = {r[2]: r for r in csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig")))}
    assert exported["Do you encrypt data at rest?"][3] == answer
    assert "Security handbook" in exported["Do you encrypt data at rest?"][4]  # the inserted passage is a source

    # The audit page tells the story in sentences, and filters by person.
    alice.goto("/audit/")
    alice.select_option("select[name=rfp]", label="Acme tender")
    alice.click("#audit-filters button")
    expect(alice).to_have_url(re.compile(r"[?&]rfp=\d+"))  # the filtered page, loaded whole: its oldest event last
    story = alice.locator("#audit-events")
    for line in (
        "alice assigned Q1, Q2, Q3, Q4, Q5 of",
        "bob edited the answer to Q1",
        "bob commented on Q1",
        "alice saved version 1 of answer library entry",
        "alice approved",
        "alice exported the answers of",
    ):
        expect(story).to_contain_text(line)
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
    assert rfp.questions.get(number="1").answer.final_text == answer
