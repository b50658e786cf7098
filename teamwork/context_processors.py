from .services.notifications import unread_count


def unread_notifications(request) -> dict:
    """The count beside "Notifications" in the top bar (one indexed count per page)."""
    user = getattr(request, "user", None)
    return {"unread_notifications": unread_count(user) if user and user.is_authenticated else 0}
