"""Adapter: rule study_items -> biasbench.data.datasets.category_units per data set."""

from biasbench.data.datasets import category_units
from biasbench.io import write_json
from biasbench.jobs import start_job
from biasbench.studies.groundtruth.truth import INJECTED_CATEGORY

sm = snakemake  # noqa: F821
start_job(sm)
files, limits = sm.params.files, sm.params.limits
write_json(
    sm.output[0],
    {d: category_units(d, dict(files[d]), limits, INJECTED_CATEGORY) for d in files},
)
