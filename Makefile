# prefclub — the two commands a newcomer needs are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.run-installed
TEST_STAMP := $(VENV)/.test-installed
CHROMIUM ?= /usr/bin/chromium

.PHONY: run test lint typecheck bench selfplay clean-data chromium

PIP := $(BIN)/python -m pip --quiet --disable-pip-version-check
INSTALL_LOG := $(VENV)/install.log
# pip and setuptools talk a lot while installing: keep it in a log, show it only on failure.
QUIET = > $(INSTALL_LOG) 2>&1 || { cat $(INSTALL_LOG); echo "install failed (log: $(INSTALL_LOG))"; exit 1; }

$(BIN)/python:
	@echo "creating $(VENV) ..."
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) install --upgrade pip $(QUIET)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	@echo "installing prefclub into $(VENV) (details in $(INSTALL_LOG)) ..."
	@$(PIP) install -e . $(QUIET)
	@touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	@echo "installing prefclub and its test tools into $(VENV) (details in $(INSTALL_LOG)) ..."
	@$(PIP) install -e '.[test]' $(QUIET)
	@touch $@ $(RUN_STAMP)

## Serve the club on http://127.0.0.1:8000 (embedded PostgreSQL in var/ unless DATABASE_URL is set).
## The address and, on the first start, the admin's one-time login are the last lines printed.
run: $(RUN_STAMP)
	@$(BIN)/prefclub serve

## Lint, type-check and run the whole test suite against a real PostgreSQL.
test: $(TEST_STAMP) chromium lint typecheck
	$(BIN)/pytest

## ruff, then the layer contracts of DESIGN.md (pyproject.toml [tool.importlinter]).
lint: $(TEST_STAMP)
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/lint-imports

typecheck: $(TEST_STAMP)
	$(BIN)/mypy app

## Debian's chromium for the browser tests, installed when missing (needs root or sudo).
chromium:
	@test -x $(CHROMIUM) || command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium; fi; }

bench: $(TEST_STAMP)
	$(BIN)/python -m bench.engine --json

## The live-table acceptance run: 4 tables of bots over real websockets, rescored.
selfplay: $(RUN_STAMP)
	$(BIN)/prefclub selfplay --tables 4 --players 3 --deals 8 --json

clean-data:
	rm -rf var/test
