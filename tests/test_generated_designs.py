"""Generated null designs: seeded, disjoint, sized like the papers' tests, unbalanced where
declared, each on a copy of its own and a cluster of its own; on random static vectors their
tests reject at the nominal rate (a null that could have failed them)."""

import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from biasbench.config import model_entry
from biasbench.data.designs import LEXICON_WORDS, MAX_DESIGNS, SIZES, check_designs
from biasbench.errors import InputError
from biasbench.io import write_tsv
from biasbench.models.load import StaticVectors
from biasbench.models.null import design_copy_names
from biasbench.models.specs import ModelSpec
from biasbench.reports.catalog import TABLES
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table
from biasbench.rows import COLUMNS
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies import calibration as cal
from biasbench.studies import null_calibration as nc
from biasbench.studies.cells import primary_cells
from biasbench.studies.generated import PROPERTIES, draw_designs, lexicon

from .conftest import score_row


def _word(i: int) -> str:
    """A distinct plain word per i: an initial of 7, i in base 8, padding, an ending of 3."""
    digits = "".join("aeiounrs"[int(d)] for d in np.base_repr(i, 8))
    return "bdkmpst"[i % 7] + digits + "z" * (i % 4) + ("er", "ly", "ed")[(i // 7) % 3]


#: a synthetic lexicon of 12,000 distinct plain words
LEXICON = [_word(i) for i in range(12_000)]
POOL = LEXICON


def test_designs_are_seeded_disjoint_sized_and_classes_of_one_property():
    designs = draw_designs(LEXICON, 12, seed=7)
    assert designs == draw_designs(LEXICON, 12, seed=7)  # reproducible
    assert designs[:5] == draw_designs(LEXICON, 5, seed=7)  # more designs keep the first
    assert designs != draw_designs(LEXICON, 12, seed=8)
    used = [w for d in designs for r in "XYAB" for w in d.sets[r]]
    assert len(set(used)) == len(used) and set(used) <= set(LEXICON)  # no word twice
    rank = {w: i for i, w in enumerate(LEXICON)}
    for design in designs:
        sizes = {len(design.sets[r]) for r in "XYAB"}
        assert len(sizes) == 1 and sizes.pop() in SIZES
        assert design.kind != design.attributes
        for roles, prop in (("XY", design.kind), ("AB", design.attributes)):
            classes = [{PROPERTIES[prop](w, rank[w], None) for w in design.sets[r]} for r in roles]
            # each set one class of its property, the two sets two classes
            assert all(len(c) == 1 for c in classes) and classes[0] != classes[1]
        assert design.test == f"gen{design.index:03d}"
    # the target properties in turn, without word pieces for static vectors
    assert [d.kind for d in designs[:4]] == ["initial", "ending", "length", "frequency"]


def test_word_pieces_are_a_property_where_a_tokenizer_gives_them():
    pieces = {w: 1 + len(w) % 3 for w in LEXICON}
    designs = draw_designs(LEXICON, 10, seed=3, pieces=pieces)
    split = [d for d in designs if d.kind == "pieces"]
    assert len(split) == 2
    for design in split:
        x, y = ({pieces[w] for w in design.sets[r]} for r in "XY")
        assert len(x) == len(y) == 1 and x != y


def test_the_lexicon_is_the_first_plain_words_and_its_capacity_is_named():
    vocabulary = ["the", "A", "of", "x-ray", "1990", "dogs", "naïve", "cats", "emu"]
    assert lexicon(vocabulary) == ["the", "dogs", "cats", "emu"]
    assert lexicon(vocabulary, 2) == ["the", "dogs"]
    with pytest.raises(ValueError, match="supplies [0-9]+ generated designs"):
        draw_designs(LEXICON[:200], 50, seed=1)


def test_planning_refuses_designs_without_a_lexicon_or_beyond_the_cap():
    field = "null_calibration.models.glove-6b-50d.designs"
    with pytest.raises(InputError, match="need a lexicon: set null_calibration.lexicon"):
        check_designs(10, field, None, "null_calibration.lexicon")
    with pytest.raises(InputError, match=f"set {field} to at most {MAX_DESIGNS:,}"):
        check_designs(MAX_DESIGNS + 1, field, "glove", "null_calibration.lexicon")
    check_designs(MAX_DESIGNS, field, "glove", "null_calibration.lexicon")
    check_designs(0, field, None, "null_calibration.lexicon")
    # the cap holds for a lexicon of GloVe's size: the largest sets fit that often
    assert MAX_DESIGNS * 4 * max(SIZES) <= LEXICON_WORDS


def _static(words, dim=8):
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(len(words), dim)).astype(np.float32)
    return StaticVectors({w: i for i, w in enumerate(words)}, vectors, lowercase=True)


def test_each_design_is_scored_on_a_copy_of_its_own_as_a_cluster_of_its_own():
    base = ModelSpec.from_config("glove", model_entry(kind="static", source="glove-pkg:x"))
    designs = draw_designs(POOL, 4, seed=3)
    settings = ScoreSettings(seed=1, exact_max=500, n_samples=200, same_samples=50)
    run = [
        nc.static_null_rows(
            base, _static(POOL), 1, {}, settings=settings, seed=9, designs=designs, log=print
        )
        for _ in range(2)
    ]
    frame = run[0]
    assert frame.equals(run[1])  # seeded
    assert sorted(set(frame["model"])) == design_copy_names("glove", 4)
    assert set(frame["test"]) == {d.test for d in designs} and set(frame["source"]) == {"words"}
    cells = primary_cells(frame, {})
    bases = dict.fromkeys(design_copy_names("glove", 4), "glove")
    clusters = cal.null_clusters(cells[cells["method"] == "WEAT"], bases)
    assert clusters.nunique() == 4  # one cluster per design
    weat = frame[(frame["method"] == "WEAT") & frame["primary"].astype(bool)]
    assert weat["p_value"].notna().all() and len(weat) == 4
    # A and B paired by position: the pair methods score every design too
    ripa = frame[(frame["method"] == "RIPA") & frame["primary"].astype(bool)]
    assert ripa["p_value"].notna().all() and len(ripa) == 4
    assert frame.loc[frame["method"] == "Direct Bias", "effect_size"].notna().any()


def test_on_random_static_vectors_the_designs_reject_at_the_nominal_rate():
    """A level check that could have failed: 600 generated designs on random vectors, every
    one a fresh copy, each method's p-values (its paper test: the words are its items)
    uniform by a Kolmogorov-Smirnov test and the share below 0.05 inside its exact 99%
    interval. The same check on the p-values halved (a test rejecting at about 10%) fails:
    the interval is tight enough to catch it."""
    base = ModelSpec.from_config("glove", model_entry(kind="static", source="glove-pkg:x"))
    words = [_word(i) for i in range(36_000)]
    designs = draw_designs(words, 600, seed=11)
    settings = ScoreSettings(seed=2, exact_max=400, n_samples=400, same_samples=100)
    frame = nc.static_null_rows(
        base,
        _static(words, dim=16),
        0,
        {},
        settings=settings,
        seed=4,
        designs=designs,
        design_grams=None,  # i.i.d. directions: every word exchangeable, the level exact
        log=print,
    )
    cells = primary_cells(frame, {})
    for method in ("WEAT", "RND", "RIPA"):
        p = cells.loc[cells["method"] == method, "p_value"].dropna().to_numpy()
        assert len(p) == 600, method
        assert sps.kstest(p, "uniform").pvalue > 0.001, method
        low, high = cal.clopper_pearson(int((p < 0.05).sum()), len(p), level=0.99)
        assert low <= 0.05 <= high, method
        bad_low, _ = cal.clopper_pearson(int((p / 2 < 0.05).sum()), len(p), level=0.99)
        assert bad_low > 0.05, method


def test_the_generated_table_shows_the_designs_alone_by_property(tmp_path):
    """synthesis_null_generated: the generated designs' null cells (tests gen<i>) alone, a
    calibration per property; a seeded copy's paper test stays out."""
    rows = [
        score_row(
            method="s-SEAT",
            model=f"m-null-g{i}",
            test=f"gen{i:03d}",
            descriptor="initial" if i % 2 == 0 else "pieces",
            source="words",
            effect_size=0.1,
            p_value=0.5 if i % 2 == 0 else 0.001,  # the designs split by pieces reject
            p_floor=0.0005,
        )
        for i in range(8)
    ]
    rows.append(
        score_row(
            method="s-SEAT",
            model="m-null-s0",
            test="C6",
            descriptor="names",
            source="templates",
            effect_size=0.1,
            p_value=0.001,
            p_floor=0.0005,
        )
    )
    (tmp_path / "scores" / "null").mkdir(parents=True)
    write_tsv(tmp_path / "all.tsv", pd.DataFrame(columns=COLUMNS))
    write_tsv(tmp_path / "scores" / "null" / "m.tsv", pd.DataFrame(rows))
    names = ("m-null-s0", *design_copy_names("m", 8))
    settings = ReportSettings(alpha=0.05, null_models=names, null_bases=dict.fromkeys(names, "m"))
    inputs = {
        "scores": [str(tmp_path / "all.tsv")],
        "nulls": [str(tmp_path / "scores" / "null" / "m.tsv")],
    }
    csv, markdown, _ = render_table(TABLES["synthesis_null_generated"], inputs, settings)
    table = pd.read_csv(io.StringIO(csv))
    paper = table[table["design"] == "paper"].set_index("designs")
    assert paper.loc["initial", "clusters_0.05"] == 4 and paper.loc["initial", "null_0.05"] == 0
    assert paper.loc["pieces", "clusters_0.05"] == 4 and paper.loc["pieces", "null_0.05"] == 1
    assert "random copy of its own" in markdown


def test_the_plan_names_each_designs_copy_and_refuses_those_names_to_a_model():
    from biasbench.errors import InputError
    from biasbench.plan.null import check_model_names

    from .test_plan_targets import plan_of

    plan = plan_of()
    # config.yaml: MiniLM's and GloVe's own counts, SmolLM2 none
    assert plan.null_designs_of("minilm-l6") == 1250 and plan.null_designs_of("smollm2-135m") == 0
    assert plan.null_designs_of("glove-6b-50d") == 1000
    assert plan.null_bases()["minilm-l6-null-g1249"] == "minilm-l6"
    assert "minilm-l6-null-g1250" not in plan.null_bases()
    assert "glove-6b-50d-null-g0" in plan.null_copies()
    assert not any(n.startswith("smollm2-135m-null-g") for n in plan.null_copies())
    assert plan.null_pool_files("minilm-l6") == ["results/models/glove-6b-50d/biasbench_model.json"]
    assert plan.null_pool_files("smollm2-135m") == []
    with pytest.raises(InputError, match="seeded null copy"):
        check_model_names(["m", "m-null-g3"])
    with pytest.raises(InputError, match="seeded null copy"):
        check_model_names(["m", "m-null-i3"])
    # LPBS on MiniLM's first designs; a static model runs none; no more than its designs
    assert plan.null_lpbs_designs_of("minilm-l6") == 80
    assert plan.null_lpbs_designs_of("glove-6b-50d") == 0
    assert plan.null_calibration_inputs("minilm-l6")["templates"] == plan.lpbs_template_file

    def too_many(config):
        config["null_calibration"]["models"]["minilm-l6"]["lpbs_designs"] = 1251

    with pytest.raises(InputError, match=r"lpbs_designs: 1251 of the model.s 1250"):
        plan_of(too_many)


def test_the_preset_for_alpha_001_gives_every_base_with_designs_enough_for_a_verdict():
    """config/presets/null-designs-0.01.yaml over config.yaml: each base that draws designs
    (a base's own count in config.yaml included) gets at least the clusters a test calibrated
    exactly at 0.01 needs for an 80% chance of that verdict; SmolLM2 keeps its none."""
    from snakemake.utils import update_config

    from biasbench.config import read_yaml
    from biasbench.studies.calibration import clusters_for_verdict

    from .test_plan_targets import ROOT, plan_of

    preset = read_yaml(ROOT / "config/presets/null-designs-0.01.yaml")
    plan = plan_of(lambda config: update_config(config, preset))
    needed = clusters_for_verdict(0.01)
    assert plan.null_designs_of("minilm-l6") >= needed
    assert plan.null_designs_of("glove-6b-50d") >= needed
    assert plan.null_designs_of("smollm2-135m") == 0


def test_a_transformer_s_lexicon_keeps_the_words_its_tokenizer_reads():
    """Word pieces of bare words under a WordPiece tokenizer: a word in the vocabulary is one
    piece, one made of known pieces several, one with an unknown piece is left out."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from biasbench.models.word_pieces import bare_word_pieces

    vocab = {t: i for i, t in enumerate(["[UNK]", "[CLS]", "[SEP]", "walk", "##ed", "##ing"])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")
    pieces = bare_word_pieces(fast, ["walk", "walked", "walking", "talked", "walkx"])
    assert pieces == {"walk": 1, "walked": 2, "walking": 2}
    assert bare_word_pieces(fast, []) == {}


def test_the_first_designs_of_a_transformer_run_lpbs_on_their_own_copy(tmp_path):
    from biasbench.data.templates import DoubleTemplates
    from biasbench.models.null import Architecture

    from .tiny_models import tiny_bert

    designs = draw_designs(LEXICON, 3, seed=5, pieces=dict.fromkeys(LEXICON, 1))
    words = [w for d in designs for s in d.sets.values() for w in s]
    where = tiny_bert(tmp_path / "base", tuple(words))
    base = ModelSpec.from_config("b", model_entry(kind="transformer", source=f"path:{where}"))
    templates = DoubleTemplates(
        "TTT", "AAA", {"basic": (("TTT is AAA.", "TTT likes the AAA."), None)}
    )
    frame = nc.transformer_null_rows(
        base,
        Architecture.of(base, where),
        0,
        {},
        settings=ScoreSettings(seed=1, exact_max=500, n_samples=200, same_samples=50),
        seed=9,
        extraction={"max_tokens": 2048, "max_batch": 64, "max_length": 16},
        batch=64,
        lpbs_batch=64,
        designs=designs,
        lpbs_designs=nc.GeneratedLpbs(2, templates, "basic"),
        log=lambda _line: None,
    )
    lpbs = frame[(frame["method"] == "LPBS") & frame["primary"].astype(bool)]
    assert sorted(lpbs["model"]) == design_copy_names("b", 2)  # the first two designs only
    assert list(lpbs.sort_values("model")["test"]) == [d.test for d in designs[:2]]
    assert lpbs["p_value"].notna().all()
    assert set(frame["model"]) == set(design_copy_names("b", 3))
