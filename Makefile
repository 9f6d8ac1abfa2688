# prefclub — the two commands a newcomer needs are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.run-installed
TEST_STAMP := $(VENV)/.test-installed
CHROMIUM ?= /usr/bin/chromium
HEADLESS_SHELL ?= /usr/bin/chromium-headless-shell

.PHONY: run test lint typecheck bench selfplay clean-data chromium lock compose-cli pdf-font js-lint js-test node

PIP := $(BIN)/python -m pip --quiet --disable-pip-version-check
INSTALL_LOG := $(VENV)/install.log
# pip and setuptools talk a lot while installing: keep it in a log, show it only on failure.
QUIET = > $(INSTALL_LOG) 2>&1 || { cat $(INSTALL_LOG); echo "install failed (log: $(INSTALL_LOG))"; exit 1; }

# Installs are reproducible: exact versions with hashes from the lock files (`make lock` writes
# them), then the project itself without touching its dependencies. pip installs only the
# installer, uv (pinned with its hashes in requirements-uv.lock); uv installs the rest, byte-compiled
# (the test venv in about a third of pip's wall time; docs/testing.md).
RUN_LOCK := requirements.lock
TEST_LOCK := requirements-test.lock
UV_LOCK := requirements-uv.lock
UV_INSTALL = $(BIN)/uv pip install --quiet --python $(BIN)/python
INSTALL_UV = $(PIP) install --require-hashes -r $(UV_LOCK)
INSTALL_LOCK = $(UV_INSTALL) --compile-bytecode --require-hashes -r
INSTALL_PROJECT = $(UV_INSTALL) --no-deps --no-build-isolation -e .

$(BIN)/python:
	@echo "creating $(VENV) ..."
	@$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml $(RUN_LOCK) $(UV_LOCK) | $(BIN)/python
	@echo "installing prefclub into $(VENV) from $(RUN_LOCK) (details in $(INSTALL_LOG)) ..."
	@{ $(INSTALL_UV) && $(INSTALL_LOCK) $(RUN_LOCK) && $(INSTALL_PROJECT); } $(QUIET)
	@touch $@

$(TEST_STAMP): pyproject.toml $(TEST_LOCK) $(UV_LOCK) | $(BIN)/python
	@echo "installing prefclub and its test tools into $(VENV) from $(TEST_LOCK) (details in $(INSTALL_LOG)) ..."
	@{ $(INSTALL_UV) && $(INSTALL_LOCK) $(TEST_LOCK) && $(INSTALL_PROJECT); } $(QUIET)
	@touch $@ $(RUN_STAMP)

## Refresh the lock files from pyproject.toml (and requirements-build.in) with uv: exact versions
## and hashes for CPython 3.11+ on every platform. Pins already in a lock file are kept unless
## LOCK_ARGS says otherwise: `make lock LOCK_ARGS=--upgrade` or `LOCK_ARGS='--upgrade-package X'`.
LOCK_ARGS ?=
UV_COMPILE = $(BIN)/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock" $(LOCK_ARGS) pyproject.toml requirements-build.in

lock: $(TEST_STAMP)
	$(UV_COMPILE) -o $(RUN_LOCK)
	$(UV_COMPILE) --extra test -o $(TEST_LOCK)
	@{ echo "# The installer the Makefile's pip installs first: uv's pin in $(TEST_LOCK) (make lock)."; \
	  awk '/^uv==/{p=1} p{print} p && !/\\$$/{exit}' $(TEST_LOCK); } > $(UV_LOCK)

## Serve the club on http://127.0.0.1:8000 (embedded PostgreSQL in var/ unless DATABASE_URL is set).
## The address and, on the first start, the admin's one-time login are the last lines printed.
run: $(RUN_STAMP) pdf-font
	@$(BIN)/prefclub serve

## Lint, type-check and run the whole test suite against a real PostgreSQL.
# The sources are byte-compiled once first: the suite starts a few hundred Python processes
# (servers, commands, pool workers), and where PYTHONDONTWRITEBYTECODE is set each of them
# would compile app/ anew.
test: $(TEST_STAMP) chromium compose-cli pdf-font lint typecheck js-lint js-test
	@$(BIN)/python -m compileall -q -j 0 app tests bench migrations
	$(BIN)/pytest

## ruff (lint and format), then the layer contracts of DESIGN.md (pyproject.toml [tool.importlinter]).
lint: $(TEST_STAMP)
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/ruff format --check app tests bench migrations
	$(BIN)/lint-imports

typecheck: $(TEST_STAMP)
	$(BIN)/mypy --strict app

## The pages' JavaScript: ESLint (from the npm registry, exact versions from package-lock.json)
## and the unit tests of its pure modules with `node --test` (no bundler, nothing at run time).
NODE_STAMP := node_modules/.installed
node:
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  echo "installing Debian's nodejs and npm for the pages' lint and unit tests"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq nodejs npm; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq nodejs npm; fi; }

$(NODE_STAMP): package.json package-lock.json | node
	@echo "installing ESLint into node_modules from package-lock.json ..."
	@npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

js-lint: $(NODE_STAMP)
	npx --no-install eslint static/js static/sw.js tests/js eslint.config.js

js-test: node
	node --test tests/js/

## Debian's chromium and its headless shell for the browser tests, installed when missing (needs
## root or sudo). The tests drive the shell (a page costs 40 % of the CPU; docs/testing.md);
## bench.browser, what a member's browser does, the full chromium.
chromium:
	@{ test -x $(CHROMIUM) || command -v chromium >/dev/null 2>&1; } && test -x $(HEADLESS_SHELL) || { \
	  echo "installing Debian's chromium and chromium-headless-shell for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium chromium-headless-shell; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium chromium-headless-shell; fi; }

## DejaVu Sans for the PDF print-outs (PREFCLUB_PDF_FONT): Debian's fonts-dejavu-core, installed
## when the font is missing and PREFCLUB_PDF_FONT names no other.
PDF_FONT ?= $(or $(PREFCLUB_PDF_FONT),/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf)
pdf-font:
	@test -f $(PDF_FONT) || { \
	  echo "installing Debian's fonts-dejavu-core for the PDF print-outs"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends fonts-dejavu-core; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq --no-install-recommends fonts-dejavu-core; fi; }

## A compose client for the deployment tests (`docker compose config` needs no Docker engine):
## Debian's docker-compose, installed when neither `docker compose` nor `docker-compose` exists.
compose-cli:
	@docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1 || { \
	  echo "installing Debian's docker-compose for the deployment tests"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends docker-compose; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq --no-install-recommends docker-compose; fi; }

bench: $(TEST_STAMP)
	$(BIN)/python -m bench.engine --json

## The live-table acceptance run: 4 tables of bots over real websockets, rescored.
selfplay: $(RUN_STAMP)
	$(BIN)/prefclub selfplay --tables 4 --players 3 --deals 8 --json

clean-data:
	rm -rf var/test
