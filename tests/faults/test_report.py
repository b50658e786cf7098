"""report.py writes docs/reliability.md only from records of one commit, and names that commit and the command."""

import json
import subprocess

import pytest

from .record import RUN_TREE, CaseRecord
from .report import COMMAND, HOSTILE_COMMAND, HOSTILE_FOLDER, MixedCommits, write_report


def _save(results_dir, case: str, commit: str | None) -> None:
    """A record as the fault suite saves it (CaseRecord.data), at the given commit (None: an old record without)."""
    record = CaseRecord(case, f"The {case} case", f"the {case} fault")
    record.data.update(outcome="passed", duration_s=1.5)
    if commit is None:
        del record.data["commit"]
    else:
        record.data["commit"] = commit
    (results_dir / f"{case}.json").write_text(json.dumps(record.data))


@pytest.fixture
def results_dir(tmp_path):
    folder = tmp_path / "reliability"
    folder.mkdir()
    return folder


def test_records_of_one_commit_make_a_page_naming_it_and_the_command(results_dir, tmp_path):
    _save(results_dir, "first", "0123456789ab")
    _save(results_dir, "second", "0123456789ab")

    page = write_report(results_dir, tmp_path / "reliability.md").read_text()

    assert f"run by `{COMMAND}` at commit `0123456789ab`" in page
    assert "## The first case" in page and "## The second case" in page


def test_records_of_different_commits_are_refused_naming_each_commit_and_its_cases(results_dir, tmp_path):
    _save(results_dir, "first", "0123456789ab")
    _save(results_dir, "second", "0123456789ab + uncommitted changes")
    _save(results_dir, "third", "ba9876543210")
    report = tmp_path / "reliability.md"

    with pytest.raises(MixedCommits) as refused:
        write_report(results_dir, report)

    message = str(refused.value)
    assert "0123456789ab: first" in message
    assert "0123456789ab + uncommitted changes: second" in message
    assert "ba9876543210: third" in message
    assert COMMAND in message
    assert not report.exists()


def test_a_record_without_a_commit_counts_as_another_commit(results_dir, tmp_path):
    _save(results_dir, "first", "0123456789ab")
    _save(results_dir, "old", None)

    with pytest.raises(MixedCommits, match="no commit recorded: old"):
        write_report(results_dir, tmp_path / "reliability.md")


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def test_the_stamp_is_head_and_says_so_when_other_files_than_the_records_differ(tmp_path):
    repo = tmp_path / "checkout"
    (repo / "docs" / "reliability").mkdir(parents=True)
    (repo / "app.py").write_text("print('v1')\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "v1")
    head = _git(repo, "rev-parse", "--short=12", "HEAD")

    (repo / "docs" / "reliability" / "a_case.json").write_text("{}")  # what a run writes itself
    (repo / "docs" / "reliability.md").write_text("# page\n")
    assert RUN_TREE.commit(repo) == head

    (repo / "app.py").write_text("print('v2')\n")
    assert RUN_TREE.commit(repo) == f"{head} + uncommitted changes"


def test_a_new_record_carries_the_stamp():
    assert CaseRecord("any", "Any", "none").data["commit"] == RUN_TREE.commit()


def _save_hostile(results_dir, name: str, commit: str, order: int, seconds: float = 0.4) -> None:
    """A record as the hostile-file suite saves it (tests/security/test_hostile_files.py)."""
    folder = results_dir / HOSTILE_FOLDER
    folder.mkdir(exist_ok=True)
    record = {
        "case": f"{name} via the library",
        "order": order,
        "title": f"the {name} file",
        "path": "library",
        "size_mb": 0.5,
        "outcome": f"refused at upload: the {name} limit",
        "seconds": seconds,
        "peak_mb": 321,
        "limit_s": 10,
        "limit_mb": 1024,
        "commit": commit,
    }
    (folder / f"{name}.json").write_text(json.dumps(record))


def test_the_hostile_files_get_a_section_of_their_own_with_their_command_commit_times_and_memory(results_dir, tmp_path):
    _save(results_dir, "fault", "0123456789ab")
    _save_hostile(results_dir, "second", "fedcba987654", order=1, seconds=2.5)
    _save_hostile(results_dir, "first", "fedcba987654", order=0)

    page = write_report(results_dir, tmp_path / "reliability.md").read_text()

    section = page.split("## Hostile files")[1]
    assert f"run by\n`{HOSTILE_COMMAND}` at commit `fedcba987654`" in section
    assert "| the first file | 512 KB | library | refused at upload: the first limit | 0.40 | 321 |" in section
    assert section.index("the first file") < section.index("| the second file") and "| 2.50 |" in section
    assert "## The fault case" in page and "at commit `0123456789ab`" in page


def test_hostile_records_of_different_commits_are_refused(results_dir, tmp_path):
    _save_hostile(results_dir, "first", "fedcba987654", order=0)
    _save_hostile(results_dir, "second", "0123456789ab", order=1)

    with pytest.raises(MixedCommits, match=f"hostile-file records come from different commits.*{HOSTILE_COMMAND}"):
        write_report(results_dir, tmp_path / "reliability.md")
