"""The deployment files agree with each other and with the settings.

`make run` (Procfile + bin/run-stack, which runs the Procfile under
supervisord), `make test` (bin/test-stack) and `docker compose up`
(docker-compose.yml + Dockerfile) must start the same processes with the same
commands, and the broker must never time out a task that Celery still lets
run. These tests read the files; they start nothing (every `make test` run
exercises bin/stack itself; tests/test_fresh_clone.py runs `make run`).
"""

import re
import runpy
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from django.conf import settings
from supervisor import events as supervisor_events
from supervisor.process import EventListenerPool

ROOT = Path(__file__).resolve().parent.parent
PROCESSES = ["web", "worker-default", "worker-embedding", "worker-batch", "scheduler", "flower"]
APP_IMAGE = "spelunker:latest"


def read_procfile() -> dict[str, str]:
    processes = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)
        if match:
            assert match[1] not in processes, f"process {match[1]} defined twice"
            processes[match[1]] = match[2].strip()
    return processes


@pytest.fixture(scope="module")
def procfile() -> dict[str, str]:
    return read_procfile()


def generate_supervisord_conf(procfile: Path, run_dir: Path) -> subprocess.CompletedProcess:
    """What bin/run-stack does at every start."""
    return subprocess.run(
        [sys.executable, str(ROOT / "bin" / "supervisord-conf"), str(procfile), str(run_dir)],
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def supervised(tmp_path_factory) -> dict:
    """The generated supervisord configuration as supervisord itself reads it: {program name: its config}."""
    from supervisor.options import ServerOptions

    run_dir = tmp_path_factory.mktemp("run")
    generated = generate_supervisord_conf(ROOT / "Procfile", run_dir)
    assert generated.returncode == 0, generated.stderr
    (run_dir / "supervisord.conf").write_text(generated.stdout)
    options = ServerOptions()
    options.realize(args=["-c", str(run_dir / "supervisord.conf")])
    programs = {}
    for group in options.process_group_configs:
        assert len(group.process_configs) == 1, f"{group.name} runs more than one process"
        programs[group.name] = group.process_configs[0]
    return programs


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def services(compose) -> dict[str, dict]:
    return compose["services"]


def command_of(service: dict) -> str:
    command = service.get("command", "")
    return shlex.join(command) if isinstance(command, list) else command


def option_values(command: str, option: str) -> list[str]:
    """Values of `-Q x`, `-Q=x`, `--scheduler x` … in a command line."""
    words = shlex.split(command)
    values = []
    for i, word in enumerate(words):
        if word == option and i + 1 < len(words):
            values.append(words[i + 1])
        elif word.startswith(option + "="):
            values.append(word.split("=", 1)[1])
    return values


def test_procfile_has_exactly_the_expected_processes(procfile):
    assert list(procfile) == PROCESSES


@pytest.mark.parametrize("name", PROCESSES)
def test_compose_runs_the_same_command_as_the_procfile(name, procfile, services):
    assert name in services, f"docker-compose.yml has no service {name}"
    assert command_of(services[name]) == procfile[name]


@pytest.mark.parametrize("name", PROCESSES)
def test_app_services_use_the_built_image_and_the_shared_settings(name, services):
    service = services[name]
    assert service["image"] == APP_IMAGE
    env = service["environment"]
    for variable in ("DATABASE_URL", "CELERY_BROKER_URL", "KVDB_LOCATION", "DJANGO_SECRET_KEY"):
        assert variable in env, f"{name} lacks {variable}"
    assert env["DATABASE_URL"].startswith("postgres://")
    assert env["CELERY_BROKER_URL"].startswith("amqp://")
    assert "guest" not in env["CELERY_BROKER_URL"]


def test_web_listens_outside_its_container(services):
    assert services["web"]["environment"]["SPELUNKER_HOST"] == "0.0.0.0"


def test_gunicorn_config_reads_host_port_and_concurrency(monkeypatch):
    conf = ROOT / "spelunker" / "gunicorn_conf.py"
    for variable in ("SPELUNKER_HOST", "SPELUNKER_PORT", "WEB_CONCURRENCY"):
        monkeypatch.delenv(variable, raising=False)
    defaults = runpy.run_path(str(conf))
    assert defaults["bind"] == "127.0.0.1:8000"
    assert defaults["workers"] == 2
    monkeypatch.setenv("SPELUNKER_HOST", "0.0.0.0")
    monkeypatch.setenv("SPELUNKER_PORT", "9001")
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    configured = runpy.run_path(str(conf))
    assert configured["bind"] == "0.0.0.0:9001"
    assert configured["workers"] == 3


def test_make_run_supervises_exactly_the_procfile_commands(procfile, supervised):
    assert {name: config.command for name, config in supervised.items() if name in procfile} == procfile
    assert set(supervised) - set(procfile) == {"log-prefix"}  # the listener that prefixes their output


@pytest.mark.parametrize("name", PROCESSES)
def test_every_supervised_process_is_restarted_and_stopped_with_its_children(name, supervised):
    from supervisor.datatypes import RestartUnconditionally

    config = supervised[name]
    assert config.autorestart is RestartUnconditionally
    assert config.startretries >= 10 and config.startsecs > 0  # crash loops back off before giving up
    assert config.stopasgroup and config.killasgroup  # gunicorn's and celery's children go too
    assert config.stdout_events_enabled and config.redirect_stderr  # every line reaches the terminal


def test_supervisord_starts_the_web_alone_and_run_stack_the_others_once_it_answers(supervised):
    """Seven processes importing Django at once on 2 cores delayed a first run's first page by a minute."""
    assert {name for name in PROCESSES if supervised[name].autostart} == {"web"}
    run_stack = (ROOT / "bin" / "run-stack").read_text()
    assert "start_the_others_once_the_web_answers &" in run_stack
    assert 'supervisorctl -c "$DIR/supervisord.conf" start all' in run_stack


def test_procfile_shell_syntax_is_refused_not_misread(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text("web: gunicorn app --bind 0.0.0.0:$PORT\n")
    generated = generate_supervisord_conf(procfile, tmp_path)
    assert generated.returncode != 0 and "shell syntax" in generated.stderr


def log_event(payload: str) -> bytes:
    """An event as supervisord frames it (its own envelope code: `len` counts characters) and sends it (UTF-8)."""
    pool = SimpleNamespace(config=SimpleNamespace(name="log-prefix", options=SimpleNamespace(identifier="supervisor")))
    envelope = EventListenerPool._eventEnvelope(pool, supervisor_events.ProcessLogStdoutEvent, 1, 1, payload)
    return envelope.encode()


def test_log_listener_prefixes_whole_lines_with_the_program_name():
    """supervisord's event protocol in, `name | line` out, lines split across chunks joined again."""
    events = log_event(
        "processname:web groupname:web pid:7 channel:stdout\nListening at 8000\nBooting wor"
    ) + log_event("processname:web groupname:web pid:7 channel:stdout\nker 8\n")
    state = "processname:worker-batch groupname:worker-batch from_state:STARTING tries:3"
    events += f"ver:3.0 server:supervisor serial:3 pool:log-prefix poolserial:3 eventname:PROCESS_STATE_BACKOFF len:{len(state)}\n{state}".encode()
    result = subprocess.run(
        [sys.executable, str(ROOT / "bin" / "supervisor-log-prefix"), "--width", "12"],
        input=events,
        capture_output=True,
        timeout=30,
    )
    assert result.returncode == 0
    assert result.stdout.decode() == "READY\n" + "RESULT 2\nOKREADY\n" * 3
    assert result.stderr.decode().splitlines() == [
        "web          | Listening at 8000",
        "web          | Booting worker 8",
        "supervisor   | worker-batch died during start-up (3 failed start(s) in a row); next start in 3s",
    ]


def test_log_listener_reads_non_ascii_output_whole():
    """An e-mail printed by the console backend ("—", "“…”") is one event; the next event is read as an event,
    not as the e-mail's tail (supervisord counts `len` in characters: reading bytes raised ValueError)."""
    email = "Subject: Assigned: A.1 — “Backups”\nLink: https://spelunker.example/rfps/questions/1/answer/\n"
    events = log_event(f"processname:worker groupname:worker pid:9 channel:stdout\n{email}")
    events += log_event("processname:web groupname:web pid:7 channel:stdout\nstill here\n")
    result = subprocess.run(
        [sys.executable, str(ROOT / "bin" / "supervisor-log-prefix"), "--width", "6"],
        input=events,
        capture_output=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode() == "READY\n" + "RESULT 2\nOKREADY\n" * 2
    assert result.stderr.decode().splitlines() == [
        "worker     | Subject: Assigned: A.1 — “Backups”",
        "worker     | Link: https://spelunker.example/rfps/questions/1/answer/",
        "web        | still here",
    ]


def test_exactly_one_scheduler_and_it_uses_the_database(procfile, services, supervised):
    beats = [name for name, service in services.items() if " beat" in command_of(service)]
    assert beats == ["scheduler"]
    assert [name for name, config in supervised.items() if " beat" in config.command] == ["scheduler"]
    assert [name for name, command in procfile.items() if " beat" in command] == ["scheduler"]
    command = command_of(services["scheduler"])
    assert option_values(command, "--scheduler") == ["django_celery_beat.schedulers:DatabaseScheduler"]
    assert services["scheduler"].get("deploy", {}).get("replicas", 1) == 1


def test_one_worker_pool_per_queue(services):
    queues = {}
    for name, service in services.items():
        command = command_of(service)
        if re.search(r"\bcelery\b.*\bworker\b", command):
            values = option_values(command, "-Q")
            assert len(values) == 1 and "," not in values[0], f"{name} must serve exactly one queue"
            queues[name] = values[0]
    assert queues == {
        "worker-default": "default",
        "worker-embedding": "embedding",
        "worker-batch": "batch",
    }


def test_a_worker_only_host_runs_the_worker_pools_and_nothing_else(services):
    """COMPOSE_PROFILES=workers: the three pools, never a second database, broker, Beat or web."""
    assert {name for name, s in services.items() if "workers" in s.get("profiles", [])} == {
        "worker-default",
        "worker-embedding",
        "worker-batch",
    }
    assert all("main" in s.get("profiles", []) for s in services.values()), "one host runs everything with main"
    for name in ("worker-default", "worker-embedding", "worker-batch"):
        needed = [dep for dep, how in services[name]["depends_on"].items() if how.get("required", True)]
        assert needed == [], f"{name} would start {needed} on a worker-only host"


def test_every_machine_shares_the_media_in_s3(services):
    assert services["s3"]["volumes"] == ["media:/data"]
    for name in PROCESSES + ["migrate"]:
        env = services[name]["environment"]
        assert env["SPELUNKER_S3_BUCKET"] and env["SPELUNKER_S3_ENDPOINT_URL"], name
        assert "volumes" not in services[name], f"{name} keeps files of its own"


def test_every_routed_queue_has_a_worker(services):
    served = {option_values(command_of(s), "-Q")[0] for s in services.values() if " worker " in command_of(s)}
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    routed.add(settings.CELERY_TASK_DEFAULT_QUEUE)
    assert routed <= served


def longest_hard_time_limit() -> int:
    """Seconds: the longest hard limit of any registered task (the default for those without one)."""
    from spelunker.celery import app

    app.loader.import_default_modules()
    return max(
        task.time_limit or app.conf.task_time_limit
        for name, task in app.tasks.items()
        if not name.startswith("celery.")
    )


def test_broker_consumer_timeout_outlasts_the_hard_time_limit(services):
    hard_limit_ms = longest_hard_time_limit() * 1000
    assert hard_limit_ms >= settings.CELERY_TASK_TIME_LIMIT * 1000
    args = services["rabbitmq"]["environment"]["RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS"]
    compose_timeout = int(re.search(r"-rabbit consumer_timeout (\d+)", args)[1])
    assert compose_timeout > hard_limit_ms
    # The private broker of `make run` / `make test`.
    stack = (ROOT / "bin" / "stack").read_text()
    stack_timeout = int(re.search(r"^readonly CONSUMER_TIMEOUT_MS=(\d+)", stack, re.M)[1])
    assert "consumer_timeout = $CONSUMER_TIMEOUT_MS" in stack
    assert stack_timeout > hard_limit_ms


def test_flower_requires_credentials(services):
    env = services["flower"]["environment"]
    assert env.get("FLOWER_BASIC_AUTH"), "Flower must have basic auth in compose"
    assert "FLOWER_BASIC_AUTH" in (ROOT / "bin" / "run-stack").read_text()


def test_flower_environment_holds_only_flower_options(services):
    """Flower turns every FLOWER_* variable into an option and crashes on unknown ones."""
    from flower.options import default_options

    known = set(default_options._options)
    for name in PROCESSES + ["migrate"]:
        for variable in services.get(name, {}).get("environment", {}):
            if variable.startswith("FLOWER_"):
                option = variable.removeprefix("FLOWER_").lower()
                assert option in known or option.replace("_", "-") in known, f"{name}: {variable}"


def test_final_image_runs_as_a_non_root_user():
    dockerfile = (ROOT / "Dockerfile").read_text()
    stages = re.split(r"^FROM\s", dockerfile, flags=re.M | re.I)
    final = stages[-1]
    users = re.findall(r"^USER\s+(\S+)", final, flags=re.M | re.I)
    assert users, "the final stage sets no USER"
    assert users[-1] not in ("root", "0", "0:0")
    assert re.search(r"^EXPOSE\s+8000\b", final, flags=re.M)
    assert "collectstatic" in final


def test_ci_runs_make_test():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test\b", ci, flags=re.M)
    assert "set -euo pipefail" in ci
