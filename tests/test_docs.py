"""The documentation: the site under docs/ builds with ``mkdocs build --strict`` (a broken link,
a missing anchor or a page left out of the nav fails it, see mkdocs.yml), and the README stays a
page a newcomer reads to the end, with every relative link pointing at a file that exists. The
README and the pages quote few commit hashes: past timings and their commits are history, kept
in CHANGELOG.md (and docs/history.md)."""

import re
import subprocess
import sys
from urllib.parse import unquote

from .conftest import ROOT

README = ROOT / "README.md"
#: the most lines the README may have; everything else lives in docs/
MAX_README_LINES = 250
#: [text](target) and ![alt](target), the target up to a space or the closing parenthesis
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
#: a commit hash as a page would quote one: 7 to 40 hex digits with at least one digit and one
#: letter a-f, standing as a word (so no number, date, English word or 64-digit sha256)
COMMIT = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
#: the most commit hashes the README may quote, and the pages under docs/ together: past
#: timings, commits and machines live in CHANGELOG.md, and docs/history.md, whose subject is
#: what changed at which commit, is not counted
MAX_README_HASHES = 3
MAX_DOCS_HASHES = 5
HISTORY_PAGES = {"history.md"}


def test_the_site_builds_strictly_without_a_warning(tmp_path):
    site = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = build.stdout + build.stderr
    assert build.returncode == 0, log
    assert "WARNING" not in log, log
    assert (site / "index.html").is_file()


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def relative_links(text: str) -> list[str]:
    return [
        target
        for target in LINK.findall(FENCE.sub("", text))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)  # http:, mailto:, ...
    ]


def test_every_relative_link_of_the_readme_points_to_an_existing_file():
    links = relative_links(README.read_text(encoding="utf-8"))
    assert links, "the README links into docs/"
    broken = []
    for target in links:
        path, _, anchor = target.partition("#")
        file = README if not path else (ROOT / unquote(path))
        if not file.is_file():
            broken.append(f"{target}: no file {path}")
            continue
        if anchor and file.suffix == ".md":
            headings = re.findall(r"^#+\s+(.+?)\s*#*$", FENCE.sub("", file.read_text()), re.M)
            if anchor not in {github_anchor(h) for h in headings}:
                broken.append(f"{target}: no heading with the anchor #{anchor} in {path}")
    assert not broken, "\n".join(broken)


def test_the_link_checker_sees_links_and_ignores_code_and_urls():
    text = '[a](docs/a.md) ![b](docs/b.png "t") [c](https://x.org/y)\n```\n[d](nope.md)\n```\n'
    assert relative_links(text) == ["docs/a.md", "docs/b.png"]
    assert github_anchor("Ground-truth study (§5)") == "ground-truth-study-5"
    assert github_anchor("Where our numbers differ and why") == "where-our-numbers-differ-and-why"


def commit_hashes(text: str) -> list[str]:
    return COMMIT.findall(text)


def test_the_readme_and_the_docs_quote_few_commit_hashes():
    readme = commit_hashes(README.read_text(encoding="utf-8"))
    pages = {
        f"docs/{page.name}": commit_hashes(page.read_text(encoding="utf-8"))
        for page in sorted((ROOT / "docs").glob("*.md"))
        if page.name not in HISTORY_PAGES
    }
    in_docs = sum(len(found) for found in pages.values())
    where = "\n".join(
        f"{name}: {', '.join(found)}"
        for name, found in {"README.md": readme, **pages}.items()
        if found
    )
    assert len(readme) <= MAX_README_HASHES, (
        f"README.md quotes {len(readme)} commit hashes (at most {MAX_README_HASHES}); "
        f"past figures and their commits go to CHANGELOG.md:\n{where}"
    )
    assert in_docs <= MAX_DOCS_HASHES, (
        f"docs/ outside {sorted(HISTORY_PAGES)} quotes {in_docs} commit hashes (at most "
        f"{MAX_DOCS_HASHES}); past figures and their commits go to CHANGELOG.md:\n{where}"
    )


def test_the_hash_counter_sees_hashes_not_numbers_words_or_digests():
    text = (
        "at 8ea9ce4, `2fa7769` and (c01c6b6d); 2026-12-06, 1234567, 5,139 s, deadbeef, decade, "
        "sha256 c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"
    )
    assert commit_hashes(text) == ["8ea9ce4", "2fa7769", "c01c6b6d"]
