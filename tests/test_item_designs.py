"""Data-set item designs of the null control: disjoint seeded item samples, each scored on a
random copy of its own, each one cluster (tiny random models: code-path checks, never
results)."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.data.datasets import disjoint_samples
from biasbench.data.pairsets import SentencePair
from biasbench.errors import InputError
from biasbench.models.null import Architecture, item_copy_names
from biasbench.studies import calibration as cal
from biasbench.studies import null_calibration as nc

from .conftest import score_row
from .test_null_calibration import SETTINGS, _base
from .test_plan_targets import plan_of


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60),
    designs=st.integers(1, 8),
    per=st.integers(1, 8),
    seed=st.integers(0, 2**31 - 1),
)
def test_samples_are_disjoint_full_and_in_file_order(n, designs, per, seed):
    items = list(range(n))
    if designs * per > n:
        with pytest.raises(InputError, match="config: here"):
            disjoint_samples(items, designs, per, seed, "d", field="config: here")
        return
    samples = disjoint_samples(items, designs, per, seed, "d")
    assert [len(s) for s in samples] == [per] * designs
    flat = [i for s in samples for i in s]
    assert len(set(flat)) == len(flat)  # no item in two designs
    assert all(s == sorted(s) for s in samples)
    assert samples == disjoint_samples(items, designs, per, seed, "d")


def test_the_samples_follow_the_seed_and_keep_a_unit_whole():
    items = list(range(40))
    assert disjoint_samples(items, 4, 5, 1, "d") != disjoint_samples(items, 4, 5, 2, "d")
    assert disjoint_samples(items, 4, 5, 1, "d") != disjoint_samples(items, 4, 5, 1, "e")
    # BEC-Pro-like units: a profession's sentences stay in one design
    rows = [(p, k) for p in "abcdefgh" for k in range(3)]
    samples = disjoint_samples(rows, 2, 3, 7, "d", unit=lambda row: row[0])
    assert [len(s) for s in samples] == [9, 9]
    units = [{p for p, _k in s} for s in samples]
    assert not units[0] & units[1] and all(len(u) == 3 for u in units)


def test_each_item_design_is_scored_on_a_copy_of_its_own(tmp_path):
    base, where = _base(tmp_path, "encoder")
    pairs = [
        SentencePair(f"{m} is {a}.", f"{w} is {a}.", True, "gender")
        for m, w in [("john", "amy"), ("paul", "joan"), ("he", "she")]
        for a in ("kind", "here")
    ]
    samples = disjoint_samples(pairs, 3, 2, 5, "crows_pairs")
    frame = nc.transformer_null_rows(
        base,
        Architecture.of(base, where),
        0,
        {},
        settings=SETTINGS,
        seed=4,
        extraction={"max_tokens": 512, "max_batch": 16, "max_length": 32},
        item_designs={"crows_pairs": [nc.DatasetInputs(s, "data-sig") for s in samples]},
        batch=8,
        lpbs_batch=8,
        log=lambda _line: None,
    )
    names = item_copy_names("base", 3)
    assert sorted(set(frame["model"])) == names
    primary = frame[(frame["method"] == "CrowS-Pairs") & frame["primary"].astype(bool)]
    assert list(primary.sort_values("model")["n_x"]) == [2, 2, 2]  # each design's 2 pairs
    # three copies, three draws of the weights: the copies' scores are not one copy's
    assert primary["signature"].nunique() == 3
    assert primary["effect_size"].nunique() > 1


def test_an_item_design_is_a_cluster_the_seeded_copies_are_one():
    rows = [
        score_row(method="CrowS-Pairs", model=m, test="CrowS-Pairs", descriptor="all")
        for m in [*item_copy_names("b", 5), "b-null-s0", "b-null-s1"]
    ]
    bases = dict.fromkeys([*item_copy_names("b", 5), "b-null-s0", "b-null-s1"], "b")
    clusters = cal.null_clusters(pd.DataFrame(rows), bases)
    assert clusters.nunique() == 6  # five designs and the seeded copies' one sample
    assert clusters.iloc[5] == clusters.iloc[6] == "b|CrowS-Pairs|all"


def _with_item_designs(config):
    entry = config["null_calibration"]["models"]["minilm-l6"]
    entry["item_designs"] = {
        "crows_pairs": {"designs": 3, "items": 4},
        "stereoset": {"designs": 2, "items": 5},
    }


def test_the_plan_names_the_item_copies_and_reads_their_files():
    plan = plan_of(_with_item_designs)
    names = item_copy_names("minilm-l6", 5)
    assert set(names) <= set(plan.null_copies())
    assert {plan.null_bases()[n] for n in names} == {"minilm-l6"}
    wanted = plan.null_item_designs_of("minilm-l6")
    assert {d: (e["designs"], e["items"]) for d, e in wanted.items()} == {
        "crows_pairs": (3, 4),
        "stereoset": (2, 5),
    }
    assert wanted["crows_pairs"]["field"].endswith("models.minilm-l6.item_designs.crows_pairs")
    read = plan.null_calibration_inputs("minilm-l6")["datasets"]
    assert set(wanted["crows_pairs"]["files"]["data"]) <= set(read)
    assert plan.null_dataset_batch("minilm-l6") is not None


def test_a_data_set_that_is_not_sampled_has_no_item_designs():
    def edit(config):
        config["null_calibration"]["item_designs"] = {"disco": {"designs": 2, "items": 2}}

    with pytest.raises(Exception, match="disco"):
        plan_of(edit)
