from django.urls import path

from . import views

app_name = "answer_library"
urlpatterns = [
    path("", views.index, name="index"),
    path("export.xlsx", views.export_workbook, name="export"),
    path("entries/<int:pk>/", views.entry_detail, name="entry"),
    path("entries/<int:pk>/reviewed/", views.entry_reviewed, name="entry_reviewed"),
    path("entries/<int:pk>/retire/", views.entry_retire, name="entry_retire"),
    path("answers/<int:pk>/approve/", views.approve, name="approve"),
    path("candidates/<int:pk>/dismiss/", views.candidate_dismiss, name="candidate_dismiss"),
    path("review/", views.review_queue, name="review_queue"),
    path("findings/", views.findings, name="findings"),
    path("findings/scan/", views.findings_scan, name="findings_scan"),
    path("findings/<int:pk>/decide/", views.finding_decide, name="finding_decide"),
    path("imports/", views.import_upload, name="import"),
    path("imports/<int:pk>/", views.import_preview, name="import_preview"),
    path("jobs/<int:pk>/", views.job_detail, name="job"),
    path("jobs/<int:pk>/status/", views.job_status, name="job_status"),
]
