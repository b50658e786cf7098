"""The team sets the page up in the admin: name, colours (only #rrggbb: they go into a style attribute), texts."""

import pytest

from trust_center.models import TrustCenter

pytestmark = pytest.mark.django_db


def _form(team, **changes):
    data = {
        "slug": "globex",
        "name": "Globex",
        "is_live": "on",
        "brand_colour": "#123456",
        "accent_colour": "#f0f0f0",
        "overview": "We protect your data.",
        "nda_text": "Keep it to yourself.",
        "link_valid_days": "7",
        "inbox_owner": team.pk,
        **{f"{prefix}-{field}": value for prefix in ("sections", "documents") for field, value in _EMPTY.items()},
    }
    return {**data, **changes}


_EMPTY = {"TOTAL_FORMS": "0", "INITIAL_FORMS": "0", "MIN_NUM_FORMS": "0", "MAX_NUM_FORMS": "1000"}


def test_the_team_creates_a_center_in_the_admin_and_it_is_live_at_its_path(client, team):
    client.force_login(team)
    assert client.get("/admin/trust_center/trustcenter/add/").status_code == 200
    response = client.post("/admin/trust_center/trustcenter/add/", _form(team))
    assert response.status_code == 302, response.content.decode()[:2000]
    client.logout()
    page = client.get("/trust/globex/")
    assert page.status_code == 200 and "We protect your data." in page.content.decode()


def test_a_colour_that_is_not_a_hex_code_is_refused(client, team):
    client.force_login(team)
    response = client.post("/admin/trust_center/trustcenter/add/", _form(team, brand_colour="red;x:y"))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["brand_colour"] == ["A colour as #rrggbb."]
    assert not TrustCenter.objects.exists()


def test_the_path_is_a_setting(acme, settings, client):
    """TRUST_CENTER_PATH moves every page of the trust center (read when the URLconf loads)."""
    default = settings.TRUST_CENTER_PATH
    settings.TRUST_CENTER_PATH = "security/"
    try:
        _reload_urls()
        assert client.get("/security/acme/").status_code == 200
        assert client.get("/trust/acme/").status_code == 404
    finally:
        settings.TRUST_CENTER_PATH = default
        _reload_urls()
    assert client.get("/trust/acme/").status_code == 200


def _reload_urls():
    import importlib

    from django.urls import clear_url_caches

    import spelunker.urls

    importlib.reload(spelunker.urls)
    clear_url_caches()
