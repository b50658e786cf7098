"""Create the first admin user once (used by `make run`)."""

import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create a superuser from SPELUNKER_ADMIN_USER / SPELUNKER_ADMIN_PASSWORD, or generate a "
        "password and print it once. Does nothing when the user already exists."
    )

    def handle(self, *args, **options):
        username = os.environ.get("SPELUNKER_ADMIN_USER") or "admin"
        password = os.environ.get("SPELUNKER_ADMIN_PASSWORD")
        User = get_user_model()
        if User.objects.filter(username=username).exists():
            self.stdout.write(f"Admin user '{username}' exists; sign in with its password.")
            return
        generated = not password
        password = password or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, email="", password=password)
        if generated:
            self.stdout.write(
                self.style.WARNING(
                    f"Created admin user '{username}' with password: {password}\n"
                    "It is shown only this once; change it in the admin."
                )
            )
        else:
            self.stdout.write(f"Created admin user '{username}' from SPELUNKER_ADMIN_PASSWORD.")
