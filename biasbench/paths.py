"""Every file under ``results/`` that one stage hands another, as one template each.

A rule names its inputs and outputs with these templates (their fields are Snakemake's
wildcards), and the plan, the reports and the scripts fill the same templates to name a file:
a path is spelled once. :func:`fill` fills some fields and keeps the others as wildcards.
"""

from __future__ import annotations

import os
import re
import string
from pathlib import Path

MODEL = "results/models/{model}/biasbench_model.json"
EXTERNAL = "results/external/{file_id}"
WORDSET = "results/wordsets/{test}/{descriptor}.json"
LPBS_SPEC = "results/wordsets/{test}.lpbs.json"
#: a test's contexts from templates or the words alone (``source``), as every model reads them
CONTEXTS = "results/contexts/{source}/{test}/{descriptor}.tsv"
#: a test's contexts sampled from a corpus, in the case a model reads (``exact``, ``lower``)
CORPUS_CONTEXTS = "results/contexts/{corpus}/{case}/{test}/{descriptor}.tsv"
CORPUS_SAMPLES = "results/corpus/{corpus}/{case}/samples.tsv"
PAIRS = "results/corpus/{corpus}/{case}/pairs.tsv"
CORPUS_COVERAGE = "results/corpus/{corpus}/{case}/coverage.tsv"
EMBEDDINGS = "results/embeddings/{model}/{source}/{test}.h5"
#: where a model's embeddings files of a source are kept by signature (not an output:
#: Snakemake deletes a job's outputs before it reruns it; models/embedding_cache.py)
EMBEDDING_CACHE = "results/cache/embeddings/{model}/{source}"
#: where a per-model job keeps each test's files by signature (``stage``: its rule; not an
#: output, for the reason above; biasbench/test_cache.py)
TEST_CACHE = "results/cache/{stage}/{model}"
SCORES = "results/scores/{model}/{source}/{test}.tsv"
SAMPLES = "results/scores/{model}/{source}/{test}.samples.npz"
#: LPBS on templates (``corpus`` "templates") and p-CEAT on a corpus's contexts
LPBS = "results/lpbs/{model}/{corpus}/{test}.tsv"
LPBS_SAMPLES = "results/lpbs/{model}/{corpus}/{test}.samples.npz"
LPBS_SWEEP = "results/lpbs/{model}/{corpus}/{test}.sweep.tsv"
#: the log-probabilities LPBS and p-CEAT scored (per template or per context): what paired
#: comparisons read
LPBS_LOGPROBS = "results/lpbs/{model}/{corpus}/{test}.logprobs.npz"
DATASET = "results/datasets/{model}/{dataset}.tsv"
DATASET_COVERAGE = "results/datasets/{model}/{dataset}.coverage.json"
#: a paired comparison of two models (config compare:): its table, card, harness file and
#: figure
COMPARISON = "results/comparisons/{base}/{against}.tsv"
COMPARISON_CARD = "results/cards/comparisons/{base}/{against}.md"
COMPARISON_LM_EVAL = "results/lm_eval/comparisons/{base}/{against}.json"
COMPARISON_FIGURE_PNG = "results/figures/comparisons/{base}/{against}.png"
COMPARISON_FIGURE_PDF = "results/figures/comparisons/{base}/{against}.pdf"
#: each item's scores per encoding (empty where a data set writes none): what comparisons read
DATASET_OUTCOMES = "results/datasets/{model}/{dataset}.outcomes.tsv"
TABLE = "results/tables/{table}.csv"
TABLE_CHECKSUM = "results/tables/{table}.csv.sha256"
TABLE_MARKDOWN = "results/tables/{table}.md"
TABLE_HTML = "results/tables/{table}.html"
FIGURE_PNG = "results/figures/{figure}.png"
FIGURE_PDF = "results/figures/{figure}.pdf"
#: the method cards (``index`` and one per method) and a model's card with its data-set
#: scores in lm-evaluation-harness's results layout
METHOD_CARD = "results/cards/{card}.md"
MODEL_CARD = "results/cards/models/{model}.md"
MODEL_LM_EVAL = "results/lm_eval/{model}.json"
ELMO_TOKENS = "results/elmo/{model}/{source}/{test}.tokens.json"
ELMO_LAYERS = "results/elmo/{model}/{source}/{test}.layers.npz"
#: every run's score rows collected, and its provenance page; an audit's are its own, named
#: by the models it measures (``biasbench.plan.audit.run_files``)
ALL_SCORES = "results/scores/all.tsv"
PROVENANCE_PAGE = "results/report/provenance.html"
AUDIT_SCORES = "results/scores/audit/{name}.tsv"
AUDIT_PROVENANCE_PAGE = "results/report/audit/{name}.html"
#: the word pieces of the stimuli a base transformer's null copies encode
TOKENIZATION = "results/tokenization/{model}.tsv"
#: the null-model calibration's rows: a base model's random-weight copies, a model's draws
#: of a trained-weight null kind (``kind``: its key; the reassigned words': ``trained``)
NULL_SCORES = "results/scores/null/{model}.tsv"
TRAINED_NULL_SCORES = "results/scores/null/{kind}/{model}.tsv"
#: the ground-truth study: the frozen lower layers, then per mean (``mu``, two decimals) its
#: models' records and weights, their data-set scores and every method on them
GROUNDTRUTH_STATES = "results/studies/groundtruth/frozen_states.safetensors"
GROUNDTRUTH_RECORDS = "results/studies/groundtruth/mu{mu}.json"
GROUNDTRUTH_WEIGHTS = "results/studies/groundtruth/mu{mu}.safetensors"
#: the units of the injected category each data set of the study holds and its models score
GROUNDTRUTH_ITEMS = "results/studies/groundtruth/items.json"
INJECTED_DATASETS = "results/studies/groundtruth/mu{mu}.datasets.tsv"
INJECTED_DATASETS_ROBUSTNESS = "results/studies/groundtruth/mu{mu}.datasets.robustness.tsv"
#: each study model's per-item outcomes (a paired comparison's inputs), a ``model`` column first
INJECTED_OUTCOMES = "results/studies/groundtruth/mu{mu}.outcomes.tsv"
INJECTED_METHODS = "results/studies/groundtruth/mu{mu}.methods.tsv"
INJECTED_METHODS_ROBUSTNESS = "results/studies/groundtruth/mu{mu}.robustness.tsv"
#: Bommasani & Liang's DivDist: the sources of association, then the study's outputs
#: (``name``: strengths.tsv, bias.tsv, validity.json, scores.tsv)
DIVDIST_TEXT = "results/studies/divdist/text/{corpus}.tsv"
DIVDIST_CONTEXTS = "results/studies/divdist/contexts.tsv"
DIVDIST_VECTORS = "results/studies/divdist/vectors/{model}.npz"
DIVDIST_GENERATED = "results/studies/divdist/generated/{model}.tsv"
DIVDIST_STUDY = "results/studies/divdist/{name}"
#: Delobelle et al.'s template study (``name``: sensitivity, kl)
TEMPLATE_STUDY = "results/studies/templates/{model}/{name}.tsv"


class _Wildcards(dict):
    def __missing__(self, field: str) -> str:
        return "{" + field + "}"


def fill(template: str, **fields) -> str:
    """``template`` with ``fields`` filled in and every other field left as its wildcard."""
    return template.format_map(_Wildcards(fields))


def external(file_id: str) -> Path:
    """Where a pinned upstream file is fetched to (``EXTERNAL``)."""
    return Path(EXTERNAL.format(file_id=file_id))


#: what a file of a kind records of the fields of its path: field -> the key (JSON), column
#: (TSV: every row's value) or attribute (HDF5) that holds it; a kind not here records none
#: (contexts, samples, coverage, cards) or a derived one (a null model's rows name its copies)
RECORDED = {
    WORDSET: {"test": "test", "descriptor": "descriptor"},
    LPBS_SPEC: {"test": "test"},
    MODEL: {"model": "name"},
    EMBEDDINGS: {"model": "model", "source": "context_source", "test": "test"},
    SCORES: {"model": "model", "source": "source", "test": "test"},
    LPBS: {"model": "model", "corpus": "source", "test": "test"},
    LPBS_SWEEP: {"model": "model", "corpus": "source", "test": "test"},
    LPBS_LOGPROBS: {"model": "model", "corpus": "source", "test": "test"},
    DATASET: {"model": "model"},
    DIVDIST_TEXT: {"corpus": "corpus"},
}


def _pattern(template: str) -> re.Pattern:
    """A template as a regex matching the end of a path (``/`` or nothing before it), one
    path segment per field."""
    parts = []
    for literal, field, _spec, _conversion in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P<{field}>[^/]+)")
    return re.compile("(?:^|/)" + "".join(parts) + "$")


#: the templates of files (a last segment with a literal ending such as ``.json``), each with
#: its pattern, most specific first (``{test}.sweep.tsv`` before ``{test}.tsv``): not the
#: folders (``EMBEDDING_CACHE``), nor the names a template leaves whole (``EXTERNAL``)
FILE_TEMPLATES = sorted(
    (
        (value, _pattern(value))
        for name, value in list(globals().items())
        if name.isupper()
        and isinstance(value, str)
        and value.startswith("results/")
        and re.search(r"\.[a-z0-9]+$", value.rpartition("/")[2])
    ),
    key=lambda item: -len(re.sub(r"\{[^}]*\}", "", item[0])),
)


def identify(path: str | os.PathLike) -> tuple[str, dict[str, str]] | None:
    """What a path under ``results/`` says a file is: the most specific file template it
    fills and the values of its fields (None: no file of the workflow's)."""
    text = Path(path).as_posix()
    for template, pattern in FILE_TEMPLATES:
        found = pattern.search(text)
        if found:
            return template, found.groupdict()
    return None
