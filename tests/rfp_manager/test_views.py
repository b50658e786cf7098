"""Pages and guards that need no worker: duplicate-job guard, reviewer rule, answers, escaping, access."""

import pytest
from django.conf import settings
from django.urls import reverse

from rfp_manager.models import RFP, Answer, Question, RFPBatchJob
from rfp_manager.services import batch
from rfp_manager.services.answering import AnswerError, parse_review
from solution_library.models import Document, ReviewStatus
from solution_library.testing import add_library_document

from .conftest import make_rfp

pytestmark = pytest.mark.django_db


@pytest.fixture
def rfp(user):
    return make_rfp(user, ["<script>alert(1)</script> Do you encrypt?", "Backups?"])


def test_second_active_job_is_refused_by_the_database(rfp, user, user_client):
    RFPBatchJob.objects.create(rfp=rfp, job_type="responder", started_by=user, question_ids=[1], status="processing")
    response = user_client.post(reverse("rfp_manager:start_responder", args=[rfp.pk]))
    assert response.status_code == 409
    assert "already running" in response.content.decode()
    assert RFPBatchJob.objects.filter(rfp=rfp).count() == 1
    # A finished job does not block a new one.
    RFPBatchJob.objects.filter(rfp=rfp).update(status="completed")
    assert user_client.post(reverse("rfp_manager:start_responder", args=[rfp.pk])).status_code == 302


def test_reviewer_needs_a_completed_responder(rfp, user_client):
    response = user_client.post(reverse("rfp_manager:start_reviewer", args=[rfp.pk]))
    assert response.status_code == 409
    assert "Run a responder job first" in response.content.decode()
    assert not RFPBatchJob.objects.filter(rfp=rfp).exists()


def test_the_reviewer_s_blocker_follows_the_responder_jobs_in_one_query(rfp, user, django_assert_num_queries):
    def blocker() -> str:
        with django_assert_num_queries(1):
            return batch.reviewer_blocker(rfp)

    assert blocker().startswith("Run a responder job first")
    job = RFPBatchJob.objects.create(rfp=rfp, job_type="responder", started_by=user, status="processing")
    assert blocker().startswith("A responder job is still running")
    RFPBatchJob.objects.filter(pk=job.pk).update(status="completed")
    assert blocker() == ""
    RFPBatchJob.objects.create(rfp=rfp, job_type="responder", started_by=user, status="pending")
    assert blocker().startswith("A responder job is still running")


def test_rfp_page_escapes_what_users_and_models_wrote(rfp, user_client):
    question = rfp.questions.first()
    Answer.objects.create(
        question=question,
        draft_text="<img src=x onerror=alert(2)>",
        review_verdict="approved",
        review_feedback="<b>ok</b>",
    )
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "<img src=x" not in page and "<b>ok</b>" not in page


def test_a_section_named_as_its_document_is_not_shown_twice_beside_a_citation(rfp, user_client):
    """A one-page document's only heading is its title: "[1] Administration · Administration" said it twice."""
    question = rfp.questions.first()
    cited = {
        "n": 1,
        "chunk_id": 1,
        "document_id": 1,
        "text": "Single sign-on is configured under Settings.",
        "cited": True,
    }
    Answer.objects.create(
        question=question,
        draft_text="Single sign-on is configured under Settings [1]. It is in the whitepaper [2].",
        citations=[
            {**cited, "document_title": "Administration", "heading": "Administration"},
            {**cited, "n": 2, "document_title": "Security whitepaper", "heading": "Single sign-on"},
        ],
        may_answer=[{"chunk_id": 1, "document_title": "Administration", "heading": "Administration", "text": "Roles."}],
    )
    for name in ("detail", "answer_edit"):
        page = user_client.get(reverse(f"rfp_manager:{name}", args=[rfp.pk if name == "detail" else question.pk]))
        text = page.content.decode()
        assert "· Administration" not in text and "· Single sign-on" in text, name


def test_edit_final_answer_keeps_the_draft(rfp, user, user_client):
    question = rfp.questions.first()
    Answer.objects.create(question=question, draft_text="Draft [1]")
    response = user_client.post(
        reverse("rfp_manager:answer_edit", args=[question.pk]), {"final_text": "Edited answer."}
    )
    assert response.status_code == 302
    answer = Answer.objects.get(question=question)
    assert (answer.draft_text, answer.final_text, answer.final_answer, answer.edited_by) == (
        "Draft [1]",
        "Edited answer.",
        "Edited answer.",
        user,
    )


def test_rfps_are_private_to_owner_and_shared_groups(rfp, client, django_user_model):
    from django.contrib.auth.models import Group

    other = django_user_model.objects.create_user("bob", password="pw-bob-12345")
    client.force_login(other)
    for name in ("detail", "export_csv", "export_xlsx"):
        assert client.get(reverse(f"rfp_manager:{name}", args=[rfp.pk])).status_code == 404
    assert "Acme RFP" not in client.get(reverse("rfp_manager:index")).content.decode()
    team = Group.objects.create(name="bid team")
    other.groups.add(team)
    rfp.shared_with.add(team)
    assert client.get(reverse("rfp_manager:detail", args=[rfp.pk])).status_code == 200


def test_only_the_owner_shares_an_rfp_and_only_with_their_own_groups(rfp, user, user_client, client, django_user_model):
    from django.contrib.auth.models import Group

    team, outsiders = Group.objects.create(name="bid team"), Group.objects.create(name="outsiders")
    user.groups.add(team)
    owner_form = user_client.get(reverse("rfp_manager:edit", args=[rfp.pk])).content.decode()
    assert "bid team" in owner_form and "outsiders" not in owner_form

    member = django_user_model.objects.create_user("bob", password="pw-bob-12345")
    member.groups.add(team)
    rfp.shared_with.add(team)
    client.force_login(member)
    assert 'name="shared_with"' not in client.get(reverse("rfp_manager:edit", args=[rfp.pk])).content.decode()
    client.post(
        reverse("rfp_manager:edit", args=[rfp.pk]),
        {"name": rfp.name, "client": "", "status": "draft", "shared_with": [outsiders.pk]},
    )
    assert list(rfp.shared_with.all()) == [team]


def test_pages_require_login(rfp, client):
    response = client.get(reverse("rfp_manager:detail", args=[rfp.pk]))
    assert response.status_code == 302 and "/login/" in response.url


def test_job_status_endpoint_answers_json_and_htmx(rfp, user, user_client):
    job = RFPBatchJob.objects.create(rfp=rfp, job_type="responder", started_by=user, question_ids=[1, 2], total_items=2)
    data = user_client.get(reverse("rfp_manager:job_status", args=[job.pk])).json()
    assert (data["status"], data["total"], data["processed"]) == ("pending", 2, 0)
    partial = user_client.get(reverse("rfp_manager:job_status", args=[job.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="every 1s"' in partial and "Cancel" in partial
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert f'hx-get="{reverse("rfp_manager:job_status", args=[job.pk])}"' in page  # live on the RFP page too


def test_cancel_marks_the_job_cancelled(rfp, user, user_client):
    job = RFPBatchJob.objects.create(rfp=rfp, job_type="responder", started_by=user, question_ids=[1], total_items=1)
    user_client.post(reverse("rfp_manager:job_cancel", args=[job.pk]))
    job.refresh_from_db()
    assert job.status == "cancelled" and job.completed_at


@pytest.mark.parametrize(
    "reply, verdict, score",
    [
        ('{"verdict": "approved", "score": 0.9, "feedback": "supported"}', "approved", 0.9),
        (
            'Here is my review:\n```json\n{"verdict": "needs_revision", "score": 1.7, "feedback": "x"}\n```',
            "needs_revision",
            1.0,
        ),
    ],
)
def test_parse_review_is_lenient(reply, verdict, score):
    review = parse_review(reply)
    assert (review["verdict"], review["score"]) == (verdict, score)


@pytest.mark.parametrize("reply", ["I think it is fine.", '{"verdict": "great"}'])
def test_parse_review_rejects_what_it_cannot_read(reply):
    with pytest.raises(AnswerError):
        parse_review(reply)


def test_create_rfp_sets_owner(user, user_client):
    response = user_client.post(
        reverse("rfp_manager:create"), {"name": "Globex", "client": "Globex", "status": "draft"}
    )
    rfp = RFP.objects.get(name="Globex")
    assert response.url == reverse("rfp_manager:detail", args=[rfp.pk]) and rfp.owner == user
    assert not Question.objects.filter(rfp=rfp).exists()


def test_a_job_started_while_the_broker_is_down_waits_for_it_and_is_sent_when_it_is_back(
    rfp, user, user_client, django_capture_on_commit_callbacks, request
):
    """No 500 and no lost start: the job is accepted, its page says it waits for the broker, Beat sends it later."""
    from jobs.dispatch import publish_pending
    from jobs.models import OutboxMessage

    broker_is_back = request.getfixturevalue("unreachable_broker")
    with django_capture_on_commit_callbacks(execute=True):
        response = user_client.post(reverse("rfp_manager:start_responder", args=[rfp.pk]))
    assert response.status_code == 302
    job = RFPBatchJob.objects.get(rfp=rfp)
    assert (job.status, job.error_code) == ("pending", "broker_unavailable")
    assert "Waiting for the message broker" in user_client.get(response.url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):  # the job is active: the guard still holds
        assert user_client.post(reverse("rfp_manager:start_responder", args=[rfp.pk])).status_code == 409

    broker_is_back()
    assert publish_pending()["sent"] == 1
    message = OutboxMessage.objects.get(subject_model="rfp_manager.rfpbatchjob", subject_id=job.pk)
    assert message.sent_at and message.options["soft_time_limit"] == settings.RFP_BATCH_SOFT_TIME_LIMIT
    job.refresh_from_db()
    assert (job.status, job.error_code, job.message) == ("pending", "", "")


def test_a_review_never_lands_on_an_answer_that_changed_while_it_was_judged(rfp, monkeypatch):
    """A responder (or a person) rewrites the answer during the reviewer's LLM call: the stale verdict is refused."""
    from rfp_manager.services import answering

    question = rfp.questions.first()
    Answer.objects.create(question=question, draft_text="Old draft [1]")

    def judge_while_redrafted(messages, model):
        Answer.objects.filter(question=question).update(draft_text="New draft [2]")  # the responder's write
        return '{"verdict": "approved", "score": 0.9, "feedback": "supported"}'

    from llm_manager.models import LLMApi, LLMModel

    # A chat model that reads (not the offline one, whose review is judge()'s own checks); never called over HTTP.
    api = LLMApi.objects.create(name="A chat API", kind=LLMApi.KIND_OPENAI, base_url="http://127.0.0.1:9")
    chat_model = LLMModel.objects.create(api=api, name="a-chat-model", model_type=LLMModel.TYPE_CHAT)
    monkeypatch.setattr(answering, "chat_with_retries", judge_while_redrafted)
    with pytest.raises(AnswerError, match="changed"):
        answering.review_answer(question, model=chat_model)
    answer = Answer.objects.get(question=question)
    assert (answer.draft_text, answer.review_verdict) == ("New draft [2]", "")


def test_the_rfp_page_warns_that_answers_started_now_would_miss_documents_still_processing(rfp, user, user_client):
    """A newcomer who answers while the library is still embedding gets "no supporting content" for questions the
    library does answer a minute later: the page says so beside "Answer all"."""
    page = reverse("rfp_manager:detail", args=[rfp.pk])
    ready = add_library_document("Backups", "Backups run every night and are kept for 30 days.", user)
    assert 'id="library-processing"' not in user_client.get(page).content.decode()
    Document.objects.filter(pk=ready.pk).update(review_status=ReviewStatus.PROCESSING)
    warning = user_client.get(page).content.decode()
    assert "1 library document is still being processed: answers drafted now cannot draw on it." in warning


def test_no_support_drafts_made_before_a_document_was_ready_are_offered_a_redraft(user, user_client, llm_api):
    """A question drafted "no supporting content" while the library lacked its document (still processing, or not
    yet added) is not redrafted by itself when the document becomes ready: the page says how many such drafts there
    are and redrafts them in one job; a person's edited answer is theirs and is left alone."""
    from llm_manager import services as llm
    from rfp_manager.services import answering

    rfp = make_rfp(user, ["How long are backups kept?", "Who audits your accounts?", "Are backups kept offsite?"])
    page, questions = reverse("rfp_manager:detail", args=[rfp.pk]), list(rfp.questions.order_by("order"))
    for question in questions:
        assert answering.generate_answer(question, model=llm.get_default_model("chat")).needs_expert
    Answer.objects.filter(question=questions[2]).update(final_text="Yes, in a second region.")  # a person's answer
    assert 'id="library-grew"' not in user_client.get(page).content.decode()  # the library has nothing newer

    add_library_document("Backups", "Backups run every night and are kept for 30 days.", user)
    offer = user_client.get(page).content.decode()
    assert "2 questions got “no supporting content” before 1 library document became ready" in offer
    assert "Redraft these 2" in offer

    response = user_client.post(reverse("rfp_manager:redraft_no_support", args=[rfp.pk]), {"review_when_done": "on"})
    assert response.status_code == 302
    job = RFPBatchJob.objects.get(rfp=rfp)
    assert (job.job_type, job.question_ids, job.review_when_done) == (
        "responder",
        [questions[0].pk, questions[1].pk],
        True,
    )
    assert 'id="library-grew"' not in user_client.get(page).content.decode()  # not while it is drafting
    RFPBatchJob.objects.filter(pk=job.pk).update(status="completed")

    redrafted = [answering.generate_answer(q, model=llm.get_default_model("chat")) for q in questions[:2]]  # the job
    assert "30 days" in redrafted[0].draft_text and not redrafted[0].needs_expert
    assert redrafted[1].needs_expert  # the library still does not answer it: drafted after the document, not offered
    assert 'id="library-grew"' not in user_client.get(page).content.decode()
