# The two commands a newcomer needs (each creates .venv on first use):
#   make lab    - the main job: JupyterLab on the teaching notebooks
#   make test   - ruff, mypy and the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test lab lint browser clean bench notebooks mutate

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,notebook]'
	touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check toolkit tests
	$(VENV)/bin/mypy toolkit

# The browser test drives Debian's Chromium (never a Playwright download).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -q --no-install-recommends chromium; \
	  elif [ "$$CI" = true ]; then \
	    echo "CI needs /usr/bin/chromium: run as root so make can install it"; exit 1; \
	  else \
	    echo "note: no /usr/bin/chromium, the browser test will skip (apt-get install chromium)"; \
	  fi; \
	fi

test: lint browser
	$(VENV)/bin/pytest

# `make lab LAB_ARGS="--port 8899 --ip 0.0.0.0 --no-browser"` passes JupyterLab's own flags.
# JupyterLab prints the URL with its token ("http://127.0.0.1:8888/lab?token=..."): open it
# when no browser starts (a container, a remote machine, --no-browser).
LAB_ARGS ?=
lab: $(STAMP)
	@echo "JupyterLab: open the URL with ?token= it prints below if no browser opens"
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. $(if $(filter 0,$(shell id -u)),--allow-root) \
		$(LAB_ARGS) notebooks/01-quickstart.ipynb

# Rebuild the teaching notebooks (outputs-free) from notebooks/_build.py.
notebooks: $(STAMP)
	$(PY) notebooks/_build.py

bench: $(STAMP)
	$(PY) -m bench

# Mutation testing (mutmut) of the modules that decide, not in CI: `make mutate` runs every
# module listed in tests/mutate.py, `make mutate MODULES=toolkit/core/decision.py` one (or a
# space-separated few). Each runs in a copy under $TMPDIR; the killed share per module is printed.
MODULES ?=
mutate: $(STAMP)
	$(PY) tests/mutate.py $(MODULES)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
