"""The files docs/quality.md's figures depend on, and their hash: the page is stale when it changes.

`make eval` records the hash in the page's header; a test in the suite
(tests/evaluation/test_quality_page.py) recomputes it and fails, asking for
`make eval`, when a measured file changed after the page was made. This is the
one list of those files: the evaluation's data and code, and the product code
it measures — the word toolkit (text/), search and ingestion, answering and
the reviewer, the answer library's match, the embedding and chat providers, the
models a fresh install registers, and the settings that hold their thresholds.
"""

from pathlib import Path

from spelunker.provenance import ROOT, MeasuredSources, recorded_hash  # noqa: F401 (the tests import them from here)

MEASURED = MeasuredSources(
    (
        "evaluation",
        "text",
        "solution_library/services",
        "rfp_manager/services/answering.py",
        "rfp_manager/services/calibration.py",
        "rfp_manager/calibration.json",
        "rfp_manager/reuse.py",
        "answer_library/reuse.py",
        "answer_library/services/entries.py",
        "answer_library/services/matching.py",
        "llm_manager/providers",
        "llm_manager/services.py",
        "llm_manager/migrations",
        "spelunker/settings.py",
        "requirements.txt",
        "requirements-models.txt",
    )
)
MEASURED_SOURCES = MEASURED.names


def measured_files(root: Path = ROOT) -> list[Path]:
    return MEASURED.files(root)


def source_hash(root: Path = ROOT) -> str:
    return MEASURED.hash(root)


def commit(root: Path = ROOT) -> str:
    return MEASURED.commit(root)
