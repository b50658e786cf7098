"""docs/file-limits.md's table of the limits and the real files they were sized from is generated, never edited.

`.venv/bin/python -m bench.file_limits` measures every evaluation document and sample questionnaire with the
product's own readers and rewrites the region between the page's markers. The region on the page must be what the
command would write now (its commit and date aside): a reader that counts differently, a new document or a figure
edited by hand fails here, with the region the command would write.
"""

import pytest
from django.conf import settings

from bench import file_limits


@pytest.fixture(scope="module")
def measurement():
    """Reading every file takes seconds: once for the module."""
    return file_limits.measure()


def test_the_page_gives_the_figures_the_command_measures_now(measurement):
    written = file_limits.written_region(file_limits.PAGE.read_text())
    provenance = file_limits.PROVENANCE.search(written)
    assert provenance, "the generated region names no commit and date: run .venv/bin/python -m bench.file_limits"
    expected = file_limits.region(measurement, provenance["commit"], provenance["date"])
    assert written == expected, (
        "docs/file-limits.md's table is not what the files and readers give now: run "
        ".venv/bin/python -m bench.file_limits and commit the page"
    )


def test_every_file_limit_setting_has_its_row():
    """A new FILE_LIMIT_* setting gets its row, so the page shows every limit with the real figure beside it."""
    limits = {name for name in dir(settings) if name.startswith("FILE_LIMIT_")}
    assert {row.setting for row in file_limits.TABLE} == limits


def test_the_region_names_no_path_of_this_machine(measurement):
    """The page is read on other machines: files by their bare names, folders relative to the checkout."""
    written = file_limits.region(measurement, "abc1234", "2026-01-01")
    assert str(file_limits.ROOT.parent) not in written
    assert str(file_limits.SAMPLES_DIR) not in written
