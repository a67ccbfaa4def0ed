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
# uv (a wheel from PyPI) installs the same pins as pip in a fraction of the time: it downloads in
# parallel and, like `--no-compile`, leaves byte-compilation to the first import.
UV_VERSION := 0.13.9
UV := $(VENV)/bin/uv pip install -q --python $(PY)

# pip only brings uv in; uv then installs everything and removes pip and setuptools (27 MB) that
# nothing else uses.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	test -x $(VENV)/bin/uv || $(PY) -m pip install -q --no-compile uv==$(UV_VERSION)
	$(UV) -e .
	$(VENV)/bin/uv pip uninstall -q --python $(PY) pip setuptools
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(UV) -e ".[test]"
	touch $@

venv: $(VENV)/.installed-test

migrate: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py createcachetable

run: $(VENV)/.installed
	$(PY) manage.py serve --setup --host $(HOST) --port $(PORT)

test: venv
	scripts/test

clean:
	rm -rf $(VENV) test-output
