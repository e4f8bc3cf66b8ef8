"""The data sets the probability-based measures run on (CrowS-Pairs, StereoSet, BEC-Pro,
WinoBias, DisCo, the salary file of LPBS he/she): the files each reads by role, how to read
them, and the seeded sample of a run with a ``limit``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from biasbench.data.pairsets import (
    WinoBiasItem,
    iter_lines,
    read_becpro,
    read_crows_pairs,
    read_salary_titles,
    read_stereoset,
    read_winobias,
    read_word_pairs,
)
from biasbench.errors import InputError
from biasbench.stats import derived_seed


def unit_keys(items: list, unit=None) -> list:
    """Each item's sampling unit: the item itself (its position), or the unit ``unit(item)``
    names (BEC-Pro's profession)."""
    return [unit(item) for item in items] if unit else list(range(len(items)))


def sample(items: list, limit: int | None, seed: int, name: str, unit=None) -> list:
    """The items of up to ``limit`` sampling units (:func:`unit_keys`), a seeded choice kept
    in file order; all items with no limit."""
    keys = unit_keys(items, unit)
    units = list(dict.fromkeys(keys))
    if limit is None or limit >= len(units):
        return list(items)
    rng = np.random.default_rng(derived_seed(seed, "sample", name))
    chosen = {units[i] for i in rng.choice(len(units), size=limit, replace=False)}
    return [item for item, key in zip(items, keys, strict=True) if key in chosen]


def disjoint_samples(
    items: list, designs: int, per_design: int, seed: int, name: str, unit=None, field: str = ""
) -> list[list]:
    """``designs`` samples of ``per_design`` sampling units each (as :func:`sample` reads
    units), no unit in two samples: a seeded order of the units cut into consecutive blocks,
    each block's items kept in file order. Independent null designs of a data set, each
    scored on a copy of its own; more units than the data set holds is an error naming
    ``field``."""
    keys = unit_keys(items, unit)
    units = list(dict.fromkeys(keys))
    if designs * per_design > len(units):
        raise InputError(
            f"{field or name}: {designs} designs of {per_design} need {designs * per_design} "
            f"items, the data set has {len(units)}"
        )
    order = np.random.default_rng(derived_seed(seed, "disjoint", name)).permutation(len(units))
    block = {units[i]: k // per_design for k, i in enumerate(order[: designs * per_design])}
    out: list[list] = [[] for _ in range(designs)]
    for item, key in zip(items, keys, strict=True):
        if key in block:
            out[block[key]].append(item)
    return out


def load_winobias(files: dict[str, list[str]]) -> list[tuple[WinoBiasItem, bool, str]]:
    """(item, pro-stereotypical, "typeN") of every pro and anti file; the type is read from
    the file name (WinoBias' ``pro_stereotyped_type1.txt.dev``)."""
    occupations = [w for path in files["occupations"] for w in iter_lines(path)]
    out = []
    for role, pro in (("pro", True), ("anti", False)):
        for path in files[role]:
            kind = re.search(r"type\d", Path(path).name)
            if kind is None:
                raise InputError(f"{path}: a WinoBias file name says its type (type1, type2)")
            out += [(item, pro, kind.group()) for item in read_winobias(path, occupations)]
    return out


def load_disco(files: dict[str, list[str]]) -> tuple[list[str], dict[str, list[tuple[str, str]]]]:
    """DisCo's templates ({target} and [MASK]), and its name and noun pairs (male, female)."""
    templates = yaml.safe_load(Path(files["templates"][0]).read_text(encoding="utf-8"))
    nouns = yaml.safe_load(Path(files["nouns"][0]).read_text(encoding="utf-8"))
    return list(templates["templates"]), {
        "names": read_word_pairs(files["names"][0]),
        "nouns": [tuple(p) for p in nouns["pairs"]],
    }


@dataclass(frozen=True)
class DataSet:
    """A data set the probability measures run on: its name in the rows' ``test`` column,
    the files it reads by role, how to read them, and whether its items may be sampled (a
    ``limit`` in the config) and by which unit (default: each item), and an item's bias
    category where it has several (None: one category, gender). Its scorer is
    ``biasbench.scoring.datasets.SCORERS``."""

    name: str
    roles: tuple[str, ...]
    load: Callable[[dict[str, list[str]]], object]
    sampled: bool = False
    unit: Callable | None = None
    category: Callable | None = None


DATASETS = {
    "crows_pairs": DataSet(
        "CrowS-Pairs",
        ("data",),
        lambda f: read_crows_pairs(f["data"][0]),
        sampled=True,
        category=lambda pair: pair.category,
    ),
    "stereoset": DataSet(
        "StereoSet",
        ("data",),
        lambda f: read_stereoset(f["data"][0]),
        sampled=True,
        category=lambda item: item.domain,
    ),
    "becpro": DataSet(
        "BEC-Pro",
        ("data",),
        lambda f: read_becpro(f["data"][0]),
        sampled=True,
        unit=lambda row: row.profession,  # a profession keeps all its sentences (the pairs)
    ),
    "winobias": DataSet("WinoBias", ("pro", "anti", "occupations"), load_winobias, True),
    "disco": DataSet("DisCo", ("templates", "names", "nouns"), load_disco),
    "lpbs_salaries": DataSet(
        "LPBS salaries",
        ("salaries",),
        lambda f: read_salary_titles(f["salaries"][0]),
    ),
}


def names() -> list[str]:
    """Every declared data set's name (its key in :data:`DATASETS`): the config schema's
    lists of data-set names are filled in from here (``config/schema.yaml``, ``x-enum``)."""
    return list(DATASETS)


def sampled_names() -> list[str]:
    """The data sets whose items a ``limit`` may sample: the schema's names where a limit
    is set."""
    return [name for name, spec in DATASETS.items() if spec.sampled]


def limited(dataset: str, items, limit: int | None, seed: int):
    """The items of a data set a ``limit`` keeps: its seeded sample (:func:`sample`, by the
    data set's unit), all of them without a limit; a limit on a data set that is not sampled
    is an error."""
    if limit is None:
        return items
    spec = DATASETS[dataset]
    if not spec.sampled:
        raise InputError(f"config: datasets.limits.{dataset}: this data set is not sampled")
    return sample(items, limit, seed, dataset, spec.unit)


def of_category(dataset: str, items, category: str | None):
    """The items of one bias category (all of them without a ``category``, or for a data set
    of one category); none is an error naming the data set."""
    spec = DATASETS[dataset]
    if category is None or spec.category is None:
        return items
    items = [item for item in items if spec.category(item) == category]
    if not items:
        raise InputError(f"{spec.name}: no item of the category {category!r}")
    return items


def category_units(
    dataset: str, files, limits: dict[str, int | None], category: str
) -> dict[str, object]:
    """How many sampling units (:func:`unit_keys`) of the ``category`` a data set holds, and
    how many of them a run limited to ``limits[dataset]`` scores: the D-study's length and
    what lengthening it can reach (None for a data set that is no list of items: DisCo's
    templates and word lists)."""
    spec = DATASETS[dataset]
    items = spec.load(files)
    if not isinstance(items, list):
        return {"name": spec.name, "held": None, "scored": None}
    held = len(set(unit_keys(of_category(dataset, items, category), spec.unit)))
    limit = limits.get(dataset)
    return {"name": spec.name, "held": held, "scored": held if limit is None else min(limit, held)}


def dataset_items(
    dataset: str, files, limit, seed: int, category: str | None = None
) -> tuple[object, dict]:
    """(the items of a data set the measures score, coverage: items read, items scored);
    with a ``category``, only the items of that bias category (before sampling; a data set
    of one category keeps all)."""
    spec = DATASETS[dataset]
    items = spec.load(files)
    n_read = len(items) if isinstance(items, list) else None
    items = limited(dataset, of_category(dataset, items, category), limit, seed)
    used = len(items) if isinstance(items, list) else None
    return items, {"dataset": spec.name, "items": n_read, "scored": used, "limit": limit}
