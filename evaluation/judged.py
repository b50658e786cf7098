"""The judged set: drafts the product really made, stored as fixed texts and labelled by reading (issue 33).

    .venv/bin/python -m evaluation.judged dump     # (re)make judged/drafts.json from the product at HEAD
    .venv/bin/python -m evaluation.judged dump-current   # judged/current/drafts.json: all-MiniLM-L6-v2 drafts at HEAD
    .venv/bin/python -m evaluation.judged review   # only the reviewer's figures on the judged drafts (no drafting)

judged/GUIDE.md says how the drafts were read and labelled; judged/labels.json
holds one label per stored draft ({key: {"label", "why"}}). The drafts are made
exactly as `make eval` makes them (evaluation/run.py: a fresh SQLite database
in a temporary folder, the library ingested, `generate_answer` per question
through measures.draft_answers) with two embedding models, the two `make eval`
runs: the offline baseline (offline-embed-v1), and the real small model
all-MiniLM-L6-v2 after the library re-embed job. Every all-MiniLM-L6-v2 draft
is kept; an offline-embed-v1 draft only when its text differs from that
question's all-MiniLM-L6-v2 draft.

The reviewer is later scored on these stored texts and passages as they are
(measures.evaluate_judged): a change to drafting needs no new labels, and a
re-dump would need new ones — so dump once, label, and leave both alone.

judged/current/ is a second sample, dumped and labelled the same way much later
(its commit is in judged/GUIDE.md): the drafts the product makes after the
drafting changes, all-MiniLM-L6-v2 only (a fresh install's model). The first
sample is kept as it is; make eval reports the reviewer on each sample apart.
"""

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent / "judged"
DRAFTS = HERE / "drafts.json"
LABELS = HERE / "labels.json"
CURRENT = HERE / "current"  # the second sample: its drafts.json and labels.json
ANSWERS, PARTLY, DOES_NOT_ANSWER, NO_ANSWER_IN_LIBRARY = "answers", "partly", "does_not_answer", "no_answer_in_library"
LABEL_NAMES = (ANSWERS, PARTLY, DOES_NOT_ANSWER, NO_ANSWER_IN_LIBRARY)
OFFLINE, LOCAL = "offline-embed-v1", "all-MiniLM-L6-v2"
VARIANT_KEYS = {OFFLINE: "offline", LOCAL: "minilm"}


@dataclass(frozen=True)
class JudgedDraft:
    """One stored draft and its label: what the reviewer is shown, and what a careful reader said of it."""

    key: str
    question_id: str
    split: str
    variant: str
    text: str
    needs_expert: bool
    evidence: float
    passages: tuple[dict, ...]  # as the product stores an answer's citations: n, text, cited, document …
    label: str


def load_judged(drafts_path: Path = DRAFTS, labels_path: Path = LABELS) -> list[JudgedDraft]:
    """The labelled drafts (a draft without a label is left out), in the stored order."""
    labels = json.loads(labels_path.read_text())
    judged = []
    for row in json.loads(drafts_path.read_text()):
        if row["key"] not in labels:
            continue
        label = labels[row["key"]]["label"]
        if label not in LABEL_NAMES:
            raise ValueError(f"{row['key']}: unknown label {label!r}")
        judged.append(
            JudgedDraft(
                row["key"],
                row["question_id"],
                row["split"],
                row["variant"],
                row["text"],
                row["needs_expert"],
                row["evidence"],
                tuple(row["citations"]),
                label,
            )
        )
    return judged


def current_sample() -> tuple[Path, Path]:
    """The second sample's drafts and labels files (judged/current/)."""
    return CURRENT / DRAFTS.name, CURRENT / LABELS.name


def stored_draft(draft, variant: str, document_names: dict[int, str]) -> dict:
    """A measures.Draft as a fixed record: everything the reviewer reads, and the names a person reads it by."""
    return {
        "key": f"{draft.question.id}:{VARIANT_KEYS[variant]}",
        "question_id": draft.question.id,
        "split": draft.question.split,
        "variant": variant,
        "text": draft.text,
        "needs_expert": draft.needs_expert,
        "evidence": draft.evidence,
        "citations": [
            {
                "n": p["n"],
                "document": document_names.get(p["document_id"], ""),
                "document_title": p["document_title"],
                "heading": p.get("heading", ""),
                "text": p["text"],
                "cited": p["cited"],
            }
            for p in draft.passages
        ],
    }


def kept_drafts(offline: list[dict], local: list[dict]) -> list[dict]:
    """Every all-MiniLM-L6-v2 draft, and each offline-embed-v1 draft whose text differs from it; by question."""
    local_text = {row["question_id"]: row["text"] for row in local}
    differing = [row for row in offline if row["text"] != local_text.get(row["question_id"])]
    order = {row["question_id"]: i for i, row in enumerate(local)}
    return sorted(local + differing, key=lambda row: (order.get(row["question_id"], len(order)), row["variant"]))


def dump(into: Path = HERE, offline_too: bool = True) -> list[dict]:
    """Both `make eval` runs' drafts of every question (or the all-MiniLM-L6-v2 run's only), made here by the
    product, stored in `into`/drafts.json."""
    from django.contrib.auth import get_user_model

    from llm_manager.services import get_default_model

    from .dataset import document_paths, ingest, load_questions
    from .measures import draft_answers, local_embedding_model, offline_baseline_as_default, reembed_library

    offline_baseline_as_default()  # the first `make eval` run's embedder: the library is embedded with it first
    chat = get_default_model("chat")
    names = ingest(document_paths())
    questions = load_questions()
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    offline = (
        [stored_draft(d, OFFLINE, names) for d in draft_answers(questions, names, chat, user)] if offline_too else []
    )
    local_model = local_embedding_model()
    if local_model is None:
        raise RuntimeError("all-MiniLM-L6-v2 is not installed (requirements-models.txt): `make venv`")
    reembed_library(local_model)
    local = [stored_draft(d, LOCAL, names) for d in draft_answers(questions, names, chat, user)]
    rows = kept_drafts(offline, local)
    into.mkdir(exist_ok=True)
    (into / DRAFTS.name).write_text("[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n]\n")
    return rows


def review() -> str:
    """The reviewer's figures on the labelled drafts, as `make eval` reports them, without drafting anything.

    The reviewer reads the library (its words' rarity, the embedding model), so the library is
    ingested and re-embedded with all-MiniLM-L6-v2 as in `make eval`; nothing is drafted.
    """
    from django.contrib.auth import get_user_model

    from llm_manager.services import get_default_model

    from .dataset import document_paths, ingest, load_questions
    from .measures import judge_stored_drafts, local_embedding_model, offline_baseline_as_default, reembed_library
    from .report import judged_lines

    offline_baseline_as_default()
    ingest(document_paths())
    local_model = local_embedding_model()
    if local_model is not None:
        reembed_library(local_model)
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    questions, chat = load_questions(), get_default_model("chat")
    first = judge_stored_drafts(load_judged(), questions, chat, user)
    current = judge_stored_drafts(load_judged(*current_sample()), questions, chat, user)
    return "\n".join([*judged_lines(first), *judged_lines(current, current=True)])


def main(argv: list[str]) -> None:
    from .run import setup_django

    commands = {
        "dump": lambda: f"{len(dump())} drafts written to {DRAFTS}",
        "dump-current": lambda: f"{len(dump(CURRENT, offline_too=False))} drafts written to {CURRENT / DRAFTS.name}",
        "review": review,
    }
    if len(argv) != 1 or argv[0] not in commands:
        raise SystemExit(__doc__)
    with tempfile.TemporaryDirectory(prefix="spelunker-judged-") as folder:
        setup_django(folder)
        print(commands[argv[0]]())


if __name__ == "__main__":
    main(sys.argv[1:])
