"""Screenshots of browser tests: in the test's own folder, or docs/img/ when SPELUNKER_WRITE_DOCS=1.

The README's and docs' pictures come from the tests that drive those pages, so
they show the app as it is; a normal run keeps them out of the tree.
"""

import os
from pathlib import Path

DOCS_IMG = Path(__file__).resolve().parents[1] / "docs" / "img"


def shot(page, tmp_path: Path, name: str, **options) -> Path:
    """A screenshot `name`.png, the full page unless `options` (Playwright's: clip, …) say otherwise.

    Its path is printed (pytest -s shows it) and returned.
    """
    folder = DOCS_IMG if os.environ.get("SPELUNKER_WRITE_DOCS") == "1" else tmp_path
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), **(options or {"full_page": True}))
    print("screenshot:", path)
    return path
