# Entry points for people and CI. The logic lives in tools/; this file only calls it.
#   make demo                 set up Python 3.11 + torch and run the seed's example
#   make test                 every Python 3.8-3.15, with and without torch (PY=3.11, SUITE=base|torch)
#   make test-fast            torch-free tests on the host Python only
#   make bench ARGS="..."     benchmarks on every Python found

HOST_PYTHON ?= $(shell command -v python3 2>/dev/null || command -v python 2>/dev/null)
PY ?=
SUITE ?= all
ARGS ?=

.PHONY: test test-fast demo bench pythons

test:
	$(HOST_PYTHON) tools/run_tests.py --suite $(SUITE) $(if $(PY),--python $(PY)) -- $(ARGS)

test-fast:
	$(HOST_PYTHON) tools/run_tests.py --host-only -- $(ARGS)

demo:
	$(HOST_PYTHON) tools/demo.py $(ARGS)

bench:
	$(HOST_PYTHON) tools/bench.py $(ARGS)

pythons:
	$(HOST_PYTHON) tools/pythons.py
