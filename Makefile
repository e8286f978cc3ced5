# The two commands a newcomer needs (each creates .venv on first use):
#   make lab    - the main job: explore the shipped examples
#   make test   - ruff, mypy and the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test lab lint clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,notebook]'
	touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check toolkit tests
	$(VENV)/bin/mypy toolkit

test: lint
	$(VENV)/bin/pytest

lab: $(STAMP)
	$(VENV)/bin/toolmatrix check toolkit/examples/trustgraph
	$(VENV)/bin/toolmatrix matrix toolkit/examples/trustgraph --groups '*' --state undefined --state analysis --state results
	$(VENV)/bin/toolmatrix explain toolkit/examples/trustgraph react-agent reset-workflow --groups knowledge,compute --state results || true

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
