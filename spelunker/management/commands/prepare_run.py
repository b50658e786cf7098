"""What `make run` does to the database and the static files before its processes start, in one process.

Each `manage.py` command starts Django afresh (seconds of imports on a busy 2-core machine), so
bin/run-stack runs these steps in one: while the broker boots beside it, not after it.
"""

import time

from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "migrate, ensure_admin, collectstatic, and `check --deploy --tag exposure` (which warns when "
        "development secrets listen beyond loopback): what bin/run-stack runs before the processes start."
    )

    def handle(self, *args, **options):
        started = time.monotonic()
        call_command("migrate", interactive=False, verbosity=options["verbosity"])
        call_command("ensure_admin")
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("check", deploy=True, tags=["exposure"])
        self.stdout.write(f"Database and static files ready in {time.monotonic() - started:.1f} s.")
