"""The README is the door to docs/: short, every docs page linked from it, and no dead link anywhere.

A relative link in README.md or docs/*.md must name a file that exists, and its #anchor (if any) a heading
of that file, spelled as GitHub spells heading anchors.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 200

FENCED_CODE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text without code, where `](` is not a link."""
    return INLINE_CODE.sub("", FENCED_CODE.sub("", text))


def relative_links(page: Path) -> list[str]:
    return [
        target
        for target in LINK_TARGET.findall(prose(page.read_text()))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto: … lead outside the tree
    ]


def github_anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a page; a repeated heading gets -1, -2 … as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCED_CODE.sub("", page.read_text())):
        anchor = github_anchor(heading)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def dead_link(page: Path, target: str) -> str | None:
    """Why a link from `page` leads nowhere, or None when it resolves."""
    path_part, _, anchor = target.partition("#")
    linked = (page.parent / path_part).resolve() if path_part else page
    if not linked.exists():
        return f"{target}: no file {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked}"
    if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
        return f"{target}: no heading #{anchor} in {linked.name}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    dead = [reason for target in relative_links(page) if (reason := dead_link(page, target))]

    assert dead == [], f"dead links in {page.relative_to(ROOT)}"


def test_every_docs_page_is_linked_from_the_readme():
    readme = ROOT / "README.md"
    linked = {(readme.parent / target.partition("#")[0]).resolve() for target in relative_links(readme)}

    unlinked = [page.name for page in PAGES[1:] if page not in linked]

    assert unlinked == []


def test_the_readme_reads_in_five_minutes():
    assert len((ROOT / "README.md").read_text().splitlines()) <= README_MAX_LINES


def test_the_checker_sees_a_dead_file_and_a_dead_anchor(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n## Measuring quality: `make eval`\n\n[ok](#measuring-quality-make-eval) [self](page.md)\n"
    )

    assert dead_link(page, "#measuring-quality-make-eval") is None
    assert dead_link(page, "page.md#title") is None
    assert "no heading #missing" in dead_link(page, "page.md#missing")
    assert "no file" in dead_link(page, "gone.md")
