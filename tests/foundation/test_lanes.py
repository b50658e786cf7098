"""make test's three lanes (bin/test-stack) split the suite exactly: every test runs in one lane, none in two.

The lanes are pytest marker expressions; a test is placed by the markers it carries. Every combination of
the suite's markers (pytest.ini) is put to the three expressions as pytest itself evaluates them.
"""

import configparser
import itertools
import re

from _pytest.mark.expression import Expression

from tests.workers import ROOT

LANE = re.compile(r'^readonly (REST|WORKERS|BROWSER)="(.*)"$', re.MULTILINE)


def lanes() -> dict[str, str]:
    """NAME → its marker expression, with $BROWSER expanded as bash does."""
    found = dict(LANE.findall((ROOT / "bin" / "test-stack").read_text()))
    return {name: expr.replace("$BROWSER", found["BROWSER"]) for name, expr in found.items()}


def suite_markers() -> list[str]:
    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    lines = ini["pytest"]["markers"].strip().splitlines()
    return [line.split(":")[0].strip() for line in lines]


def test_every_combination_of_markers_is_in_exactly_one_lane():
    expressions = {name: Expression.compile(expr) for name, expr in lanes().items()}
    markers = suite_markers()
    assert set(expressions) == {"REST", "WORKERS", "BROWSER"}
    assert {"faults", "integration", "browser"} <= set(markers)
    for carried in itertools.product((False, True), repeat=len(markers)):
        has = {marker for marker, on in zip(markers, carried, strict=True) if on}
        matched = [name for name, expr in expressions.items() if expr.evaluate(lambda m, has=has: m in has)]
        assert len(matched) == 1, f"a test marked {sorted(has) or 'with nothing'} runs in {matched or 'no lane'}"
