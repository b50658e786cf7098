"""Notification emails through Django's email framework to a real SMTP server, sent by a real worker.

The session's mail server (tests/mail_server.py) is where every worker sends
mail; stopping it is a real outage: connections are refused.
"""

import smtplib
import time

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from teamwork.models import Notification
from teamwork.services import email
from teamwork.services.notifications import notify
from teamwork.tasks import send_notification_email

from .conftest import add_member


def _wait_until(condition, timeout: float = 60, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.1)
    raise TimeoutError(f"waited {timeout}s for {what}")


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _notification(recipient) -> Notification | None:
    return Notification.objects.filter(recipient=recipient).first()


def test_the_assignment_email_reaches_the_smtp_server(live_worker, mail_server, rfp, user, user_client, bob):
    questions = list(rfp.questions.order_by("order")[:5])
    response = user_client.post(
        reverse("teamwork:assign", args=[rfp.pk]),
        {"questions": [q.pk for q in questions], "assignee": bob.pk, "due_date": "2030-01-31"},
    )
    assert response.status_code == 302

    [message] = mail_server.wait_for("bob@example.com")
    assert "Assigned to you: alice assigned you 5 questions" in message["Subject"]
    body = message.get_content()
    assert "due 2030-01-31" in body and "/team/my-questions/" in body
    sent = _wait_until(lambda: _notification(bob).email_status == "sent" and _notification(bob), what="sent")
    assert sent.email_attempts == 1 and sent.email_sent_at is not None


def test_an_unreachable_mail_server_delays_the_email_never_the_action(
    live_worker, mail_server, rfp, user, user_client, bob
):
    mail_server.stop()
    try:
        response = user_client.post(
            reverse("teamwork:assign", args=[rfp.pk]), {"questions": [rfp.questions.first().pk], "assignee": bob.pk}
        )
        assert response.status_code == 302  # the action succeeded; the email waits
        waiting = _wait_until(lambda: (n := _notification(bob)) and n.email_attempts >= 1 and n, what="a failed try")
        assert waiting.email_status == "queued" and "ConnectionRefusedError" in waiting.email_error
    finally:
        mail_server.start()

    [message] = mail_server.wait_for("bob@example.com")
    assert "alice assigned you Q1" in message["Subject"]
    delivered = _wait_until(lambda: (n := _notification(bob)).email_status == "sent" and n, what="sent")
    assert delivered.email_attempts >= 2 and delivered.email_error == ""


def test_a_refused_address_fails_at_once_and_staff_see_why(
    live_worker, mail_server, rfp, user, user_client, staff_user, django_user_model
):
    zoe = add_member(rfp, django_user_model, "zoe", "contributor", email="zoe@refused.test")
    user_client.post(
        reverse("teamwork:assign", args=[rfp.pk]), {"questions": [rfp.questions.first().pk], "assignee": zoe.pk}
    )

    failed = _wait_until(lambda: (n := _notification(zoe)) and n.email_status == "failed" and n, what="failed")

    assert failed.email_attempts == 1 and "550" in failed.email_error  # a refusal is not retried
    page = _client(staff_user).get(reverse("teamwork:undelivered")).content.decode()
    assert "zoe@refused.test" in page and "No such user here" in page and "Send again" in page
    assert _client(zoe).get(reverse("teamwork:notifications")).content.decode().count("alice assigned you Q1") == 1


@pytest.mark.django_db
def test_a_sent_email_is_not_sent_again(user):
    user.email = "alice@example.com"
    user.save()
    notification = notify(user, "mentioned", "bob mentioned you")
    send_notification_email.apply(args=[notification.pk])
    send_notification_email.apply(args=[notification.pk])  # a redelivery
    assert len(mail.outbox) == 1
    assert Notification.objects.get(pk=notification.pk).email_status == "sent"


@pytest.mark.django_db
def test_no_email_address_means_no_email_but_the_notification_is_there(user):
    notification = notify(user, "mentioned", "bob mentioned you")
    assert notification.email_status == "none" and not mail.outbox


@pytest.mark.parametrize(
    "error, transient",
    [
        pytest.param(ConnectionRefusedError(111, "Connection refused"), True, id="refused"),
        pytest.param(TimeoutError("timed out"), True, id="timeout"),
        pytest.param(smtplib.SMTPServerDisconnected("gone"), True, id="disconnected"),
        pytest.param(smtplib.SMTPResponseException(421, b"try later"), True, id="421"),
        pytest.param(smtplib.SMTPRecipientsRefused({"a@b": (450, b"mailbox busy")}), True, id="450-recipient"),
        pytest.param(smtplib.SMTPRecipientsRefused({"a@b": (550, b"no such user")}), False, id="550-recipient"),
        pytest.param(smtplib.SMTPDataError(554, b"rejected"), False, id="554"),
        pytest.param(smtplib.SMTPAuthenticationError(535, b"bad password"), False, id="535-auth"),
        pytest.param(smtplib.SMTPNotSupportedError("no STARTTLS"), False, id="not-supported"),
    ],
)
def test_only_passing_failures_are_retried(error, transient):
    assert email.is_transient(error) is transient


@pytest.mark.django_db
@pytest.mark.parametrize("mention", [False, True], ids=["assigned", "mentioned"])
def test_the_email_links_to_the_question_by_its_absolute_address(rfp, user, user_client, bob, settings, mention):
    settings.SPELUNKER_SITE_URL = "https://spelunker.example.com/"
    question = rfp.questions.order_by("order").first()
    if mention:
        user_client.post(reverse("teamwork:comment", args=[question.pk]), {"text": "@bob can you check this?"})
    else:
        user_client.post(reverse("teamwork:assign", args=[rfp.pk]), {"questions": [question.pk], "assignee": bob.pk})
    send_notification_email.apply(args=[_notification(bob).pk])

    [message] = mail.outbox
    link = f"https://spelunker.example.com{reverse('rfp_manager:answer_edit', args=[question.pk])}"
    assert f"Open it in Spelunker: {link}" in message.body
