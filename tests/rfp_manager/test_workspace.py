"""The answers workspace without a browser: status per question, RFP progress, paging, filters, actions on rows and many."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from answer_library.models import Entry
from rfp_manager.models import RFP, Answer, Question, RFPBatchJob
from rfp_manager.services import answering, workflow

from .conftest import make_rfp

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def status(question) -> str:
    return Question.objects.get(pk=question.pk).status


def rfp_status(rfp) -> str:
    return RFP.objects.get(pk=rfp.pk).status


@pytest.fixture
def rfp(user):
    return make_rfp(user, ["Do you encrypt data at rest?", "How often are backups taken?", "Who is your auditor?"])


def answer(question, **fields) -> Answer:
    result, _ = Answer.objects.update_or_create(question=question, defaults=fields)
    workflow.sync_answer(result)
    return result


# --- status per question and the RFP's status and progress ---------------------------------------


def test_a_question_goes_unanswered_drafted_in_review_approved_and_the_rfp_follows(rfp, user):
    first, second, third = rfp.questions.order_by("order")
    assert {q.status for q in (first, second, third)} == {"unanswered"} and rfp.status == "draft"

    draft = answer(first, draft_text="Yes, AES-256 [1].", generated_at=timezone.now())
    assert status(first) == "drafted" and rfp_status(rfp) == "in_progress"
    answer(first, review_verdict="approved", reviewed_at=timezone.now())
    assert status(first) == "in_review"

    assert workflow.approve([first], user) == (1, 0)
    draft.refresh_from_db()
    assert status(first) == "approved" and draft.approved_by == user
    assert (
        workflow.approve([first], user) == (1, 0) and Answer.objects.get(pk=draft.pk).approved_at == draft.approved_at
    )

    # An edit withdraws the approval: it approved another text.
    answering.save_final_text(Answer.objects.get(pk=draft.pk), "Yes, AES-256 with keys in an HSM [1].", user)
    assert status(first) == "in_review" and Answer.objects.get(pk=draft.pk).approved_at is None

    answer(second, draft_text="Hourly [1].")
    answer(third, draft_text="An auditor.")
    approved, skipped = workflow.approve(list(rfp.questions.all()), user)
    assert (approved, skipped) == (3, 0) and rfp_status(rfp) == "approved"
    assert workflow.progress_percent(workflow.status_counts(rfp)) == 100


def test_expert_flag_and_clear(rfp, user):
    first, second, _ = rfp.questions.order_by("order")
    answer(first, draft_text="No supporting content.", needs_expert=True)
    assert status(first) == "needs_expert"
    assert workflow.approve([first], user) == (0, 1)  # the expert placeholder is never approved
    answering.save_final_text(Answer.objects.get(question=first), "Our auditor is KPMG.", user)
    assert status(first) == "in_review"  # an expert wrote it: the flag is settled

    answer(second, draft_text="Hourly [1].")
    assert workflow.mark_for_expert([second]) == 1 and status(second) == "needs_expert"
    assert workflow.clear([first, second]) == 2
    assert {status(first), status(second)} == {"unanswered"}
    assert Answer.objects.get(question=second).final_answer == "" and rfp_status(rfp) == "draft"


def test_a_redraft_withdraws_the_approval(rfp, user, library):
    question = rfp.questions.get(order=0)
    answer(question, draft_text="Old [1].")
    workflow.approve([question], user)
    from llm_manager import services as llm

    answering.generate_answer(question, model=llm.get_default_model("chat"))
    assert Answer.objects.get(question=question).approved_at is None and status(question) != "approved"


def test_a_person_s_rfp_status_is_kept(rfp, user):
    RFP.objects.filter(pk=rfp.pk).update(status="submitted")
    answer(rfp.questions.first(), draft_text="Yes.")
    assert rfp_status(rfp) == "submitted"


def test_rfp_list_and_home_show_the_status_and_percentage(rfp, user, user_client):
    questions = list(rfp.questions.order_by("order"))
    for q in questions[:2]:
        answer(q, draft_text="An answer.")
    workflow.approve(questions[:2], user)
    listing = user_client.get(reverse("rfp_manager:index")).content.decode()
    assert "67%" in listing and "2 / 3" in listing and "In progress" in listing
    home = user_client.get(reverse("home")).content.decode()
    assert "Acme RFP" in home and "67%" in home


# --- the workspace: pages and filters ------------------------------------------------------------


@pytest.fixture
def big_rfp(user):
    rfp = make_rfp(user, [f"Question {i} about {'backups' if i % 2 else 'encryption'}?" for i in range(60)], name="Big")
    for q in rfp.questions.all():
        q.section = "Security" if q.order < 20 else "Operations"
        q.save(update_fields=["section"])
        if q.order < 30:
            answer(
                q,
                draft_text=f"Answer {q.order}.",
                confidence=0.3 if q.order < 10 else 0.9,
                review_verdict="rejected" if q.order < 5 else "",
            )
    return rfp


def row_ids(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr id="q(\d+)"', html)]


def test_workspace_is_paged_on_the_server(big_rfp, user_client):
    url = reverse("rfp_manager:detail", args=[big_rfp.pk])
    first = user_client.get(url, {"sort": "document"}).content.decode()
    assert len(row_ids(first)) == 25 and "Questions 1–25 of 60" in first
    last = user_client.get(url, {"sort": "document", "page": 3}).content.decode()
    assert len(row_ids(last)) == 10 and "Questions 51–60 of 60" in last
    assert not set(row_ids(first)) & set(row_ids(last))
    # htmx asks for the workspace alone: no navigation, no import panel.
    partial = user_client.get(url, {"page": 2}, headers={**HTMX, "HX-Target": "workspace"}).content.decode()
    assert (
        partial.lstrip().startswith('<div id="workspace">') and "topbar" not in partial and len(row_ids(partial)) == 25
    )


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"status": "unanswered"}, 30),
        ({"status": "drafted"}, 25),
        ({"status": "in_review"}, 5),
        ({"section": "Security"}, 20),
        ({"verdict": "rejected"}, 5),
        ({"verdict": "none"}, 55),
        ({"band": "low"}, 10),
        ({"band": "high"}, 20),
        ({"band": "none"}, 30),
        ({"origin": "drafted"}, 30),
        ({"origin": "edited"}, 0),
        ({"q": "encryption"}, 30),
        ({"q": "Answer 7."}, 1),
        ({"section": "Operations", "status": "drafted"}, 10),
    ],
)
def test_workspace_filters(big_rfp, user_client, params, expected):
    page = user_client.get(reverse("rfp_manager:detail", args=[big_rfp.pk]), params).content.decode()
    count = int(re.search(r"of (\d+)</span>", page).group(1)) if expected else 0
    assert count == expected, params
    if not expected:
        assert "No question matches these filters" in page


def test_workspace_sorts(big_rfp, user_client):
    url = reverse("rfp_manager:detail", args=[big_rfp.pk])
    by_confidence = row_ids(user_client.get(url, {"sort": "-confidence"}).content.decode())
    confidences = [Answer.objects.get(question_id=pk).confidence for pk in by_confidence]
    assert confidences == sorted(confidences, reverse=True)
    # Needs attention first: the rejected and the unanswered lead, the confident drafts come last.
    attention = row_ids(user_client.get(url, {"page": 1}).content.decode())
    first = Answer.objects.filter(question_id=attention[0]).first()
    assert first is None or first.review_verdict == "rejected"
    assert Question.objects.get(pk=attention[0]).status in ("unanswered", "in_review")


# --- actions on one row and on many ---------------------------------------------------------------


def test_approve_one_row_swaps_the_row_with_its_confirmation(rfp, user_client):
    question = rfp.questions.get(order=0)
    answer(question, draft_text="Yes, AES-256.")
    url = reverse("rfp_manager:question_approve", args=[question.pk])
    row = user_client.post(url, headers=HTMX).content.decode()
    assert row.lstrip().startswith(f'<tr id="q{question.pk}"')
    assert "Approved Q1." in row and 'class="badge badge-approved approval q-status">✓ Approved by alice, ' in row
    assert "approve-button" not in row  # nothing left to approve
    # The bar, the counts per status and the RFP's status change in the same response (htmx out of band).
    progress = row.split('<div class="workspace-progress" id="progress" hx-swap-oob="true">')[1]
    assert "33% approved" in progress and "1 of 3 questions" in progress and "Approved 1</a>" in progress
    assert 'id="rfp-status" hx-swap-oob="true">In progress<' in row
    empty = rfp.questions.get(order=1)
    refused = user_client.post(reverse("rfp_manager:question_approve", args=[empty.pk]), headers=HTMX).content.decode()
    assert "has no answer to approve yet" in refused and status(empty) == "unanswered"
    # Without htmx: back to the row, the message on the page.
    response = user_client.post(url)
    assert response.status_code == 302 and response.url.endswith(f"#q{question.pk}")


def test_redraft_one_question_starts_a_job_for_it_alone(rfp, user, user_client):
    question = rfp.questions.get(order=1)
    row = user_client.post(reverse("rfp_manager:question_redraft", args=[question.pk]), headers=HTMX).content.decode()
    job = RFPBatchJob.objects.get(rfp=rfp)
    assert job.job_type == "responder" and job.question_ids == [question.pk] and job.started_by == user
    assert "Re-drafting Q2: the new draft appears here when it is ready." in row
    again = user_client.post(reverse("rfp_manager:question_redraft", args=[question.pk]), headers=HTMX).content.decode()
    assert "already running" in again and RFPBatchJob.objects.filter(rfp=rfp).count() == 1
    # The row polls its job; the new draft replaces it once the job is done, without a reload.
    poll = reverse("rfp_manager:question_row", args=[question.pk]) + f"?job={job.pk}"
    assert f'hx-get="{poll}" hx-trigger="every 2s" hx-target="this"' in row
    assert 'hx-trigger="every 2s"' in user_client.get(poll, headers=HTMX).content.decode()  # still running
    answer(question, draft_text="Backups are taken every hour [1].", generated_at=timezone.now())
    job.results.create(question=question, outcome="succeeded")
    RFPBatchJob.objects.filter(pk=job.pk).update(status="completed")
    done = user_client.get(poll, headers=HTMX).content.decode()
    assert "New draft for Q2." in done and "Backups are taken every hour" in done
    assert "hx-trigger" not in done.split("<template>")[0] and "Drafted 1</a>" in done


def test_bulk_actions_act_on_the_selection_only(big_rfp, user, user_client):
    url = reverse("rfp_manager:workspace_bulk", args=[big_rfp.pk]) + "?status=drafted"
    drafted = list(big_rfp.questions.filter(status="drafted").order_by("order").values_list("pk", flat=True))
    unanswered = big_rfp.questions.filter(status="unanswered").values_list("pk", flat=True)[0]

    page = user_client.post(
        url, {"action": "approve", "question": [*drafted[:4], unanswered]}, headers=HTMX
    ).content.decode()
    assert "Approved 4 of 5 selected; 1 had no answer to approve." in page
    assert big_rfp.questions.filter(status="approved").count() == 4
    assert "Questions 1–21 of 21" in page  # re-rendered with the filter it was posted from: drafted only

    page = user_client.post(url, {"action": "expert", "question": drafted[4:6]}, headers=HTMX).content.decode()
    assert (
        "Marked 2 for a subject-matter expert." in page and big_rfp.questions.filter(status="needs_expert").count() == 2
    )

    page = user_client.post(url, {"action": "clear", "question": drafted[6:9]}, headers=HTMX).content.decode()
    assert "Cleared the answers of 3 questions." in page
    assert big_rfp.questions.filter(status="unanswered").count() == 33

    page = user_client.post(url, {"action": "redraft", "question": drafted[9:12]}, headers=HTMX).content.decode()
    assert RFPBatchJob.objects.get(rfp=big_rfp).question_ids == drafted[9:12] and "Re-drafting 3 questions" in page

    assert (
        "Select at least one question first."
        in user_client.post(url, {"action": "approve"}, headers=HTMX).content.decode()
    )


def test_bulk_actions_never_reach_another_rfp(big_rfp, rfp, user, user_client, django_user_model):
    other = make_rfp(django_user_model.objects.create_user("bob", password="pw-bob-12345"), ["Theirs?"], name="Bob's")
    theirs = other.questions.get()
    answer(theirs, draft_text="Their answer.")
    user_client.post(
        reverse("rfp_manager:workspace_bulk", args=[big_rfp.pk]), {"action": "approve", "question": [theirs.pk]}
    )
    assert status(theirs) == "drafted"
    assert user_client.post(reverse("rfp_manager:question_approve", args=[theirs.pk])).status_code == 404


def test_assignee_filter_mine_and_the_assign_action(big_rfp, user, user_client, django_user_model):
    """teamwork's Assignment behind the workspace: filter by assignee, "mine", and Assign… for the owner only."""
    from django.test import Client

    from teamwork.services import assignments, members

    bob = django_user_model.objects.create_user("bob", password="pw-bob-12345")
    members.set_role(big_rfp, bob, "contributor", user)
    ordered = list(big_rfp.questions.order_by("order"))
    assignments.assign_questions(big_rfp, ordered[:5], bob, None, user)
    assignments.assign_questions(big_rfp, ordered[5:8], user, None, user)
    url = reverse("rfp_manager:detail", args=[big_rfp.pk])

    by_bob = user_client.get(url, {"assignee": bob.pk, "sort": "document"}).content.decode()
    assert row_ids(by_bob) == [q.pk for q in ordered[:5]] and "Assigned to <strong>bob</strong>" in by_bob
    assert set(row_ids(user_client.get(url, {"mine": "on"}).content.decode())) == {q.pk for q in ordered[5:8]}
    bob_client = Client()
    bob_client.force_login(bob)
    bobs_page = bob_client.get(url, {"mine": "on"}).content.decode()
    assert set(row_ids(bobs_page)) == {q.pk for q in ordered[:5]}
    # Assigning is the owner's: a contributor has no Assign control, and the bulk action refuses him.
    assert 'id="bulk-assign"' not in bobs_page and "assign-control" not in bobs_page
    bulk = reverse("rfp_manager:workspace_bulk", args=[big_rfp.pk])
    assert bob_client.post(bulk, {"action": "approve", "question": [ordered[0].pk]}).status_code == 403

    # The owner's Assign… hands the selection to the assignment page, which ticks it and assigns.
    selected = [q.pk for q in ordered[10:12]]
    response = user_client.post(bulk, {"action": "assign", "question": selected}, headers=HTMX)
    assign_page = response["HX-Redirect"]
    assert assign_page == reverse("teamwork:assign", args=[big_rfp.pk]) + f"?q={selected[0]}&q={selected[1]}"
    form = user_client.get(assign_page).content.decode()
    assert all(re.search(rf'value="{pk}"[^>]*checked', form) for pk in selected)
    user_client.post(assign_page, {"questions": selected, "assignee": bob.pk})
    assert set(row_ids(bob_client.get(url, {"mine": "on"}).content.decode())) == {q.pk for q in ordered[:5]} | set(
        selected
    )


def test_saved_to_the_library_is_shown_instead_of_offered_again(rfp, user, user_client):
    question = rfp.questions.get(order=0)
    saved = answer(question, draft_text="Yes, AES-256.")
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert reverse("answer_library:approve", args=[saved.pk]) in page
    Entry.objects.create(question=question.text, answer_text=saved.draft_text, origin_answer=saved, owner=user)
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert reverse("answer_library:approve", args=[saved.pk]) not in page and "in the answer library" in page


def test_an_edit_after_the_review_marks_the_verdict_stale(rfp, user, user_client, library):
    from llm_manager import services as llm

    question = rfp.questions.get(order=0)
    chat = llm.get_default_model("chat")
    answering.generate_answer(question, model=chat)
    reviewed = answering.review_answer(question, model=chat)
    assert reviewed.review_verdict and status(question) == "in_review"
    assert "stale-verdict" not in user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    answering.save_final_text(Answer.objects.get(pk=reviewed.pk), "Yes, and more.", user)
    assert "stale-verdict" in user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()


# --- the editor's inserts ------------------------------------------------------------------------


def test_inserted_passages_and_entries_keep_their_citations(rfp, user, user_client, library):
    from solution_library.models import Chunk

    question = rfp.questions.get(order=0)
    answer(question, draft_text="Draft [1].", citations=[{"n": 1, "chunk_id": 0, "document_title": "x", "cited": True}])
    chunk = Chunk.objects.filter(text__contains="AES-256").first()
    asked = "How is customer data encrypted at rest and in transit, and who holds the keys for each tenant's data?"
    entry = Entry.objects.create(question=asked, answer_text="We encrypt everything.", owner=user)
    sources = user_client.get(reverse("rfp_manager:answer_sources", args=[question.pk]), {"q": "encrypted at rest"})
    assert f'data-id="{chunk.pk}"' in sources.content.decode() and "<mark>encrypted</mark>" in sources.content.decode()

    user_client.post(
        reverse("rfp_manager:answer_edit", args=[question.pk]),
        {
            "final_text": "Draft [1]. Data is encrypted with AES-256 [2]. We encrypt everything [3].",
            # [4] was inserted and then deleted from the text before saving; [1] is taken.
            "cite": [
                f"2:chunk:{chunk.pk}",
                f"3:entry:{entry.pk}",
                f"4:chunk:{chunk.pk}",
                f"1:chunk:{chunk.pk}",
                "bogus",
            ],
        },
    )
    citations = {c["n"]: c for c in Answer.objects.get(question=question).citations}
    assert sorted(citations) == [1, 2, 3]
    assert citations[2]["chunk_id"] == chunk.pk and citations[2]["cited"] and "AES-256" in citations[2]["text"]
    assert citations[3]["entry_id"] == entry.pk
    title = citations[3]["document_title"].removeprefix("Answer library: ")  # as the sources column names it
    assert title.endswith(" …") and asked.startswith(title.removesuffix(" …") + " ")  # cut at a word, marked
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert reverse("answer_library:entry", args=[entry.pk]) in page


def test_a_passage_the_answer_already_lists_keeps_its_number_when_inserted(rfp, user, user_client, library):
    """A sentence the editor offers comes from one of the draft's passages: inserted, it takes that passage's [n]
    and marks it cited, instead of listing the same source a second time under a new number."""
    from solution_library.models import Chunk

    question = rfp.questions.get(order=0)
    cited = Chunk.objects.filter(text__contains="AES-256").first()
    offered = Chunk.objects.exclude(text__contains="AES-256").first()
    sentence = offered.text.split(". ")[0]
    answer(
        question,
        draft_text="Encrypted [1].",
        citations=[
            {"n": 1, "chunk_id": cited.pk, "document_title": "a", "cited": True},
            {"n": 2, "chunk_id": offered.pk, "document_title": "b", "cited": False},
        ],
        may_answer=[{"chunk_id": offered.pk, "document_title": "b", "heading": "", "text": sentence}],
    )
    editor = user_client.get(reverse("rfp_manager:answer_edit", args=[question.pk])).content.decode()
    assert 'id="sources" data-next-n="3"' in editor and f'data-id="{offered.pk}" data-n="2"' in editor
    sources = user_client.get(reverse("rfp_manager:answer_sources", args=[question.pk]), {"q": "AES-256"})
    assert f'data-id="{cited.pk}" data-n="1"' in sources.content.decode()

    user_client.post(
        reverse("rfp_manager:answer_edit", args=[question.pk]),
        # the n of another passage than the one named is not taken over
        {"final_text": f"Encrypted [1]. {sentence} [2].", "cite": [f"2:chunk:{offered.pk}", f"1:chunk:{offered.pk}"]},
    )
    citations = Answer.objects.get(question=question).citations
    assert [(c["n"], c["chunk_id"], c["cited"], c.get("inserted", False)) for c in citations] == [
        (1, cited.pk, True, False),
        (2, offered.pk, True, True),
    ]


def test_a_sentence_inserted_from_a_passage_listed_further_down_is_cited_with_no_gap(rfp, user_client, library):
    """The draft cites [1]; the editor offers a sentence of passage [3] under its number. Saved, the answer reads
    [1] … [2]: the inserted source takes the number the uncited passage [2] held, which takes 3, and the edit is one
    revision of the answer."""
    from audit.models import AnswerRevision
    from solution_library.models import Chunk

    question = rfp.questions.get(order=0)
    cited, offered = Chunk.objects.all()[:2]
    uncited = Chunk(pk=cited.pk + offered.pk + 1)  # a passage the draft did not quote: only its id is listed
    sentence = offered.text.split(". ")[0]
    drafted = answer(
        question,
        draft_text="Encrypted [1].",
        citations=[
            {"n": 1, "chunk_id": cited.pk, "document_title": "a", "cited": True},
            {"n": 2, "chunk_id": uncited.pk, "document_title": "b", "cited": False},
            {"n": 3, "chunk_id": offered.pk, "document_title": "c", "cited": False},
        ],
    )
    user_client.post(
        reverse("rfp_manager:answer_edit", args=[question.pk]),
        {"final_text": f"Encrypted [1]. {sentence} [3].", "cite": [f"3:chunk:{offered.pk}"]},
    )
    saved = Answer.objects.get(question=question)
    assert saved.final_text == f"Encrypted [1]. {sentence} [2]."
    assert [(c["n"], c["chunk_id"], c["cited"]) for c in saved.citations] == [
        (1, cited.pk, True),
        (2, offered.pk, True),
        (3, uncited.pk, False),
    ]
    edits = AnswerRevision.objects.filter(answer=drafted, kind=AnswerRevision.Kind.EDITED)
    assert list(edits.values_list("text", flat=True)) == [saved.final_text]
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert "[2] c" in page and "[3] c" not in page


def test_an_inserted_citation_goes_when_a_later_save_deletes_its_sentence(rfp, user_client, library):
    """Saved once with an inserted passage and an inserted sentence of a listed one, then saved again without
    them: the passage added by hand is no longer listed, and the draft's own passage is listed uncited again."""
    from solution_library.models import Chunk

    question = rfp.questions.get(order=0)
    cited = Chunk.objects.filter(text__contains="AES-256").first()
    offered = Chunk.objects.exclude(text__contains="AES-256").first()
    answer(
        question,
        draft_text="Encrypted [1].",
        citations=[
            {"n": 1, "chunk_id": cited.pk, "document_title": "a", "score": 0.8, "cited": True},
            {"n": 2, "chunk_id": offered.pk, "document_title": "b", "score": 0.5, "cited": False},
        ],
    )
    editor = reverse("rfp_manager:answer_edit", args=[question.pk])
    user_client.post(
        editor,
        {
            "final_text": "Encrypted [1]. Offered [2]. Added [3].",
            "cite": [f"2:chunk:{offered.pk}", f"3:chunk:{cited.pk}"],
        },
    )
    listed = [(c["n"], c["cited"]) for c in Answer.objects.get(question=question).citations]
    assert listed == [(1, True), (2, True), (3, True)]

    user_client.post(editor, {"final_text": "Encrypted [1]."})
    citations = Answer.objects.get(question=question).citations
    assert [(c["n"], c["cited"], c.get("inserted", False)) for c in citations] == [(1, True, False), (2, False, False)]
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert "inserted by hand" not in page


def test_citations_inserted_before_the_added_by_hand_mark_are_marked_by_the_migration(rfp):
    """Answers saved before citations carried `added_by_hand`: the migration marks the inserted citation no draft
    scored, so a later save that deletes its sentence drops it, and leaves the draft's own passages as they are."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("rfp_manager.migrations.0006_citations_added_by_hand")
    own = {"n": 1, "chunk_id": 1, "score": 0.8, "cited": True, "inserted": True}
    by_hand = {"n": 2, "chunk_id": 2, "score": None, "cited": True, "inserted": True}
    drafted = {"n": 3, "chunk_id": 3, "score": 0.4, "cited": False}
    saved = answer(rfp.questions.get(order=0), draft_text="Encrypted [1].", citations=[own, by_hand, drafted])

    migration.mark_added_by_hand(apps, None)
    migration.mark_added_by_hand(apps, None)  # run twice, as a re-run migration would: marked once

    citations = Answer.objects.get(pk=saved.pk).citations
    assert citations == [own, {**by_hand, "added_by_hand": True}, drafted]


def test_an_inserted_sentence_is_listed_under_its_own_section_of_the_passage(rfp, user_client, library):
    """A passage inserted from, new to the answer or listed uncited, is shown under the section of the inserted
    sentence, not the section the passage starts in."""
    from solution_library.testing import add_library_document

    document = add_library_document(
        "Company profile",
        "# Public-sector customers\n\nOrrery is used by Fenmoor Water Authority.\n\n"
        "# Product roadmap\n\nA new Orrery release is delivered every month.\n\n# Offices\n\nLeeds and Utrecht.",
    )
    (chunk,) = document.chunks.all()
    sentence = "A new Orrery release is delivered every month"
    new, listed = rfp.questions.order_by("order")[:2]
    answer(new, draft_text="Draft [1].", citations=[{"n": 1, "chunk_id": 0, "document_title": "x", "cited": True}])
    answer(
        listed,
        draft_text="Draft.",
        citations=[{"n": 1, "chunk_id": chunk.pk, "heading": chunk.heading, "text": chunk.text, "cited": False}],
    )
    for question, n in ((new, 2), (listed, 1)):
        user_client.post(
            reverse("rfp_manager:answer_edit", args=[question.pk]),
            {"final_text": f"Draft. {sentence} [{n}].", "cite": [f"{n}:chunk:{chunk.pk}"]},
        )
    assert chunk.heading == "Public-sector customers"
    for question, n in ((new, 2), (listed, 1)):
        citation = next(c for c in Answer.objects.get(question=question).citations if c["n"] == n)
        assert citation["cited"] and citation["heading"] == "Product roadmap"


def test_a_question_has_one_name_on_the_workspace_the_assign_page_and_in_messages(user, user_client):
    rfp = RFP.objects.create(name="Numbered", owner=user)
    lettered = Question.objects.create(rfp=rfp, number="A.1", text="Do you encrypt?", order=0, import_key="a1")
    counted = Question.objects.create(rfp=rfp, number="12", text="Who audits?", order=1, import_key="12")
    unnumbered = Question.objects.create(rfp=rfp, text="Where is data kept?", order=2, import_key="x")
    assert [q.label for q in (lettered, counted, unnumbered)] == ["A.1", "Q12", "#3"]

    workspace = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assign = user_client.get(reverse("teamwork:assign", args=[rfp.pk])).content.decode()
    for page in (workspace, assign):
        assert "A.1" in page and "Q12" in page and "QA.1" not in page
    answer(lettered, draft_text="Yes.")
    row = user_client.post(reverse("rfp_manager:question_approve", args=[lettered.pk]), headers=HTMX).content.decode()
    assert "Approved A.1." in row and "<td>A.1" in row


# --- issue 35: the reviewer's verdict and a person's approval, in two words -----------------------------------


def test_a_row_says_the_reviewers_verdict_and_a_persons_approval_in_two_different_words(rfp, user, user_client):
    first, second, _ = rfp.questions.order_by("order")
    text = "Yes, AES-256 [1]."
    answer(first, draft_text=text, review_verdict="approved", review_score=0.9, reviewed_text=text, choice="yes")
    answer(second, draft_text="Hourly [1].", choice="yes", choice_needs_review=True)  # an open question's old guess
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    row = re.search(rf'<tr id="q{first.pk}".*?</tr>', page, re.DOTALL).group(0)
    assert 'class="verdict-tag verdict-approved"' in row and "Reviewer: supported</span>" in row
    # one number per row, the confidence ("this share of such drafts answered"): the review's own score is not shown
    assert "0.90" not in row
    assert "Approved by" not in row and ">In review<" in row and "<strong>0% approved</strong>" in page
    open_row = re.search(rf'<tr id="q{second.pk}".*?</tr>', page, re.DOTALL).group(0)
    assert "choice to check" not in open_row and 'class="choice"' not in open_row  # "How often …" takes no Yes

    workflow.approve([first], user)
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    row = re.search(rf'<tr id="q{first.pk}".*?</tr>', page, re.DOTALL).group(0)
    day = timezone.localtime(Answer.objects.get(question=first).approved_at)
    assert f"✓ Approved by alice, {day.day} {day:%b}" in row and "Reviewer: supported" in row
    assert "<strong>33% approved</strong>" in page  # the bar counts a person's approvals only


# --- follow-ups ----------------------------------------------------------------------------------
def test_a_follow_up_is_linked_to_the_question_before_it_and_the_workspace_shows_the_link(user, user_client):
    """ "If yes, describe…" answers the question before it: read from the questionnaire's order at read time."""
    rfp = make_rfp(
        user,
        [
            "Do you run penetration tests on the platform?",
            "If yes, describe how findings are fixed.",
            "Describe your support hours.",
        ],
    )
    parent, follow_up, other = rfp.questions.order_by("order")

    assert answering.parents([parent, follow_up, other]) == {follow_up.pk: parent}
    assert answering.parent_text(follow_up) == parent.text
    read = answering.questions.read(follow_up.text, answering.parent_text(follow_up))
    assert "penetr" in read.subject  # drafted and reviewed about the parent's subject

    page = user_client.get(f"/rfps/{rfp.pk}/?sort=document").content.decode()
    assert page.count('class="follows-up"') == 1
    assert f'Follows up <a href="#q{parent.pk}">{parent.label}</a>: {parent.text}' in page
