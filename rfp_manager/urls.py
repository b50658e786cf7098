from django.urls import path

from . import views

app_name = "rfp_manager"
urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.rfp_create, name="create"),
    path("<int:pk>/", views.rfp_detail, name="detail"),
    path("<int:pk>/edit/", views.rfp_edit, name="edit"),
    path("<int:pk>/import/", views.import_upload, name="import"),
    path("imports/<int:pk>/", views.import_preview, name="import_preview"),
    path("imports/<int:pk>/mapping/", views.import_remap, name="import_remap"),
    path("imports/reading/<int:pk>/status/", views.import_analysis_status, name="import_analysis_status"),
    path("<int:pk>/documents/", views.document_upload, name="document_upload"),
    path("documents/<int:pk>/summarize/", views.document_summarize, name="document_summarize"),
    path("<int:pk>/jobs/responder/", views.start_responder, name="start_responder"),
    path("<int:pk>/jobs/reviewer/", views.start_reviewer, name="start_reviewer"),
    path("<int:pk>/jobs/redraft-no-support/", views.redraft_no_support, name="redraft_no_support"),
    path("jobs/<int:pk>/", views.job_detail, name="job"),
    path("jobs/<int:pk>/status/", views.job_status, name="job_status"),
    path("jobs/<int:pk>/cancel/", views.job_cancel, name="job_cancel"),
    path("jobs/<int:pk>/retry/", views.job_retry, name="job_retry"),
    path("questions/<int:pk>/answer/", views.answer_edit, name="answer_edit"),
    path("questions/<int:pk>/answer/sources/", views.answer_sources, name="answer_sources"),
    path("questions/<int:pk>/approve/", views.question_approve, name="question_approve"),
    path("questions/<int:pk>/suggestions/<int:suggestion_pk>/use/", views.suggestion_use, name="suggestion_use"),
    path(
        "questions/<int:pk>/suggestions/<int:suggestion_pk>/reject/", views.suggestion_reject, name="suggestion_reject"
    ),
    path("questions/<int:pk>/redraft/", views.question_redraft, name="question_redraft"),
    path("questions/<int:pk>/row/", views.question_row, name="question_row"),
    path("<int:pk>/questions/bulk/", views.workspace_bulk, name="workspace_bulk"),
    path("<int:pk>/export.xlsx", views.export_xlsx, name="export_xlsx"),
    path("<int:pk>/export.csv", views.export_csv, name="export_csv"),
    path("<int:pk>/export-workbook/", views.export_choices, name="export_choices"),
    path("<int:pk>/export-workbook.xlsx", views.export_workbook, name="export_workbook"),
    path("<int:pk>/export.docx", views.export_docx, name="export_docx"),
    path("<int:pk>/export-document/", views.export_document, name="export_document"),
    path("<int:pk>/export-document/download", views.export_document_download, name="export_document_download"),
    path("<int:pk>/export-sources.csv", views.export_sources, name="export_sources"),
]
