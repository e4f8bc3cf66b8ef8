"""Adapter: rule random_model -> biasbench.models.null.random_copy."""

import json
from pathlib import Path

from biasbench.io import log_to, write_text
from biasbench.models.null import random_copy
from biasbench.models.prepare import PROVENANCE
from biasbench.models.specs import ModelSpec
from biasbench.stats import derived_seed

sm = snakemake  # noqa: F821
log_to(sm.log[0])
out = Path(sm.output[0]).parent
base = ModelSpec.from_config(sm.params.base_name, dict(sm.params.base))
seed = derived_seed(sm.params.seed, "random_model", sm.wildcards.model)
info = {"name": sm.wildcards.model, "kind": "transformer", "source": f"random:{base.name}"}
info |= random_copy(base, Path(sm.input.base).parent, out, seed)
write_text(out / PROVENANCE, json.dumps(info, indent=1, sort_keys=True) + "\n")
