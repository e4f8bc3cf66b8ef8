"""Each stage's plan is its own record: it declares the fields it holds and the plans it reads
(the zoo's, another stage's) as its bases, so a method reads nothing its class does not
declare; the composite :class:`biasbench.plan.Plan` is built by name only."""

import ast
import dataclasses
import inspect
import textwrap

import pytest

from biasbench.plan import Plan, ZooPlan
from biasbench.plan.comparisons import ComparisonPlan
from biasbench.plan.datasets import DatasetPlan
from biasbench.plan.lpbs import LpbsPlan
from biasbench.plan.null import NullPlan
from biasbench.plan.studies import StudyPlan

STAGES = (ZooPlan, LpbsPlan, DatasetPlan, StudyPlan, NullPlan, ComparisonPlan, Plan)


def _read_on_self(cls) -> set[str]:
    """The attributes the class's own methods read on ``self``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


@pytest.mark.parametrize("stage", STAGES, ids=lambda c: c.__name__)
def test_a_stage_plan_reads_only_what_it_declares(stage):
    declared = {f.name for f in dataclasses.fields(stage)} | set(dir(stage))
    assert _read_on_self(stage) - declared == set()


@pytest.mark.parametrize("stage", STAGES[1:], ids=lambda c: c.__name__)
def test_a_stage_owns_its_fields(stage):
    """Each field is declared once, by the stage it belongs to: none is the zoo's twice."""
    own = set(inspect.get_annotations(stage))
    inherited = {f.name for base in stage.__bases__ for f in dataclasses.fields(base)}
    assert own.isdisjoint(inherited)


def test_the_plan_is_built_by_name_only():
    with pytest.raises(TypeError):
        Plan((), (), {}, {})  # no positional construction
    assert all(f.kw_only for f in dataclasses.fields(Plan))
