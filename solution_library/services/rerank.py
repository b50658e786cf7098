"""The optional re-ranking step of search_passages(): a chat model orders the fused head.

Set SEARCH_RERANK_MODEL to the name of an active chat model to turn it on.
The model sees the question and the first RERANK_DEPTH passages, numbered, and
returns `{"ranking": [numbers, best first]}`. Passages it leaves out keep their
fused order behind the ones it ranked; a failed call or an unreadable reply
leaves the fused order as it was — re-ranking may improve a search, never break it.
"""

import json
import logging
import re

from django.conf import settings

from llm_manager import services as llm
from llm_manager.exceptions import LLMError

logger = logging.getLogger(__name__)

RERANK_DEPTH = 10
RERANK_SYSTEM = (
    "You rank library passages by how directly they answer a question from a request for proposal. "
    'Return a JSON ranking and nothing else: {"ranking": [<passage numbers, most useful first>]}.'
)
JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _reranker_name() -> str:
    """The name of the chat model SEARCH_RERANK_MODEL asks for; "" when re-ranking is off."""
    return getattr(settings, "SEARCH_RERANK_MODEL", "")


def reranker_model():
    """The configured re-ranking chat model, or None when re-ranking is off."""
    from llm_manager.models import LLMModel

    name = _reranker_name()
    if not name:
        return None
    return LLMModel.objects.select_related("api").filter(name=name, model_type="chat", is_active=True).first()


def passages_to_read(limit: int) -> int:
    """How many of the fused passages a search reads: its `limit`, or the head the re-ranker orders when it is on."""
    return max(limit, RERANK_DEPTH) if _reranker_name() else limit


def rerank(query: str, passages: list) -> list:
    model = reranker_model()
    if model is None or len(passages) < 2:
        return passages
    head, tail = passages[:RERANK_DEPTH], passages[RERANK_DEPTH:]
    lines = [f"[{n}] {' '.join(p.text.split())}" for n, p in enumerate(head, start=1)]
    messages = [
        {"role": "system", "content": RERANK_SYSTEM},
        {"role": "user", "content": "\n".join(["Passages:", *lines, "", f"Question: {' '.join(query.split())}"])},
    ]
    try:
        order = _parse_ranking(llm.chat(messages, model=model).text, len(head))
    except LLMError as exc:
        logger.warning("Re-ranking skipped: %s", exc, extra={"model": model.name})
        return passages
    ranked = [head[n - 1] for n in order]
    return ranked + [p for p in head if p not in ranked] + tail


def _parse_ranking(text: str, count: int) -> list[int]:
    """The valid, distinct passage numbers of the reply, in its order ([] when unreadable)."""
    match = JSON_OBJECT.search(text or "")
    try:
        numbers = json.loads(match.group(0)).get("ranking", []) if match else []
    except (ValueError, AttributeError):
        return []
    valid = [int(n) for n in numbers if isinstance(n, int | float) and 1 <= int(n) <= count]
    return list(dict.fromkeys(valid))
