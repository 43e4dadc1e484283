# Needs only python3 and pip: uv is installed into .tools/, the project into .venv/.
SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.8
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)
# Compiled modules are kept (__pycache__): without them every process, and every xdist worker,
# compiles Django and the project again (about 8 s of a test run).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install run test worker serve lint format check-migrations clean

$(UV):
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --target $(TOOLS) "uv==$(UV_VERSION)"

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --python $(PYTHON)
	@touch $@

## install: the project and its locked dependencies into .venv
install: $(VENV)/.synced

# DEBUG is off unless set (a process started without it is a production one); the development
# targets turn it on.
DEV := DEBUG=1

# The links of `make run` (e-mails, feeds, API answers): FRONTEND_URL when set, else the address
# it serves, http://HOST:PORT (HOST=0.0.0.0 links to 127.0.0.1).
RUN_URL = $(or $(FRONTEND_URL),http://$(if $(filter 0.0.0.0,$(HOST)),127.0.0.1,$(HOST)):$(PORT))

## run: the embedded default (SQLite, eager Celery, demo data) on 127.0.0.1:8000, DEBUG on;
## `make run PORT=8123` serves and links on 8123; the demo logins are printed last
run: install
	$(DEV) FRONTEND_URL='$(RUN_URL)' $(BIN)/python manage.py migrate --noinput
	$(DEV) FRONTEND_URL='$(RUN_URL)' $(BIN)/python manage.py seed_demo --base-url '$(RUN_URL)'
	$(DEV) FRONTEND_URL='$(RUN_URL)' $(BIN)/python manage.py runserver $(HOST):$(PORT)

## test: the whole suite on every core (pytest-xdist), in random order (the seed is printed;
## PYTEST_ARGS=--randomly-seed=N repeats an order), listing the 15 slowest tests;
## PYTEST_ARGS=tests/store/cart runs one app (docs/testing.md)
test: install
	$(BIN)/pytest -n auto --dist worksteal --durations=15 $(PYTEST_ARGS)

## worker: Celery worker with embedded beat (needs REDIS_URL); QUEUES=webhooks,... limits its queues
worker: install
	@if [ -z "$$REDIS_URL" ]; then echo "make worker needs REDIS_URL (without it, tasks run eagerly in the web process)"; exit 1; fi
	$(BIN)/celery -A config worker --beat --loglevel=INFO $(if $(QUEUES),--queues=$(QUEUES))

## serve: gunicorn, as in production (set the production variables first)
serve: install
	$(BIN)/python manage.py collectstatic --noinput
	GUNICORN_BIND=$(HOST):$(PORT) $(BIN)/gunicorn -c config/gunicorn_conf.py config.wsgi:application

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

check-migrations: install
	$(DEV) $(BIN)/python manage.py makemigrations --check --dry-run

.PHONY: bench
## bench: every bench/bench_*.py on the harness (gunicorn + wrk on PostgreSQL and Redis) and the
## scale test; writes bench/results.md (BENCH_ARGS="--rounds 5 --seconds 3" for a short run)
bench: install
	$(BIN)/python -m bench.run_all --args "$(BENCH_ARGS)" --scale-args "$(SCALE_ARGS)"

.PHONY: imports
## imports: the import contracts of .importlinter (layering between and inside the apps)
imports: install
	$(BIN)/lint-imports --no-cache

.PHONY: walkthroughs
## walkthroughs: every `sh run` block of README.md and docs/, verbatim, against a fresh
## `make run` server (its own database); ONLY=docs/api/store.md:58 runs one
walkthroughs: install
	$(BIN)/python .ci/walkthroughs.py $(foreach o,$(ONLY),--only $(o))

.PHONY: typecheck
## typecheck: mypy (django-stubs), strict on the kernels and every services and selectors
## module; the modules still excused are in .ci/mypy-baseline.txt, which may only shrink
typecheck: install
	$(BIN)/python .ci/typecheck.py

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .ruff_cache
