"""Dependencies point one way: load -> merge -> check (schema, then the rules over the catalog
and the job view) -> report -> backends -> command line. Every import of every module counts,
those inside functions and under TYPE_CHECKING too, read from the source with ``ast``."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gpujob"

# modules any stage may import: they import nothing of gpujob's but each other
FOUNDATION = {"gpujob", "gpujob.errors", "gpujob.findings", "gpujob.suggest", "gpujob.resources",
              "gpujob.gsuri", "gpujob.numbers",  # numbers: the one rule for counts, everywhere
              "gpujob.terminal"}  # terminal: text others control, shown safely by every stage


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def resolve(name: str) -> str:
    """The module an imported name lives in: ``gpujob.catalog.Catalog`` -> ``gpujob.catalog``."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


@cache
def imports(module: str) -> frozenset[tuple[str, str | None]]:
    """(module imported, name taken from it or None) for every gpujob import in ``module``."""
    found: set[tuple[str, str | None]] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {(resolve(a.name), None) for a in node.names if a.name.startswith("gpujob")}
        elif isinstance(node, ast.ImportFrom) and node.level:
            pytest.fail(f"{module}: relative import")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpujob"):
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                found.add((target, None) if target in MODULES
                          else (resolve(node.module), alias.name))
    return frozenset(found)


def deps(module: str) -> set[str]:
    return {target for target, _ in imports(module)} - {module}


def closure(module: str) -> set[str]:
    """Every gpujob module ``module`` imports, directly or not."""
    seen, todo = set(), [module]
    while todo:
        for dep in deps(todo.pop()) - seen:
            seen.add(dep)
            todo.append(dep)
    return seen


def within(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_import_graph_is_read():
    assert {"gpujob.catalog", "gpujob.config.load", "gpujob.checks.context"} <= set(MODULES)
    assert ("gpujob.catalog", "Catalog") in imports("gpujob.checks.context")
    assert "gpujob.config.load" in deps("gpujob.config.overrides")  # an import in a function
    assert "gpujob.checks.rules" in deps("gpujob.checks.engine")  # in a function too


def test_there_is_no_import_cycle():
    cycles = sorted(m for m in MODULES if m in closure(m))
    assert cycles == []


def test_the_foundation_imports_only_the_foundation():
    for module in FOUNDATION:
        assert deps(module) <= FOUNDATION, module


def test_loading_and_merging_import_no_later_stage():
    for module in (m for m in MODULES if within(m, "gpujob.config")):
        assert closure(module) <= FOUNDATION | {m for m in MODULES if within(m, "gpujob.config")}


def test_the_catalog_imports_no_stage():
    """The catalog is data and queries. To read a user's catalog file it uses the safe loader
    and the schema checker, as for any input file; neither imports the catalog back."""
    readers = {"gpujob.config.load", "gpujob.config.document", "gpujob.checks.schema"}
    for module in (m for m in MODULES if within(m, "gpujob.catalog")):
        assert deps(module) - FOUNDATION - readers <= {
            m for m in MODULES if within(m, "gpujob.catalog") or m.endswith(".catalog")}, module
    for reader in readers:
        assert not any(within(m, "gpujob.catalog") for m in closure(reader)), reader


def test_the_schema_checker_takes_the_catalogs_lists_as_data():
    assert closure("gpujob.checks.schema") <= FOUNDATION | {"gpujob.config.document",
                                                     "gpujob.checks.schema_accept",
                                                     "gpujob.checks.schema_report"}
    # a schema and a value: no more
    assert deps("gpujob.checks.schema_accept") <= {"gpujob.numbers"}


def test_the_job_view_reads_only_findings_and_the_number_rule():
    assert deps("gpujob.config.job") <= {"gpujob.findings", "gpujob.numbers"}


def test_rules_import_only_the_catalog_the_job_view_findings_and_suggestions():
    allowed = {"gpujob.catalog", "gpujob.config.job", "gpujob.findings", "gpujob.suggest",
               "gpujob.gsuri",  # gsuri: Cloud Storage URI syntax, for submit.job-dir
               # the translation's rule names, which vertex adopts
               "gpujob.services.vertex.translate.notes"}
    rules = ("gpujob.services.ai_platform.rules", "gpujob.checks.registry", "gpujob.checks.context")
    for module in (m for m in MODULES if within(m, *rules)):
        outside = {d for d in deps(module) if not within(d, *rules)}
        assert outside <= allowed, module


def test_backends_import_neither_the_command_line_nor_the_rules():
    for module in (m for m in MODULES if within(m, "gpujob.services", "gpujob.gcp")):
        assert not any(within(d, "gpujob.cli", "gpujob.checks.rules")
                       for d in closure(module)), module


def test_no_private_name_is_imported_from_another_module():
    private = sorted(f"{module}: {target}.{name}" for module in MODULES
                     for target, name in imports(module)
                     if name and name.startswith("_") and not name.endswith("__")
                     and target != module)
    assert private == []
