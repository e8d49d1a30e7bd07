"""``--worker-pool-spec ...,local-package-path=DIR,python-module=M,executor-image-uri=IMAGE``
without ``--config``: gcloud's autopackaging, done gpujob's way.

gcloud (``custom_jobs_util.UpdateWorkerPoolSpecsIfLocalPackageRequired``) builds a Docker image
from pool 0's ``local-package-path`` on the executor image, pushes it, and runs it in every pool
that has a spec; that needs Docker here. gpujob instead builds the module's package
(``DIR/TOP`` for ``python-module=TOP.task``) as an sdist, stages it under ``--staging-bucket``
(or the job dir), and runs it on the executor image in every pool: the pools become an AI
Platform job (pool 0 the master, then workers, parameter servers, evaluators), which the
translation for Vertex AI turns into the same pools, with the package and executor image.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpujob.config.document import Document
from gpujob.errors import UsageError
from gpujob.findings import Location

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

_TI = "trainingInput"
# AI Platform's pools after the master: (count field, machine field, config field)
_POOLS = (("workerCount", "workerType", "workerConfig"),
          ("parameterServerCount", "parameterServerType", "parameterServerConfig"),
          ("evaluatorCount", "evaluatorType", "evaluatorConfig"))
# keys that only gcloud's Docker build uses
_DOCKER_ONLY = ("requirements", "extra-packages", "extra-dirs")


class Autopackaged(NamedTuple):
    """The job as an AI Platform config, the package directory to build and the image it
    runs on, and what to tell the user."""

    doc: Document
    package_path: str
    executor: str
    note: str


def wanted(specs: list[dict[str, Any]]) -> bool:
    """Whether pool 0 asks for gcloud's autopackaging."""
    return bool(specs) and "local-package-path" in specs[0]


def autopackaged(specs: list[dict[str, Any]], args: list[str] | None,
                 source: str) -> Autopackaged:
    """The job of ``specs`` (parsed --worker-pool-specs; pool 0 has local-package-path) as an
    AI Platform config that builds and stages the package; ``UsageError`` for what gpujob does
    not do gcloud's way."""
    first = specs[0]
    flag = "--worker-pool-spec 1"
    for key in _DOCKER_ONLY:
        if key in first:
            raise UsageError(f"{flag}: {key} is installed into the Docker image gcloud builds; "
                             "gpujob builds a Python package instead",
                             "name the dependencies in the package's pyproject.toml or "
                             "setup.py (install_requires)")
    script_note = ""
    if "script" in first and "python-module" not in first:
        first = dict(first)
        first["python-module"] = _script_package(first, flag)
        script_note = (f"{Path(first['local-package-path']) / first['script']} alone (files "
                       f"beside it are not in it) as the package {SCRIPT_PACKAGE}")
    module = first.get("python-module")
    executor = first.get("executor-image-uri")
    if not module or not executor:
        raise UsageError(f"{flag}: local-package-path needs python-module and "
                         "executor-image-uri", "add python-module=trainer.task,"
                         "executor-image-uri=IMAGE")
    top, dot, _ = module.partition(".")
    if not dot:
        raise UsageError(f"{flag}: python-module={module} is not in a package: gpujob builds "
                         "the module's package", "put the module in a package (a directory "
                         f"holding __init__.py) and name it PACKAGE.{module}")
    if len(specs) > 1 + len(_POOLS):  # nothing the user wrote is dropped
        raise UsageError(f"--worker-pool-spec {len(specs)}: a local-package-path job is built "
                         f"as an AI Platform cluster of {1 + len(_POOLS)} pools at most "
                         "(primary, workers, parameter servers, evaluators)",
                         f"give {1 + len(_POOLS)} --worker-pool-spec at most")
    if first.get("replica-count", 1) != 1:
        raise UsageError(f"{flag}: the first pool is the primary replica: replica-count must "
                         "be 1", "give the other replicas as a second --worker-pool-spec")
    package = first.get("package-dir") or str(Path(first["local-package-path"]) / top)
    ti: dict[str, Any] = {"scaleTier": "CUSTOM", "pythonModule": module}
    _machine(ti, first, "masterType", "masterConfig")
    for spec, (count, machine, config) in zip(specs[1:], _POOLS, strict=False):  # (no 5th)
        if spec:
            ti[count] = spec.get("replica-count", 1)
            _machine(ti, spec, machine, config)
    if args:
        ti["args"] = list(args)
    doc = Document(source, {_TI: ti})
    origin = Location(source, flag="--worker-pool-spec")
    doc.values.update({(_TI, key): origin for key in ti})
    ignored = " (output-image-uri is not used: no image is built)" \
        if "output-image-uri" in first else ""
    what = script_note or f"{package} as a Python package"
    note = (f"note: {flag}: local-package-path: gpujob builds {what} and stages it (gcloud "
            f"would build and push a Docker image); every pool runs python -m {module} from it "
            f"on {executor}{ignored}")
    return Autopackaged(doc, package, executor, note)


def _machine(ti: dict[str, Any], spec: dict[str, Any], machine: str, config: str) -> None:
    if "machine-type" in spec:
        ti[machine] = spec["machine-type"]
    if spec.get("accelerator-type"):
        ti[config] = {"acceleratorConfig": {"count": spec.get("accelerator-count", 1),
                                            "type": spec["accelerator-type"]}}


SCRIPT_PACKAGE = "gcloud_script"  # the package a script= becomes the one module of


def _script_package(spec: dict[str, Any], flag: str) -> str:
    """A Python ``script=`` as the one module of a package made for it (in a new temporary
    directory, removed at exit; its path goes in ``spec["package-dir"]``): the module's
    name. A shell script is refused: gpujob runs Python."""
    import atexit
    import re
    import shutil
    import tempfile

    script = Path(spec["local-package-path"]) / spec["script"]
    if script.suffix != ".py":
        raise UsageError(f"{flag}: script={spec['script']} is not a Python file: the Docker "
                         "image gcloud builds runs it with /bin/bash, and gpujob runs Python "
                         "modules", "run it in an image of your own that holds it: "
                         f"container-image-uri=IMAGE with --command=/bin/bash,{spec['script']}")
    if not script.is_file():
        raise UsageError(f"{flag}: script={spec['script']}: no such file: {script}",
                         "script is a path under local-package-path")
    stem = re.sub(r"\W", "_", script.stem)
    stem = stem if stem[:1].isalpha() else f"m_{stem}"
    root = Path(tempfile.mkdtemp(prefix="gpujob-script-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    package = root / SCRIPT_PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    shutil.copyfile(script, package / f"{stem}.py")
    spec["package-dir"] = str(package)
    return f"{SCRIPT_PACKAGE}.{stem}"
