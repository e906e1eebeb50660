# Before every commit: `make check` — the fast checks first (a minute), then the whole suite.
# PYTHON: the interpreter of the environment rankeval is installed in (pip install -e '.[test]');
# .venv/bin/python when there is one, else python3 (make check PYTHON=/path/to/venv/bin/python).
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)
PYTEST = $(PYTHON) -m pytest -p no:cacheprovider

# The house's rules (no import cycle, at most 450 lines a file and 8 parameters a function, each
# option's values written once), the recipes of docs/design.md performed, the man pages in step
# with the commands, and the documentation built strictly with its links and anchors checked.
FAST = tests/test_import_graph.py tests/test_source_limits.py tests/test_vocabulary_once.py \
       tests/test_command_layer.py tests/test_design_recipes.py tests/test_manpages.py \
       tests/test_docs.py tests/test_docs_site.py

.PHONY: check fast suite man
check: fast suite

fast:
	$(PYTEST) -x $(FAST)

# the whole suite on every core (pytest-xdist), as CI runs it (bash .ci/run on a fresh clone)
suite:
	$(PYTEST)

# after any change of an option or a help text
man:
	$(PYTHON) scripts/gen-man
