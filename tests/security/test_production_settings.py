"""Production settings: `check --deploy` is clean with production values, and `make run`
warns when development secrets would listen beyond this machine (spelunker/checks.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DJANGO_SECRET_KEY": "p7Qx-production-only-9fKz2LmN4vB8cR1tY6uW3eA5sD0gH7jJ2kL9zX4c",
    "DJANGO_DEBUG": "false",
    "DJANGO_HTTPS": "true",
    "DJANGO_BEHIND_TLS_PROXY": "true",
    "DJANGO_ALLOWED_HOSTS": "spelunker.example.com",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://spelunker.example.com",
    "SPELUNKER_HOST": "0.0.0.0",
}
# Left out of the subprocess: what the tests set, plus the browser tests' DJANGO_ALLOW_ASYNC_UNSAFE
# (tests/conftest.py), which production never has and `check --deploy` rightly refuses.
NOT_FROM_THIS_PROCESS = (
    "DJANGO_SECRET_KEY",
    "DJANGO_DEBUG",
    "DJANGO_HTTPS",
    "DJANGO_BEHIND_TLS_PROXY",
    "DJANGO_ALLOWED_HOSTS",
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    "SPELUNKER_HOST",
    "FLOWER_BASIC_AUTH",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
)


def _manage(*args, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in NOT_FROM_THIS_PROCESS}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_with_production_values():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_check_deploy_flags_the_development_defaults():
    """The same check is not clean by accident: with the defaults it names what to fix."""
    result = _manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    for check_id in ("security.W004", "security.W008", "security.W009", "security.W012", "security.W016"):
        assert check_id in result.stderr, check_id


def test_production_values_come_from_the_environment():
    script = (
        "from django.conf import settings as s; import json; print(json.dumps([s.DEBUG, s.ALLOWED_HOSTS, "
        "s.CSRF_TRUSTED_ORIGINS, s.SECURE_PROXY_SSL_HEADER, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, "
        "s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS]))"
    )
    result = _manage("shell", "-c", script, **PRODUCTION_ENV)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [
        False,
        ["spelunker.example.com"],
        ["https://spelunker.example.com"],
        ["HTTP_X_FORWARDED_PROTO", "https"],
        True,
        True,
        True,
        365 * 24 * 3600,
    ]


def _exposure(**env) -> subprocess.CompletedProcess:
    return _manage("check", "--deploy", "--tag", "exposure", **env)


def test_make_run_warns_about_development_secrets_beyond_loopback():
    result = _exposure(SPELUNKER_HOST="0.0.0.0", FLOWER_BASIC_AUTH="admin:secret")
    assert result.returncode == 0  # a warning, not a refusal
    assert "spelunker.W001" in result.stderr
    assert "DJANGO_SECRET_KEY is the development default" in result.stderr
    assert "FLOWER_BASIC_AUTH uses a well-known password" in result.stderr


def test_make_run_is_quiet_on_loopback_or_with_real_secrets():
    assert "spelunker.W001" not in _exposure(SPELUNKER_HOST="127.0.0.1").stderr
    assert "spelunker.W001" not in _exposure(**PRODUCTION_ENV).stderr
