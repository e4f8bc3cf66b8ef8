"""Bias measures as pure functions of arrays, grouped by what they consume, behind one
contract (:mod:`biasbench.methods.contract`) and one registry
(:mod:`biasbench.methods.registry`). Nothing here imports torch, h5py, transformers or
snakemake: the models and the workflow hand arrays in, a :class:`~biasbench.rows.Score` comes
out.
"""
