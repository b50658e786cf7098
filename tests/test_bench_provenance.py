"""docs/benchmarks.md names its commit and source hash, and `make test` says which measured files changed since.

The benchmarks take a quarter of an hour, so a stale page is printed by
bin/test-stack (bench/stale.py), not failed; what is checked here is that the
page carries what that print needs, and that the print names the files that
changed.
"""

import shutil
import subprocess
import sys
import time

import pytest

from spelunker.provenance import ROOT, recorded_hash

sys.path.insert(0, str(ROOT / "bench"))

import run_all  # noqa: E402
import stale  # noqa: E402
from sources import MEASURED, manifest_for  # noqa: E402

PAGE = ROOT / "docs" / "benchmarks.md"


def test_the_published_page_records_its_command_commit_and_source_hash():
    """Fails until `make bench` has written the page with this header (the lead's run at the final commit)."""
    header = PAGE.read_text().split("\n\n")[1]
    assert header.startswith("Written by `make bench"), header
    assert " at commit " in header and recorded_hash(header), "docs/benchmarks.md records no commit or source hash"
    assert manifest_for(PAGE).exists(), "the per-file hashes of the page (docs/benchmarks/sources.json) are missing"


def test_the_page_header_names_the_command_commit_and_hash():
    report = run_all.Report(
        quick=False,
        loads=["0.1 / 0.2 / 0.3"],
        command="make bench BENCH_ARGS=--million",
        commit="abc123def456",
        file_hashes=MEASURED.file_hashes(),
    )
    text = run_all.page(report, 60)
    assert "Written by `make bench BENCH_ARGS=--million`" in text
    assert "at commit abc123def456" in text
    assert recorded_hash(text) == MEASURED.hash()


@pytest.fixture
def measured_copy(tmp_path):
    """The measured files in a folder of their own, with a page and manifest made from them."""
    root = tmp_path / "repo"
    for path in MEASURED.files():
        target = root / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    page = root / "docs" / "benchmarks.md"
    page.parent.mkdir(parents=True)
    hashes = MEASURED.file_hashes(root)
    report = run_all.Report(quick=False, loads=["0.1"], commit="abc", file_hashes=hashes)
    page.write_text(run_all.page(report, 1))
    from spelunker.provenance import write_manifest

    write_manifest(manifest_for(page), hashes)
    return root, page


def test_an_untouched_page_is_reported_up_to_date(measured_copy):
    root, page = measured_copy
    assert "is up to date" in stale.report(page, root)


def test_the_print_names_each_changed_new_and_removed_measured_file(measured_copy):
    root, page = measured_copy
    (root / "jobs" / "views.py").write_text("# changed\n")
    (root / "solution_library" / "services" / "new_ranking.py").write_text("WEIGHT = 2\n")
    (root / "bench" / "bench_search.py").unlink()
    (root / "README.md").write_text("not measured\n")
    printed = stale.report(page, root)
    assert "STALE" in printed and "3 of the files" in printed
    assert "jobs/views.py (changed)" in printed
    assert "solution_library/services/new_ranking.py (new)" in printed
    assert "bench/bench_search.py (removed)" in printed
    assert "README.md" not in printed


def test_a_page_without_a_hash_is_reported_as_predating_the_check(tmp_path):
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\nWritten by `make bench` on 2026-11-23.\n")
    assert "records no source hash" in stale.report(page)


def test_make_test_prints_the_staleness_after_the_tests():
    """bin/test-stack runs bench/stale.py whatever pytest's result, and the script never fails."""
    assert ".venv/bin/python bench/stale.py || true" in (ROOT / "bin" / "test-stack").read_text()
    done = subprocess.run([sys.executable, "bench/stale.py"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "benchmarks.md" in done.stdout


def test_a_profile_on_the_page_names_the_checkouts_files_not_this_machines_paths():
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0001)
    profiler.start()
    deadline = time.perf_counter() + 0.05
    while time.perf_counter() < deadline:
        sum(range(1000))
    profiler.stop()
    text = "\n".join(run_all.profile_lines(profiler))
    assert str(ROOT) not in text
    assert "tests/test_bench_provenance.py" in text
