"""The in-process encoder's chunks/s beside the reference implementation's, on the same chunks, in the same run.

    .venv/bin/python bench/bench_encoder.py [--chunks 128] [--repeats 2] [--json OUT] [--write-test-vectors]

Chunks: the evaluation documents (evaluation/documents, public manuals) cut by
the project's own chunker, as ingestion cuts them (~1,000 characters, about
220 tokens), embedded with the text the library embeds. Ours: the default
model of a fresh install (all-MiniLM-L6-v2) on llm_manager/providers/local.py —
the graph built from the package's weights on ONNX Runtime, float32 (the
default) and dynamic int8, with every core and with one thread per process.
Reference: sentence-transformers on PyTorch CPU with the same model folder, in
an environment of its own (var/bench-reference-venv, bench/requirements-reference.txt),
which this script creates the first time: never make run or make test. The runs
alternate (reference, ours, …) so a change in the machine's load falls on both;
the figure is the median of the repeats. Vectors: cosine of ours to the
reference's, per chunk (the aim: ≥ 0.999).

--write-test-vectors stores the reference's vectors of a few fixed sentences in
tests/llm_manager/minilm_reference_vectors.json, which the test suite compares
the in-process encoder with (no PyTorch there).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_ENV = ROOT / "var" / "bench-reference-venv"
REFERENCE_REQUIREMENTS = ROOT / "bench" / "requirements-reference.txt"
TEST_VECTORS = ROOT / "tests" / "llm_manager" / "minilm_reference_vectors.json"
MODEL = "all-MiniLM-L6-v2"
TEST_SENTENCES = [
    "Customer data is encrypted at rest with AES-256 and keys are rotated every 90 days.",
    "How long are backups retained?",
    "How often are backups taken?",
    "Describe the API authentication and rate limits.",
    "The support desk answers tickets within four business hours, staffed in Europe and North America.",
    "Row security policies restrict, on a per-user basis, which rows can be returned by normal queries.",
]


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")
    import django

    django.setup()


def evaluation_chunks(count: int) -> list[str]:
    """The first `count` chunks of the evaluation documents, taken in turn from each document (mixed lengths)."""
    from evaluation.dataset import document_paths, document_text
    from solution_library.services.chunking import chunk_text

    per_document = [[piece.text for piece in chunk_text(document_text(path))] for path in document_paths()]
    chunks = []
    for depth in range(max(map(len, per_document))):
        chunks += [pieces[depth] for pieces in per_document if depth < len(pieces)]
    return chunks[:count]


def reference_python() -> Path:
    """The reference environment's interpreter, created and filled the first time (pip, several GB)."""
    python = REFERENCE_ENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(REFERENCE_ENV)], check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            str(REFERENCE_REQUIREMENTS),
        ],
        check=True,
    )
    return python


def run_reference(python: Path, folder: Path, texts: list[str], threads: int, work: Path):
    import numpy as np

    (work / "chunks.json").write_text(json.dumps(texts))
    done = subprocess.run(
        [
            str(python),
            str(ROOT / "bench" / "reference_encoder.py"),
            str(folder),
            str(work / "chunks.json"),
            str(work / "reference.npy"),
            "--threads",
            str(threads),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1]), np.load(work / "reference.npy")


def run_ours(encoder, texts: list[str]):
    encoder.embed(texts[:8])  # warm, as the reference is
    started = time.perf_counter()
    vectors = encoder.embed(texts)
    return time.perf_counter() - started, vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", help="write the figures here as JSON")
    parser.add_argument("--write-test-vectors", action="store_true", help=f"write {TEST_VECTORS.relative_to(ROOT)}")
    args = parser.parse_args()
    setup_django()
    import numpy as np

    from llm_manager.providers.local import BertEncoder, model_folder

    folder = model_folder(MODEL)
    texts = evaluation_chunks(args.chunks)
    python = reference_python()
    cores = os.cpu_count()
    started = time.perf_counter()
    ours_fp32 = BertEncoder(folder, threads=0)
    load_seconds = time.perf_counter() - started
    variants = {
        "fp32, all cores": ours_fp32,
        "fp32, 1 thread": BertEncoder(folder, threads=1),
        "int8, all cores": BertEncoder(folder, threads=0, int8=True),
    }
    token_counts = [len(ours_fp32.tokenizer.encode(t)) for t in texts]
    seconds = {"reference": [], **{name: [] for name in variants}}
    vectors = {}
    with tempfile.TemporaryDirectory(prefix="bench-encoder-") as work:
        for _ in range(args.repeats):
            info, vectors["reference"] = run_reference(python, folder, texts, cores, Path(work))
            seconds["reference"].append(info["seconds"])
            for name, encoder in variants.items():
                elapsed, vectors[name] = run_ours(encoder, texts)
                seconds[name].append(elapsed)
        if args.write_test_vectors:
            _, reference_vectors = run_reference(python, folder, TEST_SENTENCES, cores, Path(work))
            TEST_VECTORS.write_text(
                json.dumps(
                    {
                        "made_by": "bench/bench_encoder.py --write-test-vectors",
                        "model": MODEL,
                        "torch": info["torch"],
                        "sentences": TEST_SENTENCES,
                        "vectors": np.round(reference_vectors.astype(np.float64), 6).tolist(),
                    },
                    indent=1,
                )
                + "\n"
            )
    rates = {name: len(texts) / statistics.median(values) for name, values in seconds.items()}
    cosines = {name: (vectors[name] * vectors["reference"]).sum(axis=1) for name in variants}
    result = {
        "chunks": len(texts),
        "mean_tokens": float(np.mean(token_counts)),
        "repeats": args.repeats,
        "cores": cores,
        "torch": info["torch"],
        "load_seconds": load_seconds,
        "rates": rates,
        "seconds": seconds,
        "cosine_min": {name: float(c.min()) for name, c in cosines.items()},
        "cosine_mean": {name: float(c.mean()) for name, c in cosines.items()},
    }
    print(
        f"{len(texts)} chunks of the evaluation documents, {result['mean_tokens']:.0f} tokens on average; "
        f"{args.repeats} alternating repeats, median; {cores} cores; torch {info['torch']}"
    )
    print(f"reference (sentence-transformers, PyTorch CPU, {cores} threads): {rates['reference']:6.1f} chunks/s")
    for name in variants:
        print(
            f"ours ({name}):{' ' * (18 - len(name))}{rates[name]:6.1f} chunks/s  ratio {rates[name] / rates['reference']:.2f}  "
            f"cosine to the reference min {result['cosine_min'][name]:.5f} mean {result['cosine_mean'][name]:.5f}"
        )
    print(f"loading ours (weights read, graph built, session made): {load_seconds:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
