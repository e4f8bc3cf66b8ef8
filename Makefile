# The two commands of the README.
.PHONY: run test install

install:
	bash scripts/install.sh

run: install
	.venv/bin/snakemake --cores 2

test: install
	.venv/bin/python -m pytest
