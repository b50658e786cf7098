"""The demo RFP's drafts and the reviewer's verdicts, for reading them as the team would.

    .venv/bin/python -m evaluation.demo_drafts [--fresh] [--only A.1,C.1] [--out var/demo-drafts.json]

The demo library, and the pages of the demo's documentation site (which the app
syncs as a documentation source), are stored and processed the way an upload is (with
all-MiniLM-L6-v2 when it is installed, as `make eval` does) into a SQLite
database under var/demo-drafts/, kept for the next run (--fresh starts again);
then every question of the demo workbook is drafted by the responder service
and judged by the reviewer, in this process. Nothing here is measured
by `make eval`: the demo is the product's own showcase, not evaluation data.
"""

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from .run import ROOT, setup_django

FOLDER = ROOT / "var" / "demo-drafts"  # the processed demo library, kept between runs
DOCS_SITE = ROOT / "demo" / "static" / "demo" / "docs"  # the documentation site `make run`'s demo syncs


def draft_demo(only: set[str]) -> list[dict]:
    from django.contrib.auth import get_user_model

    from demo.services.loading import library_files
    from demo.services.workbook import read_demo_rfp
    from llm_manager.services import get_default_model
    from rfp_manager.models import RFP, Question
    from rfp_manager.services.answering import generate_answer, judge
    from solution_library.models import Document

    from .dataset import ingest
    from .measures import local_embedding_model, offline_baseline_as_default, reembed_library

    chat = get_default_model("chat")
    if not Document.objects.exists():
        offline_baseline_as_default()
        folder = Path(tempfile.mkdtemp(prefix="demo-library-"))
        for name, data in library_files():
            (folder / name).write_bytes(data)
        for page in DOCS_SITE.glob("*.html"):  # in the app a draft may cite them (D.1 cites its retention page)
            (folder / page.name).write_bytes(page.read_bytes())
        ingest(sorted(folder.iterdir()))
        local = local_embedding_model()
        if local is not None:
            reembed_library(local)
    user, _ = get_user_model().objects.get_or_create(username="demo-reader")
    demo = read_demo_rfp()
    # with its client, as the demo loads it: the reviewer never asks a draft to name the client ("the council's")
    rfp = RFP.objects.create(name="Demo", client=demo.client, owner=user)
    results = []
    for order, (label, text) in enumerate(demo.questions):
        if only and label not in only:
            continue
        question = Question.objects.create(rfp=rfp, number=label, text=text, order=order, import_key=label)
        answer = generate_answer(question, model=chat)
        verdict = {} if answer.needs_expert else judge(question, answer.draft_text, answer.citations, model=chat)
        results.append(
            {
                "label": label,
                "question": text,
                "draft": answer.draft_text,
                "needs_expert": answer.needs_expert,
                "verdict": verdict.get("verdict", "needs expert"),
                "reason": verdict.get("feedback", ""),
                "cited": [p.get("document_title", p["document_id"]) for p in answer.citations if p["cited"]],
            }
        )
    return results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="comma-separated question labels, e.g. A.1,C.1")
    parser.add_argument("--fresh", action="store_true", help="store and process the demo library again")
    parser.add_argument("--out", default=str(ROOT / "var" / "demo-drafts.json"))
    args = parser.parse_args(argv)
    if args.fresh:
        shutil.rmtree(FOLDER, ignore_errors=True)
    FOLDER.mkdir(parents=True, exist_ok=True)
    setup_django(str(FOLDER))
    results = draft_demo({label for label in args.only.split(",") if label})
    for item in results:
        print(f"\n## {item['label']} {item['question']}\n{item['draft']}\n→ {item['verdict']}: {item['reason']}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
