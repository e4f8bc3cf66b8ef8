"""End to end: a small DAG (two tests, a tiny random BERT, GloVe) in a temp directory."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
import zstandard

from biasbench.io import read_tsv
from biasbench.rows import COLUMNS

from . import configs
from .conftest import ROOT, copy_workflow
from .tiny_models import tiny_bert

#: the pinned upstream files (the ground-truth study's lists, DisCo's names, the salary file,
#: Delobelle et al.'s values) come from the mirror when one is set (CI sets it); without one
#: the test runs the stages that need none
MIRROR = os.environ.get("BIAS_DATA_MIRROR")


def snakemake(workdir, *args):
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("wf"))
    words = []
    for test in ("C6", "C9"):
        doc = yaml.safe_load((ROOT / f"resources/wordsets/{test}.yaml").read_text())
        groups = [*doc["targets"].values(), {k: doc["attributes"][k] for k in "AB"}]
        words += [w for g in groups for s in g.values() for w in s["words"]]
    words += ["person's", "name", "i", "think", "matters", "we", "talked", "about", "today"]
    lists = yaml.safe_load((ROOT / "resources/lists/delobelle2022.yaml").read_text())
    study_words = [
        w for side in (*lists["professions"].values(), *lists["gendered"].values()) for w in side
    ]
    model_dir = tiny_bert(
        tmp_path_factory.mktemp("tiny-bert"), tuple(words + study_words), mlm_head=True
    )
    corpus = work / "corpus" / "RC_test.zst"
    corpus.parent.mkdir()
    docs = [
        {"body": f"I think {w} matters. We talked about {w} today."}
        for w in words[:-9]
        for _ in range(3)
    ]
    c6 = yaml.safe_load((ROOT / "resources/wordsets/C6.yaml").read_text())
    targets = c6["targets"]["terms"]["X"]["words"] + c6["targets"]["terms"]["Y"]["words"]
    docs += [  # sentences long enough to train a masked-LM head on
        {"body": f"I think that {w} matters a lot to all of the people here today."}
        for w in words[:-9]
    ]
    docs += [  # target and attribute in one sentence: contexts of probability-based CEAT
        {"body": f"I think {t} talked about {a} today."}
        for t in targets
        for a in c6["attributes"]["A"]["words"][:3] + c6["attributes"]["B"]["words"][:3]
    ]
    corpus.write_bytes(
        zstandard.ZstdCompressor().compress("\n".join(json.dumps(d) for d in docs).encode())
    )
    # tests/configs/small.yaml, with the tiny model and the corpus made above
    config = configs.load("small")
    config["models"]["tiny-bert"]["source"] = f"path:{model_dir}"
    config["corpora"]["mini"]["files"] = [str(corpus)]
    if not MIRROR:  # the stages that read pinned upstream files
        config.update(groundtruth=None, delobelle=None, bommasani=None)
        pinned = ("disco", "lpbs_salaries")
        models = config["datasets"]["models"]
        models["tiny-head"] = [d for d in models["tiny-head"] if d not in pinned]
    # double-slot templates written out (the default set is an external file: no network here)
    shutil.copy(ROOT / "tests/configs/tiny_double.yaml", work / "resources/templates")
    (work / "config.yaml").write_text(yaml.safe_dump(config))
    run = snakemake(work)
    assert run.returncode == 0, run.stderr[-3000:]
    (work / "run.log").write_text(run.stdout + run.stderr)
    return work


def test_outputs(workdir):
    for table in ("table3_seat", "table11_names_terms", "table13_encoding", "weat_static"):
        assert (workdir / f"results/tables/{table}.md").stat().st_size > 0
    scores = read_tsv(workdir / "results/scores/all.tsv")
    null = scores[scores["model"] == "tiny-null"]
    assert {"s-SEAT", "w-SEAT", "SAME", "StereoSet SS"} <= set(null["method"])
    scores = scores[scores["model"] != "tiny-null"]
    # the calibration's copies: their own files, every method with a p-value on each copy
    copies = read_tsv(workdir / "results/scores/null/tiny-bert.tsv")
    tested = copies[copies["primary"].astype(bool) & copies["p_value"].notna()]
    assert set(tested["model"]) == {"tiny-bert-null-s0", "tiny-bert-null-s1"}
    assert {"s-SEAT", "w-SEAT", "RND", "LPBS", "CrowS-Pairs", "AUL"} <= set(tested["method"])
    vectors = read_tsv(workdir / "results/scores/null/glove-6b-50d.tsv")
    generated = {f"glove-6b-50d-null-g{i}" for i in range(3)}
    assert set(vectors["model"]) == {"glove-6b-50d-null-s0", "glove-6b-50d-null-s1", *generated}
    assert set(vectors.loc[vectors["model"].isin(generated), "test"]) == {
        "gen000",
        "gen001",
        "gen002",
    }
    assert set(vectors.loc[vectors["p_value"].notna(), "method"]) >= {"WEAT", "RND"}
    assert not scores["model"].str.contains("-null-s").any()  # not among the paper's scores
    null_table = pd.read_csv(workdir / "results/tables/synthesis_null.csv")
    s_seat = null_table[(null_table["method"] == "s-SEAT") & (null_table["design"] == "paper")]
    s_seat = s_seat[s_seat["source"] == "papers-random"]
    # C6's three descriptors on tiny-null, and on each copy
    assert s_seat["cells_null"].tolist() == [3 + 2 * 3]
    counts = scores.groupby("method").size().to_dict()
    # DivDist: per source setting, three distances (which settings exist depends on what the
    # small corpus mentions)
    divdist = counts.pop("DivDist", 0)
    assert (divdist > 0 and divdist % 3 == 0) if MIRROR else divdist == 0
    # C6 and C9 have names, terms and simplified targets; per descriptor: tiny-bert on
    # templates and on the corpus, C9 on words alone (3 s-SEAT + 3 w-SEAT + 7 CEAT rows each,
    # CEAT on the reduced set too, and one row of each word-level method of Schröder et al.),
    # GloVe (WEAT and those methods); LPBS and p-CEAT: full and reduced per descriptor
    bert_jobs = 2 * 2 * 3 + 3  # (source, test, descriptor) of tiny-bert
    per_word_method = bert_jobs + 6  # and GloVe's
    assert counts == {
        "WEAT": 6,
        "s-SEAT": 3 * bert_jobs,
        "w-SEAT": 3 * bert_jobs,
        "CEAT": 7 * bert_jobs,
        "LPBS": 12,
        "p-CEAT": 12,
        **dict.fromkeys(
            ["MAC", "Direct Bias", "SAME", "SAME skew", "SAME stereotype", "RIPA", "RND"],
            per_word_method,
        ),
        # the data sets on the tiny masked LM: CrowS-Pairs overall and per bias type of its
        # sample (5 rows; AUL, AULA and its weighted variant each), StereoSet intersentence
        # and intrasentence (overall and per domain of its sample), BEC-Pro
        # all/balanced/female/male, DisCo
        # names/nouns with and without the P > 0.1 rule, WinoBias types 1 and 2
        "CrowS-Pairs": 5,
        "AUL": 15,
        # (intersentence: one n/a row; intrasentence: all and two domains, each scored as
        # the evaluator does and as the variants -items, -joint and -joint-items)
        "StereoSet SS": 1 + 3 * 4,
        "StereoSet LMS": 1 + 3 * 4,
        "StereoSet ICAT": 1 + 3 * 4,
        "BEC-Pro": 8,  # the prior's profession masked per word and per word piece
        **({"DisCo": 4, "LPBS he/she": 2} if MIRROR else {}),  # pinned upstream files
        "WinoBias F1 gap": 2,
        "WinoBias skew": 2,
        "WinoBias stereotype": 2,
    }
    assert list(scores.columns) == COLUMNS and scores["signature"].str.len().eq(12).all()
    pcet = scores[(scores["method"] == "p-CEAT") & (scores["test"] == "C6")]
    assert pcet.loc[pcet["descriptor"] == "terms", "effect_size"].notna().all()
    sweep = read_tsv(workdir / "results/lpbs/tiny-bert/mini/C6.sweep.tsv")
    assert list(sweep["window"]) == [1, 4]
    for figure in ("figure1_scores", "figure2_vocabulary", "figure4_window"):
        assert (workdir / f"results/figures/{figure}.pdf").stat().st_size > 0
    samples = read_tsv(workdir / "results/corpus/mini/any/samples.tsv")
    assert not samples["sentence"].str.contains("matters. We").any()  # split into sentences
    assert (samples.groupby("stimulus").size() <= 4).all()  # per_stimulus
    coverage = read_tsv(workdir / "results/corpus/mini/any/coverage.tsv")
    assert (coverage["kept"] > 0).all() and (coverage["seen"] >= 6).all()
    assert "tiny-bert" in (workdir / "results/tables/table3_seat.md").read_text()


def test_a_transformer_reading_words_keeps_its_table3_cells(workdir):
    """tiny-bert also reads words alone; Table 3 still shows its SEAT (templates) and CEAT
    (the natural corpus) cells, and no planned cell of any table lacks its score row."""
    table3 = pd.read_csv(workdir / "results/tables/table3_seat.csv")
    ours = table3[(table3["origin"] == "ours") & (table3["model"] == "tiny-bert")]
    assert ours["planned"].all() and len(ours) == 3 * 2  # three methods, C6 and C9
    sources = ours.groupby("method")["source"].agg(set).to_dict()
    assert sources == {"s-SEAT": {"templates"}, "w-SEAT": {"templates"}, "CEAT": {"mini"}}
    assert set(ours["test"]) == {"C6", "C9"}
    assert ours["effect_size"].notna().any()
    assert "Coverage: " in (workdir / "results/tables/table3_seat.md").read_text()
    printed = [
        line
        for line in (workdir / "run.log").read_text().splitlines()
        if line.startswith("coverage ")
    ]
    assert not [line for line in printed if not line.endswith(" 0 missing")], printed


def test_second_run_has_nothing_to_do(workdir):
    run = snakemake(workdir, "-n")
    assert run.returncode == 0
    assert "Nothing to be done" in run.stdout + run.stderr


def test_editing_a_word_set_reruns_only_its_test(workdir):
    path = workdir / "resources/wordsets/C9.yaml"
    original = path.read_text()
    path.write_text(original.replace("label: temporary", "label: temporary (edited)"))
    try:
        run = snakemake(workdir, "-n")
    finally:
        path.write_text(original)
    out = run.stdout + run.stderr
    jobs = planned_jobs(out)
    assert ("template_contexts", "test=C9, descriptor=terms") in jobs
    # the other test's template and static jobs stay; its corpus contexts are redone because
    # the corpus is sampled for all stimuli in one pass (with per-stimulus seeds: same rows)
    assert not [j for j in jobs if j[0] in ("template_contexts", "word_contexts") and "C6" in j[1]]
    # the model's one embedding job and its score jobs rerun (C6 from the caches inside them)
    assert ("embed__tiny-bert", "model=tiny-bert") in jobs
    assert ("score__tiny-bert__templates", "model=tiny-bert, source=templates") in jobs


#: the per-model jobs of tiny-bert that C6 and C9 both reach, each a log of its tests (not
#: p-CEAT: the corpus's pairs are sampled for every test in one file, which an edit changes)
PER_MODEL_LOGS = {
    "embed": "results/logs/embed/tiny-bert.log",
    "score": "results/logs/score/tiny-bert/templates.log",
    "logprobs": "results/logs/logprobs/tiny-bert.log",
}


def test_an_edited_word_set_recomputes_its_test_alone_in_each_per_model_job(workdir):
    """A word of C9 replaced: each per-model job of tiny-bert (its embeddings of the
    templates, their scores, LPBS on templates) loads the model once (the scores: none) and
    computes C9 alone, C6 comes from the cache, byte for byte; the edit undone, C9's earlier
    files come back from the cache, byte for byte, nothing computed."""
    path = workdir / "resources/wordsets/C9.yaml"
    original = path.read_text()
    files = {
        t: [
            workdir / f"results/embeddings/tiny-bert/templates/{t}.h5",
            workdir / f"results/scores/tiny-bert/templates/{t}.tsv",
            workdir / f"results/lpbs/tiny-bert/templates/{t}.tsv",
        ]
        for t in ("C6", "C9")
    }
    targets = [str(f.relative_to(workdir)) for test in files.values() for f in test]
    before = {f: f.read_bytes() for test in files.values() for f in test}
    path.write_text(original.replace("tearful,", "weepy,"))
    try:
        run = snakemake(workdir, *targets)
        assert run.returncode == 0, run.stderr[-3000:]
        for stage, log in PER_MODEL_LOGS.items():
            text = (workdir / log).read_text()
            assert "C6: cached" in text, stage
            assert ("C9: encoded" if stage == "embed" else "C9: computed") in text, stage
            assert text.count("model loaded") == (stage != "score"), stage
        assert all(f.read_bytes() == before[f] for f in files["C6"])
        assert files["C9"][0].read_bytes() != before[files["C9"][0]]
    finally:
        path.write_text(original)
    run = snakemake(workdir, *targets)
    assert run.returncode == 0, run.stderr[-3000:]
    for stage, log in PER_MODEL_LOGS.items():
        text = (workdir / log).read_text()
        assert "C9: cached" in text and "computed" not in text and "encoded" not in text, stage
        assert "model loaded" not in text, stage  # every test cached: no model loaded
    assert all(f.read_bytes() == before[f] for test in files.values() for f in test)


@pytest.mark.skipif(not MIRROR, reason="the template study and DivDist read pinned files")
def test_the_studies_files_of_a_model_are_per_test_entries_of_its_jobs(workdir):
    """The template study's word list edited: tiny-bert's encoding job computes its
    sensitivity alone (its tests' embeddings and its DivDist vectors from the caches), the
    masked LM's data-set job its KL alone (its data sets from the cache), each loading its
    model once; the edit undone, everything comes from the caches, nothing loaded."""
    path = workdir / "resources/lists/delobelle2022.yaml"
    original = path.read_bytes()
    logs = {
        "embed": workdir / "results/logs/embed/tiny-bert.log",
        "logprobs": workdir / "results/logs/logprobs/tiny-head.log",
    }
    files = [
        workdir / "results/studies/templates/tiny-bert/sensitivity.tsv",
        workdir / "results/studies/divdist/vectors/tiny-bert.npz",
        workdir / "results/studies/templates/tiny-head/kl.tsv",
        workdir / "results/datasets/tiny-head/crows_pairs.tsv",
    ]
    targets = [str(f.relative_to(workdir)) for f in files]
    before = {f: f.read_bytes() for f in files}
    path.write_bytes(original + b"\n# edited\n")
    try:
        run = snakemake(workdir, *targets)
        assert run.returncode == 0, run.stderr[-3000:]
        embed, datasets = (logs[k].read_text() for k in ("embed", "logprobs"))
        assert "template_sensitivity: computed" in embed
        assert "divdist_vectors: cached" in embed and "C6: cached" in embed
        assert "template_kl: computed" in datasets and "crows_pairs: cached" in datasets
        assert embed.count("model loaded") == datasets.count("model loaded") == 1
        assert all(f.read_bytes() == before[f] for f in files)  # a comment: the same numbers
    finally:
        path.write_bytes(original)
    run = snakemake(workdir, *targets)
    assert run.returncode == 0, run.stderr[-3000:]
    for log in logs.values():
        text = log.read_text()
        assert "cached" in text and "computed" not in text and "model loaded" not in text, log


#: the result folders a rerun builds again from nothing and compares byte for byte: every
#: kind a job writes (word sets, contexts, embeddings, LPBS and data-set samples, scores,
#: study files, JSON records, tables, figures, cards); the prepared models, the downloads and
#: the corpus sample stay (their own tests cover them)
REBUILT = (
    "wordsets",
    "contexts",
    "embeddings",
    "lpbs",
    "datasets",
    "scores",
    "studies",
    "tables",
    "figures",
    "cards",
    "tokenization",
)


def test_same_config_gives_identical_bytes(workdir):
    def rebuilt_files():
        return {
            p: p.read_bytes()
            for name in REBUILT
            for p in (workdir / "results" / name).glob("**/*")
            if p.is_file()
        }

    first = rebuilt_files()
    assert {".h5", ".json", ".tsv", ".csv", ".md", ".png"} <= {p.suffix for p in first}
    for name in REBUILT:
        shutil.rmtree(workdir / "results" / name, ignore_errors=True)
    run = snakemake(workdir)
    assert run.returncode == 0, run.stderr[-3000:]
    again = rebuilt_files()
    # (an intermediate no target needs is not built again: absent, never different)
    assert {p.suffix for p in again} == {p.suffix for p in first}
    assert [str(p) for p, data in again.items() if first.get(p, data) != data] == []
    assert len(again) >= 0.9 * len(first), sorted(set(map(str, first)) - set(map(str, again)))


def _overwrite(path: Path) -> None:
    data = path.read_bytes()
    middle = len(data) // 2
    patch = b"\xff" * 16 if data[middle : middle + 16] != b"\xff" * 16 else b"\0" * 16
    path.write_bytes(data[:middle] + patch + data[middle + 16 :])


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _plausible(path: Path) -> None:
    """A value edited to another plausible one: in text, the last digit (or letter) of the
    body; in an embeddings file, one number of a dataset (its checksum attribute kept); in
    other binary files, the lowest bit of a byte near the end (where their arrays lie)."""
    data = path.read_bytes()
    if path.suffix == ".h5":
        import h5py

        with h5py.File(path, "r+") as h5:
            for group in h5.values():  # every descriptor's
                group["word/mean"][0, 0] = group["word/mean"][0, 0] + 0.001
        return
    if path.suffix == ".npz":  # one number of an array, the stored seal kept
        with np.load(path) as stored:
            arrays = {k: stored[k] for k in stored.files}
        name = next(k for k in sorted(arrays) if arrays[k].dtype.kind == "f")
        arrays[name].flat[0] += 0.001
        np.savez(path, **arrays)
        return
    if data.isascii():
        sealed = data.rfind(b"# sha256 ")
        body = data[:sealed] if sealed >= 0 else data
        at = max(i for i in range(len(body)) if body[i : i + 1].isalnum())
        old = data[at : at + 1]
        new = (b"1" if old != b"1" else b"2") if old.isdigit() else old.swapcase()
        path.write_bytes(data[:at] + new + data[at + 1 :])
        return
    at = len(data) - 9
    path.write_bytes(data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :])


def _readers():
    """One artifact of each kind the workflow writes or reads, with what its consumers read
    it with: (glob under results/, reader of a copy)."""
    from biasbench.data.pins import verify_inputs
    from biasbench.io import load_tensors, read_json, read_npz, read_sealed
    from biasbench.models.extract import read_embeddings
    from biasbench.models.weights import check_weights
    from biasbench.reports.model_cards import read_table

    def model_weights(path):
        check_weights(path.parent / "biasbench_model.json", path.parent)

    return {
        "pinned external file": ("external/*", lambda p: verify_inputs([p])),
        "corpus sample": ("corpus/mini/any/samples.tsv", read_tsv),
        "word set": ("wordsets/C6/terms.json", read_sealed),
        "contexts": ("contexts/mini/any/C6/terms.tsv", read_tsv),
        "embeddings": (
            "embeddings/tiny-bert/templates/C6.h5",
            lambda p: read_embeddings(p, "terms"),
        ),
        "score TSV": ("scores/tiny-bert/templates/C6.tsv", read_tsv),
        "score samples": ("scores/tiny-bert/templates/C6.samples.npz", read_npz),
        "all.tsv": ("scores/all.tsv", read_tsv),
        "study table": ("studies/divdist/text/mini.tsv", read_tsv),
        "study records": ("studies/groundtruth/mu0.50.json", read_json),
        "safetensors": ("studies/groundtruth/mu0.50.safetensors", load_tensors),
        "model provenance": ("models/tiny-null/biasbench_model.json", read_json),
        "model weights": ("models/tiny-null/model.safetensors", model_weights),
        "static vectors": ("models/glove-6b-50d/vectors.npy", model_weights),
        "table CSV": ("tables/synthesis_scores.csv", read_table),  # read by the model cards
    }


@pytest.mark.parametrize("damage", [_overwrite, _truncate, _plausible])
def test_every_kind_of_artifact_damaged_is_an_error_naming_it(workdir, tmp_path, damage):
    """Each artifact of a finished run, copied and damaged (bytes overwritten, cut short, a
    value edited), is refused by the reader its consumers use, with the file's name."""
    from biasbench.errors import InputError

    checked = []
    for kind, (pattern, read) in _readers().items():
        found = sorted((workdir / "results").glob(pattern))
        if not found and not MIRROR and kind in ("study table", "study records", "safetensors"):
            continue  # stages that need the pinned upstream files
        assert found, f"{kind}: nothing matches results/{pattern}"
        original = found[0]
        copy = tmp_path / damage.__name__ / original.relative_to(workdir)
        if kind in ("model weights", "static vectors"):
            shutil.copytree(original.parent, copy.parent, dirs_exist_ok=True)
        else:
            copy.parent.mkdir(parents=True, exist_ok=True)
            for path in (original, *original.parent.glob(f"{original.name}.sha256")):
                shutil.copy(path, copy.parent)  # a table CSV's checksum lies beside it
        read(copy)  # undamaged: accepted
        damage(copy)
        with pytest.raises(InputError) as error:
            os.chdir(tmp_path / damage.__name__)  # pinned files are known by results/external/
            try:
                read(copy.relative_to(tmp_path / damage.__name__))
            finally:
                os.chdir(ROOT)
        assert str(copy.relative_to(tmp_path / damage.__name__)) in str(error.value), kind
        checked.append(kind)
    assert len(checked) >= 12


def _results(workdir):
    """Every result's bytes (tables, scores, records; benchmarks and logs hold timings and
    messages, not results)."""
    return {
        p: p.read_bytes()
        for p in (workdir / "results").glob("**/*")
        if p.suffix in {".tsv", ".csv", ".md", ".html", ".json"}
        and not {"benchmarks", "logs"} & set(p.parts)
    }


def test_a_damaged_file_stops_the_run_naming_it_and_the_repaired_run_is_unchanged(workdir):
    """Through the workflow: each damage fails the job that reads the file, with one console
    line naming it; nothing scores a damaged input; once repaired, every result is the same."""
    before = _results(workdir)
    cases = [
        # a table CSV the model cards read: edited, its newer time reruns them, they refuse it
        # (first: a failure below may remove the table until the repair)
        ("results/tables/synthesis_scores.csv", _plausible, "contents do not match"),
        ("results/scores/all.tsv", _truncate, "no checksum line"),
    ]
    if MIRROR:  # edited after its download: DivDist's census
        cases.append(("results/external/garg_census_gender", _plausible, "it is pinned at"))
    for rel, damage, message in cases:
        path = workdir / rel
        original, stat = path.read_bytes(), path.stat()
        damage(path)
        run = snakemake(workdir)
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert run.returncode != 0, rel
        lines = [line for line in run.stderr.splitlines() if line.startswith("biasbench: ")]
        assert lines and lines[0].startswith(f"biasbench: {rel}: ") and message in lines[0]
    # the weights of a prepared model, damaged where no rule sees it: the next job that loads
    # them refuses them (its cached files gone, the test's own job encodes it and loads them)
    weights = workdir / "results/models/tiny-null/model.safetensors"
    original, stat = weights.read_bytes(), weights.stat()
    _plausible(weights)
    shutil.rmtree(workdir / "results/cache/embeddings/tiny-null")
    run = snakemake(workdir, "--force", "results/embeddings/tiny-null/templates/C6.h5")
    weights.write_bytes(original)
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert run.returncode != 0
    assert f"biasbench: {weights.relative_to(workdir)}: sha256 " in run.stderr
    run = snakemake(workdir)  # the repair: rebuilds every target the failures removed
    assert run.returncode == 0, run.stderr[-3000:]
    after = _results(workdir)
    # (intermediates that a failed job removed and no target needs again stay absent)
    assert [str(p) for p in after if after[p] != before.get(p)] == []
    assert {p for p in before if "tables" in p.parts} <= set(after)


def test_a_folder_where_a_table_belongs_fails_the_run_naming_it(tmp_path):
    """A table replaced by a folder: Snakemake took it for finished ("Nothing to be done",
    exit 0, no table); the walk of results/ before planning refuses it, naming it."""
    work = copy_workflow(tmp_path)
    shutil.copy(ROOT / "config.yaml", work)
    (work / "results/tables/table3_seat.csv").mkdir(parents=True)
    run = snakemake(work, "-n")
    assert run.returncode != 0
    assert "results/tables/table3_seat.csv: a folder, where the workflow writes a file; " in (
        run.stdout + run.stderr
    )


def test_replaced_weights_of_a_local_model_rerun_exactly_its_jobs(workdir):
    """A path: model's weights are an input of its preparation: replacing them reruns that
    model's jobs and the comparisons over all models, no job of another model."""
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    model_dir = Path(config["models"]["tiny-bert"]["source"].removeprefix("path:"))
    weights = model_dir / "model.safetensors"
    original, stat = weights.read_bytes(), weights.stat()
    _plausible(weights)  # other weights (one value's last bit)
    try:
        run = snakemake(workdir, "-n")
    finally:
        weights.write_bytes(original)
        os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert run.returncode == 0, run.stderr[-3000:]
    jobs = planned_jobs(run.stdout)
    assert any("model=tiny-bert" in wildcards for _rule, wildcards in jobs)
    assert "rule prepare_model:" in run.stdout
    # another model's card shows the zoo beside it (the comparison): it alone is rebuilt
    assert ("model_card", "model=glove-6b-50d") in jobs
    assert not [j for j in jobs if "model=glove-6b-50d" in j[1] and j[0] != "model_card"]
    restored = snakemake(workdir, "-n")
    assert "Nothing to be done" in restored.stdout + restored.stderr


def dry_run_jobs(workdir) -> set[tuple[str, str]]:
    """(rule, outputs) of each job a dry run of the default target plans."""
    run = snakemake(workdir, "-n")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Nothing to be done" in run.stdout + run.stderr or "Job stats" in run.stdout, run.stdout
    jobs, rule = set(), None
    for line in run.stdout.splitlines():
        if line.startswith(("rule ", "localrule ")):
            rule = line.split()[1].rstrip(":")
        elif line.strip().startswith("output:"):
            jobs.add((rule, line.strip()))
    return jobs


#: one file of each kind of the user's own inputs the small DAG reads (the data-set file:
#: DisCo's nouns, which the MIRROR-less DAG does not score; the word list: the template
#: study's, which it does not run either)
OWN_INPUTS = {
    "word set": "resources/wordsets/C6.yaml",
    "templates": "resources/templates/tiny_double.yaml",
    "corpus": "corpus/RC_test.zst",
    **(
        {"word list": "resources/lists/delobelle2022.yaml"}
        | {"data-set file": "resources/lists/disco_nouns.yaml"}
        if MIRROR
        else {}
    ),
}


@pytest.mark.parametrize("kind", OWN_INPUTS)
def test_an_input_edited_with_its_mtime_kept_replans_exactly_its_dependants(workdir, kind):
    """A word set, template file, corpus, word list or data-set file edited with its
    modification time kept (``cp -p``, ``rsync -a``, ``touch -r``) plans exactly the jobs that
    the same edit with a newer modification time plans: the jobs that read it and every job
    after them. Before, Snakemake's mtime trigger saw nothing and the scores kept the old file
    (a newer time alone, the bytes unchanged, reruns nothing: Snakemake compares the checksum
    it recorded of a small input)."""
    path = workdir / OWN_INPUTS[kind]
    original, stat = path.read_bytes(), path.stat()

    def edit():
        time.sleep(0.05)  # a later write: the kernel's ctime ticks coarsely
        if path.suffix == ".zst":  # another valid stream: one more document
            text = zstandard.ZstdDecompressor().decompress(original).decode()
            edited = text + "\n" + json.dumps({"body": "We talked about it today."})
            path.write_bytes(zstandard.ZstdCompressor().compress(edited.encode()))
        else:  # a comment line: valid YAML, other bytes
            path.write_bytes(original + b"\n# edited\n")

    def restore():
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    try:
        edit()  # its time now: newer than every output
        touched = dry_run_jobs(workdir)
        restore()
        edit()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert path.stat().st_mtime_ns == stat.st_mtime_ns
        kept = dry_run_jobs(workdir)
    finally:
        restore()
    assert touched, kind
    assert kept == touched
    restored = snakemake(workdir, "-n")
    assert "Nothing to be done" in restored.stdout + restored.stderr


def planned_jobs(dry_run: str) -> list[tuple[str, str]]:
    """(rule, wildcards) of each job a dry run lists."""
    jobs, rule = [], None
    for line in dry_run.splitlines():
        if line.startswith(("rule ", "localrule ")):
            rule = line.split()[1].rstrip(":")
        elif line.strip().startswith("wildcards:"):
            jobs.append((rule, line.strip().removeprefix("wildcards:").strip()))
    return jobs


def planned_outputs(dry_run: str) -> list[tuple[str, list[str]]]:
    """(rule, output paths) of each job a dry run lists (a target rule: no paths)."""
    jobs = []
    for line in dry_run.splitlines():
        if line.startswith(("rule ", "localrule ")):
            jobs.append((line.split()[1].rstrip(":"), []))
        elif line.strip().startswith("output:") and jobs:
            paths = line.strip().removeprefix("output:").split(",")
            jobs[-1][1].extend(p.strip() for p in paths if p.strip())
    return jobs


def test_an_audit_beside_the_default_run_rewrites_none_of_its_files(workdir, tmp_path):
    """Auditing one's own model in a checkout that holds a finished default run: planned, it
    lists only jobs whose outputs concern the audited model (its own files and its null
    copies'), none of the run's; run, the run's collected scores, provenance and tables stay
    as they were, byte for byte, its default target plans the same jobs after it, and the
    audited model's card sets the zoo's scores and the methods' validity beside its own,
    naming the tables it read."""
    work = tmp_path / "checkout"
    shutil.copytree(workdir, work, symlinks=True)
    kept = [
        work / "results/scores/all.tsv",
        work / "results/report/provenance.html",
        *sorted((work / "results/tables").glob("*.csv")),
    ]
    before = {p: p.read_bytes() for p in kept}
    default_jobs = sorted(planned_jobs(snakemake(work, "-n").stdout))
    words = yaml.safe_load((ROOT / "resources/wordsets/C6.yaml").read_text())
    groups = [*words["targets"].values(), {k: words["attributes"][k] for k in "AB"}]
    model = tiny_bert(
        tmp_path / "my-bert", tuple(w for g in groups for s in g.values() for w in s["words"])
    )
    mine = {
        "models": {
            "my-bert": {
                "kind": "transformer",
                "source": f"path:{model}",
                "tests": {"templates": ["C6"]},
            }
        },
        "only_models": ["my-bert"],
    }
    (work / "my.yaml").write_text(yaml.safe_dump(mine))
    planned = snakemake(work, "-n", "--configfile", "my.yaml")
    assert planned.returncode == 0, planned.stderr[-3000:]
    jobs = planned_outputs(planned.stdout)
    strays = [(r, o) for r, o in jobs if r != "all" and not any("my-bert" in p for p in o)]
    assert strays == []  # no job of the finished run is planned again
    rules = {r for r, _o in jobs}
    assert {"prepare_model", "model_card", "collect_scores", "null_calibration"} <= rules
    run = snakemake(work, "--configfile", "my.yaml")
    assert run.returncode == 0, run.stderr[-3000:]
    assert [str(p) for p in kept if p.read_bytes() != before[p]] == []
    assert set(read_tsv(work / "results/scores/audit/my-bert.tsv")["model"]) == {"my-bert"}
    assert (work / "results/report/audit/my-bert.html").is_file()
    card = (work / "results/cards/models/my-bert.md").read_text()
    assert "From the finished default run in this checkout (results/tables/synthesis_scores" in card
    assert "| s-SEAT | " in card.split("## Comparison")[1].split("### Its own null copies")[0]
    assert "2 seeded copies with its architecture" in card  # its own null control ran
    zoo = pd.read_csv(work / "results/tables/synthesis_scores.csv")
    theirs = zoo[
        (zoo["model"] == "tiny-bert") & (zoo["method"] == "s-SEAT") & (zoo["test"] == "C6")
    ]
    theirs = theirs[(theirs["source"] == "templates") & (theirs["descriptor"] == "names")]
    effect = float(theirs["effect_size"].iloc[0])
    row = next(
        line for line in card.splitlines() if line.startswith("| s-SEAT | templates | C6 | names |")
    )
    assert (
        row.split(" | ")[7] == f"{effect:.3g} [{effect:.3g}, {effect:.3g}] (1)"
    )  # tiny-bert alone
    # the default target plans what it planned before (a copied checkout reruns the jobs
    # whose params name its resources/ by absolute path: the same ones before and after)
    assert sorted(planned_jobs(snakemake(work, "-n").stdout)) == default_jobs


def test_two_models_compared_item_by_item_beside_the_default_run(workdir, tmp_path):
    """compare: in an audit of two language models: each pair's outcomes of both, one table,
    card and harness file, the default run's files untouched."""
    work = tmp_path / "checkout"
    shutil.copytree(workdir, work, symlinks=True)
    kept = [work / "results/scores/all.tsv", *sorted((work / "results/tables").glob("*.csv"))]
    before = {p: p.read_bytes() for p in kept}
    mine = {
        "datasets": {"models": {"tiny-null": ["crows_pairs", "stereoset"]}},
        "only_models": ["tiny-head", "tiny-null"],
        "compare": {"base": "tiny-head", "against": ["tiny-null"]},
    }
    (work / "my.yaml").write_text(yaml.safe_dump(mine))
    card = "results/cards/comparisons/tiny-head/tiny-null.md"
    run = snakemake(work, card, "--configfile", "my.yaml")  # --configfile takes every name after it
    assert run.returncode == 0, run.stderr[-3000:]
    assert [str(p) for p in kept if p.read_bytes() != before[p]] == []
    table = read_tsv(work / "results/comparisons/tiny-head/tiny-null.tsv")
    outcomes = {
        (m, d): read_tsv(work / f"results/datasets/{m}/{d}.outcomes.tsv")
        for m in ("tiny-head", "tiny-null")
        for d in ("crows_pairs", "stereoset")
    }
    # every measure both models score, on the same items; the shares are the outcomes'
    measure = ["method", "encoding", "variant"]
    for dataset in ("crows_pairs", "stereoset"):
        found = outcomes[("tiny-head", dataset)][measure].drop_duplicates()
        compared = table[table["dataset"] == dataset][measure]
        assert sorted(map(tuple, compared.values)) == sorted(map(tuple, found.values))
    for row in table.to_dict("records"):
        for model, column in (("tiny-head", "base_score"), ("tiny-null", "against_score")):
            scored = outcomes[(model, row["dataset"])]
            part = scored[(scored[measure] == pd.Series(row)[measure]).all(axis=1)]
            assert row[column] == pytest.approx(100 * part["preferred"].mean())
        assert row["difference"] == pytest.approx(row["against_score"] - row["base_score"])
    text = (work / card).read_text()
    assert text.startswith("# tiny-null against tiny-head: a paired comparison")
    assert "the finished default run in this checkout" in text
    export = json.loads((work / "results/lm_eval/comparisons/tiny-head/tiny-null.json").read_text())
    assert export["config"]["compared_model"] == "tiny-null"
    bad = dict(mine, compare={"base": "tiny-head", "against": ["glove-6b-50d"]})
    (work / "bad.yaml").write_text(yaml.safe_dump(bad))
    run = snakemake(work, "--configfile", "bad.yaml", "-n")
    assert run.returncode != 0
    assert "compare.against[0] 'glove-6b-50d' is not a configured model" in run.stdout + run.stderr


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c.update(colour="blue"), "colour"),
        (lambda c: c["scoring"].update(unit="sentence"), "unit"),
        (
            lambda c: c.update(tests=["C6", "NoSuchTest"]),
            "resources/wordsets/NoSuchTest.yaml does not exist",
        ),
        (lambda c: c["models"]["tiny-bert"].update(source="bert-base-cased"), "source"),
        (lambda c: c["models"]["tiny-bert"].update(case="upper"), "'upper' is not one of"),
    ],
)
def test_bad_config_fails_before_any_job(workdir, tmp_path, edit, message):
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    edit(config)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    run = snakemake(workdir, "-n", "--configfile", str(bad))
    assert run.returncode != 0
    assert message in run.stdout + run.stderr


def test_unknown_model_in_a_target(workdir):
    run = snakemake(workdir, "-n", "results/embeddings/nosuch/templates/C6.h5")
    assert run.returncode != 0
    assert "unknown model 'nosuch'" in run.stdout + run.stderr


def browser():
    """Headless Chromium driven by chromedriver (Debian's chromium and chromium-driver)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("headless Chromium is not installed (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def check_report(html: Path, shots: Path) -> None:
    """Open a report in Chromium: its front page describes the four papers and the comparison,
    its sections (the comparison first, each paper, the models, the provenance) list every
    table and figure target under its own section, and a figure renders.
    Screenshots of the front page and of that figure are written to ``shots``."""
    from selenium.webdriver.common.by import By

    from biasbench.reports.catalog import (
        COMPARISON,
        FIGURES,
        MODELS,
        PROVENANCE,
        TABLES,
        report_section,
    )

    driver = browser()
    try:
        driver.get(html.as_uri())
        driver.implicitly_wait(10)

        def open_(text):
            driver.find_element(By.XPATH, f"//*[text()='{text}']").click()

        def listed():
            cells = driver.find_elements(By.XPATH, "//tr/td[1]")
            return {c.text for c in cells if c.text}

        front = driver.find_element(By.TAG_NAME, "body").text
        for words in ("four papers", "The comparison across papers comes first", "Models"):
            assert words in front, front[:2000]
        driver.save_screenshot(str(shots / "report_front.png"))
        targets = {*TABLES, *FIGURES}
        sections = sorted({report_section(t) for t in targets})
        open_("Results")
        shown = set(driver.find_element(By.TAG_NAME, "body").text.split("\n"))
        assert {COMPARISON, MODELS, PROVENANCE} <= shown
        assert sections[0] == COMPARISON
        seen = set()
        for section in sections:
            open_("Results")
            open_(section)
            found = listed()
            assert found and all(report_section(t) == section for t in found), (section, found)
            seen |= found
        assert seen == targets
        open_("Results")
        open_(report_section("figure5_scatter"))
        row = driver.find_element(By.XPATH, "//td[text()='figure5_scatter']/ancestor::tr[1]")
        row.find_element(By.XPATH, ".//a[@iconname='eye']").click()
        image = driver.find_element(By.XPATH, "//img[contains(@src, 'figure5_scatter')]")
        assert driver.execute_script("return arguments[0].naturalWidth", image) > 500
        driver.save_screenshot(str(shots / "report_screenshot.png"))
    finally:
        driver.quit()


def test_the_report_opens_in_a_browser_with_every_table_and_figure(workdir):
    """`snakemake --report` writes one HTML file; in Chromium it opens on the comparison and
    lists every table and figure under its paper (``check_report``)."""
    from biasbench.reports.catalog import FIGURES, TABLES, report_section

    run = snakemake(workdir, "--report", "results/report.html")
    assert run.returncode == 0, run.stderr[-3000:]
    check_report(workdir / "results/report.html", workdir / "results")
    assert {report_section(t) for t in (*TABLES, *FIGURES)}  # every target has its section


@pytest.mark.skipif(
    not os.environ.get("BIAS_REPORT"),
    reason="BIAS_REPORT names no report (a default run's: snakemake --report results/report.html)",
)
def test_a_default_runs_report_opens_in_a_browser():
    """The same check on a report built elsewhere (the default run's): BIAS_REPORT=<html>."""
    html = Path(os.environ["BIAS_REPORT"]).resolve()
    check_report(html, html.parent)
