"""What a fault case did and saw, kept as JSON so docs/reliability.md is written from the last run, not by hand.

A case calls `record.event(...)` when it kills or stops something (the time
since the case began is noted), `record.check(what, observed, expected)` for
every claim it makes (this also asserts it), and `record.figure(name, value)`
for numbers worth reporting. The fixture saves the file with the outcome.
Each record carries the commit it ran at, so the page is never written from
runs of different code (report.py refuses).
"""

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from spelunker.provenance import MeasuredSources

RESULTS_DIR = Path(__file__).resolve().parents[2] / "docs" / "reliability"
# The whole tree, as git pathspecs, but what a run writes itself (the records and the page): a case run
# at a clean checkout is stamped with HEAD, one run with any other file changed "<HEAD> + uncommitted changes".
RUN_TREE = MeasuredSources((".", ":(exclude)docs/reliability", ":(exclude)docs/reliability.md"))


def running_commit() -> str:
    return RUN_TREE.commit()


class CaseRecord:
    def __init__(self, case: str, title: str, fault: str):
        self.data = {
            "case": case,
            "title": title,
            "fault": fault,
            "events": [],
            "checks": [],
            "figures": {},
            "ran_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "commit": running_commit(),
            "outcome": "did not finish",
        }
        self._t0 = time.monotonic()

    def elapsed(self) -> float:
        return round(time.monotonic() - self._t0, 1)

    def event(self, what: str) -> None:
        self.data["events"].append({"at_s": self.elapsed(), "what": what})

    def figure(self, name: str, value) -> None:
        self.data["figures"][name] = value

    def check(self, what: str, observed, expected) -> None:
        ok = observed == expected
        self.data["checks"].append({"what": what, "observed": observed, "expected": expected, "ok": ok})
        assert ok, f"{what}: observed {observed!r}, expected {expected!r}"

    def save(self, outcome: str) -> Path:
        self.data["outcome"] = outcome
        self.data["duration_s"] = self.elapsed()
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        path = RESULTS_DIR / f"{self.data['case']}.json"
        path.write_text(json.dumps(self.data, indent=2, default=str) + "\n")
        return path
