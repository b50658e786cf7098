"""The demo-drafts reading aid drafts what `make run`'s demo drafts: from the demo library and the pages of the
demo's documentation site, which the app syncs as a documentation source."""

import pytest

from evaluation.demo_drafts import DOCS_SITE, draft_demo

pytestmark = pytest.mark.django_db


def test_the_demo_drafts_are_made_from_the_demo_library_and_its_documentation_site():
    drafts = {item["label"]: item for item in draft_demo({"B.3", "D.1"})}
    assert set(drafts) == {"B.3", "D.1"}
    assert "SAML 2.0" in drafts["B.3"]["draft"] and "Orrery_security_whitepaper" in drafts["B.3"]["cited"]
    assert drafts["B.3"]["verdict"] == "approved"
    # D.1's legal holds are on the documentation site's retention page, which an upload-only library lacks
    retention = (DOCS_SITE / "retention.html").read_text()
    assert "legal hold" in retention.lower() and "A legal hold suspends disposal" in drafts["D.1"]["draft"]
