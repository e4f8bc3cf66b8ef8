"""biasbench: the library behind the bias-measurement workflow.

Everything here runs without Snakemake; the workflow only adapts its inputs to these calls.
"""

__version__ = "0.1.0"
