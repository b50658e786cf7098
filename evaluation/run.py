"""`make eval`: measure retrieval, drafts and the reviewer on the shipped evaluation set; write docs/quality.md.

    .venv/bin/python -m evaluation.run [--out docs/quality.md] [--database sqlite|postgres|both] [--no-int8]
                                       [--skip-review]

Each database is measured in its own process on a fresh database: SQLite (the
embedded default of `make run`, FTS5 included) on a private file in a temporary
folder, PostgreSQL (what docker-compose.yml and every multi-machine deployment
run) on the private server of `bin/stack`, started for the run and stopped after
it. No broker or network is needed. The library is embedded with the offline
baseline first; when the real small model all-MiniLM-L6-v2 (a fresh install's
default, requirements-models.txt) is installed, the library is then re-embedded
with it by the library re-embed job, both vector models are measured, and the
drafts and reviews use it. The other encoder precision (int8 or fp32 weights,
LOCAL_EMBEDDING_INT8) is measured once more on SQLite, without the reviewer, to
show what int8 changes.

The reviewer on the judged drafts reads fixed draft texts and passages; the one
thing it asks the database is how rare each question word is in the library
(chunk_frequencies), so it is measured once, on SQLite, and the page says so.

Every question is asked, dev and test alike; the page reports the test split
with dev beside it (evaluation/split.py says why and how the set is split).
"""

import os

# One BLAS thread: the encoder's many small matrix products lose more to thread
# hand-offs than they gain on two shared cores (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import pickle  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATABASES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


def setup_django(folder: str, database_url: str | None = None, migrate: bool = True) -> None:
    """Django on `database_url` (default: a private SQLite file in `folder`), with documents processed in this process."""
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{folder}/eval.sqlite3"
    os.environ["SPELUNKER_VAR_DIR"] = folder
    os.environ["SPELUNKER_MEDIA_ROOT"] = f"{folder}/media"
    os.environ["AUTO_EMBED_DOCUMENTS"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)


@contextlib.contextmanager
def database_url(database: str, folder: str):
    """The URL of a fresh database of that kind: a SQLite file in `folder` (None), or bin/stack's PostgreSQL."""
    if database == "sqlite":
        yield None
        return
    stack = ROOT / ".run" / f"eval-{os.getpid()}"
    try:
        yield stack_postgres(stack)
    finally:
        subprocess.run([str(ROOT / "bin" / "stack"), "stop", str(stack), "--purge"], check=False)


def stack_postgres(stack: Path) -> str:
    """The URL of bin/stack's PostgreSQL under `stack`, started (or reused while it runs)."""
    subprocess.run([str(ROOT / "bin" / "stack"), "start", str(stack), "--with-postgres"], check=True)
    exports = dict(
        line.removeprefix("export ").split("=", 1)
        for line in (stack / "env").read_text().splitlines()
        if line.startswith("export ")
    )
    return exports["DATABASE_URL"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "quality.md"))
    parser.add_argument("--offline-only", action="store_true", help="skip the local model even when it is installed")
    parser.add_argument("--database", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--no-int8", action="store_true", help="skip the run with the other encoder precision")
    parser.add_argument(
        "--skip-review", action="store_true", help="no reviewer figures (quicker, while developing; no page written)"
    )
    parser.add_argument("--measure", choices=DATABASES, help=argparse.SUPPRESS)  # a child: one database's figures
    parser.add_argument("--int8", choices=("true", "false"), help=argparse.SUPPRESS)
    parser.add_argument("--judged", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--figures", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        return measure_in_this_process(args)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="spelunker-eval-") as folder:
        setup_django(folder, migrate=False)
        from django.conf import settings

        from .report import RELIABILITY_PLOT, plot_reliability, reliability_samples, render

        databases = list(DATABASES) if args.database == "both" else [args.database]
        review = not args.skip_review
        runs = {
            DATABASES[db]: measure(db, folder, args, int8=settings.LOCAL_EMBEDDING_INT8, review=review, judged=i == 0)
            for i, db in enumerate(databases)
        }
        other = None
        if not args.no_int8 and not args.offline_only:
            other = measure(databases[0], folder, args, int8=not settings.LOCAL_EMBEDDING_INT8, review=False)
        if not review:
            print(summary(runs, other))
            return
        plot_reliability(reliability_samples(next(iter(runs.values()))), Path(args.out).with_name(RELIABILITY_PLOT))
        page = render(
            runs=runs,
            other_precision=other,
            int8_default=settings.LOCAL_EMBEDDING_INT8,
            seconds=time.perf_counter() - started,
        )
    Path(args.out).write_text(page)
    print(page)


def measure(database: str, folder: str, args, *, int8: bool, review: bool, judged: bool = False) -> dict:
    """One database's figures, measured by a child process on a fresh database (Django holds one per process)."""
    figures = Path(folder) / f"{database}-{'int8' if int8 else 'fp32'}.pickle"
    command = [sys.executable, "-m", "evaluation.run", "--measure", database, "--figures", str(figures)]
    command += ["--int8", "true" if int8 else "false"]
    command += [] if review else ["--skip-review"]
    command += ["--judged"] if judged and review else []
    command += ["--offline-only"] if args.offline_only else []
    subprocess.run(command, check=True, cwd=ROOT)
    return pickle.loads(figures.read_bytes())


def measure_in_this_process(args) -> None:
    os.environ["LOCAL_EMBEDDING_INT8"] = args.int8 or "false"
    with tempfile.TemporaryDirectory(prefix="spelunker-eval-") as folder, database_url(args.measure, folder) as url:
        setup_django(folder, url)
        figures = evaluate(use_local_model=not args.offline_only, review=not args.skip_review, judged=args.judged)
        Path(args.figures).write_bytes(pickle.dumps(figures))


def evaluate(use_local_model: bool = True, review: bool = True, judged: bool = True) -> dict:
    """The figures of one run on the configured database: what report.render takes per database."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from llm_manager.services import get_default_model

    from .dataset import document_formats, document_paths, ingest, load_questions
    from .judged import current_sample, load_judged
    from .library import evaluate_library
    from .measures import (
        draft_answers,
        evaluate_retrieval,
        evaluate_reviewer,
        judge_stored_drafts,
        local_embedding_model,
        offline_baseline_as_default,
        reembed_library,
        score_drafts,
        score_key_facts,
        team_view,
        word_overlap,
    )
    from .split import SPLITS

    started = time.perf_counter()
    embedding, chat = offline_baseline_as_default(), get_default_model("chat")
    names = ingest(document_paths())
    questions = load_questions()
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    overlap = word_overlap(questions, names, embedding)
    retrieval = evaluate_retrieval(questions, names, embedding)
    library = [evaluate_library(embedding, user)]
    local = local_embedding_model() if use_local_model else None
    if local is not None:
        reembed_library(local)
        retrieval.update(evaluate_retrieval(questions, names, local, baselines=False))
        embedding = local
        library.append(evaluate_library(local, user))
    drafts = draft_answers(questions, names, chat, user)
    reviewer = evaluate_reviewer(drafts, names, embedding, chat, user) if review else None  # sets each verdict
    return {
        "vendor": connection.vendor,
        "retrieval": retrieval,
        "overlap": overlap,
        "library": library,
        "drafts": drafts,
        "draft_scores": {split: score_drafts(drafts, split) for split in SPLITS},
        "key_facts": {split: score_key_facts(drafts, split) for split in SPLITS},
        "reviewer": reviewer,
        "team": {split: team_view(drafts, split) for split in SPLITS} if review else None,
        "judged": judge_stored_drafts(load_judged(), questions, chat, user) if review and judged else None,
        "judged_current": (
            judge_stored_drafts(load_judged(*current_sample()), questions, chat, user) if review and judged else None
        ),
        "documents": document_formats(),
        "questions": questions,
        "models": (embedding.name, chat.name),
        "seconds": time.perf_counter() - started,
    }


def summary(runs: dict, other: dict | None) -> str:
    """The headline figures of a run without the reviewer (--skip-review), printed while developing."""
    lines = []
    for label, figures in {**runs, **({"other precision (SQLite)": other} if other else {})}.items():
        lines.append(f"{label} ({figures['seconds']:.0f} s):")
        for method, scores in figures["retrieval"].items():
            lines.append(
                f"  {method}: recall@5 test {scores['test'].recall_at_5:.3f} dev {scores['dev'].recall_at_5:.3f}"
                f" MRR test {scores['test'].mrr:.3f} dev {scores['dev'].mrr:.3f}"
            )
        for split in ("test", "dev"):
            facts, drafts = figures["key_facts"][split], figures["draft_scores"][split]
            lines.append(
                f"  {split}: key facts {facts.rate:.3f}; no-support precision {drafts.no_support_precision:.3f} "
                f"recall {drafts.no_support_recall:.3f}; grounded {drafts.grounded_in_relevant}/{drafts.answerable}"
            )
        for library in figures["library"]:
            for split in ("test", "dev"):
                score = library.for_split(split)
                lines.append(
                    f"  library {library.model} {split}: recall@1 {score.recall_at_1:.3f} "
                    f"false matches {score.false_match_rate:.3f}"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
