"""In a real browser: sign in, start a system check, watch it finish without reloading."""

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.browser]


def test_system_check_page_updates_live(live_worker, logged_in_page, staff_user):
    page = logged_in_page(staff_user, "pw-staff-123")
    page.goto("/system/")
    page.click("text=Check the workers")
    page.wait_for_url("**/system/checks/*/")
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))

    page.wait_for_selector(".progress-block[data-status=completed]", timeout=30_000)
    assert page.inner_text(".progress-meta .pct") == "100%"
    assert page.locator("table tbody tr").count() == 3
    assert live_worker.name in page.inner_text("table")
    assert navigations == [], "the page reloaded instead of updating in place"
