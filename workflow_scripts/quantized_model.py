"""Adapter: rule quantized_model -> biasbench.models.quantize.quantized_copy."""

from pathlib import Path

from biasbench.jobs import start_job
from biasbench.models.prepare import write_provenance
from biasbench.models.quantize import quantized_copy
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
out = Path(sm.output[0]).parent
base = ModelSpec.from_config(sm.params.base_name, dict(sm.params.base))
form = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec)).quantized_format
source = f"quantized:{base.name}:{form}"
info = {"name": sm.wildcards.model, "kind": "transformer", "source": source}
info |= quantized_copy(base, Path(sm.input.base).parent, out, form)
write_provenance(out, info, out)
