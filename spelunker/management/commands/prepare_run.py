"""What `make run` does to the database and the static files before its processes start, in one process.

Each `manage.py` command starts Django afresh (seconds of imports on a busy 2-core machine), so
bin/run-stack runs these steps in one, while the broker boots beside it rather than before it.
"""

import resource
import time

from django.conf import settings
from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandError
from kombu import Connection

# RabbitMQ's first boot on a busy machine takes half a minute; bin/stack itself gives up after 90 s.
BROKER_WAIT_SECONDS = 120


def wait_for_broker(seconds: float) -> None:
    """Return once the broker accepts our login (the demo queues work); CommandError after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as connection:
                connection.ensure_connection(max_retries=1, timeout=2)
            return
        except Exception as error:  # refused, reset, login refused while the vhost is being made
            if time.monotonic() > deadline:
                raise CommandError(f"the broker did not answer in {seconds:.0f} s: {error}") from error
            time.sleep(0.5)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Command(BaseCommand):
    help = (
        "migrate, ensure_admin, collectstatic and `check --deploy --tag exposure` (which warns when development "
        "secrets listen beyond loopback); with --demo then `load_demo --if-empty` once the broker answers. "
        "What bin/run-stack runs before the processes start."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--demo", action="store_true", help="Load the demo data into an empty database (SPELUNKER_DEMO=1)."
        )

    def handle(self, *args, **options):
        started = time.monotonic()
        call_command("migrate", interactive=False, verbosity=options["verbosity"])
        call_command("ensure_admin")
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("check", deploy=True, tags=["exposure"])
        self.stdout.write(
            f"Database and static files ready in {time.monotonic() - started:.1f} s "
            f"({cpu_seconds():.1f} s of CPU, Django's start included)."
        )
        if options["demo"]:
            self._load_demo()

    def _load_demo(self):
        # load_demo comes with the demo app; a checkout without it skips this.
        if "load_demo" not in get_commands():
            self.stderr.write("SPELUNKER_DEMO=1, but this version has no load_demo command")
            return
        wait_for_broker(BROKER_WAIT_SECONDS)
        self.stdout.write("Loading the demo data (only into an empty database).")
        call_command("load_demo", if_empty=True)
