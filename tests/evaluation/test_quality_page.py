"""docs/quality.md is refused when stale: its recorded source hash must match the files it measures."""

import shutil

from evaluation.report import MAP_IS_CURRENT
from evaluation.sources import MEASURED_SOURCES, ROOT, measured_files, recorded_hash, source_hash

QUALITY_PAGE = ROOT / "docs" / "quality.md"


def test_quality_page_was_made_from_the_files_it_measures_now():
    recorded = recorded_hash(QUALITY_PAGE.read_text())
    assert recorded is not None, "docs/quality.md records no source hash: run make eval"
    assert recorded == source_hash(), (
        "docs/quality.md is stale: a file it measures (evaluation/sources.py MEASURED_SOURCES) changed after the "
        "page was written — run make eval and commit the new page"
    )


def test_the_confidence_map_is_the_one_todays_reviewer_fits():
    """make eval fits the map again from its review of the judged dev drafts: a reviewer changed after the map was
    fitted would show the RFP page's confidences read off another reviewer's scores."""
    assert MAP_IS_CURRENT in QUALITY_PAGE.read_text(), (
        "docs/quality.md says rfp_manager/calibration.json is not the map today's reviewer fits: run "
        "python -m evaluation.calibrate, then make eval"
    )


def _copy_of_measured_files(tmp_path):
    for path in measured_files():
        target = tmp_path / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return tmp_path


def test_touching_a_measured_file_changes_the_hash(tmp_path):
    root = _copy_of_measured_files(tmp_path)
    before = source_hash(root)
    assert before == source_hash(), "the hash depends only on the measured files' paths and contents"

    questions = root / "evaluation" / "questions.json"
    questions.write_text(questions.read_text().replace("backups", "back-ups", 1))
    assert source_hash(root) != before

    questions.write_bytes((ROOT / "evaluation" / "questions.json").read_bytes())
    assert source_hash(root) == before
    (root / "rfp_manager" / "services" / "answering.py").write_text("# the reviewer changed\n")
    assert source_hash(root) != before


def test_a_new_file_in_a_measured_folder_counts_and_an_unmeasured_file_does_not(tmp_path):
    root = _copy_of_measured_files(tmp_path)
    before = source_hash(root)
    (root / "README.md").write_text("not measured\n")
    (root / "llm_manager" / "providers" / "__pycache__").mkdir(exist_ok=True)
    (root / "llm_manager" / "providers" / "__pycache__" / "grounding.cpython-311.pyc").write_bytes(b"\0")
    assert source_hash(root) == before
    (root / "solution_library" / "services" / "new_ranking.py").write_text("WEIGHT = 2\n")
    assert source_hash(root) != before


def test_the_list_names_the_product_code_the_figures_measure():
    for name in (
        "evaluation",
        "text",
        "solution_library/services",
        "rfp_manager/services/answering.py",
        "answer_library/services/matching.py",
        "llm_manager/providers",
    ):
        assert name in MEASURED_SOURCES
        assert (ROOT / name).exists(), f"{name} is listed but missing: update evaluation/sources.py"
