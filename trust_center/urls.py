"""The public pages of one trust center, under settings.TRUST_CENTER_PATH + its slug (spelunker/urls.py)."""

from django.urls import path

from . import views

app_name = "trust_center"

urlpatterns = [
    path("", views.page, name="page"),
    path("logo", views.logo, name="logo"),
    path("ask/", views.ask_team, name="ask"),
    path("documents/<uuid:uuid>/", views.public_download, name="download"),
    path("documents/<uuid:uuid>/request/", views.request_document, name="request"),
    path("access/<str:token>/", views.access_page, name="access"),
    path("access/<str:token>/download/", views.access_download, name="access_download"),
]
