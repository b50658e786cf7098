"""The product's drafts for one split of the evaluation set, as `make eval` makes them, written to a JSON file.

    .venv/bin/python -m evaluation.drafts --split dev --out var/drafts-dev.json

For reading drafts beside their key facts (key_facts/AGREEMENT.md) without a
whole `make eval`: the same in-process setup (evaluation/run.py) and the same
responder service (measures.draft_answers), each draft with whether it states
its question's key facts by the matcher (facts.answers).
"""

import argparse
import json
import tempfile
from pathlib import Path

from .run import ROOT, setup_django


def dump(split: str, use_local_model: bool = True) -> list[dict]:
    from django.contrib.auth import get_user_model

    from llm_manager.services import get_default_model

    from .dataset import document_paths, ingest, load_questions
    from .facts import answers, load_key_facts
    from .measures import draft_answers, local_embedding_model, offline_baseline_as_default, reembed_library

    chat = get_default_model("chat")
    offline_baseline_as_default()
    names = ingest(document_paths())
    local = local_embedding_model() if use_local_model else None
    if local is not None:
        reembed_library(local)
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    facts = load_key_facts(split)
    drafts = draft_answers(load_questions(split=split), names, chat, user)
    return [
        {
            "id": d.question.id,
            "question": d.question.text,
            "kind": d.question.kind,
            "draft": d.text,
            "needs_expert": d.needs_expert,
            "cites_relevant": d.cites_relevant,
            "states_key_facts": answers(d.text, facts.get(d.question.id, [])),
        }
        for d in drafts
    ]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--out", default=str(ROOT / "var" / "drafts-dev.json"))
    parser.add_argument("--offline-only", action="store_true", help="skip the local model even when it is installed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="spelunker-drafts-") as folder:
        setup_django(folder)
        drafts = dump(args.split, use_local_model=not args.offline_only)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(drafts, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(drafts)} drafts → {args.out}")


if __name__ == "__main__":
    main()
