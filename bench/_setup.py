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


def profile_lines(profiler, limit: int = 45) -> list[str]:
    """A pyinstrument profile's first `limit` lines, paths relative to the checkout: the page is read on other machines."""
    text = profiler.output_text(unicode=True, color=False, short_mode=True).replace(f"{ROOT}/", "")
    return [line for line in text.splitlines() if line.strip()][:limit]


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of a process and its descendants so far, the exited ones they waited for included."""
    tick, stats = os.sysconf("SC_CLK_TCK"), {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:  # gone meanwhile
                continue
            fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
            stats[int(entry)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))  # ppid; utime stime cutime cstime
    tree, joined = {pid}, {pid}
    while joined:
        joined = {p for p, (ppid, _) in stats.items() if ppid in tree} - tree
        tree |= joined
    return sum(stats[p][1] for p in tree if p in stats) / tick


def use_model(which: str):
    """Make the offline baseline or the fresh install's default model the default embedding model; return it."""
    from llm_manager.models import LLMApi, LLMModel
    from llm_manager.services import make_default

    kind = LLMApi.KIND_OFFLINE if which == "offline" else LLMApi.KIND_LOCAL
    model = LLMModel.objects.filter(api__kind=kind, model_type=LLMModel.TYPE_EMBEDDING).order_by("pk").first()
    make_default(model)
    return model
