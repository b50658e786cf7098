"""`make eval`: measure retrieval, drafts and the reviewer on the shipped evaluation set; write docs/quality.md.

    .venv/bin/python -m evaluation.run [--out docs/quality.md]

It runs in this process on a fresh SQLite database in a temporary folder (the
embedded default of `make run`, FTS5 included), with the offline models: no
service, broker or network is needed, and two cores finish it in about a
minute. PostgreSQL's lexical ranking is covered by the tests, not measured here.
"""
import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

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
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*XMLParsedAsHTMLWarning.*|.*looks like you're using an HTML parser.*")
    with tempfile.TemporaryDirectory(prefix="spelunker-eval-") as folder:
        setup_django(folder)
        report = evaluate()
    Path(args.out).write_text(report)
    print(report)


def evaluate() -> str:
    from django.contrib.auth import get_user_model

    from llm_manager.services import get_default_model

    from .dataset import document_paths, ingest, load_questions
    from .measures import draft_answers, evaluate_retrieval, evaluate_reviewer, score_drafts
    from .report import render

    started = time.perf_counter()
    embedding, chat = get_default_model("embedding"), get_default_model("chat")
    names = ingest(document_paths())
    questions = load_questions()
    retrieval = evaluate_retrieval(questions, names, embedding)
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    drafts = draft_answers(questions, names, chat, user)
    reviewer = evaluate_reviewer(drafts, chat, user)
    return render(
        retrieval=retrieval, drafts=drafts, draft_score=score_drafts(drafts), reviewer=reviewer,
        documents=len(names), questions=questions, models=(embedding.name, chat.name),
        seconds=time.perf_counter() - started,
    )


if __name__ == "__main__":
    main()
