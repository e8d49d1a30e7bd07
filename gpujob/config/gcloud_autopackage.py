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
from typing import Any, NamedTuple

from gpujob.config.document import Document
from gpujob.errors import UsageError
from gpujob.findings import Location

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
    if "script" in first and "python-module" not in first:
        raise UsageError(f"{flag}: script={first['script']} is run by gcloud's Docker image; "
                         "gpujob runs a Python module of a package",
                         "give python-module=PACKAGE.MODULE (the script as a module of a "
                         "package: a directory holding __init__.py)")
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
    if first.get("replica-count", 1) != 1:
        raise UsageError(f"{flag}: the first pool is the primary replica: replica-count must "
                         "be 1", "give the other replicas as a second --worker-pool-spec")
    package = str(Path(first["local-package-path"]) / top)
    ti: dict[str, Any] = {"scaleTier": "CUSTOM", "pythonModule": module}
    _machine(ti, first, "masterType", "masterConfig")
    for spec, (count, machine, config) in zip(specs[1:], _POOLS, strict=False):
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
    note = (f"note: {flag}: local-package-path: gpujob builds {package} as a Python package "
            f"and stages it (gcloud would build and push a Docker image); every pool runs "
            f"python -m {module} from it on {executor}{ignored}")
    return Autopackaged(doc, package, executor, note)


def _machine(ti: dict[str, Any], spec: dict[str, Any], machine: str, config: str) -> None:
    if "machine-type" in spec:
        ti[machine] = spec["machine-type"]
    if spec.get("accelerator-type"):
        ti[config] = {"acceleratorConfig": {"count": spec.get("accelerator-count", 1),
                                            "type": spec["accelerator-type"]}}
