# The two commands of the README (`make install` is the step both run first), `make lint`
# (CI runs it before the tests, .ci/run) and `make lock`.
.PHONY: run test lint install lock

install:
	bash scripts/install.sh

run: install
	.venv/bin/snakemake --cores 2

# lints first: a finding fails before the tests run
test: lint
	.venv/bin/python -m pytest

# the workflow's lint and format (snakemake --lint, snakefmt) and the Python's (ruff): seconds
lint: install
	.venv/bin/snakemake --lint
	.venv/bin/snakefmt --check Snakefile rules
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

# `make lock` regenerates requirements/lock.txt, every package that `make install` installs
# (pip --require-hashes --no-deps), each at one version with its sha256 hashes. Its inputs:
# pyproject.toml's dependencies with the workflow and dev extras, resolved with their own
# dependencies by pip-compile (which reads pip's configuration, so torch is the CPU build that
# `pip install torch==2.13.0` takes on this machine), then requirements/zoo.txt, pinned
# without dependencies by uv (pip-compile has no --no-deps). Pins already in the lock are kept
# where the inputs still allow them; `make lock UPGRADE=1` moves every package to its newest
# allowed release. Either is a deliberate update of the environment: regenerate, run the
# tests, rerun the default DAG and compare its outputs before committing (docs/environment.md,
# "Updating the pinned environment"). The tools live in a scratch venv outside the repository.
LOCKTOOL ?= /tmp/biasbench-locktool
LOCKPYTHON ?= python3.11
lock:
	[ -x $(LOCKTOOL)/bin/uv ] || { $(LOCKPYTHON) -m venv $(LOCKTOOL) && \
	    $(LOCKTOOL)/bin/python -m pip install --quiet pip-tools==7.6.2 uv==0.13.9; }
	set -e; tmp=$$(mktemp); cp requirements/lock.txt $$tmp 2>/dev/null || :; \
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCKTOOL)/bin/pip-compile --quiet --generate-hashes \
	    --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
	    $(if $(UPGRADE),--upgrade) --extra workflow --extra dev --output-file $$tmp pyproject.toml; \
	echo "# the model zoo (requirements/zoo.txt), pinned without its dependencies" >> $$tmp; \
	$(LOCKTOOL)/bin/uv pip compile --quiet --no-deps --generate-hashes --no-header \
	    --python-version 3.11 requirements/zoo.txt >> $$tmp; \
	mv $$tmp requirements/lock.txt && chmod 644 requirements/lock.txt
