"""Bias measurement, end to end: word sets -> contexts -> embeddings -> scores -> tables.

Run `snakemake --cores 2`; one table: `snakemake --cores 2 results/tables/table3_seat.md`.
"""

import os

from snakemake.utils import min_version

from biasbench import paths
from biasbench.config import check_config_files, validate_config
from biasbench.io import check_results_tree
from biasbench.jobs import tune_allocator
from biasbench.plan import make_plan
from biasbench.reports.catalog import FIGURES, TABLES
from biasbench.reports.tables import coverage_lines
from biasbench.scheduler import patch_job_scheduler

min_version("8.0")
# one pending scheduler wake-up instead of a timer chain per finished job (biasbench/scheduler.py)
patch_job_scheduler()
# jobs keep freed buffers of up to 256 MiB for their next ones (biasbench/jobs.py)
tune_allocator(os.environ)


report: "resources/report/workflow.rst"


# a duplicate key or a Python tag in config.yaml or a --configfile is an error naming the file
# and the key (Snakemake keeps a repeated key's last value), before config.yaml is loaded
check_config_files(["config.yaml", *workflow.overwrite_configfiles])


configfile: "config.yaml"


validate_config(config, f"{workflow.basedir}/config/schema.yaml")
#: what the configuration asks for (biasbench/plan/); the rules read their jobs from it
PLAN = make_plan(config, workflow.basedir)
# a folder where a file of results/ belongs (which Snakemake takes for a finished output) or a
# link there to another of its files (read as this one) is an error naming it, before planning
check_results_tree("results")


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
include: "rules/logprobs.smk"
include: "rules/groundtruth.smk"
include: "rules/divdist.smk"
include: "rules/null_calibration.smk"
include: "rules/null_trained.smk"
include: "rules/tokenization.smk"
include: "rules/synthesis.smk"
include: "rules/model_cards.smk"
include: "rules/comparisons.smk"
include: "rules/tables.smk"
include: "rules/figures.smk"
include: "rules/report.smk"


#: the paper tables, figures and method cards: of the zoo, so an audit (only_models) leaves
#: them out and builds its models' cards and the provenance page (docs/models.md)
PAPER_TARGETS = [
    *(f.format(table=t) for t in TABLES for f in (paths.TABLE, paths.TABLE_MARKDOWN)),
    *(
        f.format(figure=g)
        for g in FIGURES
        for f in (paths.FIGURE_PNG, paths.FIGURE_PDF)
    ),
    *(paths.METHOD_CARD.format(card=c) for c in CARD_SLUGS),
]


rule all:
    default_target: True
    input:
        [] if config["only_models"] else PAPER_TARGETS,
        PROVENANCE_PAGE,
        expand(
            paths.MODEL_CARD,
            model=config["only_models"] or config["models"],
        ),
        PLAN.comparison_files(),


onsuccess:
    # the completeness guard: every table whose planned cells are not all filled, one line;
    # it reads only the tables the configuration builds (none in an audit, only_models)
    for line in coverage_lines(
        [
            paths.TABLE.format(table=t)
            for t in ([] if config["only_models"] else TABLES)
            if os.path.exists(paths.TABLE.format(table=t))
        ]
    ):
        print(f"coverage {line}")
