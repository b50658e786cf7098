from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from home import views as home_views
from jobs import views as jobs_views

from . import health, views

urlpatterns = [
    path("", home_views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("system/", jobs_views.system, name="system"),
    path("system/checks/", jobs_views.system_check_start, name="system_check_start"),
    path("system/checks/<int:pk>/", jobs_views.system_check, name="system_check"),
    path("system/checks/<int:pk>/status/", jobs_views.system_check_status, name="system_check_status"),
    path("jobs/", include("jobs.urls")),
    path("library/", include("solution_library.urls")),
    path("rfps/", include("rfp_manager.urls")),
    path("answers/", include("answer_library.urls")),
    path("llm/", include("llm_manager.urls")),
    path("demo/", include("demo.urls")),
    path("audit/", include("audit.urls")),
    path("team/", include("teamwork.urls")),
    path(f"{settings.TRUST_CENTER_PATH}<slug:slug>/", include("trust_center.urls")),
    path("admin/", admin.site.urls),
]
