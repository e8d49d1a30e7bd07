"""Dependencies point one way: load -> merge -> check (the engine, then the service's rules over
its catalog) -> report -> the service's request -> the submit path -> the commands -> the
command line. The engine
and the local runner receive the service and import none; services import no command and no
other service, and only the registry imports a service package (a command run for one service
loads no module of another beyond its light ``__init__``). Every
import of every module counts, those inside functions and under TYPE_CHECKING too, read from
the source with ``ast``; and no module outside a service package asks which service it has."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest
from jobs import NATIVE_JOB

from gpujob.services import SERVICES

PACKAGE = Path(__file__).resolve().parents[2] / "gpujob"

# modules any stage may import: they import nothing of gpujob's but each other
FOUNDATION = {"gpujob", "gpujob.errors", "gpujob.findings", "gpujob.suggest", "gpujob.resources",
              "gpujob.gsuri", "gpujob.numbers",  # numbers: the one rule for counts, everywhere
              "gpujob.terminal",  # terminal: text others control, shown safely by every stage
              "gpujob.tuples"}  # tuples: NamedTuple for every record type


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
    return imports_in(MODULES[module].read_text(encoding="utf-8"), module)


def imports_in(source: str, module: str) -> frozenset[tuple[str, str | None]]:
    found: set[tuple[str, str | None]] = set()
    for node in ast.walk(ast.parse(source)):
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


PROTOCOL = "gpujob.services.base"  # the seam: its annotations name the types of the stages it joins


@cache
def annotations_of_the_protocol() -> frozenset[str]:
    """What ``base.Service`` imports for its signatures only (under TYPE_CHECKING): the
    engine's, the runner's and the commands' types, which import it back for the same."""
    tree = ast.parse(MODULES[PROTOCOL].read_text(encoding="utf-8"))
    found = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            found |= {resolve(n.module) for n in ast.walk(node)
                      if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("gpujob")}
    return frozenset(found)


def runtime_deps(module: str) -> set[str]:
    return deps(module) - (annotations_of_the_protocol() if module == PROTOCOL else set())


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
    assert ("gpujob.checks.context", "Checking") in imports(
        "gpujob.services.ai_platform.rules.context")
    assert "gpujob.config.load" in deps("gpujob.config.overrides")  # an import in a function
    assert "gpujob.checks.typos" in deps("gpujob.checks.engine")  # in a function too


def test_there_is_no_import_cycle():
    """But for the protocol's annotations (``PROTOCOL``)."""
    def reach(module: str) -> set[str]:
        seen, todo = set(), [module]
        while todo:
            for dep in runtime_deps(todo.pop()) - seen:
                seen.add(dep)
                todo.append(dep)
        return seen

    cycles = sorted(m for m in MODULES if m in reach(m))
    assert cycles == []


def test_the_foundation_imports_only_the_foundation():
    for module in FOUNDATION:
        assert deps(module) <= FOUNDATION, module


def test_loading_and_merging_import_no_later_stage():
    for module in (m for m in MODULES if within(m, "gpujob.config")):
        assert closure(module) <= FOUNDATION | {m for m in MODULES if within(m, "gpujob.config")}


def test_the_catalog_imports_no_stage():
    """The catalog is data and queries. To read a user's catalog file it uses the safe loader
    and the schema checker, as for any input file; neither imports the catalog back. It finds
    a service's catalog module through the registry."""
    readers = {"gpujob.config.load", "gpujob.config.document", "gpujob.checks.schema"}
    for module in (m for m in MODULES if within(m, "gpujob.catalog")):
        assert deps(module) - FOUNDATION - readers - {"gpujob.services"} <= {
            m for m in MODULES if within(m, "gpujob.catalog")}, module
    for reader in readers:
        assert not any(within(m, "gpujob.catalog") for m in closure(reader)), reader


def test_the_schema_checker_takes_the_catalogs_lists_as_data():
    assert closure("gpujob.checks.schema") <= FOUNDATION | {"gpujob.config.document",
                                                            "gpujob.config.native_form",
                                                            "gpujob.config.names",
                                                            "gpujob.checks.schema_accept",
                                                            "gpujob.checks.schema_report"}
    # a schema and a value: no more
    assert deps("gpujob.checks.schema_accept") <= {"gpujob.numbers"}


def test_the_job_view_reads_only_findings_and_the_number_rule():
    assert deps("gpujob.config.job") <= {"gpujob.findings", "gpujob.numbers", "gpujob.tuples"}


SERVICE_PACKAGES = sorted(SERVICES.values())


def _services_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if within(m, *SERVICE_PACKAGES))


def test_the_registry_names_every_service_package_and_nothing_else():
    on_disk = {m for m in MODULES if m.count(".") == 2 and m.startswith("gpujob.services.")
               and MODULES[m].name == "__init__.py"}  # the packages (base, delegate: modules)
    assert on_disk == set(SERVICE_PACKAGES)
    assert runtime_deps("gpujob.services") <= {PROTOCOL}  # naming the services imports none


def test_the_engine_receives_the_service_and_imports_none():
    for module in (m for m in MODULES if within(m, "gpujob.checks")):
        assert _services_in(closure(module)) == [], module
        assert not any(within(d, "gpujob.commands", "gpujob.cli") for d in closure(module))


def test_the_local_runner_receives_what_replicas_see_and_imports_no_service():
    for module in (m for m in MODULES if within(m, "gpujob.local")):
        assert _services_in(closure(module)) == [], module
        assert not any(within(d, "gpujob.commands", "gpujob.cli") for d in closure(module))


def test_services_import_no_command():
    for module in (m for m in MODULES if within(m, "gpujob.services")):
        assert not any(within(d, "gpujob.commands", "gpujob.cli") for d in closure(module)), \
            module


def test_the_transport_and_the_packages_know_no_service_and_no_stage_above_them():
    for module in (m for m in MODULES if within(m, "gpujob.gcp", "gpujob.packages")):
        above = [d for d in closure(module) if within(
            d, "gpujob.services", "gpujob.checks", "gpujob.commands", "gpujob.cli",
            "gpujob.local")]
        assert above == [], module


def test_commands_are_reached_from_the_command_line_only():
    for module in (m for m in MODULES if not within(m, "gpujob.commands", "gpujob.cli")):
        assert not any(within(d, "gpujob.commands") for d in deps(module)), module


def test_the_submit_path_is_reached_from_the_commands_only():
    """``gpujob.submit`` (the one submit path) sits between the commands and the stages: the
    command line and the commands import it, it imports no command."""
    for module in (m for m in MODULES if not within(m, "gpujob.submit", "gpujob.commands",
                                                    "gpujob.cli")):
        assert not any(within(d, "gpujob.submit") for d in deps(module)), module
    for module in (m for m in MODULES if within(m, "gpujob.submit")):
        assert not any(within(d, "gpujob.commands", "gpujob.cli") for d in deps(module)), module


SCREEN = 60  # lines: a command's function reads on one screen


def test_each_command_is_one_screen():
    """``commands/`` holds ``execute(settings)`` per command, each a screen at most; the work
    of a longer one (a submit's pipeline) is a package of its own (``gpujob.submit``)."""
    long = []
    for module in (m for m in MODULES if within(m, "gpujob.commands")):
        for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.end_lineno is not None and (
                    node.end_lineno - node.lineno + 1 > SCREEN):
                long.append(f"{module}.{node.name}")
    assert long == []


def _asks_which_service(node: ast.AST) -> bool:
    """``x == "vertex"``, ``"ai-platform" != y``, ``s in ("vertex", …)``."""
    if not isinstance(node, ast.Compare):
        return False
    sides = [node.left, *node.comparators]
    names = set(SERVICES)
    for side in sides:
        if isinstance(side, ast.Constant) and side.value in names:
            return True
        if isinstance(side, (ast.Tuple, ast.List, ast.Set)) and any(
                isinstance(e, ast.Constant) and e.value in names for e in side.elts):
            return True
    return False


def test_no_module_outside_a_service_asks_which_service_it_has():
    """The service is asked (``base.Service``), never tested: a comparison with a service's
    name, an ``isinstance`` on a service's catalog or a ``hasattr`` or ``getattr`` probe of one
    is a branch a new service would have to touch (a catalog record has what
    ``catalog.record.CatalogRecord`` names)."""
    found = []
    for module, path in MODULES.items():
        if within(module, *SERVICE_PACKAGES):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            call = node.func.id if isinstance(node, ast.Call) and isinstance(
                node.func, ast.Name) else None
            if _asks_which_service(node) or (call == "isinstance" and "Catalog" in ast.unparse(
                    node)) or (call in ("hasattr", "getattr") and "cat" in ast.unparse(
                    node.args[0])):
                found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def test_no_private_name_is_imported_from_another_module():
    private = sorted(f"{module}: {target}.{name}" for module in MODULES
                     for target, name in imports(module)
                     if name and name.startswith("_") and not name.endswith("__")
                     and target != module)
    assert private == []


def _owner(module: str) -> str | None:
    """The service package ``module`` belongs to, or None."""
    return next((p for p in SERVICE_PACKAGES if within(module, p)), None)


def test_no_service_package_imports_another():
    """A service gets what it needs from the shared stages (a config format from ``config``, a
    check several services register from ``checks``), or another's facts through the registry
    (``gpujob.catalog.load``): never by importing that service's modules."""
    found = sorted(f"{module} -> {dep}" for module in MODULES if _owner(module)
                   for dep in deps(module) if _owner(dep) not in (None, _owner(module)))
    assert found == []


def test_nothing_outside_the_service_packages_but_the_registry_imports_one():
    """The registry (``gpujob.services``) names the packages and imports the one asked for;
    every other module reaches a service through it (``services.get``, ``Service``)."""
    found = sorted(f"{module} -> {dep}" for module in MODULES if not _owner(module)
                   for dep in deps(module) if _owner(dep))
    assert found == []


def test_the_import_checks_see_an_import_between_services():
    """What the two tests above read: an import from one service package into another, at the
    top or in a function, is an edge of the graph they walk."""
    source = ("from gpujob.services.ai_platform.rules import study\n"
              "def f():\n    from gpujob.services.vertex.catalog import VertexCatalog\n")
    found = {target for target, _ in imports_in(source, "gpujob.services.gke.rules")}
    assert {_owner(t) for t in found} == {"gpujob.services.vertex",
                                          "gpujob.services.ai_platform"}


# the service packages imported alone first (what the registry reads their names and flags
# from, with what their ``__init__`` imports), then the command; stderr ends with both
PROBE = ("import json, sys\nfrom importlib import import_module\nfrom gpujob.services import "
         "SERVICES\nfor package in SERVICES.values():\n    import_module(package)\n"
         "light = sorted(m for m in sys.modules if m.startswith('gpujob.services.'))\n"
         "from gpujob.cli import main\ntry:\n    code = main({args!r})\nfinally:\n"
         "    print(json.dumps([light, sorted(m for m in sys.modules if m.startswith("
         "'gpujob.services.'))]), file=sys.stderr)\n")
AI_PLATFORM_CONFIG = """\
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig:
    acceleratorConfig: {type: NVIDIA_TESLA_T4, count: 1}
  region: us-central1
  pythonModule: trainer.task
  packageUris: [gs://bucket/trainer-0.1.tar.gz]
  runtimeVersion: '2.11'
  pythonVersion: '3.7'
  jobDir: gs://bucket/out
"""
NATIVE_CONFIG = NATIVE_JOB


def _loaded(tmp_path: Path, config: str, *args: str) -> tuple[set[str], set[str]]:
    """What the service packages' ``__init__`` modules import, and the modules of
    ``gpujob.services`` a run of ``gpujob ARGS CONFIG`` in a new Python imports besides."""
    import json
    import os
    import subprocess
    import sys

    path = tmp_path / "job.yaml"
    path.write_text(config, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUJOB_")}
    env["GPUJOB_CACHE_DIR"] = str(tmp_path / "cache")  # no refreshed catalog of the user's
    result = subprocess.run([sys.executable, "-c", PROBE.format(args=[*args, str(path)])],
                            capture_output=True, text=True, timeout=120, env=env,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    light, loaded = json.loads(result.stderr.splitlines()[-1])
    return set(light), set(loaded) - set(light)


def _of(package: str, modules: set[str]) -> list[str]:
    return sorted(m for m in modules if within(m, package))


@pytest.mark.parametrize("config", [AI_PLATFORM_CONFIG, NATIVE_CONFIG], ids=["job", "native"])
def test_a_vertex_validate_loads_no_ai_platform_module(tmp_path, config):
    """Beyond the light ``__init__`` of each package (the registry reads the services' names
    and flags from them)."""
    light, loaded = _loaded(tmp_path, config, "validate", "--service", "vertex")
    assert _of("gpujob.services.vertex", loaded)  # the check ran
    assert _of("gpujob.services.ai_platform", loaded) == []
    assert _of("gpujob.services.gke", loaded) == []
    assert "gpujob.services.ai_platform.rules" not in light  # what the light one is


@pytest.mark.parametrize("config", [AI_PLATFORM_CONFIG, NATIVE_CONFIG], ids=["job", "native"])
def test_a_gke_dry_run_loads_no_vertex_module(tmp_path, config):
    light, loaded = _loaded(tmp_path, config, "submit", "--service", "gke", "--dry-run",
                            "--job-id", "layering")
    assert "gpujob.services.gke.rules" in loaded
    assert _of("gpujob.services.vertex", loaded) == []
    assert _of("gpujob.services.ai_platform", loaded) == []
    assert "gpujob.services.vertex.native" not in light
