"""A fast loop for tuning drafts and the reviewer on the dev split: the library ingested once, the drafts redone.

    .venv/bin/python -m evaluation.dev_loop [--fresh] [--show] [--only Q01,Q02]

The first run ingests and embeds the library (with all-MiniLM-L6-v2 when it is
installed, as `make eval` does) into var/dev-loop/, a cached SQLite folder; the
next runs reuse it and only redraft and re-review the dev questions, in about a
minute. It prints what make eval's targets measure on dev: drafts stating the
key fact (evaluation/key_facts/dev.json, when present), "no supporting content"
on near misses, and how many wrong drafts the reviewer approves. Test questions are never drafted here.
"""

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "var" / "dev-loop"
KEY_FACTS = Path(__file__).resolve().parent / "key_facts" / "dev.json"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fresh", action="store_true", help="ingest the library again")
    parser.add_argument("--show", action="store_true", help="print every draft and its verdict")
    parser.add_argument("--only", default="", help="comma-separated question ids")
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.fresh and (FOLDER / "eval.sqlite3").exists():
        (FOLDER / "eval.sqlite3").unlink()
    fresh = not (FOLDER / "eval.sqlite3").exists()
    FOLDER.mkdir(parents=True, exist_ok=True)
    from .run import setup_django

    setup_django(str(FOLDER))
    names = _library(fresh)
    report(names, args.show, set(filter(None, args.only.split(","))))


def _library(fresh: bool) -> dict[int, str]:
    """{document id: name}, ingesting and embedding the library on a fresh folder (the names kept beside it)."""
    from .dataset import document_paths, ingest
    from .measures import local_embedding_model, offline_baseline_as_default, reembed_library

    names_file = FOLDER / "names.json"
    if not fresh:
        return {int(pk): name for pk, name in json.loads(names_file.read_text()).items()}
    offline_baseline_as_default()
    names = ingest(document_paths())
    local = local_embedding_model()
    if local is not None:
        reembed_library(local)
    names_file.write_text(json.dumps(names))
    return names


def report(names: dict[int, str], show: bool, only: set[str]) -> None:
    from django.contrib.auth import get_user_model

    from llm_manager.services import get_default_model
    from rfp_manager.models import Question
    from rfp_manager.services.answering import judge

    from .dataset import load_questions
    from .measures import draft_answers

    questions = [q for q in load_questions(split="dev") if not only or q.id in only]
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    chat = get_default_model("chat")
    drafts = draft_answers(questions, names, chat, user)
    rows = {q.number: q for q in Question.objects.filter(rfp__name="Evaluation")}
    facts = json.loads(KEY_FACTS.read_text()) if KEY_FACTS.exists() else {}
    states = _states()
    counts = {"answerable": 0, "fact": 0, "near": 0, "near_flagged": 0, "approved": 0, "approved_wrong": 0}
    for d in drafts:
        q = d.question
        verdict = "" if d.needs_expert else judge(rows[q.id], d.text, d.passages, model=chat)
        fact = _fact_for(facts, q.id)
        stated = bool(fact and states and not d.needs_expert and states(d.text, fact))
        if q.answerable:
            counts["answerable"] += 1
            counts["fact"] += stated
        else:
            counts["near"] += 1
            counts["near_flagged"] += d.needs_expert
        if verdict and verdict["verdict"] == "approved":
            counts["approved"] += 1
            counts["approved_wrong"] += not (q.answerable and (stated if fact else d.cites_relevant))
        if show:
            mark = "FACT" if stated else ("nofact" if fact else "")
            print(f"\n{q.id} [{q.kind}] {mark} {verdict['verdict'] if verdict else 'NO-SUPPORT'}: {q.text}")
            print(f"   fact: {fact}")
            print(f"   draft: {d.text[:600]}")
            if verdict and verdict["verdict"] != "approved":
                print(f"   review: {verdict['feedback'][:300]}")
    print(json.dumps(counts))
    answerable = counts["answerable"] or 1
    print(
        f"key fact stated {counts['fact'] / answerable:.3f}; near misses flagged "
        f"{counts['near_flagged']}/{counts['near']}; approved {counts['approved']}, of which wrong "
        f"{counts['approved_wrong']}"
    )


def _fact_for(facts, question_id: str):
    entry = facts.get(question_id) if isinstance(facts, dict) else None
    return entry


def _states():
    try:
        from .facts import states
    except ImportError:
        return None
    return states


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
