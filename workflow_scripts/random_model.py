"""Adapter: rule random_model -> biasbench.models.null.random_copy."""

from pathlib import Path

from biasbench.jobs import start_job
from biasbench.models.null import random_copy
from biasbench.models.prepare import write_provenance
from biasbench.models.specs import ModelSpec
from biasbench.stats import derived_seed

sm = snakemake  # noqa: F821
start_job(sm)
out = Path(sm.output[0]).parent
base = ModelSpec.from_config(sm.params.base_name, dict(sm.params.base))
seed = derived_seed(sm.params.seed, "random_model", sm.wildcards.model)
info = {"name": sm.wildcards.model, "kind": "transformer", "source": f"random:{base.name}"}
info |= random_copy(base, Path(sm.input.base).parent, out, seed)
write_provenance(out, info, out)
