"""The 404 and 500 pages lead somewhere, and /favicon.ico is an icon (for anyone, signed in or not)."""

import pytest
from django.test import Client, override_settings
from django.urls import include, path

pytestmark = pytest.mark.django_db


def broken_view(request):
    raise RuntimeError("a bug")


urlpatterns = [path("broken/", broken_view), path("", include("spelunker.urls"))]


def test_404_page_has_the_navigation_and_ways_on(user_client):
    response = user_client.get("/rfps/999999/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "Not found" in page and 'class="topbar"' in page
    for url in ("/library/", "/rfps/", "/answers/"):
        assert f'href="{url}"' in page


@override_settings(ROOT_URLCONF=__name__)
def test_500_page_has_ways_on(user):
    client = Client(raise_request_exception=False)
    client.force_login(user)
    response = client.get("/broken/")
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode() and "Where to go" in response.content.decode()


def test_favicon_is_served_to_anyone(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # the ICO header
