from django.urls import path

from . import views

app_name = "solution_library"
urlpatterns = [
    path("", views.index, name="index"),
    path("upload/", views.upload, name="upload"),
    path("documents/", views.documents_table, name="documents"),
    path("documents/<int:pk>/", views.document_detail, name="document"),
    path("documents/<int:pk>/status/", views.document_status, name="document_status"),
    path("documents/<int:pk>/retry/", views.document_retry, name="document_retry"),
    path("search/", views.search, name="search"),
    path("chunks/<int:pk>/", views.chunk, name="chunk"),
    path("sources/", views.sources, name="sources"),
    path("sources/<int:pk>/", views.source_detail, name="source"),
    path("sources/<int:pk>/sync/", views.source_sync, name="source_sync"),
    path("sync-jobs/<int:pk>/", views.sync_job, name="sync_job"),
    path("sync-jobs/<int:pk>/status/", views.sync_job_status, name="sync_job_status"),
    path("embed-jobs/<int:pk>/", views.embed_job, name="embed_job"),
    path("embed-jobs/<int:pk>/status/", views.embed_job_status, name="embed_job_status"),
]
