"""A fast loop for tuning drafts and the reviewer on the dev split: the library ingested once, the drafts redone.

    .venv/bin/python -m evaluation.dev_loop [--fresh] [--show] [--only Q01,Q02] [--postgres]

The first run ingests and embeds the library (with all-MiniLM-L6-v2 when it is
installed, as `make eval` does) into var/dev-loop/, a cached SQLite folder; the
next runs reuse it and only redraft and re-review the dev questions, in about a
minute. It prints what make eval's targets measure on dev: drafts stating the
key fact (evaluation/key_facts/dev.json, when present), "no supporting content"
on near misses, and how many wrong drafts the reviewer approves. Test questions are never drafted here.
With --postgres the library lives in bin/stack's PostgreSQL under .run/dev-loop-pg (left running for the
next run; `bin/stack stop .run/dev-loop-pg --purge` ends it), with its own folder var/dev-loop-pg/.
"""

import argparse
import json
import os
import pickle
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "var" / "dev-loop"
POSTGRES_FOLDER = ROOT / "var" / "dev-loop-pg"
POSTGRES_STACK = ROOT / ".run" / "dev-loop-pg"
VECTORS = ROOT / "var" / "dev-loop" / "vectors.pickle"  # kept by text: either database's run reuses them


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fresh", action="store_true", help="ingest the library again")
    parser.add_argument("--show", action="store_true", help="print every draft and its verdict")
    parser.add_argument("--only", default="", help="comma-separated question ids")
    parser.add_argument("--judged", action="store_true", help="score the reviewer on the judged dev drafts instead")
    parser.add_argument(
        "--current", action="store_true", help="with --judged: the second sample (judged/current/), not the first"
    )
    parser.add_argument("--postgres", action="store_true", help="on PostgreSQL (bin/stack's) instead of SQLite")
    parser.add_argument(
        "--set", action="append", default=[], help="try a constant: module.NAME=value (e.g. evidence.KIND_BONUS=0.2)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    folder = POSTGRES_FOLDER if args.postgres else FOLDER
    if args.fresh and (folder / "names.json").exists():
        (folder / "names.json").unlink()
        (folder / "eval.sqlite3").unlink(missing_ok=True)
    fresh = not (folder / "names.json").exists()
    folder.mkdir(parents=True, exist_ok=True)
    from .run import setup_django

    setup_django(str(folder), _postgres_url(fresh) if args.postgres else None)
    names = _library(folder, fresh)
    for setting in args.set:
        _try(setting)
    with remembered_embeddings(VECTORS):
        if args.judged:
            review_judged(args.show, args.current)
        else:
            report(names, args.show, set(filter(None, args.only.split(","))))


def _postgres_url(fresh: bool) -> str:
    """The URL of the dev loop's own PostgreSQL (started, or reused while it runs); an empty one when `fresh`."""
    import subprocess

    from .run import stack_postgres

    if fresh:
        subprocess.run([str(ROOT / "bin" / "stack"), "stop", str(POSTGRES_STACK), "--purge"], check=False)
    return stack_postgres(POSTGRES_STACK)


def _try(setting: str) -> None:
    """Set a tuning constant for this run only: "evidence.KIND_BONUS=0.2" (a module of llm_manager.providers,
    text or rfp_manager.services)."""
    import importlib

    name, value = setting.split("=", 1)
    module_name, constant = name.rsplit(".", 1)
    for package in ("llm_manager.providers.", "text.", "rfp_manager.services.", ""):
        try:
            module = importlib.import_module(package + module_name)
        except ImportError:
            continue
        setattr(module, constant, type(getattr(module, constant))(value))
        return
    raise SystemExit(f"no module {module_name}")


@contextmanager
def remembered_embeddings(path: Path):
    """The local model's vectors of texts it embedded on an earlier run, kept in `path`: a rerun embeds only
    the new texts. The model's output for a text never changes, so a remembered vector is the vector."""
    from llm_manager.providers.local import LocalProvider

    memory = pickle.loads(path.read_bytes()) if path.exists() else {}
    embed = LocalProvider.embed

    def remembering(self, model_name, texts, dimensions=None):
        new = [t for t in dict.fromkeys(texts) if (model_name, t) not in memory]
        if new:
            memory.update(zip(((model_name, t) for t in new), embed(self, model_name, new, dimensions)))
        return [memory[(model_name, t)] for t in texts]

    LocalProvider.embed = remembering
    try:
        yield
    finally:
        LocalProvider.embed = embed
        path.write_bytes(pickle.dumps(memory))


def _library(folder: Path, fresh: bool) -> dict[int, str]:
    """{document id: name}, ingesting and embedding the library on a fresh folder (the names kept beside it)."""
    from .dataset import document_paths, ingest
    from .measures import local_embedding_model, offline_baseline_as_default, reembed_library

    names_file = folder / "names.json"
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
    from .facts import load_key_facts
    from .measures import draft_answers, score_drafts, team_view

    questions = [q for q in load_questions(split="dev") if not only or q.id in only]
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    chat = get_default_model("chat")
    drafts = draft_answers(questions, names, chat, user)
    rows = {q.number: q for q in Question.objects.filter(rfp__name="Evaluation")}
    facts = load_key_facts("dev")
    for d in drafts:
        q = d.question
        review = None if d.needs_expert else judge(rows[q.id], d.text, d.passages, model=chat)
        d.verdict = review["verdict"] if review else ""
        if show:
            _show(d, review, facts.get(q.id))
    view, scored = team_view(drafts, "dev", facts), score_drafts(drafts, "dev")
    print(json.dumps(view.__dict__))
    print(
        f"key fact stated {view.holding_answer_rate:.3f} ({view.holding_answer_approved} approved), a click away "
        f"{view.within_reach}/{view.answerable}; near misses flagged {scored.near_misses_flagged}/"
        f"{scored.near_misses}; wrong-document drafts approved {view.wrong_document_approved}/"
        f"{view.wrong_document}; drafts without the answer approved {view.without_answer_approved}/"
        f"{view.without_answer}; near misses not approved {view.no_answer - view.no_answer_approved}/"
        f"{view.no_answer}; sentences quoting another document {scored.sentences_elsewhere}/{scored.sentences} in "
        f"{scored.padded} drafts"
    )


def _show(d, review, fact) -> None:
    """One draft as a person reads it: the question, its key facts and where they are, the draft and its review."""
    from .facts import answers

    q = d.question
    stated = bool(fact and not d.needs_expert and answers(d.text, fact))
    mark = "FACT" if stated else ("nofact" if fact else "")
    print(f"\n{q.id} [{q.kind}] {mark} {review['verdict'] if review else 'NO-SUPPORT'}: {q.text}")
    print(f"   fact: {[f.fact for f in fact or []]}")
    for f in fact or []:
        held = any(_squeezed(f.source[:60]) in _squeezed(p["text"]) for p in d.passages)
        print(f"   source {'IN PASSAGES' if held else 'not retrieved'}: {f.source[:200]}")
    print(f"   draft: {d.text[:600]}")
    if review and review["verdict"] != "approved":
        print(f"   review: {review['feedback'][:300]}")


def review_judged(show: bool, current: bool = False) -> None:
    """The reviewer on the judged dev drafts (evaluation/judged/), as make eval scores it: approved precision,
    flag rates; with `show`, every draft the reviewer gets wrong."""
    from django.contrib.auth import get_user_model

    from llm_manager.services import get_default_model
    from rfp_manager.services.answering import judge

    from .dataset import load_questions
    from .judged import ANSWERS, DOES_NOT_ANSWER, NO_ANSWER_IN_LIBRARY, current_sample, load_judged
    from .measures import question_rows

    judged = [d for d in load_judged(*(current_sample() if current else ())) if d.split == "dev"]
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    rows = question_rows([q for q in load_questions(split="dev") if q.id in {d.question_id for d in judged}], user)
    chat = get_default_model("chat")
    tally = {"approved": 0, "approved_answers": 0}
    flags = {DOES_NOT_ANSWER: [0, 0], NO_ANSWER_IN_LIBRARY: [0, 0]}
    for draft in judged:
        review = (
            None if draft.needs_expert else judge(rows[draft.question_id], draft.text, list(draft.passages), model=chat)
        )
        approved = bool(review and review["verdict"] == "approved")
        tally["approved"] += approved
        tally["approved_answers"] += approved and draft.label == ANSWERS
        if draft.label in flags:
            flags[draft.label][0] += 1
            flags[draft.label][1] += not approved
        wrong = approved != (draft.label == ANSWERS)
        if show and wrong and review:
            print(f"\n{draft.key} [{draft.label}] {review['verdict']}: {rows[draft.question_id].text}")
            print(f"   draft: {draft.text[:400]}")
            print(f"   review: {review['feedback'][:300]}")
    print(json.dumps({"tally": tally, "flags": flags}))
    print(
        f"approved {tally['approved']}, labelled answers {tally['approved_answers']} "
        f"({tally['approved_answers'] / max(1, tally['approved']):.3f}); flagged does_not_answer "
        f"{flags[DOES_NOT_ANSWER][1]}/{flags[DOES_NOT_ANSWER][0]}, no_answer_in_library "
        f"{flags[NO_ANSWER_IN_LIBRARY][1]}/{flags[NO_ANSWER_IN_LIBRARY][0]}"
    )


def _squeezed(text: str) -> str:
    return "".join(text.split()).lower()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
