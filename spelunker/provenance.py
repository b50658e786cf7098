"""Where a generated page's figures come from: the commit, and a hash of the source files they depend on.

docs/quality.md (`make eval`, list in evaluation/sources.py) and
docs/benchmarks.md (`make bench`, list in bench/sources.py) each record both
in their header. A page is stale when the files its figures depend on no
longer hash to what it recorded: the quality page is cheap to remake, so its
test fails; the benchmarks are too slow for that, so `make test` prints which
of their files changed (from a manifest of per-file hashes written beside the
page).
"""

import hashlib
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IGNORED_PARTS = frozenset({"__pycache__"})
IGNORED_SUFFIXES = (".pyc",)
RECORDED_HASH = re.compile(r"source hash `([0-9a-f]{64})`")


@dataclass(frozen=True)
class MeasuredSources:
    """A list of files and folders (relative to the project root) that a page's figures depend on."""

    names: tuple[str, ...]

    def files(self, root: Path = ROOT) -> list[Path]:
        """Every file under the names (a missing name counts as no file), in a stable order."""
        found = []
        for name in self.names:
            path = root / name
            candidates = sorted(path.rglob("*")) if path.is_dir() else [path] if path.exists() else []
            found += [
                p
                for p in candidates
                if p.is_file()
                and not IGNORED_PARTS & set(p.relative_to(root).parts)
                and p.suffix not in IGNORED_SUFFIXES
            ]
        return found

    def file_hashes(self, root: Path = ROOT) -> dict[str, str]:
        """SHA-256 of each file's content, by its path relative to root."""
        return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in self.files(root)}

    def hash(self, root: Path = ROOT) -> str:
        """SHA-256 over each file's path and content."""
        return combined_hash(self.file_hashes(root))

    def commit(self, root: Path = ROOT) -> str:
        """HEAD's commit, marked when a listed file differs from it (the figures are then of uncommitted code)."""

        def git(*args: str) -> str:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False).stdout.strip()

        head = git("rev-parse", "--short=12", "HEAD") or "unknown"
        changed = git("status", "--porcelain", "--", *self.names)
        return f"{head} + uncommitted changes" if changed else head

    def changed_since(self, manifest: Path, root: Path = ROOT) -> list[str]:
        """The files changed, added or removed since the manifest was written ("path (changed)" …), sorted."""
        recorded = json.loads(manifest.read_text()) if manifest.exists() else {}
        now = self.file_hashes(root)
        changes = [f"{name} (changed)" for name in now if name in recorded and recorded[name] != now[name]]
        changes += [f"{name} (new)" for name in now if name not in recorded]
        changes += [f"{name} (removed)" for name in recorded if name not in now]
        return sorted(changes)


def combined_hash(file_hashes: dict[str, str]) -> str:
    """One hash of many files, from their paths and content hashes (MeasuredSources.file_hashes)."""
    digest = hashlib.sha256()
    for name, content in file_hashes.items():
        digest.update(name.encode() + b"\0")
        digest.update(bytes.fromhex(content))
    return digest.hexdigest()


def write_manifest(path: Path, file_hashes: dict[str, str]) -> None:
    """Each file's hash, beside the page: what tells later which files changed since the page was made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(file_hashes, indent=0, sort_keys=True) + "\n")


def recorded_hash(page: str) -> str | None:
    """The source hash a page's header records, if any."""
    match = RECORDED_HASH.search(page)
    return match.group(1) if match else None
