"""The pinned environment: the lock file's packages against what is installed, as the
provenance page shows them."""

from importlib.metadata import version

from biasbench.reports.provenance import LOCK_FILE, locked_packages, packages_section

LOCK = """\
#    make lock
numpy==2.4.6 \\
    --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93
    # via biasbench (pyproject.toml)
Typing_Extensions==4.16.0 \\
    --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000
torch==2.13.0+cpu \\
    --hash=sha256:6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b
# the model zoo (requirements/zoo.txt), pinned without its dependencies
gensim==4.4.0 \\
    --hash=sha256:1111111111111111111111111111111111111111111111111111111111111111
"""


def test_an_installed_version_other_than_the_locked_one_is_flagged():
    installed = {"numpy": "2.4.6", "typing-extensions": "4.16.0", "torch": "2.13.0+cu130"}
    table = locked_packages(LOCK, installed).set_index("package")
    assert list(table.index) == ["numpy", "typing-extensions", "torch", "gensim"]
    assert table.loc["torch", ["locked", "installed", "differs"]].tolist() == [
        "2.13.0+cpu",
        "2.13.0+cu130",
        "yes",
    ]
    assert table.loc["gensim", ["installed", "differs"]].tolist() == ["", "yes"]
    assert table.loc[["numpy", "typing-extensions"], "differs"].tolist() == ["", ""]


def test_the_section_names_the_lock_and_puts_the_differing_packages_first(tmp_path):
    lock = tmp_path / "requirements" / "lock.txt"
    assert "No requirements/lock.txt" in packages_section(lock)
    lock.parent.mkdir()
    lock.write_text(f"numpy=={version('numpy')}\npytest==0.0.1\n")
    html = packages_section(lock)
    assert "2 locked in requirements/lock.txt, 1 installed at another version" in html
    assert html.index("<td>pytest</td>") < html.index("<td>numpy</td>")


def test_the_environment_is_the_locked_one():
    """What `make install` installed: every package at the version the lock pins."""
    table = locked_packages(LOCK_FILE.read_text(encoding="utf-8"))
    assert len(table) > 100 and "torch" in set(table["package"])
    assert table[table["differs"] == "yes"].empty, table[table["differs"] == "yes"]
