"""The rule files' layout: rules/common.smk holds only what several stages share (what one
stage reads is its plan's method, biasbench/plan/), and no function of a rule file reads a
name that a file included after it defines (the include order is the Snakefile's)."""

import ast
import re

from .conftest import ROOT

#: rules/common.smk's most lines: the config's constants, the wildcards and the adapters
COMMON_MAX_LINES = 200


def test_common_holds_only_what_the_stages_share():
    lines = (ROOT / "rules" / "common.smk").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= COMMON_MAX_LINES


def workflow_parts() -> list[tuple[str, str]]:
    """(name, text) of the workflow's code in the order Snakemake reads it: the Snakefile up
    to its first include, each included rule file, then the rest of the Snakefile."""
    snakefile = (ROOT / "Snakefile").read_text(encoding="utf-8")
    includes = list(re.finditer(r'^include: "(rules/[^"]+\.smk)"\n', snakefile, re.M))
    assert includes
    parts = [("Snakefile (before its includes)", snakefile[: includes[0].start()])]
    parts += [(m[1], (ROOT / m[1]).read_text(encoding="utf-8")) for m in includes]
    return [*parts, ("Snakefile (after its includes)", snakefile[includes[-1].end() :])]


def top_level_names(text: str) -> set[str]:
    """The names a workflow file binds at its top level: assignments, imports, functions."""
    names = set()
    for line in text.splitlines():
        if match := re.match(r"((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]", line):
            names |= {n.strip() for n in match[1].split(",")}
        elif match := re.match(r"(?:from\s+\S+\s+)?import\s+(.+)", line):
            names |= {a.split(" as ")[-1].strip().split(".")[0] for a in match[1].split(",")}
        elif match := re.match(r"def\s+(\w+)", line):
            names.add(match[1])
    return names


def functions(text: str) -> list[ast.FunctionDef]:
    """The top-level functions of a workflow file (plain Python between its rules), parsed."""
    found = []
    for match in re.finditer(r"^def .*?(?=^\S|\Z)", text, re.M | re.S):
        found += [n for n in ast.parse(match[0]).body if isinstance(n, ast.FunctionDef)]
    return found


def read_names(function: ast.FunctionDef) -> set[str]:
    return {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def late_reads(parts: list[tuple[str, str]]) -> list[str]:
    """Each function that reads a name bound first by a file read after its own."""
    bound_in: dict[str, int] = {}
    for i, (_name, text) in enumerate(parts):
        for name in top_level_names(text):
            bound_in.setdefault(name, i)
    return [
        f"{where}: {function.name} reads {name} ({parts[bound_in[name]][0]})"
        for i, (where, text) in enumerate(parts)
        for function in functions(text)
        for name in sorted(read_names(function))
        if bound_in.get(name, i) > i
    ]


def test_no_function_reads_a_name_of_a_later_include():
    assert late_reads(workflow_parts()) == []


def test_a_read_of_a_later_include_is_found():
    parts = [
        ("early.smk", 'LIMITS = {}\n\n\ndef limit(w):\n    return LIMITS[w] + LATER["k"]\n'),
        ("later.smk", 'LATER = config["later"]\n\n\nrule r:\n    output:\n        "x",\n'),
    ]
    assert late_reads(parts) == ["early.smk: limit reads LATER (later.smk)"]
    assert top_level_names(parts[1][1]) == {"LATER"}
