"""`make bench-quick` as CI runs it: every benchmark on its own private stack, small, and the page it writes.

Figures are not asserted (speed is measured in bench/, never by timed
assertions); what is: every benchmark ran against the real services and
docs/benchmarks.md's format came out whole, with its plots.
"""
import subprocess
import sys

from tests.workers import ROOT

FIGURES = (
    "Task overhead", "Click to running", "Live progress under load", "Search at 2,000 chunks", "Ingestion",
    "Batch answering", "Batch scaling", "Answers workspace at 2,000 questions",
)


def test_bench_quick_writes_every_figure_and_its_plots(tmp_path):
    out = tmp_path / "benchmarks.md"
    done = subprocess.run(
        [sys.executable, "bench/run_all.py", "--quick", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    page = out.read_text()
    for figure in FIGURES:
        assert f"| {figure}" in page, figure
    assert "load average" in page
    assert "### The answers workspace at 2,000 questions" in page and "| RFP page, first page |" in page
    for plot in ("ratios.png", "search.png", "scaling-batch.png"):
        assert (tmp_path / "benchmarks" / plot).stat().st_size > 1000
        assert f"](benchmarks/{plot})" in page
