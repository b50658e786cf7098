"""Comments on a question, and the @mentions in them."""

import re

from django.db import transaction
from django.urls import reverse

from core.excerpts import excerpt

from ..events import comment_posted
from ..models import Comment, Notification
from . import roles
from .notifications import notify

# @name as Django usernames are spelled (letters, digits, . + - _ @); not inside an email address.
MENTION = re.compile(r"(?<![\w.+-])@([\w.+-]+)")
MENTION_CHARS = 200  # of the comment, in the notification: its start, to know what it is about


def mentioned_names(text: str) -> set[str]:
    return {name.rstrip(".").lower() for name in MENTION.findall(text)}


def add_comment(question, author, text: str) -> tuple[Comment, list[str]]:
    """Save a comment and notify the people it mentions who may see the RFP.

    Returns the comment and the mentioned names that were not notified (nobody
    by that name works on this RFP), so the page can say so.
    """
    rfp = question.rfp
    names = mentioned_names(text)
    people = {u.get_username().lower(): u for u in roles.people(rfp)}
    mentioned = [people[n] for n in sorted(names) if n in people]
    with transaction.atomic():
        comment = Comment.objects.create(question=question, author=author, text=text)
        comment.mentions.set(mentioned)
        comment_posted.send(Comment, comment=comment)
        url = reverse("rfp_manager:answer_edit", args=[question.pk]) + f"#comment-{comment.pk}"
        for user in mentioned:
            if user != author:
                notify(
                    user,
                    Notification.Kind.MENTIONED,
                    f"{author.get_username()} mentioned you on {question.label} of “{rfp.name}”: {excerpt(text, MENTION_CHARS)}",
                    url=url,
                    question=question,
                )
    return comment, sorted(names - people.keys())
