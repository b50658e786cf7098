"""Print which files docs/benchmarks.md's figures depend on changed since `make bench` wrote it (never fails).

    .venv/bin/python bench/stale.py [docs/benchmarks.md]

Run by bin/test-stack (`make test`) after the tests: remaking the benchmarks
takes a quarter of an hour, so a stale page is reported, not refused.
"""

import sys
from pathlib import Path

from sources import MEASURED, manifest_for

from spelunker.provenance import ROOT, recorded_hash

SHOWN = 25


def report(page: Path, root: Path = ROOT) -> str:
    if not page.exists():
        return f"{page.name}: no page yet — run make bench"
    recorded, manifest = recorded_hash(page.read_text()), manifest_for(page)
    if recorded is None or not manifest.exists():
        return f"{page.name} records no source hash (or {manifest.name} is missing): it predates the check — run make bench"
    if recorded == MEASURED.hash(root):
        return f"{page.name} is up to date: none of the files its figures depend on (bench/sources.py) changed since it was made"
    changes = MEASURED.changed_since(manifest, root)
    lines = [
        f"{page.name} is STALE: {len(changes)} of the files its figures depend on (bench/sources.py) changed "
        "since make bench wrote it; its figures are of older code — run make bench to remake it:"
    ]
    lines += [f"  {change}" for change in changes[:SHOWN]]
    if len(changes) > SHOWN:
        lines.append(f"  … and {len(changes) - SHOWN} more")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "benchmarks.md"))
