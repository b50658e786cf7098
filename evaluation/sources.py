"""The files docs/quality.md's figures depend on, and their hash: the page is stale when it changes.

`make eval` records the hash in the page's header; a test in the suite
(tests/evaluation/test_quality_page.py) recomputes it and fails, asking for
`make eval`, when a measured file changed after the page was made. This is the
one list of those files: the evaluation's data and code, and the product code
it measures — search and ingestion, answering and the reviewer, the answer
library's match, the embedding and chat providers, the models a fresh install
registers, and the settings that hold their thresholds.
"""
import hashlib
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURED_SOURCES = (
    "evaluation",
    "solution_library/services",
    "rfp_manager/services/answering.py",
    "answer_library/services/entries.py",
    "answer_library/services/matching.py",
    "llm_manager/providers",
    "llm_manager/services.py",
    "llm_manager/migrations",
    "spelunker/settings.py",
    "requirements.txt",
    "requirements-models.txt",
)
IGNORED_PARTS = ("__pycache__",)
IGNORED_SUFFIXES = (".pyc",)
RECORDED_HASH = re.compile(r"source hash `([0-9a-f]{64})`")


def measured_files(root: Path = ROOT) -> list[Path]:
    """Every file under MEASURED_SOURCES (a missing entry counts as no file), in a stable order."""
    found = []
    for name in MEASURED_SOURCES:
        path = root / name
        candidates = sorted(path.rglob("*")) if path.is_dir() else [path] if path.exists() else []
        found += [p for p in candidates if p.is_file() and not set(p.relative_to(root).parts) & set(IGNORED_PARTS)
                  and p.suffix not in IGNORED_SUFFIXES]
    return found


def source_hash(root: Path = ROOT) -> str:
    """SHA-256 over each measured file's path and content."""
    digest = hashlib.sha256()
    for path in measured_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def recorded_hash(page: str) -> str | None:
    match = RECORDED_HASH.search(page)
    return match.group(1) if match else None


def commit(root: Path = ROOT) -> str:
    """HEAD's commit, marked when a measured file differs from it (the figures are then of uncommitted code)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False).stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--", *MEASURED_SOURCES)
    return f"{head} + uncommitted changes" if changed else head
