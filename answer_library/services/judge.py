"""A configured chat model as the judge of the middle band: "does this entry answer this question?"

Below the automatic-reuse bar the library only suggests (matching.triage). With
ANSWER_LIBRARY_JUDGE on, the default chat model is asked about the best
suggestion, and a yes turns it into an automatic reuse; a no, or a model that
cannot be reached, leaves the suggestions for a person. The offline tiers are
the fallback and what make eval reports.
"""

import logging

from django.conf import settings

from llm_manager import services as llm
from llm_manager.exceptions import LLMError
from llm_manager.providers.offline import JUDGE_MARKER

from ..models import Entry
from .matching import Triage

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    f"{JUDGE_MARKER}? You compare a client's questionnaire question with an approved answer from the team's "
    "answer library. Say yes only when the entry's answer answers what the question asks: the same subject and "
    "the same kind of thing (a frequency does not answer how long, SOC 2 does not answer SOC 3). "
    "Reply with one word: yes or no."
)


def entry_answers(question: str, entry: Entry, model) -> bool:
    """The chat model's word on whether `entry` answers `question` (may raise LLMError)."""
    entry_text = " ".join(f"{entry.question} {entry.answer_text}".split())  # one line: one labelled block
    messages = [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": f"Question: {question}\nEntry: {entry_text}"},
    ]
    return llm.chat(messages, model=model, max_tokens=3).text.strip().lower().startswith("yes")


def judged(question: str, offer: Triage) -> Triage:
    """The offer after the judge (when ANSWER_LIBRARY_JUDGE is on): the best suggestion reused when it says yes."""
    if not settings.ANSWER_LIBRARY_JUDGE or offer.reuse is not None or not offer.suggestions:
        return offer
    best = offer.suggestions[0]
    try:
        says_yes = entry_answers(question, best.entry, llm.get_default_model("chat"))
    except LLMError as exc:  # no chat model, or its API is down: a person decides, as without a judge
        logger.warning("Library judge unavailable: %s", exc, extra={"entry_id": best.entry.pk})
        return offer
    return Triage(best, []) if says_yes else offer
