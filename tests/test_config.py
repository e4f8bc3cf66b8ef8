"""The configuration: every key described, defaults only in the schema, errors that name the
field."""

import ast
import re

import pytest
import yaml

from biasbench.config import (
    SCHEMA,
    model_entry,
    read_schema,
    schema_keys_without_description,
    section_defaults,
    validate_config,
)
from biasbench.errors import InputError
from biasbench.plan import make_plan

from .conftest import ROOT


def default_config():
    return yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))


def test_every_schema_key_has_a_description():
    assert schema_keys_without_description(read_schema(SCHEMA)) == []


def _marked(node, where=""):
    """(place, keyword, reference) of every node of the schema filled in from a registry."""
    if isinstance(node, dict):
        for keyword in ("x-enum", "x-properties"):
            if keyword in node:
                yield where, keyword, node[keyword]
        for key, value in node.items():
            yield from _marked(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _marked(value, f"{where}.{i}")


def test_the_schema_takes_what_the_registries_declare_from_them(monkeypatch):
    """The data sets' names, the ground-truth study's designs and the trained-weight null
    kinds' sections are filled in from their registries when the schema is read: the schema
    file names none of them."""
    from biasbench import nulls

    raw = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    marks = sorted(_marked(raw))
    assert [(where, keyword) for where, keyword, _ in marks] == [
        (".$defs.dataset", "x-enum"),
        (".$defs.sampled_dataset", "x-enum"),
        (".properties.groundtruth.properties.design", "x-enum"),
        (".properties.null_calibration", "x-properties"),
    ]
    assert "trained" not in raw["properties"]["null_calibration"]["properties"]
    read = read_schema(SCHEMA)
    design = read["properties"]["groundtruth"]["properties"]["design"]
    assert design["enum"] == ["grid", "latin-hypercube"]  # the ground-truth study's designs
    sections = read["properties"]["null_calibration"]["properties"]
    assert {k.key for k in nulls.TRAINED_NULLS} <= set(sections)
    assert sections["trained"]["$ref"] == "#/$defs/trained_null"
    # a kind added to the registry is a section the config takes, null by default
    coin = nulls.TrainedNull("coin", "coin", "c", None, nulls.reassign, "t", "T", "h", "s", "d")
    monkeypatch.setattr(nulls, "TRAINED_NULLS", (*nulls.TRAINED_NULLS, coin))
    entry = {"m": {"kind": "static", "source": "glove-pkg:x"}}
    config = {"seed": 1, "tests": ["C6"], "models": entry, "null_calibration": {"models": {}}}
    config["null_calibration"]["models"] = {"m": 2}
    assert validate_config(config)["null_calibration"]["coin"] is None
    config["null_calibration"]["coin"] = {"models": ["m"], "draws": 3}
    assert validate_config(config)["null_calibration"]["coin"]["draws"] == 3
    config["null_calibration"]["dice"] = {"models": ["m"], "draws": 3}
    with pytest.raises(InputError, match="null_calibration.*'dice' was unexpected"):
        validate_config(config)


def test_defaults_are_filled_in_from_the_schema():
    config = validate_config(
        {"seed": 1, "tests": ["C6"], "models": {"m": {"kind": "static", "source": "glove-pkg:x"}}}
    )
    assert config["scoring"]["ddof"] == 1 and config["sampling"]["per_stimulus"] == 100
    assert config["models"]["m"] | {} == {
        "kind": "static",
        "source": "glove-pkg:x",
        "lowercase": False,
        "case": "any",
        "layer": -1,
        "tests": "all",
    }
    assert config["lpbs"] is None and config["corpora"] == {} and config["natural_source"] is None
    assert model_entry(kind="static", source="glove-pkg:x")["case"] == "any"


def literal_defaults(path, names):
    """(line, name) of each parameter or dataclass field in ``path`` named in ``names`` whose
    default is a literal (None, "no value", aside)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        pairs = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            positional = a.posonlyargs + a.args
            defaults = zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True)
            pairs = list(defaults)
            pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d]
            pairs = [(k.arg, d) for k, d in pairs]
        elif isinstance(node, ast.ClassDef):
            pairs = [
                (f.target.id, f.value)
                for f in node.body
                if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name) and f.value
            ]
        for name, default in pairs:
            try:
                value = ast.literal_eval(default)
            except ValueError:
                continue  # not a literal: e.g. Settings.ddof, the schema's value
            if name in names and value is not None:
                found.append((default.lineno, name))
    return found


def test_no_defaults_outside_the_schema():
    """Rules and workflow scripts read config keys directly: a ``.get(key, default)`` would be
    a second default that can drift from the schema's. The library takes the scoring settings'
    defaults from the schema too: a literal default for one (``ddof=1``) would be a second."""
    offenders = []
    scoring = set(section_defaults("scoring"))
    for path in sorted(ROOT.glob("biasbench/**/*.py")):
        for n, name in literal_defaults(path, scoring):
            offenders.append(f"{path.relative_to(ROOT)}:{n}: {name}")
    for path in [
        *ROOT.glob("rules/*.smk"),
        ROOT / "Snakefile",
        *ROOT.glob("workflow_scripts/*.py"),
    ]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\.get\([^()]*,[^()]*\)", line):
                offenders.append(f"{path.name}:{n}: {line.strip()}")
    assert offenders == []


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda c: c["models"].update({"..": c["models"]["glove-6b-50d"]}),
            r"config: models: '\.\.' does not match",
        ),
        (
            lambda c: c["models"].update({".": c["models"]["glove-6b-50d"]}),
            r"config: models: '\.' does not match",
        ),
        (
            lambda c: c["corpora"]["reddit"].update(kind="reddit"),
            r"config: corpora.reddit: Additional properties are not allowed "
            r"\('column' was unexpected\)",
        ),
        (
            lambda c: c["corpora"]["wikipedia"].update(column="text"),
            r"config: corpora.wikipedia: Additional properties",
        ),
        (
            lambda c: c["corpora"]["bug"].pop("column"),
            r"config: corpora.bug: 'column' is a required property",
        ),
        (
            lambda c: c["corpora"].update(templates={"kind": "sentences", "files": ["x"]}),
            r"config: corpora: 'templates' does not match",
        ),
        (lambda c: c["scoring"].update(ddof=2), r"config: scoring.ddof: 2 is not one of \[0, 1\]"),
        (
            lambda c: c["models"]["minilm-l6"].update(sources=["reddit"]),
            r"'sources' was unexpected",
        ),
    ],
)
def test_bad_values_name_the_field(edit, message):
    config = default_config()
    edit(config)
    with pytest.raises(InputError, match=message):
        validate_config(config)


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda c: c["corpora"].update(natural={"pool": ["reddit", "nope"]}),
            "corpora.natural.pool names 'nope'",
        ),
        (lambda c: c.update(natural_source="nope"), "natural_source 'nope' is not under 'corpora'"),
        (
            lambda c: c["models"]["minilm-l6"].update(tests={"nope": "all"}),
            "models.minilm-l6.tests names the source 'nope'",
        ),
        (
            lambda c: c["models"]["glove-6b-50d"].update(tests={"templates": "all"}),
            "a static model reads \\['words'\\]",
        ),
        (lambda c: c["models"]["minilm-l6"].update(tests=["C6/nope"]), "C6 has descriptors"),
        (  # a null copy of static vectors: no architecture to copy (it used to try the hub)
            lambda c: c["models"].update(
                {"glove-null": {**c["models"]["minilm-l6-null"], "source": "random:glove-6b-50d"}}
            ),
            "random:glove-6b-50d: glove-6b-50d is a static model",
        ),
    ],
)
def test_plan_checks_names_across_sections(edit, message):
    config = validate_config(default_config())
    edit(config)
    with pytest.raises(InputError, match=re.escape(message) if "\\" not in message else message):
        make_plan(config, ROOT)


@pytest.mark.parametrize(
    "name, message",
    [
        ("null", "models.null: the name 'null' is reserved (results/scores/null/"),
        ("audit", "models.audit: the name 'audit' is reserved (results/scores/audit/"),
        ("all.tsv", "models.all.tsv: the name 'all.tsv' is reserved (results/scores/all.tsv"),
        ("minilm-l6-null-s0", "a seeded null copy of 'minilm-l6' (null_calibration)"),
        ("minilm-l6-null-s12", "a seeded null copy of 'minilm-l6' (null_calibration)"),
        ("glove-6b-50d-reassigned-r3", "a reassigned draw of 'glove-6b-50d'"),
    ],
)
def test_a_model_name_the_workflow_takes_is_refused(name, message):
    """Such a name was accepted: its rows were read as the null copies' (or written where
    theirs are)."""
    config = validate_config(default_config())
    config["models"][name] = dict(config["models"]["minilm-l6"])
    with pytest.raises(InputError, match=re.escape(message)) as error:
        make_plan(config, ROOT)
    assert "rename the model" in str(error.value)


def test_generated_designs_need_a_static_lexicon_and_at_most_the_cap_at_planning():
    """Designs without a lexicon, beyond what the lexicon surely supplies, or from a lexicon
    that is not a static model are refused at planning, each naming its field; the
    lexicon's own model need run no test."""
    from biasbench.data.designs import MAX_DESIGNS

    config = default_config()
    config.update(tests=["C6"], lpbs=None, datasets=None, groundtruth=None)
    config.update(delobelle=None, bommasani=None)
    config["models"] = {
        "glove-6b-50d": {**config["models"]["glove-6b-50d"], "tests": "all"},
        "minilm-l6": {**config["models"]["minilm-l6"], "tests": []},
    }
    config["null_calibration"] = {"models": {"glove-6b-50d": {"seeds": 1}}, "datasets": {}}
    own = config["null_calibration"]["models"]["glove-6b-50d"]
    field = "null_calibration.models.glove-6b-50d.designs"
    own["designs"] = 10
    with pytest.raises(InputError, match=f"{field}: 10 generated designs need a lexicon"):
        make_plan(validate_config(config), ROOT)
    config["null_calibration"]["lexicon"] = "glove-6b-50d"
    plan = make_plan(validate_config(config), ROOT)
    assert plan.null_pool_files("glove-6b-50d") == [
        "results/models/glove-6b-50d/biasbench_model.json"
    ]
    own["designs"] = MAX_DESIGNS + 1
    with pytest.raises(InputError, match=f"set {field} to at most {MAX_DESIGNS:,}"):
        make_plan(validate_config(config), ROOT)
    own["designs"] = 10
    config["null_calibration"]["lexicon"] = "minilm-l6"
    with pytest.raises(InputError, match="lexicon names 'minilm-l6', not a configured static"):
        make_plan(validate_config(config), ROOT)


def test_names_like_a_copy_of_no_configured_model_are_accepted():
    config = validate_config(default_config())
    for name in ("other-null-s0", "minilm-l6-null", "nullable", "minilm-l6-null-sx"):
        config["models"][name] = dict(config["models"]["minilm-l6"])
    make_plan(config, ROOT)


def test_one_model_runs_every_source_it_lists():
    plan = make_plan(validate_config(default_config()), ROOT)
    sources = {j.source for j in plan.jobs if j.model == "minilm-l6"}
    assert sources == {"templates", "natural", "words"}
    assert len(plan.corpus_parts["natural"]) == 4  # the pool's members, read one after another
    assert plan.corpus_files("natural")[0].endswith(".csv")


def test_a_file_the_config_does_not_plan_is_an_error_naming_the_field():
    """A target typed by hand for a test a model does not run fails in the planner, naming
    the model's tests, instead of an embedding job with nothing to embed."""
    plan = make_plan(validate_config(default_config()), ROOT)
    planned = plan.descriptors_of("glove-6b-50d", "words", "C6")
    assert planned and plan.contexts_files("glove-6b-50d", "words", "C6")
    with pytest.raises(InputError, match=r"model 'glove-6b-50d' has no test 'WEAT1' .*C6"):
        plan.contexts_files("glove-6b-50d", "words", "WEAT1")
    with pytest.raises(InputError, match="unknown model 'nosuch'"):
        plan.descriptors_of("nosuch", "templates", "C6")
    with pytest.raises(InputError, match="planned there: none"):
        plan.descriptors_of("glove-6b-50d", "natural", "C6")


def test_the_model_wildcard_excludes_whole_names_only():
    import re

    from biasbench.plan import names_except

    pattern = re.compile(names_except(["m+head", "m-null"]) + "$")
    assert not pattern.match("m+head") and not pattern.match("m-null")
    assert pattern.match("m") and pattern.match("m+head2") and pattern.match("m-nullx")
    assert re.compile(names_except([]) + "$").match("anything")
