# Inkwell: `make run` serves the API with the embedded default; `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT

.PHONY: run test venv migrate clean

# What running needs only; the test tools (pytest, schemathesis, Playwright, aiosmtpd) come with
# `make test` (or `make venv`), not with `make run`.
# No byte-compilation at install time: Python compiles the modules it imports on first use, so
# the first start neither waits for nor stores the compiled form of every installed module.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --no-compile -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[test]"
	touch $@

venv: $(VENV)/.installed-test

migrate: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py createcachetable

run: migrate
	$(PY) manage.py import_keywords --demo --if-empty --no-progress
	$(PY) manage.py serve --host $(HOST) --port $(PORT)

test: venv
	scripts/test

clean:
	rm -rf $(VENV) test-output
