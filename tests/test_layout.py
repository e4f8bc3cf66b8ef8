"""The library's import graph: no cycles, no package importing one above it, methods that are
pure functions of arrays (no torch, h5py, transformers or snakemake, even indirectly), and job
starts that load no pandas or scipy they do not use."""

import ast
import json
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "biasbench"
#: which parts of the library each part may import (itself included)
FOUNDATION = "foundation"  # errors, io, stats, rows, encodings, config: used by everything
ALLOWED = {
    FOUNDATION: {FOUNDATION},
    "data": {FOUNDATION, "data"},
    "methods": {FOUNDATION, "methods"},
    "models": {FOUNDATION, "data", "models"},
    "scoring": {FOUNDATION, "data", "methods", "scoring"},
    "studies": {FOUNDATION, "data", "methods", "models", "scoring", "studies"},
    "reports": {FOUNDATION, "methods", "studies", "reports"},
    "plan": {FOUNDATION, "data", "models", "methods", "scoring", "plan"},
    "jobs": {FOUNDATION, "data", "jobs"},  # where every workflow job begins
}
HEAVY = ("torch", "h5py", "transformers", "snakemake")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str:
    second = module.split(".")[1] if "." in module else ""
    return second if second in ALLOWED else FOUNDATION


def imports() -> dict[str, set[str]]:
    """Module -> every module it imports (at any depth of its code), as absolute names."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found |= {f"{node.module}.{a.name}" for a in node.names}
        graph[name] = found
    return graph


def library_edges(graph):
    modules = set(graph)
    return {m: {i for i in found if i in modules and i != m} for m, found in graph.items()}


def test_no_part_imports_one_it_may_not():
    bad = [
        f"{m} -> {i}"
        for m, found in library_edges(imports()).items()
        for i in found
        if part_of(i) not in ALLOWED[part_of(m)]
    ]
    assert bad == []


def test_the_import_graph_has_no_cycles():
    edges = library_edges(imports())
    state: dict[str, int] = {}

    def visit(m, stack):
        state[m] = 1
        for i in edges[m]:
            if state.get(i) == 1:
                raise AssertionError(f"import cycle: {' -> '.join([*stack, m, i])}")
            if i not in state:
                visit(i, [*stack, m])
        state[m] = 2

    for m in edges:
        if m not in state:
            visit(m, [])


def test_methods_import_no_heavy_library_even_indirectly():
    graph = imports()
    edges = library_edges(graph)
    for start in (m for m in graph if part_of(m) == "methods"):
        seen, todo = set(), [start]
        while todo:
            m = todo.pop()
            if m in seen:
                continue
            seen.add(m)
            heavy = {i for i in graph[m] if i.split(".")[0] in HEAVY}
            assert not heavy, f"{start} reaches {m}, which imports {sorted(heavy)}"
            todo += edges[m]


def loaded_after(statement: str, packages: tuple[str, ...]) -> list[str]:
    """The modules of ``packages`` a fresh interpreter holds after ``statement``."""
    code = (
        f"import json, sys; {statement}; "
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {packages!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_importing_the_registry_loads_no_heavy_library():
    start = "import biasbench.methods.registry, biasbench.scoring.embeddings"
    assert loaded_after(start, HEAVY) == []


def test_small_jobs_start_without_pandas_or_scipy():
    # every job imports these: pandas (~0.45 s) and scipy.special (~0.3 s) load where a
    # table is read or a method needs them, not at each of ~500 job starts
    start = "import biasbench.jobs, biasbench.io, biasbench.rows, biasbench.data.wordsets"
    assert loaded_after(start, ("pandas", "scipy")) == []
    assert loaded_after("import biasbench.methods.registry", ("scipy",)) == []
