from django.urls import path

from . import views

app_name = "demo"
urlpatterns = [
    path("rfp-workbook.xlsx", views.rfp_workbook, name="rfp_workbook"),
]
