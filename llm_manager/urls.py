from django.urls import path

from . import views

app_name = "llm_manager"
urlpatterns = [
    path("", views.index, name="index"),
    path("apis/<int:pk>/", views.api_detail, name="api_detail"),
    path("apis/<int:pk>/validate/", views.api_validate, name="api_validate"),
    path("validations/<int:pk>/status/", views.validation_status, name="validation_status"),
]
