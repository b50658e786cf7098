"""The built-in offline baseline: deterministic embeddings and an extractive chat.

It exists so that a fresh install works with no network and no model download.
It is honest about what it is: it never generates text, it only quotes the
sentences of the passages it was given that answer the question (with their
citations) or says that none does, and its model names say "offline". The fake OpenAI server reuses these functions so that tests against
HTTP see the same answers.

Prompt convention (what callers send, see the cross-app contract):
- context passages are lines of the last user message starting with `[n] `; a
  passage continues on the following lines until the next `[n]` or a blank line;
- the question is on a line starting with `Question:`;
- reviewer mode: the system message contains "Return a JSON review" and the user
  message has an `Answer:` line followed by the answer to judge;
- re-ranker mode: the system message contains "Return a JSON ranking".
"""

import hashlib
import json
import math
import re

from text import questions
from text.words import stems

from . import evidence, grounding
from .base import ChatResult, ModelInfo, Provider

EMBED_MODEL = "offline-embed-v1"
CHAT_MODEL = "offline-extractive-chat-v1"
EMBED_DIMENSIONS = 384
CHAT_CONTEXT_WINDOW = 32768
NO_PASSAGE_ANSWER = "No supporting content in the library answers this question."
REVIEW_MARKER = "Return a JSON review"
RERANK_MARKER = "Return a JSON ranking"
# The answer library's judge of the middle band (answer_library.services.judge) asks with this.
JUDGE_MARKER = "Reply yes or no: does the library entry answer the question"
MAX_QUOTED_SENTENCES = 4
# The review's score: the share of supported sentences, scaled down when the answer misses (part of) the question.
ADDRESSING_FACTOR = {"": 1.0, "needs_revision": 0.5, "rejected": 0.2}

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into over under about as is are was were be
    been being do does did done have has had having it its this that these those there here what which who whom whose
    when where why how can could should would will shall may might must not no nor so than too very just also only own
    same such both each few more most other some any all our your their his her my we you they he she i me us them
    please describe explain provide tell give list""".split()
)
WORD_RE = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
PASSAGE_RE = re.compile(r"^\s*\[(\d+)\]\s?(.*)$")
EVIDENCE_LINE = re.compile(r"^\s*-\s*\[(\d+)\]\s*(.+)$", re.MULTILINE)


# --- terms --------------------------------------------------------------------
def words(text: str) -> list[str]:
    return WORD_RE.findall(text.lower())


def key_terms(text: str) -> list[str]:
    """Content words: lower-cased, stopwords and one-letter words dropped, crude plural folding."""
    return [_fold(w) for w in words(text) if w not in STOPWORDS and len(w) > 1]


def _fold(word: str) -> str:
    """'policies' ~ 'policy', 'backups' ~ 'backup': enough stemming to match a question to a passage."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# --- embeddings -----------------------------------------------------------------
def hashed_embedding(text: str, dimensions: int = EMBED_DIMENSIONS) -> list[float]:
    """A deterministic, L2-normalised bag of hashed features.

    Key terms weigh most, adjacent term pairs add phrase sense, and character
    trigrams let related word forms ("encrypt", "encryption") share features.
    Same text → same vector on every machine (blake2b, not Python's hash()).
    """
    vector = [0.0] * dimensions
    terms = key_terms(text)
    features = [(t, 1.0) for t in terms]
    features += [(f"{a} {b}", 0.5) for a, b in zip(terms, terms[1:])]
    features += [(f"#{t[i : i + 3]}", 0.25) for t in terms for i in range(max(1, len(t) - 2))]
    for feature, weight in features:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dimensions
        sign = 1.0 if digest[4] & 1 else -1.0
        vector[index] += sign * weight
    return normalise(vector)


def normalise(vector: list[float]) -> list[float]:
    """Unit length; an all-zero vector (empty text) becomes a fixed unit vector so cosine stays defined."""
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0:
        return [1.0] + [0.0] * (len(vector) - 1)
    return [x / norm for x in vector]


# --- reading the prompt ------------------------------------------------------------
def last_user_message(messages: list[dict]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def system_message(messages: list[dict]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")


def parse_passages(text: str) -> dict[int, str]:
    """`[n] text` lines, each continuing until the next `[n]`, a blank line or a labelled line."""
    passages: dict[int, list[str]] = {}
    current = None
    for line in text.splitlines():
        match = PASSAGE_RE.match(line)
        if match:
            current = int(match.group(1))
            passages[current] = [match.group(2).strip()]
        elif current is not None and line.strip() and not _is_label(line):
            passages[current].append(line.strip())
        else:
            current = None
    return {n: " ".join(parts).strip() for n, parts in passages.items() if " ".join(parts).strip()}


def _is_label(line: str) -> bool:
    return bool(re.match(r"^\s*(Question|Answer|Evidence|Asks for|Follows up|Entry)\s*:", line))


def labelled_block(text: str, label: str) -> str:
    """The text after `Label:` up to the next passage, label or end of message."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = re.match(rf"^\s*{label}\s*:\s*(.*)$", line)
        if match:
            collected = [match.group(1)]
            for following in lines[i + 1 :]:
                if PASSAGE_RE.match(following) or _is_label(following):
                    break
                collected.append(following)
            return "\n".join(collected).strip()
    return ""


# --- answering ----------------------------------------------------------------------
def extractive_answer(
    question: "str | questions.Reading", passages: dict[int, str], chosen: list[tuple[int, str]] | None = None
) -> str:
    """The sentences that answer the question, part by part, each with its citation.

    `chosen`: the evidence the prompt carries ((passage number, sentence), chosen
    by meaning by the responder); without it the sentences are chosen here by
    their words alone (evidence.choose). None chosen means the passages do not
    answer the question, and the draft says so instead of quoting them.
    """
    if chosen is None:
        chosen = [(c.n, c.text) for c in evidence.choose(question, passages)]
    chosen = [(n, sentence) for n, sentence in chosen if n in passages]
    if not chosen:
        return NO_PASSAGE_ANSWER
    return grounding.cited_text(chosen)


def evidence_lines(text: str) -> list[tuple[int, str]] | None:
    """The `- [n] sentence` lines of the prompt's Evidence block, None when it has none."""
    if not re.search(r"^\s*Evidence\s*:", text, re.MULTILINE):
        return None
    return [(int(m.group(1)), m.group(2).strip()) for m in EVIDENCE_LINE.finditer(labelled_block(text, "Evidence"))]


def extractive_summary(text: str) -> str:
    """No passages and no question (e.g. "summarise this document"): the most central sentences."""
    candidates = grounding.sentences(" ".join(line.strip() for line in text.splitlines() if line.strip()))
    if not candidates:
        return ""
    frequency: dict[str, int] = {}
    for term in key_terms(text):
        frequency[term] = frequency.get(term, 0) + 1

    def centrality(sentence: str) -> float:
        terms = key_terms(sentence)
        return sum(frequency[t] for t in terms) / math.sqrt(len(terms)) if terms else 0.0

    chosen = sorted(range(len(candidates)), key=lambda i: centrality(candidates[i]), reverse=True)[
        :MAX_QUOTED_SENTENCES
    ]
    return " ".join(candidates[i] for i in sorted(chosen))


def review(question: "str | questions.Reading", answer: str, passages: dict[int, str]) -> dict:
    """Judge an answer against the question and the passages it cites; reasons for every finding.

    Three checks, the reviewer's rubric: the citations are real (each number
    is a given passage); each sentence is supported by the passage it cites
    (grounding.unsupported: its words, its figures, its negations); the answer
    addresses the question and each part of it that a passage answers
    (evidence.addressing_problems by words alone — this provider has no
    embedding model; the responder's reviewer adds the meaning).
    A fake citation or an answer to another question is rejected, an
    unsupported sentence needs revision.
    """
    if not grounding.cited_sentences(answer):
        return _verdict("rejected", 0.0, ["The answer is empty."])
    if answer.strip().startswith(NO_PASSAGE_ANSWER):
        return _verdict(
            "needs_revision", 0.0, ["The library has no supporting content: a subject-matter expert must answer."]
        )
    claims = grounding.cited_sentences(answer)
    reasons = []
    fake = sorted({n for _, numbers in claims for n in numbers if n not in passages})
    if fake:
        reasons.append("Cites " + ", ".join(f"[{n}]" for n in fake) + ", which is not among the passages.")
    unsupported = grounding.support_problems(claims, passages)
    addressing, addressing_reasons = evidence.addressing_problems(question, claims, passages)
    reasons += unsupported + addressing_reasons
    supported_share = 1 - len(unsupported) / len(claims)
    score = round(supported_share * ADDRESSING_FACTOR[addressing], 3)
    if fake or addressing == "rejected" or supported_share == 0:
        return _verdict("rejected", score, reasons)
    if reasons:
        return _verdict("needs_revision", score, reasons)
    return _verdict(
        "approved", score, ["Every sentence is supported by the passage it cites, and it addresses the question."]
    )


def _verdict(verdict: str, score: float, reasons: list[str]) -> dict:
    return {"verdict": verdict, "score": score, "reasons": reasons, "feedback": " ".join(reasons)}


def rerank(question: str, passages: dict[int, str]) -> dict:
    """Re-ranker mode: the passages ordered by how much of the question's subject they hold."""
    wanted = stems(question, subject_only=True)
    order = sorted(passages, key=lambda n: -grounding.coverage(wanted, passages[n]))
    return {"ranking": order}


def extractive_reply(messages: list[dict]) -> str:
    """The offline chat: a review (JSON), a cited extractive answer, or an extractive summary."""
    user_text = last_user_message(messages)
    passages = parse_passages(user_text)
    question = questions.read(labelled_block(user_text, "Question"), labelled_block(user_text, "Follows up"))
    if REVIEW_MARKER in system_message(messages):
        return json.dumps(review(question, labelled_block(user_text, "Answer"), passages))
    if RERANK_MARKER in system_message(messages):
        return json.dumps(rerank(question.text, passages))
    if JUDGE_MARKER in system_message(messages):
        return judge_entry(question.text, labelled_block(user_text, "Entry"))
    if question.text or passages:
        return extractive_answer(question if question.text else user_text, passages, evidence_lines(user_text))
    return extractive_summary(user_text)


def judge_entry(question: str, entry: str) -> str:
    """The offline judge, by words alone: "yes" when the entry holds every subject word of the question."""
    wanted = stems(question, subject_only=True)
    return "yes" if wanted and wanted <= stems(entry) else "no"


def token_usage(messages: list[dict], reply: str) -> dict:
    """Word counts stand in for tokens; good enough for the usage figures the UI shows."""
    prompt = sum(len(words(str(m.get("content") or ""))) for m in messages)
    completion = len(words(reply))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class OfflineProvider(Provider):
    """Runs in-process: no network, no limits needed, nothing to go down."""

    def list_models(self) -> list[ModelInfo]:
        return [
            ModelInfo(EMBED_MODEL, "embedding", context_window=None, embedding_dimensions=EMBED_DIMENSIONS),
            ModelInfo(CHAT_MODEL, "chat", context_window=CHAT_CONTEXT_WINDOW),
        ]

    def embed(self, model_name: str, texts: list[str], dimensions: int | None = None) -> list[list[float]]:
        return [hashed_embedding(text, dimensions or EMBED_DIMENSIONS) for text in texts]

    def chat(self, model_name: str, messages: list[dict], *, temperature: float, max_tokens: int | None) -> ChatResult:
        reply = extractive_reply(messages)
        return ChatResult(text=reply, model=model_name, usage=token_usage(messages, reply))
