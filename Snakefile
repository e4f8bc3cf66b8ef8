"""Bias measurement, end to end: word sets -> contexts -> embeddings -> scores -> tables.

Run `snakemake --cores 2`; one table: `snakemake --cores 2 results/tables/table3_seat.md`.
"""

import os
import re

from snakemake.utils import min_version

from biasbench.config import validate_config
from biasbench.data.external import load_manifest
from biasbench.data.wordsets import external_ids
from biasbench.models.prepare import source_files
from biasbench.models.specs import model_spec
from biasbench.plan import injected_datasets, make_plan, names_except
from biasbench.reports.cards import slug
from biasbench.reports.catalog import FIGURES, TABLES
from biasbench.reports.tables import coverage_lines
from biasbench.reports.tables import report_settings as plan_report_settings
from biasbench.scheduler import patch_job_scheduler
from biasbench.methods.registry import REGISTRY

min_version("8.0")
# one pending scheduler wake-up instead of a timer chain per finished job (biasbench/scheduler.py)
patch_job_scheduler()


report: "resources/report/workflow.rst"


configfile: "config.yaml"


validate_config(config, f"{workflow.basedir}/config/schema.yaml")
PLAN = make_plan(config, workflow.basedir)
MANIFEST = load_manifest("resources/external.yaml")
TEMPLATE_FILE = f"resources/templates/{config['template_set']}.yaml"
LPBS = config["lpbs"] or {}  # null: no LPBS jobs
LPBS_TEMPLATE_FILE = f"resources/templates/{LPBS.get('templates')}.yaml"
ENV = "../envs/biasbench.yaml"
INJECTED_DATASETS = injected_datasets(PLAN)
#: what every table and figure is drawn with: the configuration and its plan
REPORT_SETTINGS = plan_report_settings(config, PLAN)
CARD_SLUGS = ["index", *(slug(m.name) for m in REGISTRY)]
#: ELMo models: their embeddings come from rules/elmo.smk (AllenNLP in its own environment);
#: models whose masked-LM head is trained here: rules/mlm_head.smk prepares them; null models
#: (random weights): rules/models.smk. A name no
#: rule claims (a typo in a target) still reaches the ordinary rules, which name the models.
ELMO = [m for m, s in PLAN.specs.items() if s.kind == "elmo"]
HEADS = [m for m, s in PLAN.specs.items() if s.scheme == "mlm-head"]
NULL = [m for m, s in PLAN.specs.items() if s.scheme == "random"]
ELMO_MODELS = "|".join(re.escape(m) for m in ELMO) or "^$"
OTHER_MODELS = names_except(ELMO)
HEAD_MODELS = "|".join(re.escape(m) for m in HEADS) or "^$"
RANDOM_MODELS = "|".join(re.escape(m) for m in NULL) or "^$"
PREPARED_MODELS = names_except(HEADS + NULL)


wildcard_constraints:
    model="[A-Za-z0-9_.+-]+",
    source="|".join(["templates", "words", *PLAN.corpus_parts]),
    corpus="|".join(PLAN.corpus_parts) or "^$",
    test="[A-Za-z0-9_]+",
    descriptor="[A-Za-z0-9_]+",
    case="any|exact",
    table="|".join(TABLES),
    figure="|".join(FIGURES),
    mu="[0-9.]+",
    # any name: a data set the config does not plan reaches the planner, which names the field
    dataset="[A-Za-z0-9_]+",


# small bookkeeping jobs run beside Snakemake, not as cluster jobs
localrules:
    all,
    fetch_external,
    wordset,
    lpbs_spec,
    template_contexts,
    word_contexts,
    corpus_contexts,
    elmo_tokens,
    collect_scores,
    table,
    figure,
    provenance,


include: "rules/common.smk"
include: "rules/resources.smk"
include: "rules/contexts.smk"
include: "rules/corpora.smk"
include: "rules/models.smk"
include: "rules/mlm_head.smk"
include: "rules/embeddings.smk"
include: "rules/elmo.smk"
include: "rules/scores.smk"
include: "rules/lpbs.smk"
include: "rules/datasets.smk"
include: "rules/templates_study.smk"
include: "rules/groundtruth.smk"
include: "rules/divdist.smk"
include: "rules/null_calibration.smk"
include: "rules/synthesis.smk"
include: "rules/tables.smk"
include: "rules/figures.smk"
include: "rules/report.smk"


rule all:
    default_target: True
    input:
        expand("results/tables/{table}.{ext}", table=TABLES, ext=["csv", "md"]),
        expand("results/figures/{figure}.{ext}", figure=FIGURES, ext=["png", "pdf"]),
        "results/report/provenance.html",
        expand("results/cards/{card}.md", card=CARD_SLUGS),


onsuccess:
    # the completeness guard: every table whose planned cells are not all filled, one line
    for line in coverage_lines(
        [
            f"results/tables/{t}.csv"
            for t in TABLES
            if os.path.exists(f"results/tables/{t}.csv")
        ]
    ):
        print(f"coverage {line}")
