"""Extrinsic measures: bias in what a model does on a downstream task (coreference)."""
