"""`make bench-quick` as CI runs it: every benchmark on its own private stack, small, and the page it writes.

Figures are not asserted (speed is measured in bench/, never by timed
assertions); what is: every benchmark ran against the real services and
docs/benchmarks.md's format came out whole, with its plots.
"""

import subprocess
import sys

import pytest

from spelunker.provenance import recorded_hash
from tests.workers import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from sources import MEASURED  # noqa: E402

FIGURES = (
    "Task overhead",
    "Click to running",
    "Live progress under load",
    "Search at 2,000 chunks",
    "Ingestion",
    "Batch answering",
    "Batch scaling",
    "Answers workspace at 2,000 questions",
)


# Eight benchmarks, each starting and stopping a private stack of its own: about four minutes on a quiet 2-core
# machine, past pytest's default 300 s when the machine is shared (a run at load 6 was cut at 300 s).
BENCH_QUICK_SECONDS = 840


@pytest.mark.timeout(BENCH_QUICK_SECONDS + 60)
def test_bench_quick_writes_every_figure_and_its_plots(tmp_path):
    out = tmp_path / "benchmarks.md"
    done = subprocess.run(
        [sys.executable, "bench/run_all.py", "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BENCH_QUICK_SECONDS,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    page = out.read_text()
    for figure in FIGURES:
        assert f"| {figure}" in page, figure
    assert "load average" in page
    assert "### The answers workspace at 2,000 questions" in page and "| RFP page, first page |" in page
    header = page.split("\n\n")[1]
    assert header.startswith("Written by `make bench-quick`") and " at commit " in header
    assert recorded_hash(header) == MEASURED.hash(), "the page records the hash of the files it measured"
    assert (tmp_path / "benchmarks" / "sources.json").exists(), "each measured file's hash, for bench/stale.py"
    # Fair baselines: one against one and two against two; the small and the large library, labelled.
    assert "| Ingestion, 1 against 1" in page and "| Ingestion, 2 against 2" in page
    assert "a library of two short documents" in page and "a library of 500 more chunks" in page
    assert "asked the first time p50" in page and "asked again" in page
    for plot in ("ratios.png", "search.png", "scaling-batch.png"):
        assert (tmp_path / "benchmarks" / plot).stat().st_size > 1000
        assert f"](benchmarks/{plot})" in page
    assert str(ROOT) not in page, "the page is read on other machines: no path of this one in it"
