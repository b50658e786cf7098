"""A draft's sentences ranked word by word: with the local encoder, its word vectors choose what a draft quotes.

A sentence's one vector blurs what it says into its topic: for "how is evidence
preserved?", the step after the evidence is kept is as close as the sentence
that says how it is kept. Matched word by word (llm.word_alignment), the
sentence that meets each thing the question names comes first.
"""

import math
import re

import pytest

from llm_manager import services as llm
from llm_manager.models import LLMApi, LLMModel
from llm_manager.providers import evidence
from rfp_manager.models import Question
from rfp_manager.services import answering, calibration

from .conftest import make_rfp

pytestmark = pytest.mark.django_db

QUESTION = "How is forensic evidence preserved after a compromise?"
IMAGE = "A complete image of each disk is copied with dd and kept as evidence."
PASSAGES = [
    {
        "n": 1,
        "text": "Analysing a compromised system while it runs is best avoided, because its programs can no longer "
        f"be trusted. {IMAGE} The investigation then works on the copies only.",
    },
    {"n": 2, "text": "Incidents are reported to the security team."},
]


@pytest.fixture
def minilm_default():
    """all-MiniLM-L6-v2, served by a local API, as the default embedding model (a fresh install's)."""
    llm.make_default(LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2"))


def chosen_texts(question: str, passages: list[dict]) -> list[str]:
    """The sentences the draft path quotes: the default embedding model's evidence (answering.read_evidence)."""
    return [c.text for c in evidence.choose_from(answering.read_evidence(question, passages))]


def quoted() -> list[str]:
    return chosen_texts(QUESTION, PASSAGES)


def ranked_first(alignment=None) -> str:
    """The passages' sentence the drafting ranks first for the question, word by word when `alignment` is given."""
    read = answering.reading(QUESTION)
    found = evidence.candidates({p["n"]: p["text"] for p in PASSAGES})
    scores = evidence.score_candidates(read.parts, found, answering.embedding_similarity(), read.weights, alignment)[0]
    return found[scores.index(max(scores))].text


def test_the_local_default_model_chooses_the_sentences_word_by_word(minilm_default):
    by_words = answering.word_similarity()
    assert by_words is not None
    assert by_words([QUESTION], [IMAGE]) == llm.word_alignment([QUESTION], [IMAGE]).tolist()

    assert ranked_first(by_words) == IMAGE
    assert IMAGE in quoted()


def test_by_the_sentence_vectors_alone_the_next_step_ranks_first(minilm_default):
    """What word_similarity changes: the same passages ranked by cosine and words (an embedding API's way) put
    another sentence first (the image may still be quoted beside it, nearly as relevant: evidence.NEW_WORDS_NEAR)."""
    assert ranked_first() != IMAGE


def test_an_embedding_api_gives_no_word_vectors(llm_api, fake_llm):
    assert answering.word_similarity() is None


ANSWER = "A complete image of each disk is copied with dd and kept as evidence [1]."
NOT_AN_ANSWER = "Incidents are reported to the security team [2]."


def test_after_review_the_local_model_reads_confidence_from_the_word_match(minilm_default):
    question = Question(text=QUESTION)  # unsaved: only its wording is read
    answer = answering.raw_review_score(question, ANSWER, 0.5, "approved")
    other = answering.raw_review_score(question, NOT_AN_ANSWER, 0.5, "approved")

    assert answer[1] == other[1] == calibration.WORD_MATCH
    assert answer[0] > other[0]  # the same evidence and verdict: the text that says what is asked scores higher
    assert answer[0] == round(float(llm.word_alignment([QUESTION], [ANSWER])[0][0]), 3)
    rejected = answering.raw_review_score(question, ANSWER, 0.5, "rejected")
    assert rejected[0] < answer[0]  # the verdict still scales it


def test_after_review_an_embedding_api_reads_confidence_from_the_evidence(llm_api, fake_llm):
    question = Question(text=QUESTION)  # unsaved: only its wording is read
    assert answering.raw_review_score(question, ANSWER, 0.5, "approved") == (0.5, calibration.EVIDENCE)
    assert answering.raw_review_score(question, NOT_AN_ANSWER, 0.5, "approved") == (0.5, calibration.EVIDENCE)


def test_a_follow_up_is_matched_with_the_question_it_follows(minilm_default, user):
    rfp = make_rfp(user, [QUESTION, "If yes, describe the tools used."])
    follow_up = rfp.questions.get(order=1)
    with_parent = answering.raw_review_score(follow_up, ANSWER, 0.5, "approved")[0]
    alone = answering.raw_review_score(Question(text=follow_up.text), ANSWER, 0.5, "approved")[0]
    assert with_parent == round(float(llm.word_alignment([f"{QUESTION} {follow_up.text}"], [ANSWER])[0][0]), 3)
    assert with_parent > alone  # the disk image answers about forensic evidence, the parent's subject


WEAK = "Analysing a compromised system while it runs is best avoided [1]."


def test_a_supported_draft_that_meets_little_of_the_question_word_by_word_is_not_approved(minilm_default, user):
    question = make_rfp(user, ["How are copies of a compromised disk kept as evidence?"]).questions.get()
    bar, read = answering.WORD_MATCH_MINIMUMS["all-MiniLM-L6-v2"], answering.reading(question)
    assert answering.word_match(read, WEAK) < bar <= answering.word_match(read, ANSWER)

    weak = answering.judge(question, WEAK, PASSAGES, model=offline_chat())
    assert weak["verdict"] != "approved"
    assert "Supported but may not answer: it meets little of what the question asks, word by word" in weak["feedback"]
    assert "may not answer" not in answering.judge(question, ANSWER, PASSAGES, model=offline_chat())["feedback"]


CENTRAL = "Can log messages be sent to a central log server?"
STDERR = "Log messages can be written to the standard error of the server process [1]."


def test_the_words_of_the_question_a_draft_never_speaks_of_are_found_word_by_word(minilm_default):
    unmet = llm.unmet_words(CENTRAL, STDERR)
    assert unmet[0] == "central"
    assert not {"log", "messages", "server"} & set(unmet)  # said, in the same or another form
    assert "central" not in llm.unmet_words(CENTRAL, "Logs are collected in a centralized system [1].")


def test_the_word_match_reason_names_what_the_draft_never_speaks_of_as_the_question_writes_it(minilm_default, user):
    """A person reads "nothing in it comes close to “central”" and knows what to look for; a figure alone
    (0.55, where drafts that answer reach 0.67) says only that something is missing."""
    question = make_rfp(user, [CENTRAL]).questions.get()
    collector = "The logging collector writes messages to files in the data directory [1]."
    passages = [{"n": 1, "text": "The logging collector writes messages to files in the data directory."}]
    review = answering.judge(question, collector, passages, model=offline_chat())
    assert "word by word" in review["feedback"] and "nothing in it comes close to “central”" in review["feedback"]
    assert "nothing in it comes close to “central”" in review["summary"] and "0.6" not in review["summary"]
    assert answering.as_written("Do you export logs to our SIEM or sub-processors?", "siem") == "SIEM"
    assert answering.as_written("Do you export logs to our SIEM or sub-processors?", "processors") == "sub-processors"


def test_the_word_match_reason_never_asks_the_draft_to_name_the_client(minilm_default, user):
    """The council asks about "the council's logs"; the supplier's answer does not repeat "council", and a
    reviewer told "nothing in it comes close to “council”" is sent looking for what no answer should say."""
    rfp = make_rfp(user, ["Can the council's log messages be sent to a central log server?"])
    rfp.client = "Eastbrook County Council"
    rfp.save()
    question = rfp.questions.get()
    collector = "The logging collector writes messages to files in the data directory [1]."
    passages = [{"n": 1, "text": "The logging collector writes messages to files in the data directory."}]
    assert "council" in llm.unmet_words(question.text, collector)  # the encoder alone would name it
    review = answering.judge(question, collector, passages, model=offline_chat())
    assert "nothing in it comes close to “central”" in review["summary"]
    assert "council" not in review["feedback"].lower() and "council" not in review["summary"].lower()


def test_a_draft_that_states_the_asked_kind_of_thing_is_not_held_to_the_word_match(minilm_default, user):
    question = make_rfp(user, ["How often are the forensic copies of compromised disks verified?"]).questions.get()
    weekly = "Copies are checked weekly [1]."
    passages = [{"n": 1, "text": "Copies are checked weekly."}]
    read = answering.reading(question)
    assert answering.word_match(read, weekly) < answering.WORD_MATCH_MINIMUMS["all-MiniLM-L6-v2"]
    assert answering.word_match_finding(read, weekly, [weekly]) == ([], "")  # it says how often
    unsaid = "Copies are checked [1]."
    reasons, few_words = answering.word_match_finding(read, unsaid, [unsaid])
    assert reasons and few_words
    assert "may not answer" not in answering.judge(question, weekly, passages, model=offline_chat())["feedback"]


def test_a_draft_that_gives_the_timeline_asked_for_is_not_held_to_the_word_match(minilm_default, user):
    """ "…and a typical timeline" asks how long it takes: a draft that says "six to eight weeks" answers it though
    it never says "timeline"; one that leaves the time out is still sent back."""
    question = make_rfp(user, ["Describe your onboarding approach and a typical timeline."]).questions.get()
    method = "Onboarding follows a fixed method in four phases."
    timed = f"{method} A typical onboarding takes six to eight weeks from kick-off to go-live."
    passages = [{"n": 1, "text": timed}]
    cited = timed.replace(".", " [1].")
    assert answering.word_match(answering.reading(question), cited) < answering.WORD_MATCH_MINIMUMS["all-MiniLM-L6-v2"]
    assert answering.judge(question, cited, passages, model=offline_chat())["verdict"] == "approved"
    untimed = answering.judge(question, method.replace(".", " [1]."), passages, model=offline_chat())
    assert untimed["verdict"] != "approved"


def test_a_word_match_under_the_bar_never_reads_as_the_bar(minilm_default, user, monkeypatch):
    """0.366 under a bar of 0.37 reads "0.36, where drafts that answer reach 0.37", not "0.37, … reach 0.37"."""
    question = make_rfp(user, ["How are images of compromised disks kept?"]).questions.get()
    met = answering.word_match(answering.reading(question), WEAK)
    bar = math.ceil(met * 100) / 100
    assert round(met, 2) == bar  # rounded, this draft's figure would read as the bar itself
    monkeypatch.setitem(answering.WORD_MATCH_MINIMUMS, "all-MiniLM-L6-v2", bar)

    (problem,), _ = answering.word_match_finding(answering.reading(question), WEAK, [WEAK])
    shown, reach = re.search(r"\((\d\.\d\d), where drafts that answer reach (\d\.\d\d)\)", problem).groups()
    assert float(shown) < float(reach) == bar


def test_with_an_embedding_api_the_word_match_is_not_checked(llm_api, fake_llm, user):
    question = make_rfp(user, [QUESTION]).questions.get()
    assert answering.word_match(answering.reading(question), WEAK) is None
    assert answering.word_match_finding(answering.reading(question), WEAK, [WEAK]) == ([], "")


KEYS_QUESTION = "How are encryption keys kept out of the application's configuration files?"
SAID_BACK = "Encryption keys should never be kept in the application's configuration files [1]."


def test_a_draft_that_says_the_question_back_is_not_approved(minilm_default, user):
    """It meets the question word by word only because its words are the question's: it adds no answer."""
    question = make_rfp(user, [KEYS_QUESTION]).questions.get()
    passages = [{"n": 1, "text": "Encryption keys should never be kept in the application's configuration files."}]
    assert (
        answering.word_match(answering.reading(question), SAID_BACK)
        >= answering.WORD_MATCH_MINIMUMS["all-MiniLM-L6-v2"]
    )

    review = answering.judge(question, SAID_BACK, passages, model=offline_chat())
    assert review["verdict"] == "needs_revision"
    assert re.search(r"it mostly says the question back, word for word \(0\.\d\d, where drafts", review["feedback"])
    with_method = answering.judge(question, ANSWER, PASSAGES, model=offline_chat())["feedback"]
    assert "says the question back" not in with_method


def test_a_yes_no_question_said_back_is_answered(minilm_default, user):
    question = make_rfp(user, ["Are encryption keys kept out of the application's configuration files?"])
    question = question.questions.get()
    said = "Encryption keys are kept out of the application's configuration files [1]."
    passages = [{"n": 1, "text": "Encryption keys are kept out of the application's configuration files."}]
    assert answering.judge(question, said, passages, model=offline_chat())["verdict"] == "approved"


def test_a_figure_the_question_does_not_hold_is_no_question_said_back(minilm_default, user):
    question = make_rfp(user, ["State your recovery point objective for the production database."]).questions.get()
    read = answering.reading(question)
    stated = "Recovery point objective for the production database: 1 hour."
    assert answering.echo_problems(read, [stated]) == []
    assert answering.echo_problems(read, [stated.replace("1 hour", "as agreed")])


def test_with_an_embedding_api_no_draft_is_held_for_saying_the_question_back(llm_api, fake_llm, user):
    question = make_rfp(user, [KEYS_QUESTION]).questions.get()
    assert answering.echo_problems(answering.reading(question), [SAID_BACK]) == []


def offline_chat():
    return llm.get_default_model("chat")


METHOD = (  # a table as ingestion stores it: each row's cells under their column names
    "Rollout method\n\n"
    "Every customer is onboarded with the same method in four stages. A typical rollout for a team of 300 users "
    "takes 8 to 12 weeks in all, from kick-off to go-live.\n\n"
    "Stage: Scope. What happens: Workshops on teams, permissions and integrations. Typical duration: 2 weeks.\n\n"
    "Stage: Build. What happens: The workspace is configured: roles, single sign-on, templates. "
    "Typical duration: 3 weeks.\n\n"
    "Stage: Load. What happens: Existing content is imported and checked. Typical duration: 2 to 4 weeks.\n\n"
    "Stage: Launch. What happens: Go-live, four weeks of hypercare, hand-over to support. Typical duration: 1 week.\n"
)


def test_a_sentence_more_relevant_than_the_first_one_quoted_is_kept_though_it_repeats_its_words(minilm_default):
    """The first sentence is the one that meets the question best word by word (here a table row that says
    "typical duration"); a second that is more relevant to the question by meaning and words together is the
    answer, not padding, even when it names no subject word the first did not ("typical", "rollout")."""
    chosen = chosen_texts("Describe your rollout approach and a typical timeline.", [{"n": 1, "text": METHOD}])
    assert any("takes 8 to 12 weeks in all" in text for text in chosen), chosen


SHADOW_QUESTION = "On a server, where are the hashed passwords kept, and who can read that file?"
COPY_FIRST = "First, always make a copy of a system file before opening it or changing it [1]."
SHADOW = "The hashed passwords are kept in /etc/shadow, which only the root user can read [1]."
SHADOW_PASSAGES = [
    {
        "n": 1,
        "text": "First, always make a copy of a system file before opening it or changing it. The hashed "
        "passwords are kept in /etc/shadow, which only the root user can read.",
    }
]


def test_a_draft_that_opens_on_something_else_is_sent_back_and_the_same_draft_answer_first_is_not(minilm_default, user):
    """The reader takes the first sentence for the answer (the labelling guide's rule 4)."""
    question = make_rfp(user, [SHADOW_QUESTION]).questions.get()
    buried = answering.judge(question, f"{COPY_FIRST} {SHADOW}", SHADOW_PASSAGES, model=offline_chat())
    assert buried["verdict"] == "needs_revision"
    assert "it opens on something else (“First, always make a copy of a system file" in buried["feedback"]
    assert "Put what is asked first." in buried["feedback"]
    assert buried["summary"].startswith("Opens on something else")
    first = answering.judge(question, f"{SHADOW} {COPY_FIRST}", SHADOW_PASSAGES, model=offline_chat())
    assert "opens on something else" not in first["feedback"]


def test_a_draft_that_opens_mid_sentence_is_sent_back_and_a_sentence_opening_on_a_lower_case_name_is_not(
    minilm_default, user
):
    """ "before the point of corruption so that recovery can complete normally" is the tail of a sentence whose subject
    is not quoted; "pg_dump writes…" opens its own line in the passage."""
    question = make_rfp(user, ["In the event of data corruption, can the database be restored?"]).questions.get()
    passages = [
        {
            "n": 1,
            "text": "In such a case the recovery process could be re-run, specifying a\n\n“\n\nrecovery target\n\n”\n\n"
            "before the point of corruption so that recovery can complete normally.\n\npg_dump writes a logical "
            "copy of the database that can be restored on another server.",
        }
    ]
    tail = "before the point of corruption so that recovery can complete normally [1]."
    cut = answering.judge(question, tail, passages, model=offline_chat())
    assert cut["verdict"] == "needs_revision"
    assert "it opens mid-sentence (“before the point of corruption so that recovery" in cut["feedback"]
    assert "opens mid-sentence" in cut["summary"]
    whole = "pg_dump writes a logical copy of the database that can be restored on another server [1]."
    assert "mid-sentence" not in answering.judge(question, whole, passages, model=offline_chat())["feedback"]


def test_each_finding_of_the_review_is_its_own_line_and_the_editor_lists_them(minilm_default, user, user_client):
    """Several findings read as a list in the answer editor, not one run-on paragraph of "Supported but…"."""
    question = make_rfp(user, [SHADOW_QUESTION]).questions.get()
    answering.Answer.objects.create(question=question, draft_text=COPY_FIRST, citations=SHADOW_PASSAGES)
    answer = answering.review_answer(question, model=offline_chat())
    findings = answer.review_feedback.splitlines()
    assert len(findings) == 2, findings
    assert findings[0].startswith("Does not address the question: the answer is about another topic")
    assert findings[1].startswith("Supported but may not answer: it meets little of what the question asks")
    assert answer.review_summary.startswith("About another topic; "), "the list in the order the summary names them"
    answering.Answer.objects.filter(pk=answer.pk).update(citations=[])  # the editor links a citation to its chunk
    page = user_client.get(f"/rfps/questions/{question.pk}/answer/").content.decode()
    listed = re.search(r'<ul class="muted review-feedback">(.*?)</ul>', page, re.S)
    assert listed and listed.group(1).count("<li>") == len(findings)


def test_a_draft_padded_with_another_passage_on_another_subject_is_sent_back_and_the_answer_alone_is_not(
    minilm_default, user
):
    """True sentences set beside the answer to fill space: what the draft quotes from passage [2], about protecting
    logs, says nothing of restoring a database."""
    question = make_rfp(user, ["Can the database be restored to a specific point in time?"]).questions.get()
    answer = (
        "Point-in-time recovery restores the database to its state at any moment since the base backup was taken [1]."
    )
    padding = (
        "Logs may contain personal information, so they must be protected from tampering and unauthorised access [2]."
    )
    passages = [{"n": 1, "text": answer[:-4] + "."}, {"n": 2, "text": padding[:-4] + "."}]
    padded = answering.judge(question, f"{answer} {padding}", passages, model=offline_chat())
    assert padded["verdict"] == "needs_revision"
    assert "what it quotes from passage [2] (“Logs may contain personal information" in padded["feedback"]
    assert "padded with another subject" in padded["summary"]
    alone = answering.judge(question, answer, passages, model=offline_chat())
    assert alone["verdict"] == "approved"
