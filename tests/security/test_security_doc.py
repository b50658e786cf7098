"""docs/security.md quotes figures computed here from the tests' own tables, so it cannot drift.

When a figure changes (a new URL, a new fuzz test), this test fails and prints the new block;
`SPELUNKER_WRITE_DOCS=1 make test PYTEST_ARGS=tests/security/test_security_doc.py` writes it.
"""

import os
import re
from pathlib import Path

from csp.constants import NONCE
from django.conf import settings

from . import test_fuzz_forms, test_fuzz_import
from .url_access import ADMIN, EDITOR, OPEN, OWNER, RFP_OWNER, SIGNED_IN, STAFF, VIEWER, all_routes, rule_for

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"
BLOCK = re.compile(r"(<!-- figures:start.*?-->\n)(.*?)(<!-- figures:end -->)", re.S)


def _url_figures() -> list[tuple[str, str]]:
    rules = [rule_for(route) for route in all_routes()]
    classes = (OPEN, SIGNED_IN, OWNER, EDITOR, STAFF, ADMIN)
    count = {access: sum(1 for r in rules if r.access == access) for access in classes}
    on_rfp = [r for r in rules if r.access == OWNER]
    beyond_viewer = sum(1 for r in on_rfp if r.role != VIEWER)
    owners_only = sum(1 for r in on_rfp if r.role == RFP_OWNER)
    protected = len(rules) - count[OPEN]
    refused = 3 * protected + count[OWNER] + count[EDITOR] + count[STAFF] + count[ADMIN] + beyond_viewer + owners_only
    return [
        ("URL patterns walked (every pattern of the resolver)", str(len(rules))),
        ("open to anyone (health, readiness, login pages, the trust center)", str(count[OPEN])),
        (
            "any signed-in user / people on the RFP / library editors / staff only / Django admin",
            f"{count[SIGNED_IN]} / {count[OWNER]} / {count[EDITOR]} / {count[STAFF]} / {count[ADMIN]}",
        ),
        ("URLs of an RFP refused to its viewers / to its contributors (403)", f"{beyond_viewer} / {owners_only}"),
        (
            "requests refused per walk (anonymous page, JSON and htmx; outsider 404; viewer, contributor, "
            "non-editor and non-staff 403; admin)",
            str(refused),
        ),
    ]


def _fuzz_figures() -> list[tuple[str, str]]:
    rows = []
    for module in (test_fuzz_import, test_fuzz_forms):
        tests = [getattr(module, name) for name in dir(module) if hasattr(getattr(module, name), "fuzz_examples")]
        cases = sum(t.fuzz_examples + len(getattr(t, "hypothesis_explicit_examples", ())) for t in tests)
        rows.append(
            (f"fuzz cases per run, {module.__name__.rsplit('.', 1)[1]} ({len(tests)} properties)", f"up to {cases}")
        )
    return rows


def _other_figures() -> list[tuple[str, str]]:
    return [
        ("queues a pickled message is refused on (real worker)", ", ".join(settings.CELERY_QUEUE_NAMES)),
        (
            "wrong passwords before a lockout / cool-off",
            f"{settings.AXES_FAILURE_LIMIT} / {int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)} minutes",
        ),
        (
            "script-src",
            " ".join(
                "+ a nonce where a template asks for one" if v is NONCE else v
                for v in settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]["script-src"]
            ),
        ),
    ]


def figures_block() -> str:
    rows = _url_figures() + _fuzz_figures() + _other_figures()
    return "| figure | value |\n|---|---|\n" + "".join(f"| {name} | {value} |\n" for name, value in rows)


def test_security_doc_quotes_the_current_figures():
    text = DOC.read_text()
    match = BLOCK.search(text)
    assert match, f"{DOC} has no <!-- figures:start --> ... <!-- figures:end --> block"
    expected = figures_block()
    if os.environ.get("SPELUNKER_WRITE_DOCS") == "1":
        DOC.write_text(text[: match.start(2)] + expected + text[match.end(2) :])
        return
    assert match.group(2) == expected, f"docs/security.md figures are out of date; the block should read:\n{expected}"
