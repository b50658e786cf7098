from django.urls import path

from . import views

app_name = "teamwork"
urlpatterns = [
    path("my-questions/", views.my_questions, name="my_questions"),
    path("notifications/", views.notification_list, name="notifications"),
    path("notifications/read/", views.notifications_read, name="notifications_read"),
    path("notifications/undelivered/", views.undelivered, name="undelivered"),
    path("notifications/<int:pk>/resend/", views.resend, name="resend"),
    path("rfps/<int:pk>/assign/", views.assign, name="assign"),
    path("rfps/<int:pk>/people/", views.people, name="people"),
    path("questions/<int:pk>/comments/", views.comment, name="comment"),
]
