"""Answering and reviewing one question: retrieval, the prompt, the model call, the saved row.

Prompts follow the passage convention every chat provider here understands
(llm_manager's offline provider and the fake test server included): numbered
passages on lines `[n] …`, then a `Question:` line; the reviewer adds an
`Answer:` line and asks to "Return a JSON review".
"""
import json
import random
import re
import time

from django.utils import timezone

from llm_manager import services as llm
from llm_manager.exceptions import CircuitOpenError, TransientLLMError
from solution_library.services.search import search_passages

from ..models import Answer, Question
from .choices import choice_fields

PASSAGES_PER_QUESTION = 5
NO_PASSAGE_ANSWER = "The library has no passage that answers this question."

RESPONDER_SYSTEM = (
    "You draft answers to the questions of a request for proposal (RFP) for a solutions team. "
    "Use only the numbered passages from the team's library. Cite every statement with the number "
    f"of its passage, like [2]. If no passage answers the question, say: {NO_PASSAGE_ANSWER}"
)
REVIEWER_SYSTEM = (
    "You review a draft answer to an RFP question against the numbered passages it was written from. "
    "Return a JSON review and nothing else: "
    '{"verdict": "approved" | "needs_revision" | "rejected", "score": <0..1>, "feedback": "<why>"}. '
    "Approve only answers whose statements the passages support."
)
VERDICTS = {choice.value for choice in Answer.Verdict}
CITATION = re.compile(r"\[(\d{1,3})\]")
JSON_OBJECT = re.compile(r"\{.*?\}", re.DOTALL)


TRANSIENT_ATTEMPTS = 3
BACKOFF_SECONDS = 2.0
MAX_BACKOFF_SECONDS = 30.0


class AnswerError(Exception):
    """A question could not be answered or reviewed; recorded on the job, the batch goes on."""


def chat_with_retries(messages: list[dict], model) -> str:
    """One chat call, retried on transient errors with exponential backoff and jitter.

    Business errors (bad key, unknown model) and an open circuit are not
    retried here: the first can never succeed, the second says "stop calling".
    """
    attempt = 1
    while True:
        try:
            return llm.chat(messages, model=model).text.strip()
        except CircuitOpenError:
            raise
        except TransientLLMError as exc:
            if attempt >= TRANSIENT_ATTEMPTS:
                raise
            delay = exc.retry_after or BACKOFF_SECONDS * 2 ** (attempt - 1)
            time.sleep(min(MAX_BACKOFF_SECONDS, delay) * random.uniform(0.8, 1.2))
            attempt += 1


def _one_line(text: str) -> str:
    """Passages and answers must stay on one prompt line (a blank line ends a passage)."""
    return " ".join(str(text).split())


def retrieve_passages(question: Question) -> list[dict]:
    """The library passages nearest to the question, numbered from 1 as the prompt cites them."""
    passages = search_passages(question.text, limit=PASSAGES_PER_QUESTION)
    return [
        {
            "n": n,
            "chunk_id": p.chunk_id,
            "document_id": p.document_id,
            "document_title": p.document_title,
            "text": p.text,
            "score": round(float(p.score), 4),
        }
        for n, p in enumerate(passages, start=1)
    ]


def _passage_lines(passages: list[dict]) -> list[str]:
    return [f"[{p['n']}] {_one_line(p['text'])}" for p in passages]


def responder_messages(question: Question, passages: list[dict], rfp_context: str) -> list[dict]:
    lines = []
    if rfp_context:
        lines.append(f"About this RFP: {_one_line(rfp_context)}")
    if question.section:
        lines.append(f"Section: {_one_line(question.section)}")
    lines += ["Passages:", *_passage_lines(passages), "", f"Question: {_one_line(question.text)}"]
    return [{"role": "system", "content": RESPONDER_SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def reviewer_messages(question: Question, answer_text: str, passages: list[dict]) -> list[dict]:
    lines = [
        "Passages:", *_passage_lines(passages), "",
        f"Question: {_one_line(question.text)}",
        f"Answer: {_one_line(answer_text)}",
    ]
    return [{"role": "system", "content": REVIEWER_SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def _with_citation_flags(text: str, passages: list[dict]) -> list[dict]:
    cited = {int(n) for n in CITATION.findall(text)}
    return [{**p, "cited": p["n"] in cited} for p in passages]


def _confidence(citations: list[dict]) -> float:
    """How well the best cited passage matched the question (0 when nothing was cited)."""
    scores = [c["score"] for c in citations if c["cited"]]
    return round(min(1.0, max(0.0, max(scores))), 3) if scores else 0.0


def generate_answer(question: Question, *, model, rfp_context: str = "", job=None) -> Answer:
    """Draft (or redraft) the one answer of a question. A new draft clears the old review."""
    passages = retrieve_passages(question)
    text = chat_with_retries(responder_messages(question, passages, rfp_context), model)
    if not text:
        raise AnswerError("The model returned an empty answer.")
    citations = _with_citation_flags(text, passages)
    answer, _ = Answer.objects.update_or_create(
        question=question,
        defaults={
            "draft_text": text,
            "citations": citations,
            "confidence": _confidence(citations),
            "responder_job": job,
            "generated_at": timezone.now(),
            **choice_fields(text),
            "review_verdict": "",
            "review_feedback": "",
            "review_score": None,
            "reviewer_job": None,
            "reviewed_at": None,
        },
    )
    return answer


def parse_review(text: str) -> dict:
    """Read the first JSON object in the reply; real models wrap it in prose or code fences."""
    for match in JSON_OBJECT.finditer(text):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        verdict = str(data.get("verdict", "")).strip().lower()
        if verdict not in VERDICTS:
            raise AnswerError(f"The review has an unknown verdict {verdict!r}.")
        try:
            score = min(1.0, max(0.0, float(data.get("score"))))
        except (TypeError, ValueError):
            score = None
        return {"verdict": verdict, "score": score, "feedback": str(data.get("feedback", "")).strip()}
    raise AnswerError(f"The review is not JSON: {text[:200]!r}")


def review_answer(question: Question, *, model, job=None) -> Answer:
    """Judge the question's answer (a person's edit wins over the draft) against its sources."""
    answer = Answer.objects.filter(question=question).first()
    if answer is None or not answer.final_answer.strip():
        raise AnswerError("There is no answer to review yet.")
    review = parse_review(chat_with_retries(reviewer_messages(question, answer.final_answer, answer.citations), model))
    values = {
        "review_verdict": review["verdict"], "review_score": review["score"], "review_feedback": review["feedback"],
        "reviewer_job": job, "reviewed_at": timezone.now(),
    }
    # Only onto the text that was judged: a redraft or an edit during the call makes this verdict stale.
    judged = Answer.objects.filter(pk=answer.pk, draft_text=answer.draft_text, final_text=answer.final_text)
    if not judged.update(**values):
        raise AnswerError("The answer changed while it was being reviewed; review it again.")
    for name, value in values.items():
        setattr(answer, name, value)
    return answer


def save_final_text(answer: Answer, text: str, user) -> Answer:
    """A person's edit: kept apart from the draft, so a redraft never overwrites it."""
    answer.final_text = text.strip()
    answer.edited_by = user
    answer.edited_at = timezone.now()
    answer.save(update_fields=["final_text", "edited_by", "edited_at"])
    return answer
