"""Grounded drafts, the no-support answer, the reviewer's verdicts and confidence (chat model on the fake server)."""

import json

import pytest
from django.urls import reverse

from llm_manager.models import LLMModel
from llm_manager.providers.evidence import TARGET_ANSWER_CHARS
from llm_manager.providers.offline import NO_PASSAGE_ANSWER
from rfp_manager.models import Answer, Question
from rfp_manager.services import answering

from .conftest import chat_requests, make_rfp

BACKUP_QUESTION = "Please describe how often backups are taken and how long they are kept."
INSURANCE_QUESTION = "Do you carry cyber liability insurance, and what is the coverage limit?"


@pytest.fixture
def chat_model(library):
    return LLMModel.objects.get(name="fake-chat")


@pytest.fixture
def rfp(user, library):
    return make_rfp(
        user, [BACKUP_QUESTION, INSURANCE_QUESTION, "How is customer data encrypted at rest and in transit?"]
    )


def question(rfp, text) -> Question:
    return rfp.questions.get(text=text)


def test_draft_quotes_the_sentences_that_answer_each_with_its_citation(rfp, chat_model):
    answer = answering.generate_answer(question(rfp, BACKUP_QUESTION), model=chat_model)

    assert "Backups are taken every hour and kept for 35 days" in answer.draft_text
    assert "Support is available" not in answer.draft_text  # the same passage's other sentences stay out
    assert len(answer.draft_text) <= TARGET_ANSWER_CHARS + 400
    cited = [c for c in answer.citations if c["cited"]]
    assert cited and all(f"[{c['n']}]" in answer.draft_text for c in cited)
    assert cited[0]["document_title"] == "Operations guide"
    assert not answer.needs_expert and 0 < answer.confidence <= 1


def test_a_draft_comes_with_the_sentences_that_may_answer_too_and_the_editor_offers_them(rfp, chat_model, user_client):
    """The passages' sentences about the question that the draft does not quote are kept with it (best first), and
    the answer editor lists each with its document and an Insert button that cites its chunk."""
    from solution_library.models import Chunk
    from solution_library.testing import add_library_document

    keys = add_library_document(
        "Key management",
        "Customer data keys are held in a hardware security module and rotated every year.\n\n"
        "Encrypted customer data in backups is encrypted at rest with the same keys.\n\nThe office is in Leeds.",
    )
    asked = question(rfp, "How is customer data encrypted at rest and in transit?")
    answer = answering.generate_answer(asked, model=chat_model)

    assert "AES-256" in answer.draft_text
    offered = {m["text"]: m for m in answer.may_answer}
    assert set(offered) == {
        "Encrypted customer data in backups is encrypted at rest with the same keys.",
        "Customer data keys are held in a hardware security module and rotated every year.",
    }  # not the quoted AES-256 sentence, nor the office's town
    for text, item in offered.items():
        chunk = Chunk.objects.get(pk=item["chunk_id"])
        assert chunk.document_id == keys.pk and item["document_title"] == "Key management" and text in chunk.text

    page = user_client.get(reverse("rfp_manager:answer_edit", args=[asked.pk])).content.decode()
    editor = page[page.index('id="may-answer"') :]
    numbers = {c["chunk_id"]: c["n"] for c in answer.citations}  # each sentence keeps its passage's number
    for text, item in offered.items():
        chunk_id = item["chunk_id"]
        button = f'class="insert-source" data-kind="chunk" data-id="{chunk_id}" data-n="{numbers[chunk_id]}" data-text="{text}"'
        assert button in editor


def test_a_quote_is_shown_under_the_section_it_comes_from_not_the_one_its_passage_starts_in(
    user, chat_model, user_client
):
    """A passage may span sections, and the chunker names it by the one it starts in (or, opening on a preamble, by
    its first heading): a person checking a quote looks for it under its own section, and a preamble has none."""
    from solution_library.models import Chunk
    from solution_library.testing import add_library_document

    add_library_document(
        "Company profile",
        "Kestrel Peak Software Ltd was founded in 2011 in Bristol.\n\n"
        "# Public-sector customers\n\nOrrery is used by Fenmoor Water Authority and Harrowgate Borough Council.\n\n"
        "# Product roadmap\n\nKestrel Peak delivers a new Orrery release every month.\n\n"
        "# Offices\n\nKestrel Peak has offices in Leeds and Utrecht.",
    )
    rfp = make_rfp(user, ["How often are new Orrery releases delivered?", "When was Kestrel Peak Software founded?"])
    releases, founded = (answering.generate_answer(q, model=chat_model) for q in rfp.questions.order_by("order"))

    assert "every month" in releases.draft_text and "2011" in founded.draft_text
    (roadmap,) = [c for c in releases.citations if c["cited"]]
    (preamble,) = [c for c in founded.citations if c["cited"]]
    assert Chunk.objects.get(pk=roadmap["chunk_id"]).heading == "Public-sector customers"  # one passage, all four
    assert roadmap["heading"] == "Product roadmap" and preamble["heading"] == ""
    page = user_client.get(reverse("rfp_manager:answer_edit", args=[releases.question.pk])).content.decode()
    assert "· Product roadmap" in page and "· Public-sector customers" not in page
    page = user_client.get(reverse("rfp_manager:answer_edit", args=[founded.question.pk])).content.decode()
    cited = page[page.index("[1] Company profile") :].split("</li>")[0]
    assert "·" not in cited  # the document's title alone
    offered = {m["text"]: m["heading"] for m in [*releases.may_answer, *founded.may_answer]}
    sections = {
        "Kestrel Peak Software Ltd was founded in 2011 in Bristol.": "",
        "Orrery is used by Fenmoor Water Authority and Harrowgate Borough Council.": "Public-sector customers",
        "Kestrel Peak delivers a new Orrery release every month.": "Product roadmap",
        "Kestrel Peak has offices in Leeds and Utrecht.": "Offices",
    }
    assert offered.keys() & sections.keys()  # the editor offers the passage's other sentences, each under its own
    assert all(offered[text] == sections[text] for text in offered.keys() & sections.keys())


def test_no_supporting_content_gives_the_no_support_answer_and_an_expert_flag(rfp, chat_model, fake_llm):
    answer = answering.generate_answer(question(rfp, INSURANCE_QUESTION), model=chat_model)

    assert answer.draft_text == NO_PASSAGE_ANSWER
    assert answer.needs_expert and answer.confidence == 0.0
    assert not any(c["cited"] for c in answer.citations)
    assert chat_requests(fake_llm) == 0  # unrelated passages never reach the model


def test_responder_prompt_requires_citations_and_allows_not_enough_information(rfp, chat_model, llm_front):
    answering.generate_answer(question(rfp, BACKUP_QUESTION), model=chat_model)
    system = json.loads(llm_front.chat_prompts[-1])["messages"][0]["content"]
    assert "citation" in system and "not enough information" in system


def test_a_model_that_finds_no_answer_flags_the_question(rfp):
    assert answering.says_no_support("The passages do not say. Not enough information.")
    assert answering.says_no_support(NO_PASSAGE_ANSWER)
    assert not answering.says_no_support("Backups are kept for 35 days [1].")


# --- the reviewer ------------------------------------------------------------------------
@pytest.fixture
def drafted(rfp, chat_model):
    """The backup question's grounded draft and the passages it was written from."""
    answer = answering.generate_answer(question(rfp, BACKUP_QUESTION), model=chat_model)
    return answer.question, answer.draft_text, answer.citations


def judge(drafted, chat_model, text=None, passages=None):
    q, draft, citations = drafted
    return answering.judge(
        q, draft if text is None else text, citations if passages is None else passages, model=chat_model
    )


def test_reviewer_approves_a_grounded_answer(drafted, chat_model):
    review = judge(drafted, chat_model)
    assert review["verdict"] == "approved", review


def test_reviewer_rejects_an_answer_from_an_unrelated_passage(drafted, chat_model):
    citations = drafted[2]
    support = next(c for c in citations if "Support is available" in c["text"])
    text = f"Support is available 24 hours a day, 7 days a week [{support['n']}]."
    review = judge(drafted, chat_model, text=text)
    assert review["verdict"] == "rejected" and "Does not address the question" in review["feedback"]


def test_reviewer_flags_a_sentence_no_passage_supports(drafted, chat_model):
    text = drafted[1] + " Backups are also mirrored to a bunker on the Moon every minute [1]."
    review = judge(drafted, chat_model, text=text)
    assert review["verdict"] == "needs_revision" and "Moon" in review["feedback"]


def test_reviewer_flags_a_citation_of_the_wrong_passage(drafted, chat_model):
    citations = drafted[2]
    wrong = next(c["n"] for c in citations if "Backups are taken" not in c["text"])
    text = f"Backups are taken every hour and kept for 35 days [{wrong}]."
    assert judge(drafted, chat_model, text=text)["verdict"] != "approved"


def test_a_citation_of_no_passage_is_rejected_whatever_the_model_says(drafted, chat_model):
    text = drafted[1] + " Backups are taken every hour [9]."
    review = judge(drafted, chat_model, text=text)
    assert review["verdict"] == "rejected" and "[9], which is not among the passages" in review["feedback"]


def test_reviewer_prompt_has_the_rubric_and_asks_for_structured_output(drafted, chat_model, llm_front):
    judge(drafted, chat_model)
    system = json.loads(llm_front.chat_prompts[-1])["messages"][0]["content"]
    assert "Rubric" in system and '"reasons"' in system and "Return a JSON review" in system


# --- confidence and attention ----------------------------------------------------------------
def test_review_moves_confidence_and_the_rfp_page_lists_what_needs_attention_first(rfp, chat_model, user_client):
    for q in rfp.questions.all():
        answering.generate_answer(q, model=chat_model)
    backup, insurance, encryption = (
        question(rfp, t)
        for t in (BACKUP_QUESTION, INSURANCE_QUESTION, "How is customer data encrypted at rest and in transit?")
    )
    drafted_confidence = backup.answer.confidence
    approved = answering.review_answer(backup, model=chat_model)
    assert approved.review_verdict == "approved" and approved.confidence > drafted_confidence
    Answer.objects.filter(question=encryption).update(draft_text="Support is available 24 hours a day [1].")
    rejected = answering.review_answer(encryption, model=chat_model)
    assert rejected.review_verdict == "rejected" and rejected.confidence < approved.confidence

    ordered = list(answering.attention_order(rfp.questions.all()).values_list("text", flat=True))
    assert ordered == [insurance.text, encryption.text, backup.text]  # expert, rejected, approved
    page = user_client.get(f"/rfps/{rfp.pk}/").content.decode()
    assert page.index(insurance.text) < page.index(encryption.text) < page.index(backup.text)
    assert 'class="badge badge-needs_expert q-status">Needs an expert' in page
    shown = f"About {round(approved.confidence * 100)} in 100 drafts like this one answered their question"
    assert f'title="{shown}">{approved.confidence:.2f}<' in page  # what the figure means, on the figure
    in_order = user_client.get(f"/rfps/{rfp.pk}/", {"sort": "document"}).content.decode()
    assert in_order.index(BACKUP_QUESTION) < in_order.index(INSURANCE_QUESTION)


def test_the_chat_model_gets_the_chosen_evidence_with_its_citations_and_the_same_rules(rfp, chat_model, llm_front):
    answering.generate_answer(question(rfp, BACKUP_QUESTION), model=chat_model)
    system, user = (m["content"] for m in json.loads(llm_front.chat_prompts[-1])["messages"])

    assert "answer each part of the question in that order" in system and "no Markdown" in system
    assert "give the items themselves" in system and "Leave out any sentence that does not answer" in system
    evidence = [line for line in user.split("Evidence:", 1)[1].splitlines() if line.startswith("- [")]
    assert evidence and "Backups are taken every hour" in evidence[0]
    number = evidence[0][3 : evidence[0].index("]")]
    passage = next(line for line in user.splitlines() if line.startswith(f"[{number}] "))
    assert "Backups are taken every hour" in passage  # the evidence cites the passage it quotes
