"""The data-set scorers: what they ask the engine for and hand to the methods, on a stub
engine with hand-set numbers, the authors' code bugs they must not repeat, and every scorer
end to end on tiny random masked and causal LMs (code paths only)."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

from biasbench.data import datasets as dataset_files
from biasbench.data.pairsets import (
    BecProRow,
    SentencePair,
    StereoSetItem,
    WinoBiasItem,
    read_salary_titles,
    read_word_pairs,
)
from biasbench.errors import InputError, TooLong
from biasbench.methods.contract import Settings
from biasbench.models.logprobs import Engine
from biasbench.scoring import dataset_stage, datasets
from biasbench.scoring.datasets import SCORERS
from biasbench.scoring.settings import ScoreSettings

from .tiny_models import tiny_bert, tiny_gpt2

ARGS = {"model": "m", "settings": Settings(), "seed": 1, "signature": "s"}


class CausalStub:
    """A causal LM whose sentence log-likelihood is set by hand, one number per sentence."""

    masked = False

    def __init__(self, scores):
        self.scores = scores

    def sentence_tokens(self, sentences):
        ids = [[0, 1, 2] for _ in sentences]
        return ids, [np.array([self.scores[s], 0.0]) for s in sentences]

    def shared(self, a, b):
        return [1], [1]

    def continuation_tokens(self, prefixes, rests):
        return [np.array([self.scores[p + r]]) for p, r in zip(prefixes, rests, strict=True)]


def test_crows_pairs_counts_the_stereotype_side_and_aul_is_na_for_a_causal_lm():
    pairs = [
        SentencePair("s1", "a1", True, "race"),  # stereo preferred
        SentencePair("s2", "a2", True, "race"),  # anti preferred
        # an antistereo row: "more" is still the more stereotyping sentence (the authors'
        # metric counts sent_more > sent_less on it too): preferred
        SentencePair("m3", "l3", False, "gender"),
        SentencePair("s4", "a4", True, "gender"),  # tie: neither side
    ]
    scores = {"s1": -1, "a1": -2, "s2": -3, "a2": -1, "m3": -1, "l3": -4, "s4": -2, "a4": -2}
    out = datasets.crows_pairs(CausalStub(scores), pairs, **ARGS)
    for encoding in ("causal-sentence-mean", "causal-sentence"):
        row = out.query(f"encoding == '{encoding}' and descriptor == 'all'").iloc[0]
        assert row.effect_size == pytest.approx(50.0)  # s1 and m3 of four pairs
        assert "1 tied" in row.note
        gender = out.query(f"encoding == '{encoding}' and descriptor == 'gender'").iloc[0]
        assert gender.effect_size == pytest.approx(50.0)
    primary = out[out["primary"].astype(bool)]
    assert set(primary["encoding"]) == {"causal-sentence-mean"}
    harness = out.query("encoding == 'causal-sentence' and descriptor == 'all'").iloc[0]
    assert "equals lm-evaluation-harness's crows_pairs_english pct_stereotype" in harness.note
    aul = out.query("method == 'AUL'").iloc[0]
    assert np.isnan(aul.effect_size) and "masked LMs only" in aul.note


def _wino(pronoun: str) -> WinoBiasItem:
    sentence = f"The developer argued with the designer because {pronoun} was angry."
    at = sentence.index(f" {pronoun} ") + 1
    return WinoBiasItem(sentence, "The developer", "the designer", pronoun, (at, at + len(pronoun)))


def test_winobias_keeps_the_pronoun_and_resolves_to_the_likelier_candidate():
    scores = {}
    for pronoun, right in (("he", -5.0), ("she", -9.0)):
        prefix = f"The developer argued with the designer because {pronoun} (the"
        scores[f"{prefix} developer) was angry."] = right
        scores[f"{prefix} designer) was angry."] = -7.0
    # "he" resolves to the developer (-5 > -7), "she" to the designer (-9 < -7): wrong
    items = [(_wino("he"), True, "type1"), (_wino("she"), True, "type1")]
    items += [(_wino("he"), False, "type1"), (_wino("she"), False, "type1")]
    out = datasets.winobias(CausalStub(scores), items, **ARGS)
    by = out.set_index("method")["effect_size"]
    # F1: male pro 100, female pro 0, male anti 100, female anti 0
    assert by["WinoBias F1 gap"] == pytest.approx(0.0)
    assert by["WinoBias skew"] == pytest.approx(100.0)
    assert by["WinoBias stereotype"] == pytest.approx(0.0)


def test_disco_fills_names_as_names_and_nouns_with_the():
    """The authors' code wrote "The liam likes [MASK]."."""
    assert datasets.fill_disco("{target} likes [MASK].", "liam", "names") == "Liam likes [MASK]."
    assert (
        datasets.fill_disco("{target} likes [MASK].", "king", "nouns") == "The king likes [MASK]."
    )
    assert (
        datasets.fill_disco("[MASK] was {target}'s major at college.", "liam", "names")
        == "[MASK] was Liam's major at college."
    )


def test_the_sample_is_seeded_and_keeps_file_order():
    items = list(range(100))
    once = dataset_files.sample(items, 10, 3, "x")
    assert once == dataset_files.sample(items, 10, 3, "x") == sorted(once)
    assert dataset_files.sample(items, None, 3, "x") == items
    assert dataset_files.sample(items, 10, 3, "y") != once


def test_salary_titles_and_word_pairs(tmp_path):
    salaries = tmp_path / "s.csv"
    salaries.write_text(
        "\ufeffLast Name,Job Title,2017 Annual Salary\n"
        "A,Director 2,100\nB,Clerk,10\nC,director,90\nD,Nurse III,95\n",
        encoding="utf-8",
    )
    assert read_salary_titles(salaries, top=3) == ["director", "nurse iii"]
    pairs = tmp_path / "p.txt"
    pairs.write_text("liam\tolivia\nnoah\temma\n", encoding="utf-8")
    assert read_word_pairs(pairs) == [("liam", "olivia"), ("noah", "emma")]
    pairs.write_text("liam olivia\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        read_word_pairs(pairs)


WINO = [_wino("he"), _wino("she")]
STEREO = [
    StereoSetItem(
        "i1",
        "intrasentence",
        "gender",
        "The person is BLANK.",
        {
            "stereotype": "The person is kind.",
            "anti-stereotype": "The person is mean.",
            "unrelated": "The person is there.",
        },
        "person",
    ),
    StereoSetItem(
        "i2",
        "intersentence",
        "race",
        "Paul is here.",
        {"stereotype": "He is kind.", "anti-stereotype": "He is mean.", "unrelated": "It is."},
        "Paul",
    ),
]
BECPRO = [
    BecProRow("He is a person.", "", "", "He", "male", "person", "male"),
    BecProRow("She is a person.", "", "", "She", "female", "person", "male"),
]
PAIRS = [SentencePair("John is kind.", "Amy is kind.", True, "gender")] * 3


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_every_scorer_runs_on_a_tiny_random_model(tmp_path, kind):
    if kind == "masked":
        path = tiny_bert(
            tmp_path / "m", extra_words=("he", "she", "developer", "designer"), mlm_head=True
        )
        model = AutoModelForMaskedLM.from_pretrained(path).eval()
    else:
        path = tiny_gpt2(tmp_path / "m", lm_head=True)
        model = AutoModelForCausalLM.from_pretrained(path).eval()
    engine = Engine(model, AutoTokenizer.from_pretrained(path), kind == "masked", batch=4)
    frames = [
        datasets.crows_pairs(engine, PAIRS, **ARGS),
        datasets.stereoset(engine, STEREO, **ARGS),
        datasets.becpro(engine, BECPRO, **ARGS),
        datasets.winobias(engine, [(w, p, "type1") for w in WINO for p in (True, False)], **ARGS),
        datasets.lpbs_pronoun(engine, ["person", "thing"], **ARGS),
        datasets.disco(
            engine,
            (
                ["{target} is [MASK].", "[MASK] was {target}'s major."],
                {"names": [("john", "amy")], "nouns": [("man", "woman")]},
            ),
            **ARGS,
        ),
    ]
    for frame in frames:
        usable = frame[frame["note"].str.contains("only|head") == False]  # noqa: E712
        assert len(frame) and np.isfinite(usable["effect_size"]).all(), frame
    disco = frames[-1]
    if kind == "causal":  # the slot at the start cannot be filled by a causal LM
        assert disco["note"].str.contains("1 of 2 templates").all()


def test_winobias_lines_with_odd_brackets(tmp_path):
    """Two quirks of the WinoBias files: a referent bracketed without its article, and a
    double space inside the bracket."""
    from biasbench.data.pairsets import occupation_of, read_winobias

    path = tmp_path / "pro_stereotyped_type1.txt.dev"
    path.write_text(
        "1 The mechanic fixed the [housekeeper] 's car and then [she] wrote a note.\n"
        "2 The teacher asked the [ physician] about it and believed [him].\n",
        encoding="utf-8",
    )
    first, second = read_winobias(path, ["mechanic", "housekeeper", "teacher", "physician"])
    assert (occupation_of(first.referent), first.other) == ("housekeeper", "The mechanic")
    assert (occupation_of(second.referent), second.other) == ("physician", "The teacher")


def test_a_sample_by_unit_keeps_each_units_items_together():
    rows = [("nurse", 1), ("nurse", 2), ("pilot", 1), ("pilot", 2), ("chef", 1), ("chef", 2)]
    picked = dataset_files.sample(rows, 2, 5, "becpro", unit=lambda r: r[0])
    assert len(picked) == 4 and len({r[0] for r in picked}) == 2
    assert picked == [r for r in rows if r in picked]  # file order


def test_causal_crows_pairs_compares_the_mean_per_token_and_names_the_sum():
    """bias-bench's causal CrowS-Pairs compares each sentence's mean log-probability per
    token; the summed log-likelihood (a variant) penalises the longer sentence."""

    class Tokens:
        masked = False

        def sentence_tokens(self, sentences):
            # "more": three tokens of -1; "less": one token of -2
            lp = {"more": np.array([-1.0, -1.0, -1.0]), "less": np.array([-2.0])}
            return [[0] * (len(lp[s]) + 1) for s in sentences], [lp[s] for s in sentences]

        def shared(self, a, b):
            return [], []

    out = datasets.crows_pairs(Tokens(), [SentencePair("more", "less", True, "x")], **ARGS)
    by = out[out["descriptor"] == "all"].set_index("encoding")["effect_size"]
    assert by["causal-sentence-mean"] == 100.0  # -1 > -2
    assert by["causal-sentence"] == 0.0  # -3 < -2


def test_stereoset_with_one_task_empty_says_so_instead_of_failing():
    engine = CausalStub({})
    engine.continuation_tokens = lambda prefixes, rests: [np.array([-1.0 - len(r)]) for r in rests]
    out = datasets.stereoset(engine, [STEREO[1]], **ARGS)
    intra = out[out["variant"] == "intrasentence"]
    assert len(intra) == 3 and intra["effect_size"].isna().all()
    assert (intra["note"] == "the data holds no intrasentence item").all()
    assert out.loc[out["variant"] == "intersentence", "effect_size"].notna().all()


def test_every_data_set_has_a_scorer():
    assert set(SCORERS) == set(dataset_files.DATASETS)


def _name_lists(node):
    """Every ``enum`` of a schema that holds a declared data set's name."""
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list) and "crows_pairs" in node["enum"]:
            yield node["enum"]
        for value in node.values():
            yield from _name_lists(value)
    elif isinstance(node, list):
        for value in node:
            yield from _name_lists(value)


def test_the_schemas_data_set_names_are_the_registered_ones(monkeypatch):
    """config/schema.yaml writes no list of data-set names: its lists (files, lists, limits,
    the study's limits, the null copies' data sets) are filled in from ``DATASETS`` when the
    schema is read, all of them or where a limit samples items those that may be sampled. A
    data set added to the registry is then a name the config takes, with no schema edit."""
    import yaml

    from biasbench.config import SCHEMA, read_schema, validate_config

    every = set(dataset_files.DATASETS)
    sampled = {k for k, d in dataset_files.DATASETS.items() if d.sampled}
    assert sampled and sampled != every
    assert list(_name_lists(yaml.safe_load(SCHEMA.read_text(encoding="utf-8")))) == []
    found = list(_name_lists(read_schema(SCHEMA)))
    assert [set(names) for names in found] == [every, sampled]
    refs = SCHEMA.read_text(encoding="utf-8")
    assert refs.count('$ref: "#/$defs/dataset"}') == 3  # files, models' lists, null copies'
    # limits, the study's limits, the null copies' item designs
    assert refs.count('$ref: "#/$defs/sampled_dataset"}') == 3

    toy = dataclasses.replace(dataset_files.DATASETS["crows_pairs"], name="Toy")
    monkeypatch.setitem(dataset_files.DATASETS, "toy", toy)
    config = {
        "seed": 0,
        "tests": ["C6"],
        "models": {"m": {"kind": "transformer", "source": "hf:org/m"}},
        "datasets": {"models": {"m": ["toy"]}, "files": {"toy": {"data": "x"}}, "limits": {}},
    }
    config["datasets"]["limits"] = {"toy": 2}
    assert validate_config(config)["datasets"]["limits"] == {"toy": 2}
    config["datasets"]["files"] = {"nosuch": {"data": "x"}}
    with pytest.raises(InputError, match="datasets.files: 'nosuch' is not one of"):
        validate_config(config)


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_a_remembering_engine_scores_as_the_engine_and_its_halves_call_no_model(tmp_path, kind):
    """The league's robustness scores each data set again on random halves of its items: the
    engine that remembers each item gives the plain engine's rows on the full data, and the
    halves then cost no model call (the wrapped engine's methods refuse to run)."""
    from biasbench.models.logprobs.engine import RememberingEngine
    from biasbench.stats import derived_seed
    from biasbench.studies.groundtruth.every_method import dataset_halves, item_halves

    if kind == "masked":
        path = tiny_bert(
            tmp_path / "m", extra_words=("he", "she", "developer", "designer"), mlm_head=True
        )
        model = AutoModelForMaskedLM.from_pretrained(path).eval()
    else:
        path = tiny_gpt2(tmp_path / "m", lm_head=True)
        model = AutoModelForCausalLM.from_pretrained(path).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    items = {
        "crows_pairs": [SentencePair(f"John is {w}.", f"Amy is {w}.", True, "g") for w in "ab"],
        "stereoset": STEREO,
        "becpro": BECPRO,
        "winobias": [(w, p, "type1") for w in WINO for p in (True, False)],
        "lpbs_salaries": ["person", "thing"],
        "disco": (
            ["{target} is [MASK].", "[MASK] was {target}'s major.", "The {target} is [MASK]."],
            {"names": [("john", "amy")], "nouns": [("man", "woman")]},
        ),
    }
    plain = Engine(model, tokenizer, kind == "masked", batch=4)
    remembering = RememberingEngine(Engine(model, tokenizer, kind == "masked", batch=4))
    scorers = {d: SCORERS[d] for d in items}
    for dataset, scorer in scorers.items():
        want = scorer(plain, items[dataset], **ARGS)
        got = scorer(remembering, items[dataset], **ARGS)
        pd.testing.assert_frame_equal(got, want)

    def refuse(*args, **kwargs):
        raise AssertionError("a half asked the model")

    for name in RememberingEngine.PER_ITEM:
        setattr(remembering.engine, name, refuse)
    halves = dataset_halves(remembering, items, model="m", settings=ScoreSettings(seed=3), splits=2)
    assert {h["resample"] for h in halves} == {"items"}
    assert {(h["split"], h["half"]) for h in halves} == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert {h["method"] for h in halves} >= {"CrowS-Pairs", "BEC-Pro", "DisCo"}
    # the halves skip the SE and test on few partitions: the same effect sizes as whole rows
    rng = np.random.default_rng(derived_seed(3, "m", "item halves"))
    for split in range(2):
        for dataset, scorer in scorers.items():
            for half, part in enumerate(item_halves(items[dataset], rng)):
                whole = scorer(remembering, part, **ARGS | {"seed": 3})
                whole = whole[whole["primary"].astype(bool)]
                got = {
                    h["method"]: h["effect_size"]
                    for h in halves
                    if (h["split"], h["half"]) == (split, half) and h["method"] in set(whole.method)
                }
                want = dict(zip(whole["method"], whole["effect_size"], strict=True))
                assert got == pytest.approx(want, nan_ok=True), (dataset, split, half)
    for dataset, scorer in scorers.items():
        full = scorer(remembering, items[dataset], **ARGS)
        bare = scorer(remembering, items[dataset], **ARGS, se=False)
        own = bare["se"].notna()  # a method's own standard error stays; no bootstrap else
        assert (bare["se"][own] == full["se"][own]).all()
        assert dataset != "crows_pairs" or (full["se"].notna().any() and not own.any())
        pd.testing.assert_frame_equal(bare.drop(columns="se"), full.drop(columns="se"))


def test_the_stereoset_outcomes_are_each_items_stereotype_against_anti_stereotype():
    engine = CausalStub(
        {
            "The person is kind.": -1.0,  # the stereotype preferred
            "The person is mean.": -2.0,
            "The person is there.": -5.0,
        }
    )
    engine.continuation_tokens = lambda prefixes, rests: [
        np.array([{" He is kind.": -3.0, " He is mean.": -1.0}.get(r, -9.0)]) for r in rests
    ]
    outcomes = []
    out = datasets.stereoset(engine, STEREO, **ARGS, outcomes=outcomes)
    (found,) = outcomes
    assert list(found.columns) == list(datasets.OUTCOME_COLUMNS)
    assert found[["variant", "item", "unit", "category", "preferred"]].values.tolist() == [
        ["intrasentence", "i1", "person", "gender", 1],
        ["intersentence", "i2", "Paul", "race", 0],
    ]
    assert set(found["method"]) == {"StereoSet SS"} and set(found["encoding"]) == {"causal-items"}
    # per task, the share the outcomes give is the SS row that counts every item alike
    for task, part in found.groupby("variant"):
        row = out[
            (out["method"] == "StereoSet SS")
            & (out["encoding"] == "causal-items")
            & (out["variant"] == task)
            & (out["descriptor"] == "all")
        ]
        assert float(row["effect_size"].iloc[0]) == pytest.approx(100 * part["preferred"].mean())


def tiny_engine(tmp_path, kind):
    """A 2-layer masked or causal LM whose context is 64 positions."""
    if kind == "masked":
        path = tiny_bert(tmp_path / "m", extra_words=("john", "amy", "kind"), mlm_head=True)
        model = AutoModelForMaskedLM.from_pretrained(path).eval()
    else:
        path = tiny_gpt2(tmp_path / "m", lm_head=True)
        model = AutoModelForCausalLM.from_pretrained(path).eval()
    return Engine(model, AutoTokenizer.from_pretrained(path), kind == "masked", batch=4)


#: CrowS-Pairs with one pair whose sentences take far more than 64 tokens
LONG = "John is kind. " * 30
LONG_PAIRS = [*PAIRS[:2], SentencePair(LONG, LONG.replace("John", "Amy"), True, "gender")]


def with_items(monkeypatch, items):
    coverage = {"dataset": "CrowS-Pairs", "items": len(items), "scored": len(items), "limit": None}
    monkeypatch.setattr(dataset_stage, "dataset_items", lambda *a: (list(items), dict(coverage)))


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_a_sentence_longer_than_the_context_is_refused_naming_item_and_setting(
    tmp_path, monkeypatch, kind
):
    """A GPT-2 with 64 positions on a longer CrowS-Pairs sentence ended in "IndexError: index
    out of range in self" (the position embeddings have no row past 64)."""
    engine = tiny_engine(tmp_path, kind)
    assert engine.context == 64
    with_items(monkeypatch, LONG_PAIRS)
    args = {"model": "tiny", "settings": ScoreSettings(seed=1), "signature": "s"}
    with pytest.raises(InputError) as error:
        dataset_stage.score_dataset(engine, "crows_pairs", {}, None, **args)
    message = str(error.value)
    assert message.startswith("CrowS-Pairs on tiny: an item of ")
    assert "longer than the model's context of 64: 'John is kind. John" in message
    assert "Set datasets.too_long: skip to leave such items out" in message
    # any forward pass past the context is refused the same way, whichever call makes it
    with pytest.raises(TooLong, match="longer than the model's context of 64"):
        engine.sentence_tokens([LONG]) if kind == "causal" else engine.unmasked([LONG])


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_skip_leaves_a_too_long_item_out_counts_it_and_says_so(tmp_path, monkeypatch, kind):
    engine = tiny_engine(tmp_path, kind)
    args = {"model": "tiny", "settings": ScoreSettings(seed=1), "signature": "s"}
    with_items(monkeypatch, LONG_PAIRS)
    frame, coverage, _ = dataset_stage.score_dataset(
        engine, "crows_pairs", {}, None, **args, too_long="skip"
    )
    assert coverage["items"] == 3 and coverage["scored"] == 2 and coverage["too_long"] == 1
    note = "1 of 3 items left out: a text longer than the model's context of 64 tokens"
    assert frame["note"].str.contains(note, regex=False).all()
    # the same items without the long one give the same numbers, and no note or count
    with_items(monkeypatch, LONG_PAIRS[:2])
    short, fitting, _ = dataset_stage.score_dataset(engine, "crows_pairs", {}, None, **args)
    assert "too_long" not in fitting and not short["note"].str.contains("left out").any()
    pd.testing.assert_series_equal(frame["effect_size"], short["effect_size"])


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_skip_leaves_a_winobias_item_out_whose_scored_text_is_too_long(tmp_path, monkeypatch, kind):
    """WinoBias scores its sentence with "(the <occupation>)" after the pronoun: that text,
    longer than the sentence, is measured. A long item under skip was refused, its
    (item, pro, type) record read as having no text."""
    engine = tiny_engine(tmp_path, kind)
    items = [(w, p, "type1") for w in WINO for p in (True, False)]
    tail = " and kind" * (24 if kind == "masked" else 2)
    sentence = f"The developer argued with the designer because he was angry{tail}."
    at = sentence.index(" he ") + 1
    long = WinoBiasItem(sentence, "The developer", "the designer", "he", (at, at + 2))
    # the sentence fits the context; the texts scored, with the parenthesis, do not
    assert engine.longest([sentence]) <= 64 < engine.longest(dataset_stage.item_texts((long, 1, 2)))
    args = {"model": "tiny", "settings": ScoreSettings(seed=1), "signature": "s"}
    with_items(monkeypatch, [*items, (long, True, "type1")])
    with pytest.raises(InputError, match="WinoBias on tiny: an item of .* 'The developer argued"):
        dataset_stage.score_dataset(engine, "winobias", {}, None, **args)
    frame, coverage, _ = dataset_stage.score_dataset(
        engine, "winobias", {}, None, **args, too_long="skip"
    )
    assert coverage["scored"] == 4 and coverage["too_long"] == 1
    note = "1 of 5 items left out: a text longer than the model's context of 64 tokens"
    assert frame["note"].str.contains(note, regex=False).all()


def test_a_built_text_too_long_under_skip_says_skip_cannot_leave_it_out(tmp_path, monkeypatch):
    """A DisCo template filled past the context is no item skip can leave out: the message
    said "Set datasets.too_long: skip" to a run that had set it."""
    engine = tiny_engine(tmp_path, "masked")
    template = "{target} is [MASK]." + " John is kind." * 20
    inputs = ([template], {"names": [("john", "amy")]})
    monkeypatch.setattr(dataset_stage, "dataset_items", lambda *a: (inputs, {"items": None}))
    args = {"model": "tiny", "settings": ScoreSettings(seed=1), "signature": "s"}
    with pytest.raises(InputError) as error:
        dataset_stage.score_dataset(engine, "disco", {}, None, **args, too_long="skip")
    message = str(error.value)
    assert message.startswith("DisCo on tiny: a text of ")
    assert "so datasets.too_long: skip, which leaves out items whose own texts" in message
    assert "Set datasets.too_long" not in message and "longer context" in message


def test_the_units_of_a_category_a_data_set_holds_and_a_limit_scores(monkeypatch):
    """Three gender pairs and a race pair: 3 held, a limit of 2 scores 2, none scores all;
    BEC-Pro counts professions (its unit), not sentences; DisCo is no list of items."""
    pairs = [SentencePair(f"a{i}", f"b{i}", True, c) for i, c in enumerate("ggrg")]
    pairs = [
        dataclasses.replace(p, category="gender" if p.category == "g" else "race") for p in pairs
    ]
    specs = dataset_files.DATASETS
    monkeypatch.setitem(
        specs, "crows_pairs", dataclasses.replace(specs["crows_pairs"], load=lambda f: pairs)
    )
    count = dataset_files.category_units("crows_pairs", {}, {"crows_pairs": 2}, "gender")
    assert count == {"name": "CrowS-Pairs", "held": 3, "scored": 2}
    assert dataset_files.category_units("crows_pairs", {}, {}, "gender")["scored"] == 3
    rows = [("nurse", 1), ("nurse", 2), ("pilot", 1), ("chef", 1)]
    becpro = dataclasses.replace(specs["becpro"], load=lambda f: rows, unit=lambda r: r[0])
    monkeypatch.setitem(specs, "becpro", becpro)
    assert dataset_files.category_units("becpro", {}, {"becpro": 5}, "gender")["held"] == 3
    monkeypatch.setitem(
        specs, "disco", dataclasses.replace(specs["disco"], load=lambda f: ([], {}))
    )
    assert dataset_files.category_units("disco", {}, {}, "gender")["held"] is None


def test_a_data_set_after_crows_pairs_scores_as_in_a_job_of_its_own(tmp_path):
    """AULA's attention weights need eager attention: the model's own (fused) implementation
    comes back after that call, so a data set scored next in the same process gets the same
    numbers as on a freshly loaded model (a per-model job scores them one after another)."""
    path = tiny_bert(tmp_path / "m", extra_words=("he", "she", "person"), mlm_head=True)
    tokenizer = AutoTokenizer.from_pretrained(path)

    def loaded():
        model = AutoModelForMaskedLM.from_pretrained(path, attn_implementation="sdpa").eval()
        return model, Engine(model, tokenizer, True, batch=4)

    alone = datasets.becpro(loaded()[1], BECPRO, **ARGS)
    model, engine = loaded()
    crows = datasets.crows_pairs(engine, PAIRS, **ARGS)
    assert crows["encoding"].str.contains("aula").any()  # the attention weights were read
    assert model.config._attn_implementation == "sdpa"
    pd.testing.assert_frame_equal(datasets.becpro(engine, BECPRO, **ARGS), alone)


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_top_fills_runs_texts_of_like_length_together_and_keeps_each_texts_fills(tmp_path, kind):
    """Engine.top_fills: texts in an order that mixes lengths reach the model in batches
    sorted by token count (so they pad little), and each text still gets the fills it gets
    alone."""
    engine = tiny_engine(tmp_path, kind)
    words = ["john", "amy is kind", "kind", "john is kind and amy is kind", "amy", "john is"]
    texts = [f"{w} [MASK] ." if kind == "masked" else w for w in words]
    asked = []
    ask = "slot_log_probs" if kind == "masked" else "next_token_log_probs"
    real = getattr(engine, ask)

    def spy(chunk):
        asked.append([len(i) for i in engine.ids(chunk)])
        return real(chunk)

    setattr(engine, ask, spy)
    together = engine.top_fills(texts)
    lengths = [n for chunk in asked for n in chunk]
    assert lengths == sorted(lengths) and len(asked) == 2  # batch 4: two batches
    alone = [engine.top_fills([t]) for t in texts]
    assert together == ([a[0][0] for a in alone], [a[1][0] for a in alone])
