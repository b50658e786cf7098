"""Comments on a question, kept with the answer's history; an @mention notifies."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from rfp_manager.models import Answer
from teamwork.models import Comment, Notification
from teamwork.services import comments
from teamwork.services.comments import mentioned_names

pytestmark = pytest.mark.django_db


def _comment(client, question, text):
    return client.post(reverse("teamwork:comment", args=[question.pk]), {"text": text}, follow=True)


def test_a_mention_notifies_the_colleague_and_the_comment_joins_the_history(rfp, user, bob, client):
    question = rfp.questions.get(number="1")
    Answer.objects.create(question=question, draft_text="Yes.")
    client.force_login(bob)

    page = _comment(client, question, "@alice is AES-256 the right wording? Also @nobody.").content.decode()

    assert "Comment added. Notified alice." in page and "Nobody on this RFP is called @nobody" in page
    comment = Comment.objects.get()
    assert list(comment.mentions.all()) == [user]
    notice = Notification.objects.get(recipient=user)
    assert notice.kind == "mentioned" and notice.text.startswith("bob mentioned you on Q1 of “Acme tender”")
    assert notice.url.endswith(f"#comment-{comment.pk}")
    assert f'id="comment-{comment.pk}"' in page and "is AES-256 the right wording?" in page  # in the history
    assert AuditEvent.objects.get(action="commented").actor == bob


def test_someone_who_cannot_see_the_rfp_is_not_notified(rfp, user, user_client, django_user_model):
    django_user_model.objects.create_user("mallory", email="m@example.com")
    _comment(user_client, rfp.questions.first(), "@mallory have a look")
    assert not Notification.objects.exists()
    assert not Comment.objects.get().mentions.exists()


def test_a_viewer_reads_comments_but_may_not_write_one(rfp, user, user_client, carol, client):
    question = rfp.questions.first()
    _comment(user_client, question, "Owner's note")
    client.force_login(carol)
    assert client.post(reverse("teamwork:comment", args=[question.pk]), {"text": "hi"}).status_code == 403
    page = client.get(reverse("rfp_manager:answer_edit", args=[question.pk])).content.decode()
    assert "Owner&#x27;s note" in page and 'id="comment-form"' not in page
    assert Comment.objects.count() == 1


def test_comments_are_shown_escaped(rfp, user_client):
    question = rfp.questions.first()
    _comment(user_client, question, "<script>alert(1)</script>")
    page = user_client.get(reverse("rfp_manager:answer_edit", args=[question.pk])).content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.mark.parametrize(
    "text, names",
    [
        pytest.param("@bob please", {"bob"}, id="one"),
        pytest.param("ask @Bob.", {"bob"}, id="sentence-end"),
        pytest.param("mail bob@example.com", set(), id="an-address-is-not-a-mention"),
        pytest.param("@bob and @carol.x", {"bob", "carol.x"}, id="two"),
    ],
)
def test_mentions_are_read_like_usernames(text, names):
    assert mentioned_names(text) == names


def test_a_long_comment_is_quoted_in_the_mention_up_to_a_whole_word(rfp, user, bob, client):
    question = rfp.questions.get(number="1")
    client.force_login(bob)
    words = "@alice please check the retention wording against the policy before we send it " * 5
    _comment(client, question, words)

    quoted = Notification.objects.get(recipient=user).text.split(f"of “{rfp.name}”: ", 1)[1]
    assert quoted.endswith(" …") and len(quoted) <= comments.MENTION_CHARS
    assert " ".join(words.split()).startswith(quoted.removesuffix(" …") + " ")
