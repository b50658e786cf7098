"""What `make eval` measures: each retrieval method, the drafts, and the reviewer on planted faults.

Every function runs against the configured database and the default models,
through the same services the application uses (search_passages,
generate_answer, judge); nothing here re-implements them.
"""
from dataclasses import dataclass, field

from .dataset import EvalQuestion
from .metrics import mean, ndcg_at, recall_at, reciprocal_rank

DEPTH = 10
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


def evaluate_retrieval(
    questions: list[EvalQuestion], document_names: dict[int, str], model, baselines: bool = True
) -> dict[str, RetrievalScore]:
    from solution_library.models import Chunk

    chunk_documents = dict(Chunk.objects.filter(embedding_model=model).values_list("id", "document_id"))
    answerable = [q for q in questions if q.answerable]
    scores = {}
    for name, rank in retrieval_methods(model, baselines).items():
        recalls, rrs, ndcgs = [], [], []
        for question in answerable:
            ranked = [document_names.get(chunk_documents.get(c), "") for c in rank(question.text)]
            recalls.append(recall_at(ranked, question.relevant, 5))
            rrs.append(reciprocal_rank(ranked, question.relevant, DEPTH))
            ndcgs.append(ndcg_at(ranked, question.relevant, DEPTH))
        missed = [q.id for q, hit in zip(answerable, recalls, strict=True) if not hit]
        scores[name] = RetrievalScore(mean(recalls), mean(rrs), mean(ndcgs), missed)
    return scores


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


def draft_answers(questions: list[EvalQuestion], document_names: dict[int, str], chat_model, user) -> list[Draft]:
    """Every question answered by the responder service, as in an RFP's batch job."""
    from rfp_manager.models import RFP, Question
    from rfp_manager.services.answering import generate_answer

    rfp, _ = RFP.objects.get_or_create(name="Evaluation", owner=user)
    drafts = []
    for order, item in enumerate(questions):
        question, _ = Question.objects.update_or_create(
            rfp=rfp, import_key=item.id, defaults={"number": item.id, "text": item.text, "order": order}
        )
        answer = generate_answer(question, model=chat_model)
        cited = [p for p in answer.citations if p["cited"]]
        drafts.append(Draft(
            item, answer.draft_text, answer.citations, answer.needs_expert, answer.confidence, answer.evidence,
            cites_relevant=any(document_names.get(p["document_id"]) in item.relevant for p in cited),
        ))
    return drafts


@dataclass
class DraftScore:
    flagged: int
    flagged_correctly: int
    unanswerable: int
    answerable: int
    grounded_in_relevant: int

    @property
    def no_support_precision(self) -> float:
        return self.flagged_correctly / self.flagged if self.flagged else 0.0

    @property
    def no_support_recall(self) -> float:
        return self.flagged_correctly / self.unanswerable if self.unanswerable else 0.0


def score_drafts(drafts: list[Draft]) -> DraftScore:
    flagged = [d for d in drafts if d.needs_expert]
    return DraftScore(
        flagged=len(flagged),
        flagged_correctly=sum(not d.question.answerable for d in flagged),
        unanswerable=sum(not d.question.answerable for d in drafts),
        answerable=sum(d.question.answerable for d in drafts),
        grounded_in_relevant=sum(d.question.answerable and not d.needs_expert and d.cites_relevant for d in drafts),
    )


# --- the reviewer --------------------------------------------------------------------------------
@dataclass
class ReviewerScore:
    correct_judged: int = 0
    correct_approved: int = 0
    faults: dict[str, list[bool]] = field(default_factory=dict)  # kind → caught per planted fault

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


def evaluate_reviewer(drafts: list[Draft], chat_model, user) -> ReviewerScore:
    """The reviewer on every draft (for confidence after review), and on three faults planted into each correct one."""
    from rfp_manager.models import RFP, Question
    from rfp_manager.services.answering import confidence, judge

    rfp, _ = RFP.objects.get_or_create(name="Evaluation", owner=user)
    questions = {q.number: q for q in Question.objects.filter(rfp=rfp)}
    for draft in drafts:
        if not draft.needs_expert:
            draft.verdict = judge(questions[draft.question.id], draft.text, draft.passages, model=chat_model)["verdict"]
            draft.reviewed_confidence = confidence(draft.evidence, draft.verdict)
    correct = [d for d in drafts if d.question.answerable and not d.needs_expert and d.cites_relevant]
    score = ReviewerScore(faults={"answer from an unrelated passage": [], "sentence with no support": [],
                                  "citation of the wrong passage": []})
    for index, draft in enumerate(correct):
        score.correct_judged += 1
        score.correct_approved += draft.verdict == "approved"
        for kind, (text, passages) in planted_faults(draft, correct, index).items():
            caught = judge(questions[draft.question.id], text, passages, model=chat_model)["verdict"] != "approved"
            score.faults[kind].append(caught)
    return score


def planted_faults(draft: Draft, correct: list[Draft], index: int) -> dict[str, tuple[str, list[dict]]]:
    """Faulty versions of a correct draft: (answer text, the passages the reviewer is shown) per kind."""
    from llm_manager.providers import grounding

    faults = {}
    other = _unrelated_draft(draft, correct, index)
    if other is not None:
        faults["answer from an unrelated passage"] = (other.text, other.passages)
    cited = [p["n"] for p in draft.passages if p["cited"]]
    claim = FABRICATED_CLAIMS[index % len(FABRICATED_CLAIMS)]
    faults["sentence with no support"] = (f"{draft.text} {claim} [{cited[0]}].", draft.passages)
    wrong = _wrong_citation(draft, grounding)
    if wrong is not None:
        faults["citation of the wrong passage"] = (wrong, draft.passages)
    return faults


def _unrelated_draft(draft: Draft, correct: list[Draft], index: int) -> Draft | None:
    """The next correct draft about other documents: a responder that retrieved the wrong passages."""
    for offset in range(1, len(correct)):
        other = correct[(index + offset) % len(correct)]
        if not other.question.relevant & draft.question.relevant:
            return other
    return None


def _wrong_citation(draft: Draft, grounding) -> str | None:
    """The draft with each citation moved to a retrieved passage that does not support its sentence."""
    texts = {p["n"]: p["text"] for p in draft.passages}
    sentences = []
    for sentence, numbers in grounding.cited_sentences(draft.text):
        wrong = next(
            (n for n in texts if n not in numbers and grounding.support(sentence, [texts[n]]) < 0.5), None
        )
        if wrong is None:
            return None
        sentences.append(f"{sentence.rstrip(' .')} [{wrong}].")
    return " ".join(sentences)
