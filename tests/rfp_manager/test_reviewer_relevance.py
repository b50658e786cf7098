"""The reviewer judges relevance and support, on faults written by hand (not chosen with the reviewer's code).

Each fault is a plausible wrong answer a person or a model could write; the
reviewer (answering.judge: its mechanical checks with the default embedding
model, then the chat model's rubric on the fake server) must not approve it,
and must say why. Then: a redraft or an edit leaves the earlier verdict stale.
"""

import pytest

from llm_manager.models import LLMModel
from rfp_manager.services import answering
from solution_library.testing import add_library_document

from .conftest import make_rfp

SECURITY = (
    "All customer data is encrypted at rest with AES-256 and in transit with TLS 1.3.\n\n"
    "Access to production systems requires single sign-on and hardware security keys."
)
OPERATIONS = (
    "Backups are taken every hour and kept for 35 days; restores are tested every quarter.\n\n"
    "Support is available 24 hours a day, 7 days a week, with a one hour response time for severity one."
)
API_GUIDE = (
    "## Authentication\n\nThe API uses OAuth 2.0 with the client credentials flow.\n\n"
    "## Rate limits\n\nEach tenant may make 600 requests per minute per integration."
)
PRICE_LIST = (
    "## What the licence includes\n\nEvery licence includes hosting, backups, upgrades, the API, "
    "single sign-on, multi-factor authentication and support."
)
ENCRYPTION_QUESTION = "How is customer data encrypted at rest and in transit?"
BACKUP_QUESTION = "How often are backups taken and how long are they kept?"
API_QUESTION = "Describe the API available to the council's developers, including authentication and rate limits."


@pytest.fixture
def chat_model(library):
    return LLMModel.objects.get(name="fake-chat")


@pytest.fixture
def rfp(user, library):
    return make_rfp(user, [ENCRYPTION_QUESTION, BACKUP_QUESTION, API_QUESTION])


def passages(*texts):
    return [{"n": n, "text": text, "document_title": f"Document {n}", "cited": True} for n, text in enumerate(texts, 1)]


def judge(rfp, chat_model, question, answer, given):
    return answering.judge(rfp.questions.get(text=question), answer, given, model=chat_model)


def test_a_correct_answer_is_approved(rfp, chat_model):
    review = judge(
        rfp,
        chat_model,
        ENCRYPTION_QUESTION,
        "All customer data is encrypted at rest with AES-256 and in transit with TLS 1.3 [1].",
        passages(SECURITY, OPERATIONS),
    )
    assert review["verdict"] == "approved", review
    assert review["summary"] == "", "nothing found: the page shows the feedback that says every check passed"


def test_an_answer_from_a_passage_about_another_topic_is_rejected_for_that(rfp, chat_model):
    review = judge(
        rfp,
        chat_model,
        ENCRYPTION_QUESTION,
        "Support is available 24 hours a day, 7 days a week [1].",
        passages(OPERATIONS),
    )
    assert review["verdict"] == "rejected"
    assert "Does not address the question: the answer is about another topic" in review["feedback"]
    assert review["summary"].startswith("About another topic")


def test_an_answer_that_shares_words_but_misses_what_a_given_passage_answers_is_flagged(rfp, chat_model):
    """The demo's fault: the API question answered from the price list, which names "the API" and "authentication"."""
    review = judge(
        rfp,
        chat_model,
        API_QUESTION,
        "Every licence includes hosting, backups, upgrades, the API, single sign-on, multi-factor "
        "authentication and support [2].",
        passages(API_GUIDE, PRICE_LIST),
    )
    assert review["verdict"] != "approved"
    assert "Does not answer" in review["feedback"] and "rate limits" in review["feedback"]


def test_a_changed_figure_is_flagged(rfp, chat_model):
    review = judge(
        rfp, chat_model, BACKUP_QUESTION, "Backups are taken every hour and kept for 30 days [1].", passages(OPERATIONS)
    )
    assert review["verdict"] == "rejected" and "figure 30" in review["feedback"]


def test_a_negation_is_flagged(rfp, chat_model):
    review = judge(
        rfp,
        chat_model,
        ENCRYPTION_QUESTION,
        "Customer data is not encrypted at rest, and in transit it uses TLS 1.3 [1].",
        passages(SECURITY),
    )
    assert review["verdict"] != "approved" and "negation" in review["feedback"]


def test_a_citation_swapped_to_a_real_passage_that_does_not_say_it_is_flagged(rfp, chat_model):
    review = judge(
        rfp,
        chat_model,
        ENCRYPTION_QUESTION,
        "All customer data is encrypted at rest with AES-256 and in transit with TLS 1.3 [2].",
        passages(SECURITY, OPERATIONS),
    )
    assert review["verdict"] != "approved" and "Not supported by the passage it cites" in review["feedback"]


BACKUP_DEFINITION = (
    "A backup is a copy of the platform's data kept apart from it, from which the data can be restored.\n\n"
    "Backups are taken every hour and kept for 35 days."
)


def test_a_supported_answer_that_does_not_say_what_is_asked_is_flagged_in_words(rfp, chat_model):
    """The product's typical wrong draft: "how often…?" answered by a true definition from the right passage."""
    review = judge(
        rfp,
        chat_model,
        BACKUP_QUESTION,
        "A backup is a copy of the platform's data kept apart from it, from which the data can be restored [1].",
        passages(BACKUP_DEFINITION),
    )
    assert review["verdict"] != "approved"
    assert "Supported but does not answer: asks how often" in review["feedback"]
    assert "the draft says what it is" in review["feedback"]
    assert "Not supported" not in review["feedback"]  # every sentence is supported: this is its own reason
    assert "Does not say what is asked" in review["summary"] and "does not support" not in review["summary"]


KEYS_OVER_PASSWORDS = "Is production access granted with hardware security keys rather than passwords?"
PASSWORD_RULES = "Staff passwords are at least 14 characters long and are changed after any suspected compromise."


def test_a_draft_on_what_the_question_asks_against_is_flagged_in_words(user, library, chat_model):
    """ "X rather than Y?" answered with a true sentence about Y alone says nothing of X."""
    question = make_rfp(user, [KEYS_OVER_PASSWORDS]).questions.get()
    given = passages(SECURITY, PASSWORD_RULES)
    about_the_other = answering.judge(
        question, "Staff passwords are at least 14 characters long [2].", given, model=chat_model
    )
    assert about_the_other["verdict"] != "approved"
    assert (
        "it asks about hardware security keys rather than passwords, and the draft speaks of passwords only"
        in about_the_other["feedback"]
    )
    assert "speaks of the other thing only" in about_the_other["summary"].lower()
    answer = "Access to production systems requires single sign-on and hardware security keys [1]."
    assert "rather than" not in answering.judge(question, answer, given, model=chat_model)["feedback"]


ACCESS_QUESTION = "How is access to production systems controlled?"
IN_GENERAL = "The way production access is controlled matters to every customer."


def test_a_draft_that_names_nothing_for_a_how_question_is_flagged_in_words(user, library, chat_model):
    question = make_rfp(user, [ACCESS_QUESTION]).questions.get()
    given = passages(f"{SECURITY}\n\n{IN_GENERAL}")
    in_general = answering.judge(question, IN_GENERAL.replace(".", " [1]."), given, model=chat_model)
    assert in_general["verdict"] != "approved"
    assert "it asks how or what, and the draft names nothing specific" in in_general["feedback"]
    assert "names nothing specific" in in_general["summary"].lower()
    answer = "Access to production systems requires single sign-on and hardware security keys [1]."
    assert "names nothing" not in answering.judge(question, answer, given, model=chat_model)["feedback"]
    assert answering.vague_problems(answering.reading("Is access to production controlled?"), [IN_GENERAL]) == []


MONITORING = (
    "Monitoring is a generic term for the activities that follow the resources a machine uses and the services "
    "it runs.\n\nNagios checks each service every minute and alerts the administrators by e-mail and text message."
)


def test_a_yes_no_question_answered_by_a_definition_is_flagged_in_words(user, library, chat_model):
    """ "Are administrators alerted…?" is not answered by what monitoring means; the sentence that says they are
    alerted, and how, is approved."""
    question = make_rfp(user, ["Are administrators alerted automatically when a service becomes unavailable?"])
    question = question.questions.get()
    given = passages(MONITORING)
    definition = MONITORING.split("\n\n")[0].replace(".", " [1].")
    defined = answering.judge(question, definition, given, model=chat_model)
    assert defined["verdict"] != "approved"
    assert "the draft only says what a word means (a definition)" in defined["feedback"]
    assert "only says what a word means" in defined["summary"].lower()
    answer = MONITORING.split("\n\n")[1].replace(".", " [1].")
    assert "definition" not in answering.judge(question, answer, given, model=chat_model)["feedback"]


CERTIFICATES = (
    "## Certificates\n\nIf you intend to use a certificate for a public website, you need to rely on a trusted "
    "certificate authority. Our public websites use Extended Validation certificates, renewed every year."
)


def test_a_draft_that_never_names_what_the_question_names_is_flagged_in_words(user, library, chat_model):
    """A near miss: "Extended Validation certificates" asked, the draft about certificates around it. The sentence
    that names them is approved; so is "ISO/IEC 27001:2022" for "for example ISO 27001 or SOC 2"."""
    rfp = make_rfp(
        user,
        [
            "Do your public websites use Extended Validation certificates?",
            "Which security certifications do you hold (for example ISO 27001 or SOC 2)?",
        ],
    )
    extended, certifications = rfp.questions.order_by("order")
    given = passages(CERTIFICATES)
    around, naming = (sentence.replace(".", " [1].") for sentence in CERTIFICATES.split("\n\n")[1].split(". "))
    flagged = answering.judge(extended, around + ".", given, model=chat_model)
    assert flagged["verdict"] != "approved"
    assert "it asks about Extended Validation, and the draft never names it" in flagged["feedback"]
    assert "never names Extended Validation" in flagged["summary"]
    assert "never names" not in answering.judge(extended, naming, given, model=chat_model)["feedback"]
    iso = "We are certified to ISO/IEC 27001:2022 [1]."
    assert "never names" not in answering.judge(certifications, iso, passages(iso), model=chat_model)["feedback"]


def test_the_reviewer_prompt_says_what_the_question_asks_for(rfp):
    """A chat model reviewing is told what kind of thing each part asks, as the responder is."""
    question = rfp.questions.get(text=BACKUP_QUESTION)
    for messages in (
        answering.reviewer_messages(question, "Backups run hourly [1].", passages(OPERATIONS)),
        answering.responder_messages(question, passages(OPERATIONS), ""),
    ):
        user_message = messages[-1]["content"]
        assert "Asks for: how often (How often are backups taken)" in user_message
        assert "how long (how long are they kept How often are backups taken)" in user_message


def test_both_prompts_of_a_follow_up_carry_the_question_it_follows(user):
    """ "If yes, describe how findings are fixed." is read with its parent however a prompt is built: a chat model
    drafting or reviewing it is told what "yes" answers."""
    rfp = make_rfp(user, ["Do you run penetration tests on the platform?", "If yes, describe how findings are fixed."])
    follow_up = rfp.questions.get(order=1)
    for messages in (
        answering.reviewer_messages(follow_up, "Findings are fixed within 30 days [1].", passages(OPERATIONS)),
        answering.responder_messages(follow_up, passages(OPERATIONS), ""),
    ):
        assert "Follows up: Do you run penetration tests on the platform?" in messages[-1]["content"]


BREACHED_QUESTION = "Are new passwords checked against lists of passwords known to have been exposed in breaches?"
DENY_LIST = (
    "## Password checks\n\nNew passwords are compared with a deny list. This list should include passwords "
    "from previous breach corpuses, dictionary words, and specific words (such as the name of the service "
    "itself) that users are likely to choose."
)


def test_the_offline_chat_does_not_reject_by_words_alone_what_the_embedding_model_finds_on_topic(user, library):
    """A correct answer quoted from its passage shares few words with the question; the meaning check decides.

    The offline extractive chat has no embedding model: its own review judges relevance by words alone and
    rejects this answer. judge() checks relevance with the real model (and words), so it is not rejected as
    another topic; an answer about another topic still is.
    """
    from llm_manager.models import LLMApi
    from llm_manager.providers import grounding, offline
    from llm_manager.services import make_default

    make_default(LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2"))
    offline_chat = LLMModel.objects.get(api__kind=LLMApi.KIND_OFFLINE, model_type=LLMModel.TYPE_CHAT)
    rfp = make_rfp(user, [BREACHED_QUESTION, ENCRYPTION_QUESTION], name="Passwords")
    answer = (
        "This list should include passwords from previous breach corpuses, dictionary words, and specific "
        "words that users are likely to choose [1]."
    )
    by_words = offline.review(BREACHED_QUESTION, answer, {1: DENY_LIST})
    assert by_words["verdict"] == "rejected" and "another topic" in by_words["feedback"]  # what used to win
    assert not grounding.support_problems(grounding.cited_sentences(answer), {1: DENY_LIST})

    review = judge(rfp, offline_chat, BREACHED_QUESTION, answer, passages(DENY_LIST))
    # Not rejected as another topic; all-MiniLM-L6-v2's bar for "says what is asked" (ANSWER_MINIMUMS, chosen on
    # the judged drafts) is higher than this paraphrase reaches, so a person confirms it: needs revision.
    assert review["verdict"] == "needs_revision", review
    assert "another topic" not in review["feedback"] and "Not supported" not in review["feedback"]
    off_topic = judge(
        rfp,
        offline_chat,
        ENCRYPTION_QUESTION,
        "Support is available 24 hours a day, 7 days a week [1].",
        passages(OPERATIONS),
    )
    assert off_topic["verdict"] == "rejected" and "another topic" in off_topic["feedback"]


# --- a verdict on an earlier text is stale ------------------------------------------------------------
def test_an_edit_or_a_redraft_makes_the_verdict_stale_until_the_next_review(rfp, chat_model, user, user_client):
    question = rfp.questions.get(text=BACKUP_QUESTION)
    answering.generate_answer(question, model=chat_model)
    reviewed = answering.review_answer(question, model=chat_model)
    assert reviewed.review_verdict and not reviewed.review_is_stale

    edited = answering.save_final_text(reviewed, "Backups run every hour and are kept for 35 days [1].", user)
    edited.refresh_from_db()
    assert edited.review_is_stale and edited.review_verdict  # the old verdict stays, marked stale
    page = user_client.get(f"/rfps/{rfp.pk}/").content.decode()
    assert "stale: the answer changed since this review" in page
    assert "stale: the answer changed" in user_client.get(f"/rfps/questions/{question.pk}/answer/").content.decode()

    assert not answering.review_answer(question, model=chat_model).review_is_stale
    edited.final_text = ""
    edited.save(update_fields=["final_text"])
    add_library_document(
        "Backup schedule", "Backups of the database are taken every fifteen minutes and are kept for 90 days."
    )  # a better answer to "how often": the redraft quotes it
    redrafted = answering.generate_answer(question, model=chat_model)
    assert redrafted.draft_text != edited.reviewed_text and redrafted.review_is_stale
    assert "stale: the answer changed" in user_client.get(f"/rfps/{rfp.pk}/").content.decode()


def test_the_rfp_page_lists_the_findings_in_a_few_words_and_the_answer_page_in_full(rfp, chat_model, user_client):
    """The list's narrow column shows what is wrong in a few words (never a measure cut off mid-word); the full
    feedback, with its measures, is the row's tooltip and the answer page's."""
    from django.urls import reverse

    from rfp_manager.models import Answer
    from rfp_manager.services import workflow

    question = rfp.questions.get(text=BACKUP_QUESTION)
    definition = (
        "A backup is a copy of the platform's data kept apart from it, from which the data can be restored [1]."
    )
    from solution_library.models import Chunk

    cited = [{**passages(BACKUP_DEFINITION)[0], "chunk_id": Chunk.objects.first().pk}]
    Answer.objects.create(question=question, draft_text=definition, citations=cited)
    reviewed = answering.review_answer(question, model=chat_model)
    assert reviewed.review_summary.startswith("Does not say what is asked")
    assert "Supported but does not answer: asks how often" in reviewed.review_feedback

    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    shown = page.split('class="muted feedback"', 1)[1].split("</p>", 1)[0]
    assert shown.endswith(f">{reviewed.review_summary}") and "Supported but does not answer: asks" in shown  # title
    edit = user_client.get(reverse("rfp_manager:answer_edit", args=[question.pk])).content.decode()
    assert reviewed.review_summary in edit and "Supported but does not answer: asks how often" in edit

    workflow.clear([question])
    assert Answer.objects.get(pk=reviewed.pk).review_summary == ""
