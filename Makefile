# Spelunker — development entry points. No Docker engine needed: the services
# (RabbitMQ, Memcached, PostgreSQL) run privately from the OS packages, see
# bin/stack. `docker compose up` is the production-like alternative.
#
#   make run     the whole app on http://127.0.0.1:8000 (Ctrl-C stops it all)
#   make test    the test suite against a fresh private stack (PYTEST_ARGS=...)
#   make eval    retrieval and answer quality on the shipped evaluation set -> docs/quality.md
#   make bench   every benchmark beside its baseline on a private stack -> docs/benchmarks.md (< 15 min)
#   make bench-quick   the same as a short smoke run (CI) -> var/benchmarks-quick.md
#   make venv    create/refresh .venv when the requirements change
#   make stop    stop what a killed `make run` left running (supervisord, services)
#   make clean   stop them and delete .run/ (dev broker data, generated secrets)

SHELL := /bin/bash
PYTEST_ARGS ?=

.PHONY: run test eval bench bench-quick venv stop clean

# bin/venv installs what changed since its last run (with uv when it can, else pip); a no-op otherwise.
venv:
	@bin/venv dev

# The runtime requirements only (no test tools): bin/run-stack installs them while the services start.
run:
	bin/run-stack

test: venv
	bin/test-stack $(PYTEST_ARGS)

# SQLite (a private file) and PostgreSQL (bin/stack's, started and stopped for the run), side by side (evaluation/run.py).
eval: venv
	.venv/bin/python -m evaluation.run

# matplotlib (plots) and pyinstrument (profiles of missed aims) are in requirements-dev.txt; wrk is a Debian package.
bench: venv
	bin/stack ensure wrk:wrk:wrk
	.venv/bin/python bench/run_all.py $(BENCH_ARGS)

bench-quick: venv
	bin/stack ensure wrk:wrk:wrk
	.venv/bin/python bench/run_all.py --quick --out var/benchmarks-quick.md

stop:
	bin/run-stack stop

clean: stop
	rm -rf .run
