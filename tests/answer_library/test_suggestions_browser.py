"""A contributor picks a library suggestion with the keyboard in Debian's Chromium, and the client's file carries it.

The responder left the question drafted from the documents with the backup entry suggested (the entry is near,
not near enough to reuse unasked). Bob, a contributor the question is assigned to, opens the workspace, follows
"1 library answer may fit" to the editor and presses 1; the client's Word export then holds the entry's answer:
his pick vouches for the text as his own writing would (deliverable.person_behind), without the owner's approval.
"""

import io

import pytest
from docx import Document as WordDocument

from answer_library.models import Entry, Suggestion
from answer_library.services import entries
from rfp_manager.services import answering
from teamwork.models import Membership, Role
from teamwork.services import assignments
from tests.screenshots import shot

from .conftest import make_rfp
from .test_suggestions import BACKUPS, MIDDLE_BAND, minilm  # noqa: F401

pytestmark = [pytest.mark.browser]


def test_a_contributor_uses_a_suggestion_with_the_keyboard_and_the_client_export_carries_it(
    logged_in_page, live_server, transactional_db, library, minilm, user, chat_model, django_user_model, tmp_path
):
    backups = entries.save_entry(
        Entry(owner=user), user, "test", question=BACKUPS, answer_text="Hourly incremental backups, kept 35 days."
    )
    rfp = make_rfp(user, [MIDDLE_BAND], name="Suggested RFP")
    question = rfp.questions.get()
    answering.generate_answer(question, model=chat_model)
    assert question.answer.library_entry_id is None  # drafted from the documents: below the reuse bar
    bob = django_user_model.objects.create_user("bob", password="pw-bob-12345")
    Membership.objects.create(rfp=rfp, user=bob, role=Role.CONTRIBUTOR)
    assignments.assign_questions(rfp, [question], bob, None, user)

    page = logged_in_page(bob, "pw-bob-12345")
    page.goto(f"/rfps/{rfp.pk}/")
    link = page.locator(f"#q{question.pk} a.suggestions-link")
    assert link.inner_text() == "1 library answer may fit"
    shot(page, tmp_path, "library-suggestions-row")
    link.click()
    page.wait_for_selector("#library-suggestions")
    assert backups.answer_text in page.inner_text("#library-suggestions")
    assert "owner alice" in page.inner_text("#library-suggestions")
    shot(page, tmp_path, "library-suggestions-editor")

    page.evaluate("document.activeElement && document.activeElement.blur()")  # not typing in the answer
    page.keyboard.press("1")
    page.wait_for_selector("text=Used the library answer")

    assert "From the library" in page.inner_text(".panel")
    assert "chosen among the suggestions by bob" in page.inner_text(".panel")
    assert page.locator("#library-suggestions").count() == 0
    assert "gets this answer" in page.inner_text("#for-client")
    shot(page, tmp_path, "library-suggestion-used")
    suggestion = Suggestion.objects.get(question=question, entry=backups)
    assert suggestion.outcome == Suggestion.Outcome.USED and suggestion.decided_by == bob

    page.goto(f"/rfps/{rfp.pk}/")
    with page.expect_download() as download:
        page.click("#export-docx")
    paragraphs = [p.text for p in WordDocument(io.BytesIO(download.value.path().read_bytes())).paragraphs]
    assert backups.answer_text in paragraphs
