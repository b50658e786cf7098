"""The backup folder: data/<model>.jsonl, files/<storage name>, and manifest.json listing each with its SHA-256.

A folder can be packed into one archive (.tar, .tar.gz, .tgz) and unpacked again; the manifest is
checked before an import writes anything.
"""

import hashlib
import json
import tarfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from tempfile import TemporaryDirectory

FORMAT = "spelunker-team-export"
VERSION = 1
MANIFEST = "manifest.json"
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz")


class BackupError(Exception):
    """A backup that cannot be written or read, with the reason in words."""


def sha256_of(path: Path) -> str:
    with path.open("rb") as fh:
        return sha256_of_stream(fh)


def sha256_of_stream(fh) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: fh.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def is_archive(path: Path) -> bool:
    return path.name.endswith(ARCHIVE_SUFFIXES)


def safe_relative(name: str) -> PurePosixPath:
    """A path inside the backup folder; a name that would lead out of it (absolute, "..") is refused."""
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts:
        raise BackupError(f"refused a path that leads outside the backup: {name!r}")
    return path


def write(folder: Path, manifest: dict) -> None:
    (folder / MANIFEST).write_text(json.dumps({"format": FORMAT, "version": VERSION, **manifest}, indent=1))


def read(folder: Path) -> dict:
    """The manifest, once every part it lists is present with its recorded SHA-256."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise BackupError(f"no readable {MANIFEST} in {folder}: {exc}") from exc
    if (manifest.get("format"), manifest.get("version")) != (FORMAT, VERSION):
        raise BackupError(f"{folder} is not a {FORMAT} version {VERSION}")
    for part in manifest["files"]:
        safe_relative(part["name"])  # the name it is saved under in the media storage
    damaged = [part["path"] for part in manifest["data"] + manifest["files"] if not _intact(folder, part)]
    if damaged:
        raise BackupError(f"missing or changed since the export (SHA-256 differs): {', '.join(damaged)}")
    return manifest


def _intact(folder: Path, part: dict) -> bool:
    path = folder / safe_relative(part["path"])
    return path.is_file() and sha256_of(path) == part["sha256"]


def pack(folder: Path, archive: Path) -> None:
    mode = "w" if archive.name.endswith(".tar") else "w:gz"
    with tarfile.open(archive, mode) as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=path.name)


@contextmanager
def unpacked(source: Path):
    """The backup folder of `source`: itself, or an archive unpacked into a temporary folder."""
    if source.is_dir():
        yield source
        return
    if not (source.is_file() and is_archive(source)):
        raise BackupError(f"{source} is neither a backup folder nor an archive ({', '.join(ARCHIVE_SUFFIXES)})")
    with TemporaryDirectory(prefix="spelunker-import-") as temporary, tarfile.open(source) as tar:
        tar.extractall(temporary, filter="data")  # no links out, no absolute paths, no devices
        yield Path(temporary)
