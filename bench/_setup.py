"""Shared start-up of the solution_library benchmarks: Django on the stack's database."""
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup_django() -> None:
    """Point Django at the running stack (source .run/<dir>/env first), with a scratch media folder."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")
    os.environ.setdefault("SPELUNKER_MEDIA_ROOT", tempfile.mkdtemp(prefix="spelunker-bench-media-"))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]
