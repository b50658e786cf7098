from django.urls import path

from . import views

app_name = "llm_manager"
urlpatterns = [
    path("", views.index, name="index"),
]
