# The two commands of the README: `make demo` and `make test`. Everything else is a step of
# theirs, except `make docs`, which builds the documentation site (docs/) into build/docs. The project is installed into .venv in editable mode; its CMake build directory is
# build/py, which also holds the C++ tests that ctest runs.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
BUILD_DIR := build/py
INSTALLED := $(VENV)/.wavestack-installed
# CI turns warnings into errors and requires the CUDA kernels and the in-process compiler to build.
# cudecomp's Python package stays the NumPy one (WAVESTACK_CUDECOMP_PYTHON_GPU=OFF) although a
# CUDA build would make it the GPU one by default: this workflow runs on machines without a GPU
# (CI among them), where the Python tests pass NumPy arrays. scripts/gpu-check.sh builds the GPU one.
PYTHON_GPU := OFF
CMAKE_ARGS := -Cbuild-dir=$(BUILD_DIR) -Ccmake.define.WAVESTACK_BUILD_TESTS=ON \
              -Ccmake.define.WAVESTACK_WERROR=$(if $(CI),ON,OFF) -Ccmake.define.WAVESTACK_CUDA=$(if $(CI),ON,AUTO) \
              -Ccmake.define.WAVESTACK_JIT=$(if $(CI),ON,AUTO) \
              -Ccmake.define.WAVESTACK_CUDECOMP_PYTHON_GPU=$(PYTHON_GPU)

.PHONY: demo test docs build bootstrap format-check tidy clean

demo: build
	$(PY) examples/demo.py

test: build
	$(PY) scripts/run_tests.py --build-dir $(BUILD_DIR)

# The documentation site (docs/, Sphinx with MyST Markdown) into build/docs, warnings as errors.
# The API reference imports the built packages; the performance page's plots are drawn first
# from the benchmark reports in docs/benchmark-data. tests/docs runs the pages' examples.
DOCS_OUT := build/docs
docs: build
	$(PY) scripts/plot_benchmarks.py --output build/docs-plots
	$(PY) -m sphinx -W --keep-going -q -b html -d build/docs-doctrees docs $(DOCS_OUT)
	@echo "docs: open $(DOCS_OUT)/index.html"

bootstrap:
	@scripts/bootstrap.sh

# (Re)install when the packaging changes; otherwise an incremental build is enough (the
# editable install also rebuilds on import).
$(INSTALLED): pyproject.toml | bootstrap
	@echo "build: installing wavestack into $(VENV) (editable, build directory $(BUILD_DIR))"
	$(PY) -m pip install -q --no-build-isolation $(CMAKE_ARGS) -e '.[test]'
	@touch $@

# A build directory configured before the Makefile passed WAVESTACK_CUDECOMP_PYTHON_GPU (or with
# another value) is reinstalled, because only pip's configure passes the Makefile's -D values; a
# plain `cmake --build` keeps whatever the cache holds.
build: bootstrap $(INSTALLED)
	@if [[ ! -f $(BUILD_DIR)/build.ninja ]] || \
	    ! grep -qx 'WAVESTACK_CUDECOMP_PYTHON_GPU:[A-Z]*=$(PYTHON_GPU)' $(BUILD_DIR)/CMakeCache.txt; then \
	  rm -f $(INSTALLED); $(MAKE) --no-print-directory $(INSTALLED); fi
	cmake --build $(BUILD_DIR)

format-check:
	@scripts/check_format.sh

tidy: build
	@scripts/run_tidy.sh $(BUILD_DIR)

clean:
	rm -rf build $(INSTALLED)
