"""The ratio chart of docs/benchmarks.md: one bar per figure, each with a label of its own."""

import sys

from spelunker.provenance import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import run_all  # noqa: E402


def figure(name: str) -> run_all.Figure:
    return run_all.Figure(name, "1 s", "2 s", 0.5, "≥ 0.4", True, "bench")


def test_two_figures_of_one_name_are_told_apart_by_what_their_names_end_with():
    """The chart's rows are named by the text before the colon; two "Batch answering" rows used to share one label,
    and matplotlib drew the second bar over the first."""
    labels = run_all.ratio_labels(
        [
            figure("Batch answering: 200 questions vs 1; a library of two short documents (search costs ~nothing)"),
            figure("Batch answering: 200 questions vs 1; a library of 100,000 more chunks (passages; every question)"),
            figure("Task overhead: job-tracked task / no-op task"),
        ]
    )
    assert labels == [
        "Batch answering — a library of two short\ndocuments",
        "Batch answering — a library of 100,000\nmore chunks",
        "Task overhead",
    ]
