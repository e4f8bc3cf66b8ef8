"""The results/ path templates: spelled once, filled the same by the rules and the plan."""

import re
from pathlib import Path

from biasbench import paths


def test_fill_fills_the_given_fields_and_keeps_the_others_as_wildcards():
    assert paths.fill(paths.CONTEXTS, source="templates") == (
        "results/contexts/templates/{test}/{descriptor}.tsv"
    )
    assert paths.fill(paths.LPBS, corpus="templates", test="C6") == (
        "results/lpbs/{model}/templates/C6.tsv"
    )
    assert paths.fill(paths.MODEL) == paths.MODEL
    assert paths.external("seat_weat7") == Path("results/external/seat_weat7")


def test_every_template_lies_under_results_with_named_fields_only():
    templates = {k: v for k, v in vars(paths).items() if k.isupper() and isinstance(v, str)}
    assert len(templates) > 20
    for name, template in templates.items():
        assert template.startswith("results/"), name
        assert not re.search(r"\{\}|\{\d", template), name  # no positional field


def test_the_rules_name_their_shared_files_by_template_and_use_no_lambda():
    """The templates' files are not spelled out again in the rules, and every input and
    params function there is named (rules/common.smk's of_wildcards, when_asked, settings)."""
    root = Path(__file__).resolve().parents[1]
    rules = {p.name: p.read_text() for p in (root / "rules").glob("*.smk")}
    for name, text in rules.items():
        assert "lambda" not in text, name
        for spelled in (
            "results/models/",
            "results/wordsets/",
            "results/contexts/",
            "results/external/",
            "results/tokenization/",
            "results/tables/",
            "results/figures/",
            "results/lm_eval/",
            "results/cache/",
            "results/corpus/",
        ):
            assert spelled not in text, (name, spelled)
