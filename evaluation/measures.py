"""What `make eval` measures: each retrieval method, the drafts, and the reviewer on planted faults.

Every function runs against the configured database and the default models,
through the same services the application uses (search_passages,
generate_answer, judge); nothing here re-implements them.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field

from .dataset import EvalQuestion
from .facts import KeyFact, answers, load_key_facts, states
from .judged import ANSWERS
from .metrics import mean, ndcg_at, recall_at, reciprocal_rank
from .split import SPLITS

DEPTH = 10
OVERLAP_DEPTH = 10_000  # every passage of a question's relevant documents that holds a word
# Fabricated claims for the "unsupported sentence" fault: plausible in a
# questionnaire answer, present in no document of the set.
FABRICATED_CLAIMS = (
    "This control is certified under ISO 27001 and audited every quarter by an independent firm",
    "A dedicated operations team reviews it around the clock from three regional centres",
    "All of it is replicated to a second continent every five minutes at no extra cost",
    "Customers receive a signed monthly compliance report covering this area",
)


# --- retrieval -------------------------------------------------------------------------------
def retrieval_methods(model, baselines: bool = True) -> dict[str, callable]:
    """Name → function(question text) returning ranked chunk ids; the BM25 baseline first, the hybrid last.

    The lexical rankings do not depend on the embedding model: `baselines=False` leaves them out.
    """
    from solution_library.services.lexical import lexical_ranking, plain_terms, questionnaire_terms
    from solution_library.services.search import search_passages, vector_ranking

    methods = {}
    if baselines:
        methods["BM25 baseline (bm25 over passage text, question as written)"] = lambda q: [
            c for c, _ in lexical_ranking(plain_terms(q), DEPTH, model.pk, text_only=True)
        ]
        methods["Lexical only (title + heading + text, normalised question)"] = lambda q: [
            c for c, _ in lexical_ranking(questionnaire_terms(q), DEPTH, model.pk)
        ]
    methods[f"Vector only ({model.name})"] = lambda q: [c for c, _ in vector_ranking(q, model, DEPTH)]
    methods[f"Hybrid: search_passages() with {model.name} (RRF of lexical and vector)"] = lambda q: [
        p.chunk_id for p in search_passages(q, DEPTH)
    ]
    return methods


def offline_baseline_as_default():
    """The offline baseline's embedding model, made the default: the baseline is measured first."""
    from llm_manager import services
    from llm_manager.models import LLMApi, LLMModel

    model = LLMModel.objects.get(api__kind=LLMApi.KIND_OFFLINE, model_type=LLMModel.TYPE_EMBEDDING)
    services.make_default(model)
    return model


def local_embedding_model():
    """all-MiniLM-L6-v2 on a "local" API when its package is installed, else None."""
    from llm_manager import services
    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.providers.local import model_folder

    if model_folder("all-MiniLM-L6-v2") is None:
        return None
    api, _ = LLMApi.objects.get_or_create(name="Local models", defaults={"kind": LLMApi.KIND_LOCAL})
    services.validate_api(api.pk)
    return LLMModel.objects.get(api=api, name="all-MiniLM-L6-v2")


def reembed_library(model) -> dict:
    """The library re-embed job, run here: every document embedded with `model`, which becomes the default."""
    from solution_library.models import EmbedBatchJob
    from solution_library.services.documents import library_document_ids, run_embed_batch

    ids = library_document_ids()
    result = run_embed_batch(EmbedBatchJob.objects.create(document_ids=ids, total_items=len(ids), target_model=model))
    if not result.get("switched"):
        raise RuntimeError(f"re-embedding with {model.name} did not complete: {result}")
    return result


@dataclass
class RetrievalScore:
    recall_at_5: float
    mrr: float
    ndcg_at_10: float
    missed_at_5: list[str]  # ids of the questions with no relevant passage in the first five
    questions: int = 0
    hits_at_5: dict[str, bool] = field(default_factory=dict)  # question id → a relevant passage in the first five

    def recall_of(self, ids: set[str]) -> float:
        """recall@5 over some of this score's questions (a slice: the client-worded ones, the low-overlap ones)."""
        return mean([float(hit) for qid, hit in self.hits_at_5.items() if qid in ids])


def evaluate_retrieval(
    questions: list[EvalQuestion], document_names: dict[int, str], model, baselines: bool = True
) -> dict[str, dict[str, RetrievalScore]]:
    """{method: {split: score}} over the answerable questions, each ranked once."""
    from solution_library.models import Chunk

    chunk_documents = dict(Chunk.objects.filter(embedding_model=model).values_list("id", "document_id"))
    answerable = [q for q in questions if q.answerable]
    scores = {}
    for name, rank in retrieval_methods(model, baselines).items():
        ranked = {q.id: [document_names.get(chunk_documents.get(c), "") for c in rank(q.text)] for q in answerable}
        scores[name] = {
            split: _retrieval_score([q for q in answerable if q.split == split], ranked) for split in SPLITS
        }
    return scores


def _retrieval_score(questions: list[EvalQuestion], ranked: dict[str, list[str]]) -> RetrievalScore:
    recalls = [recall_at(ranked[q.id], q.relevant, 5) for q in questions]
    return RetrievalScore(
        mean(recalls),
        mean([reciprocal_rank(ranked[q.id], q.relevant, DEPTH) for q in questions]),
        mean([ndcg_at(ranked[q.id], q.relevant, DEPTH) for q in questions]),
        [q.id for q, hit in zip(questions, recalls, strict=True) if not hit],
        len(questions),
        {q.id: bool(hit) for q, hit in zip(questions, recalls, strict=True)},
    )


def word_overlap(questions: list[EvalQuestion], document_names: dict[int, str], model) -> dict[str, float]:
    """{question id: share of its words found in the one passage of a relevant document that holds the most}.

    A question copied from its answer scores near 1 and is found by any word match; a client's wording
    ("How quickly will you tell us about a breach?") scores low. The words are the BM25 baseline's query
    (plain_terms), matched by the database's full-text engine (stemmed) in the passage text alone.
    """
    from solution_library.services.lexical import lexical_ranking, plain_terms

    document_ids = {name: document_id for document_id, name in document_names.items()}
    overlap = {}
    for question in (q for q in questions if q.answerable):
        terms = plain_terms(question.text)
        relevant = [document_ids[name] for name in question.relevant if name in document_ids]
        held = defaultdict(int)  # chunk → how many of the question's words it holds
        for term in terms:
            for chunk_id, _ in lexical_ranking([term], OVERLAP_DEPTH, model.pk, relevant, text_only=True):
                held[chunk_id] += 1
        overlap[question.id] = max(held.values(), default=0) / len(terms) if terms else 0.0
    return overlap


# --- drafts ------------------------------------------------------------------------------------
@dataclass
class Draft:
    question: EvalQuestion
    text: str
    passages: list[dict]
    needs_expert: bool
    confidence: float
    evidence: float
    cites_relevant: bool = False
    verdict: str = ""
    reviewed_confidence: float = 0.0
    meaning_evidence: float | None = None  # the evidence gate's score (answering.meaning_evidence)
    sentences: int = 0  # cited sentences
    sentences_elsewhere: int = 0  # of them, those citing no document the question lists: another subject, padding
    offered: list[str] = field(default_factory=list)  # the sentences the answer editor offers beside it (may_answer)


def question_rows(questions: list[EvalQuestion], user) -> dict:
    """{question id: the Question row} in the evaluation's RFP, made or updated: what the services are handed."""
    from rfp_manager.models import RFP, Question

    rfp, _ = RFP.objects.get_or_create(name="Evaluation", owner=user)
    return {
        item.id: Question.objects.update_or_create(
            rfp=rfp, import_key=item.id, defaults={"number": item.id, "text": item.text, "order": order}
        )[0]
        for order, item in enumerate(questions)
    }


def draft_answers(questions: list[EvalQuestion], document_names: dict[int, str], chat_model, user) -> list[Draft]:
    """Every question answered by the responder service, as in an RFP's batch job."""
    from rfp_manager.services.answering import gate_passages, generate_answer, meaning_evidence

    rows = question_rows(questions, user)
    drafts = []
    for item in questions:
        answer = generate_answer(rows[item.id], model=chat_model)
        cited = [p for p in answer.citations if p["cited"]]
        sentences, elsewhere = (
            (0, 0)
            if answer.needs_expert
            else quoted_elsewhere(answer.draft_text, answer.citations, document_names, item.relevant)
        )
        drafts.append(
            Draft(
                item,
                answer.draft_text,
                answer.citations,
                answer.needs_expert,
                answer.confidence,
                answer.evidence,
                cites_relevant=any(document_names.get(p["document_id"]) in item.relevant for p in cited),
                meaning_evidence=meaning_evidence(item.text, gate_passages(answer.citations))
                if answer.library_entry_id is None
                else None,
                sentences=sentences,
                sentences_elsewhere=elsewhere,
                offered=[item["text"] for item in answer.may_answer],
            )
        )
    return drafts


def quoted_elsewhere(
    text: str, citations: list[dict], document_names: dict[int, str], relevant: frozenset[str]
) -> tuple[int, int]:
    """(a draft's cited sentences, those citing no document in `relevant`): what it quotes from elsewhere."""
    from llm_manager.providers import grounding

    documents = {p["n"]: document_names.get(p["document_id"]) for p in citations}
    cited = [{documents.get(n) for n in numbers} for _, numbers in grounding.cited_sentences(text) if numbers]
    return len(cited), sum(not sources & relevant for sources in cited)


@dataclass
class DraftScore:
    flagged: int
    flagged_correctly: int
    unanswerable: int
    answerable: int
    grounded_in_relevant: int
    near_misses: int = 0
    near_misses_flagged: int = 0
    # answerable questions' drafts citing a relevant document: their sentences, and those quoting another document
    sentences: int = 0
    sentences_elsewhere: int = 0
    padded: int = 0  # such drafts with at least one sentence quoting another document

    @property
    def no_support_precision(self) -> float:
        return self.flagged_correctly / self.flagged if self.flagged else 0.0

    @property
    def no_support_recall(self) -> float:
        return self.flagged_correctly / self.unanswerable if self.unanswerable else 0.0


def score_drafts(drafts: list[Draft], split: str | None = None) -> DraftScore:
    """How the "no supporting content" flag sorts the drafts (of one split, or all)."""
    drafts = [d for d in drafts if split is None or d.question.split == split]
    flagged = [d for d in drafts if d.needs_expert]
    grounded = [d for d in drafts if d.question.answerable and not d.needs_expert and d.cites_relevant]
    return DraftScore(
        flagged=len(flagged),
        flagged_correctly=sum(not d.question.answerable for d in flagged),
        unanswerable=sum(not d.question.answerable for d in drafts),
        answerable=sum(d.question.answerable for d in drafts),
        grounded_in_relevant=len(grounded),
        near_misses=sum(d.question.kind == "near_miss" for d in drafts),
        near_misses_flagged=sum(d.question.kind == "near_miss" for d in flagged),
        sentences=sum(d.sentences for d in grounded),
        sentences_elsewhere=sum(d.sentences_elsewhere for d in grounded),
        padded=sum(d.sentences_elsewhere > 0 for d in grounded),
    )


@dataclass
class KeyFactScore:
    """Of a split's answerable questions with key facts (key_facts/), how many drafts state every one of them,
    and where the others lose it: in the retrieved passages or not, in one quotable sentence of them or not."""

    questions: int
    stated: int
    no_support: int  # drafted as "no supporting content": states nothing
    missed: list[str] = field(default_factory=list)  # ids of the questions whose draft does not state them
    in_passages: int = 0  # the retrieved passages, read together, state every key fact
    in_a_sentence: int = 0  # each key fact is stated by one sentence the responder could quote (evidence.candidates)

    @property
    def rate(self) -> float:
        return self.stated / self.questions if self.questions else 0.0


def score_key_facts(drafts: list[Draft], split: str, facts: dict[str, list[KeyFact]] | None = None) -> KeyFactScore:
    """Which drafts of one split state their question's key facts (facts.answers); `facts` defaults to the file."""
    facts = load_key_facts(split) if facts is None else facts
    scored = [d for d in drafts if d.question.split == split and d.question.id in facts]
    stated = {d.question.id for d in scored if not d.needs_expert and answers(d.text, facts[d.question.id])}
    return KeyFactScore(
        questions=len(scored),
        stated=len(stated),
        no_support=sum(d.needs_expert for d in scored),
        missed=[d.question.id for d in scored if d.question.id not in stated],
        in_passages=sum(answers(" ".join(p["text"] for p in d.passages), facts[d.question.id]) for d in scored),
        in_a_sentence=sum(_each_fact_in_one_sentence(d, facts[d.question.id]) for d in scored),
    )


def _each_fact_in_one_sentence(draft: Draft, facts: list[KeyFact]) -> bool:
    """Whether every fact is stated by one sentence (under its heading) that the responder could have quoted:
    the most an extractive draft of these passages can state, sentence by sentence."""
    from llm_manager.providers.evidence import candidates

    found = candidates({n: p["text"] for n, p in enumerate(draft.passages)})
    return bool(facts) and all(any(states(c.in_context, fact) for c in found) for fact in facts)


@dataclass
class TeamView:
    """What a team sees of one split's drafts after review, counted as the owners' held-out check counts it
    (issue 33's table): drafts holding the answer, and how many wrong drafts the reviewer lets through."""

    answerable: int  # answerable questions with key facts
    holding_answer: int  # their drafts that state every key fact
    holding_answer_approved: int
    # their drafts that, with the sentences the editor offers beside them, state every key fact: a click away
    within_reach: int
    wrong_document: int  # answerable questions drafted citing no document that answers them
    wrong_document_approved: int
    without_answer: int  # answerable questions drafted without stating the key fact
    without_answer_approved: int
    no_answer: int  # near misses: on the library's topics, not answered by it
    no_answer_approved: int

    @property
    def holding_answer_rate(self) -> float:
        return self.holding_answer / self.answerable if self.answerable else 0.0

    @property
    def wrong_document_approved_rate(self) -> float:
        return self.wrong_document_approved / self.wrong_document if self.wrong_document else 0.0

    @property
    def no_answer_not_approved(self) -> int:
        return self.no_answer - self.no_answer_approved

    @property
    def no_answer_not_approved_rate(self) -> float:
        return self.no_answer_not_approved / self.no_answer if self.no_answer else 0.0


def team_view(drafts: list[Draft], split: str, facts: dict[str, list[KeyFact]] | None = None) -> TeamView:
    """The drafts of one split as the team reads them after review (each draft's `verdict` set by
    evaluate_reviewer); a "no supporting content" draft is never approved."""
    facts = load_key_facts(split) if facts is None else facts
    mine = [d for d in drafts if d.question.split == split]
    answerable = [d for d in mine if d.question.answerable and d.question.id in facts]
    drafted = [d for d in answerable if not d.needs_expert]
    holding = {d.question.id for d in drafted if answers(d.text, facts[d.question.id])}
    holding_answer = [d for d in drafted if d.question.id in holding]
    within_reach = [d for d in answerable if answers(" ".join((_shown(d), *d.offered)), facts[d.question.id])]
    wrong_document = [d for d in drafted if not d.cites_relevant]
    without_answer = [d for d in drafted if d.question.id not in holding]
    no_answer = [d for d in mine if d.question.kind == "near_miss"]

    def approved(group: list[Draft]) -> int:
        return sum(not d.needs_expert and d.verdict == "approved" for d in group)

    return TeamView(
        answerable=len(answerable),
        holding_answer=len(holding),
        holding_answer_approved=approved(holding_answer),
        within_reach=len(within_reach),
        wrong_document=len(wrong_document),
        wrong_document_approved=approved(wrong_document),
        without_answer=len(without_answer),
        without_answer_approved=approved(without_answer),
        no_answer=len(no_answer),
        no_answer_approved=approved(no_answer),
    )


def _shown(draft: Draft) -> str:
    """The draft's text as the team reads it: "no supporting content" states nothing."""
    return "" if draft.needs_expert else draft.text


# The evidence gate's thresholds the sweep tries (answering.MEANING_EVIDENCE_THRESHOLDS is chosen from it, on dev).
EVIDENCE_SWEEP = (0.0, 0.05, 0.08, 0.10, 0.12, 0.15, 0.20, 0.25)


@dataclass
class GateRow:
    threshold: float
    near_misses: int  # near-miss questions whose score is below the threshold
    answerable: int  # answerable questions whose score is below it: drafts lost to "no supporting content"
    off_topic: int

    @property
    def precision(self) -> float:
        """Among the answerable and near-miss questions the gate alone flags, the share of near misses."""
        flagged = self.near_misses + self.answerable
        return self.near_misses / flagged if flagged else 0.0


def evidence_sweep(drafts: list[Draft], split: str, thresholds=EVIDENCE_SWEEP) -> list[GateRow]:
    """What the evidence gate alone would flag at each threshold, on one split (the other checks left out)."""
    scored = [d for d in drafts if d.question.split == split and d.meaning_evidence is not None]

    def below(kind: str, threshold: float) -> int:
        return sum(d.question.kind == kind and d.meaning_evidence < threshold for d in scored)

    return [GateRow(t, below("near_miss", t), below("answerable", t), below("off_topic", t)) for t in thresholds]


# --- the reviewer --------------------------------------------------------------------------------
# Every fault is built from the evaluation set and the library's own rows, never with the reviewer's code
# (judge, grounding.support): a fault chosen with the reviewer's own measure is caught by construction.
NEIGHBOUR = "a neighbouring question's correct answer (same topic)"
CHANGED = "one changed figure or a negation"
SWAPPED = "a citation swapped to a real passage of another topic"
WRITTEN = "a hand-written plausible but wrong answer"
FABRICATED = "a fabricated sentence citing a real passage"
FAULT_KINDS = (NEIGHBOUR, CHANGED, SWAPPED, WRITTEN, FABRICATED)
CITATIONS = re.compile(r"(\s*\[\d{1,3}\])+")
FIGURE = re.compile(r"\d+")
# A verb to negate, not one already contracted ("can't", "doesn't"); an existing " not" is removed instead.
NEGATABLE = re.compile(
    r"\b(is|are|was|were|can|should|must|will|does|do|may|shall)\b(?!['’]|n['’]t)( not\b)?", re.IGNORECASE
)
WORD = re.compile(r"[a-z]{4,}")


@dataclass
class ReviewerScore:
    correct_judged: int = 0
    correct_approved: int = 0
    faults: dict[str, list[bool]] = field(default_factory=lambda: {kind: [] for kind in FAULT_KINDS})

    @property
    def approval_rate(self) -> float:
        return self.correct_approved / self.correct_judged if self.correct_judged else 0.0

    @property
    def planted(self) -> int:
        return sum(len(v) for v in self.faults.values())

    @property
    def caught(self) -> int:
        return sum(sum(v) for v in self.faults.values())

    @property
    def detection_rate(self) -> float:
        return self.caught / self.planted if self.planted else 0.0

    def rate(self, kind: str) -> float:
        return mean([float(c) for c in self.faults[kind]])


def evaluate_reviewer(
    drafts: list[Draft], document_names: dict[int, str], embedding_model, chat_model, user
) -> dict[str, ReviewerScore]:
    """The reviewer on every draft (for confidence after review), and on faults planted beside each correct one.

    {split: score}: a correct draft and its faults count in the draft's question's split.
    """
    from rfp_manager.models import RFP, Question
    from rfp_manager.services.answering import judge, reviewed_confidence

    rfp, _ = RFP.objects.get_or_create(name="Evaluation", owner=user)
    questions = {q.number: q for q in Question.objects.filter(rfp=rfp)}
    for draft in drafts:
        if not draft.needs_expert:
            row = questions[draft.question.id]
            draft.verdict = judge(row, draft.text, draft.passages, model=chat_model)["verdict"]
            draft.reviewed_confidence = reviewed_confidence(row, draft.text, draft.evidence, draft.verdict)
    correct = [d for d in drafts if d.question.answerable and not d.needs_expert and d.cites_relevant]
    other_topics = OtherTopicPassages([d.question for d in drafts], document_names, embedding_model)
    scores = {split: ReviewerScore() for split in SPLITS}
    for index, draft in enumerate(correct):
        score = scores[draft.question.split]
        score.correct_judged += 1
        score.correct_approved += draft.verdict == "approved"
        for kind, (text, passages) in planted_faults(draft, correct, index, other_topics).items():
            caught = judge(questions[draft.question.id], text, passages, model=chat_model)["verdict"] != "approved"
            score.faults[kind].append(caught)
    return scores


def planted_faults(
    draft: Draft, correct: list[Draft], index: int, other_topics: "OtherTopicPassages"
) -> dict[str, tuple[str, list[dict]]]:
    """Faulty answers to a correctly drafted question: (answer text, the passages the reviewer is shown) per kind."""
    faults = {}
    neighbour = _neighbour(draft, correct, index)
    if neighbour is not None:
        faults[NEIGHBOUR] = (neighbour.text, neighbour.passages)
    changed = changed_figure_or_negation(draft.text)
    if changed is not None:
        faults[CHANGED] = (changed, draft.passages)
    swapped = other_topics.swap_first_citation(draft)
    if swapped is not None:
        faults[SWAPPED] = swapped
    first_cited = next(p["n"] for p in draft.passages if p["cited"])
    if draft.question.wrong_answer:
        faults[WRITTEN] = (f"{draft.question.wrong_answer.rstrip(' .')} [{first_cited}].", draft.passages)
    claim = FABRICATED_CLAIMS[index % len(FABRICATED_CLAIMS)]
    faults[FABRICATED] = (f"{draft.text} {claim} [{first_cited}].", draft.passages)
    return faults


def _neighbour(draft: Draft, correct: list[Draft], index: int) -> Draft | None:
    """The next correct draft on the same topic answering from other documents: right words, wrong question."""
    for offset in range(1, len(correct)):
        other = correct[(index + offset) % len(correct)]
        if other.question.topic == draft.question.topic and other.question.relevant != draft.question.relevant:
            return other
    return None


def changed_figure_or_negation(text: str) -> str | None:
    """The text with its first figure changed (15 → 30), else its first negatable verb flipped; None if neither."""
    for match in FIGURE.finditer(text):
        in_citation = text[match.start() - 1 : match.start()] == "[" and text[match.end() : match.end() + 1] == "]"
        if not in_citation:
            value = int(match.group())
            return f"{text[: match.start()]}{value * 2 if value >= 2 else value + 2}{text[match.end() :]}"
    match = NEGATABLE.search(text)
    if match is None:
        return None
    verb, negated = match.group(1), match.group(2)
    if negated:
        flipped = verb
    elif verb.lower() == "can":
        flipped = verb + "not"
    else:
        flipped = verb + (" NOT" if verb.isupper() else " not")
    return f"{text[: match.start()]}{flipped}{text[match.end() :]}"


class OtherTopicPassages:
    """The library's passages by document, and which topics each document answers questions on.

    A passage of a document that answers no question on a question's topic (and is not one of its relevant
    documents) cannot support an answer to it: citing one is a wrong citation, whatever the reviewer measures.
    """

    def __init__(self, questions: list[EvalQuestion], document_names: dict[int, str], embedding_model):
        from solution_library.models import Chunk

        self.topics = defaultdict(set)  # document name → topics of the questions it answers
        for question in questions:
            for name in question.relevant:
                self.topics[name].add(question.topic)
        rows = (
            Chunk.objects.filter(document_id__in=document_names, embedding_model=embedding_model)
            .order_by("id")
            .values("id", "document_id", "title", "heading", "text")
        )
        self.passages = [
            (document_names[row["document_id"]], row, set(WORD.findall(row["text"].lower()))) for row in rows
        ]

    def swap_first_citation(self, draft: Draft) -> tuple[str, list[dict]] | None:
        """The draft with its first sentence's citation moved to the most word-alike passage of another topic."""
        marker = CITATIONS.search(draft.text)
        if marker is None:
            return None
        sentence = draft.text[: marker.start()].rsplit(". ", 1)[-1]
        words = set(WORD.findall(sentence.lower()))
        candidates = [
            (len(words & passage_words), -row["id"], row)
            for name, row, passage_words in self.passages
            if name not in draft.question.relevant and draft.question.topic not in self.topics[name]
        ]
        if not candidates:
            return None
        row = max(candidates, key=lambda c: c[:2])[2]
        n = max(p["n"] for p in draft.passages) + 1
        passage = {
            "n": n,
            "chunk_id": row["id"],
            "document_id": row["document_id"],
            "document_title": row["title"],
            "heading": row["heading"],
            "text": row["text"],
            "score": 0.0,
            "cited": True,
        }
        space = " " if marker.group().startswith(" ") else ""
        return f"{draft.text[: marker.start()]}{space}[{n}]{draft.text[marker.end() :]}", [*draft.passages, passage]


# --- the reviewer on the judged drafts -----------------------------------------------------------
# Real drafts of the product, stored as fixed texts and labelled by reading (evaluation/judged.py, judged/GUIDE.md):
# what the planted faults cannot say — does the reviewer approve answers, and flag true sentences that do not answer?
RELIABILITY_BINS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01))


@dataclass(frozen=True)
class JudgedVerdict:
    split: str
    label: str
    approved: bool  # the reviewer's verdict is "approved" on a drafted answer
    # What the RFP page shows after review (answering.reviewed_confidence); 0 for "no supporting content".
    confidence: float
    # The raw scores it is read from, by kind of map (calibration.EVIDENCE, WORD_MATCH): what evaluation.calibrate
    # fits the map on. A kind the embedding model cannot give is missing; 0 for "no supporting content".
    raw: dict[str, float] = field(default_factory=dict)
    question: str = ""  # its question's id: evaluation.calibrate keeps a question's drafts in one fold


@dataclass
class JudgedScore:
    verdicts: list[JudgedVerdict] = field(default_factory=list)

    def _count(self, label: str | None = None, approved: bool | None = None) -> int:
        return sum(
            (label is None or v.label == label) and (approved is None or v.approved == approved) for v in self.verdicts
        )

    @property
    def approved(self) -> int:
        return self._count(approved=True)

    @property
    def approved_answers(self) -> int:
        return self._count(ANSWERS, approved=True)

    @property
    def approved_precision(self) -> float:
        """Of the drafts the reviewer approves, the share labelled `answers`."""
        return self.approved_answers / self.approved if self.approved else 0.0

    def labelled(self, label: str) -> int:
        return self._count(label)

    def flagged(self, label: str) -> int:
        """Drafts with this label that the reviewer does not approve."""
        return self._count(label, approved=False)

    def flag_rate(self, label: str) -> float:
        return self.flagged(label) / self.labelled(label) if self.labelled(label) else 0.0

    @property
    def confidence_auc(self) -> float:
        """How well the confidence shown sorts the drafts labelled `answers` above the others: the chance that an
        answer drawn at random shows more than another draft (an even tie counts half); 0.5 sorts nothing."""
        answers = [v.confidence for v in self.verdicts if v.label == ANSWERS]
        others = [v.confidence for v in self.verdicts if v.label != ANSWERS]
        if not answers or not others:
            return 0.0
        above = sum((a > o) + 0.5 * (a == o) for a in answers for o in others)
        return above / (len(answers) * len(others))


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    drafts: int
    answers: int
    mean_confidence: float

    @property
    def share_answers(self) -> float:
        return self.answers / self.drafts if self.drafts else 0.0


def judge_stored_drafts(judged: list, questions: list[EvalQuestion], chat_model, user) -> list[JudgedVerdict]:
    """The product's reviewer (answering.judge) on each stored draft text and its stored passages.

    A "no supporting content" draft is flagged for an expert by the product itself before any review
    (confidence 0), as evaluate_reviewer leaves it unjudged: it counts as not approved.
    """
    from rfp_manager.services import calibration
    from rfp_manager.services.answering import judge, raw_confidence, raw_review_score

    rows = question_rows(questions, user)
    verdicts = []
    for draft in judged:
        approved, shown, raw = False, 0.0, dict.fromkeys(calibration.KINDS, 0.0)
        if not draft.needs_expert:
            row = rows[draft.question_id]
            verdict = judge(row, draft.text, list(draft.passages), model=chat_model)["verdict"]
            score, kind = raw_review_score(row, draft.text, draft.evidence, verdict)  # what reviewed_confidence reads
            raw = {calibration.EVIDENCE: raw_confidence(draft.evidence, verdict), kind: score}
            approved, shown = verdict == "approved", calibration.calibrated(score, kind)
        verdicts.append(JudgedVerdict(draft.split, draft.label, approved, shown, raw, draft.question_id))
    return verdicts


def score_judged(verdicts: list[JudgedVerdict]) -> dict[str, JudgedScore]:
    """{split: score} of the reviewer's verdicts on the judged drafts."""
    return {split: JudgedScore([v for v in verdicts if v.split == split]) for split in SPLITS}


def reliability(verdicts: list[JudgedVerdict], bins=RELIABILITY_BINS) -> list[ReliabilityBin]:
    """Confidence bins against the share of their drafts labelled `answers`: a calibrated confidence sits on it."""
    rows = []
    for low, high in bins:
        inside = [v for v in verdicts if low <= v.confidence < high]
        rows.append(
            ReliabilityBin(
                low,
                min(high, 1.0),
                len(inside),
                sum(v.label == ANSWERS for v in inside),
                mean([v.confidence for v in inside]),
            )
        )
    return rows
