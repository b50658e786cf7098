"""`make eval`: measure retrieval, drafts and the reviewer on the shipped evaluation set; write docs/quality.md.

    .venv/bin/python -m evaluation.run [--out docs/quality.md]

It runs in this process on a fresh SQLite database in a temporary folder (the
embedded default of `make run`, FTS5 included): no service, broker or network is
needed. The library is embedded with the offline baseline first; when the real
small model all-MiniLM-L6-v2 (a fresh install's default, requirements-models.txt)
is installed, the library is then re-embedded with it by the library re-embed
job, both vector models are measured, and the drafts and reviews use it.
PostgreSQL's lexical ranking is covered by the tests, not measured here.

Every question is asked, dev and test alike; the page reports the test split
with dev beside it (evaluation/split.py says why and how the set is split).
"""

import os

# One BLAS thread: the encoder's many small matrix products lose more to thread
# hand-offs than they gain on two shared cores (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def setup_django(folder: str) -> None:
    """Django on a private SQLite file, with documents processed in this process."""
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/eval.sqlite3"
    os.environ["SPELUNKER_VAR_DIR"] = folder
    os.environ["SPELUNKER_MEDIA_ROOT"] = f"{folder}/media"
    os.environ["AUTO_EMBED_DOCUMENTS"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "quality.md"))
    parser.add_argument("--offline-only", action="store_true", help="skip the local model even when it is installed")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*XMLParsedAsHTMLWarning.*|.*looks like you're using an HTML parser.*")
    with tempfile.TemporaryDirectory(prefix="spelunker-eval-") as folder:
        setup_django(folder)
        from .report import RELIABILITY_PLOT

        report = evaluate(Path(args.out).with_name(RELIABILITY_PLOT), use_local_model=not args.offline_only)
    Path(args.out).write_text(report)
    print(report)


def evaluate(plot_path: Path, use_local_model: bool = True) -> str:
    """The page's text; the judged drafts' reliability diagram is written to `plot_path`."""
    from django.contrib.auth import get_user_model

    from llm_manager.services import get_default_model

    from .dataset import document_formats, document_paths, ingest, load_questions
    from .judged import load_judged
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
        word_overlap,
    )
    from .report import plot_reliability, render
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
    reviewer = evaluate_reviewer(drafts, names, embedding, chat, user)
    judged = judge_stored_drafts(load_judged(), questions, chat, user)
    plot_reliability(judged, plot_path)
    return render(
        retrieval=retrieval,
        overlap=overlap,
        library=library,
        drafts=drafts,
        draft_scores={split: score_drafts(drafts, split) for split in SPLITS},
        reviewer=reviewer,
        judged=judged,
        documents=document_formats(),
        questions=questions,
        models=(embedding.name, chat.name),
        seconds=time.perf_counter() - started,
    )


if __name__ == "__main__":
    main()
