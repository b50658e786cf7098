from django.urls import path

from . import views

app_name = "jobs"
urlpatterns = [
    path("", views.jobs_index, name="index"),
    path("<str:kind>/<int:pk>/acknowledge/", views.acknowledge_job, name="acknowledge"),
]
