"""``gcloud ai custom-jobs create`` and ``gcloud ai hp-tuning-jobs create``'s command lines, made
into the native config gcloud would send, before gpujob checks it.

As gcloud's ``command_lib/ai/custom_jobs/custom_jobs_util.py`` (``ConstructCustomJobSpec``,
``_ConstructSingleWorkerPoolSpec``) and ``api_lib/ai/hp_tuning_jobs/client.py`` (``Create``)
build the request:

- each ``--worker-pool-spec`` is one pool, in order (an empty one is an empty placeholder pool);
  with pools from the command line, the file's ``workerPoolSpecs`` are replaced;
- a pool's ``replicaCount`` is ``replica-count`` (default 1); ``acceleratorCount`` is set only
  with an ``accelerator-type`` (default 1); ``container-image-uri`` makes a ``containerSpec``,
  else ``executor-image-uri``/``python-module``/``--python-package-uris`` a ``pythonPackageSpec``
  (``--python-package-uris`` only when the pools come from flags: with ``--config`` the file's
  ``packageUris`` are sent, as gcloud's ``custom_jobs_util.py`` builds the spec);
- ``--args`` is every pool's arguments (split on commas, as gcloud's ArgList splits them),
  ``--command`` every container pool's command;
- a tuning job without ``maxTrialCount``/``parallelTrialCount`` gets 1 and 1 (``Create``);
  ``--max-trial-count``/``--parallel-trial-count`` replace the file's; ``--algorithm`` sets
  ``studySpec.algorithm`` when the file has a ``studySpec``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.config.document import Document
from gpujob.config.merge import apply
from gpujob.config.native_form import SPEC_PATHS, pools
from gpujob.config.overrides import Override
from gpujob.errors import UsageError
from gpujob.findings import Finding, JsonPath, Location

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

SOURCE = "command line"
# gcloud's ArgDict keys of --worker-pool-spec, and how each value is read
_INTS = ("replica-count", "accelerator-count")
_LISTS = ("requirements", "extra-dirs", "extra-packages")  # split on ";"
KEYS = ("accelerator-count", "accelerator-type", "container-image-uri", "executor-image-uri",
        "extra-dirs", "extra-packages", "local-package-path", "machine-type",
        "output-image-uri", "python-module", "replica-count", "requirements", "script")
# keys users bring from ``gcloud ai persistent-resources create``'s --resource-pool-spec
_ELSEWHERE = {"disk-type": "bootDiskType", "disk-size": "bootDiskSizeGb"}
COUNTS_RULE = "vertex.trial-counts-default"


class VertexFlags(NamedTuple):
    """gcloud's custom-jobs / hp-tuning-jobs flags as given (None or empty: not given)."""

    pool_specs: tuple[str, ...] = ()
    args: str | None = None
    command: str | None = None
    package_uris: str | None = None
    dashboard: bool | None = None
    max_trial_count: int | None = None
    parallel_trial_count: int | None = None
    algorithm: str | None = None

    @property
    def given(self) -> bool:
        return any(v not in (None, ()) for v in self)


def parse_pool_spec(text: str, number: int) -> dict[str, Any]:
    """One ``--worker-pool-spec`` value (``number``: its place, from 1) as gcloud's ArgDict
    reads it; ``UsageError`` for a key gcloud does not take or a count that is no integer."""
    flag = f"--worker-pool-spec {number}"
    spec: dict[str, Any] = {}
    for item in (part for part in text.split(",") if part):
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"{flag}: {item!r} is not KEY=VALUE",
                             "write it as machine-type=n1-standard-8,replica-count=1,…")
        if key in _ELSEWHERE:
            raise UsageError(
                f"{flag}: gcloud ai custom-jobs create does not take {key} (it is "
                "--resource-pool-spec's, in gcloud ai persistent-resources create)",
                f"set a pool's disk in a --config file: workerPoolSpecs[N].diskSpec."
                f"{_ELSEWHERE[key]}")
        if key not in KEYS:
            raise UsageError(f"{flag}: unknown key {key!r}", f"valid keys: {', '.join(KEYS)}")
        if key in _INTS:
            try:
                spec[key] = int(value)
            except ValueError:
                raise UsageError(f"{flag}: {key}={value} is not an integer",
                                 f"write a whole number: {key}=1") from None
        elif key in _LISTS:
            spec[key] = [v for v in value.split(";") if v]
        else:
            spec[key] = value
    return spec


_SOFTWARE = ("container-image-uri", "executor-image-uri", "extra-dirs", "extra-packages",
             "python-module", "requirements", "script")
_LOCAL_ONLY = ("extra-dirs", "extra-packages", "requirements", "script")


def check_specs(specs: list[dict[str, Any]]) -> None:
    """gcloud's own refusals of --worker-pool-spec values (``custom_jobs/validation.py``,
    ``_ValidateWorkerPoolSpecArgs``), as usage errors; the accelerator's name is left to the
    checks, which say what it stands for."""
    if not specs[0]:
        raise UsageError("--worker-pool-spec 1: the first pool may not be empty (it runs the "
                         "primary replica)", "only later pools may be empty placeholders")
    local = "local-package-path" in specs[0]
    for number, spec in enumerate(specs, 1):
        if not spec:
            continue
        flag = f"--worker-pool-spec {number}"
        if "machine-type" not in spec:
            raise UsageError(f"{flag}: machine-type is required", "add machine-type=TYPE")
        if "accelerator-count" in spec and "accelerator-type" not in spec:
            raise UsageError(f"{flag}: accelerator-count needs accelerator-type",
                             "add accelerator-type=TYPE (NVIDIA_TESLA_T4, …)")
        if number == 1 and local:
            if "executor-image-uri" not in spec:
                raise UsageError(f"{flag}: local-package-path needs executor-image-uri",
                                 "add executor-image-uri=IMAGE")
            if ("python-module" in spec) == ("script" in spec):
                raise UsageError(f"{flag}: local-package-path needs exactly one of "
                                 "python-module and script", "give python-module=M or script=S")
            continue
        _no_keys(flag, spec, ("local-package-path",) if not local else _SOFTWARE,
                 "only the first --worker-pool-spec runs a local package" if not local else
                 "the first --worker-pool-spec's local package runs in every pool")
        if local:
            continue
        if ("executor-image-uri" in spec) == ("container-image-uri" in spec):
            raise UsageError(f"{flag}: give exactly one of executor-image-uri and "
                             "container-image-uri", "container-image-uri runs an image; "
                             "executor-image-uri runs python-module from the packages")
        if "python-module" in spec and "container-image-uri" in spec:
            raise UsageError(f"{flag}: python-module does not go with container-image-uri",
                             "a container runs its own entrypoint, or --command")
        if "executor-image-uri" in spec and "python-module" not in spec:
            raise UsageError(f"{flag}: executor-image-uri needs python-module",
                             "add python-module=trainer.task")
        _no_keys(flag, spec, _LOCAL_ONLY, "they go with local-package-path, in the first "
                 "--worker-pool-spec")


def _no_keys(flag: str, spec: dict[str, Any], keys: tuple[str, ...], why: str) -> None:
    found = [key for key in keys if key in spec]
    if found:
        raise UsageError(f"{flag}: {', '.join(found)} not allowed here: {why}",
                         f"leave out {', '.join(found)}")


def make_pool(spec: dict[str, Any], package_uris: list[str] | None) -> dict[str, Any]:
    """The WorkerPoolSpec gcloud builds from one parsed ``--worker-pool-spec``."""
    if not spec:
        return {}
    machine: dict[str, Any] = {}
    if "machine-type" in spec:
        machine["machineType"] = spec["machine-type"]
    if spec.get("accelerator-type"):
        machine["acceleratorType"] = spec["accelerator-type"]
        machine["acceleratorCount"] = spec.get("accelerator-count", 1)
    pool: dict[str, Any] = {"machineSpec": machine, "replicaCount": spec.get("replica-count", 1)}
    if spec.get("container-image-uri"):
        pool["containerSpec"] = {"imageUri": spec["container-image-uri"]}
    elif package_uris or spec.get("executor-image-uri") or spec.get("python-module"):
        code: dict[str, Any] = {}
        if spec.get("executor-image-uri"):
            code["executorImageUri"] = spec["executor-image-uri"]
        if package_uris:
            code["packageUris"] = list(package_uris)
        if spec.get("python-module"):
            code["pythonModule"] = spec["python-module"]
        pool["pythonPackageSpec"] = code
    return pool


def _refuse_autopackaging(specs: list[dict[str, Any]]) -> None:
    """gcloud's autopackaging (``local-package-path``: a Docker image built and pushed here),
    which gpujob does its own way for the first pool of a job without --config only
    (``gcloud_autopackage``)."""
    for number, spec in enumerate(specs, 1):
        if "local-package-path" in spec or "script" in spec:
            raise UsageError(
                f"--worker-pool-spec {number}: local-package-path and script are taken in the "
                "first --worker-pool-spec of a job without --config (gpujob builds the package "
                "and stages it)", "give every pool with --worker-pool-spec, local-package-path "
                "in the first; or stage the package and name it in pythonPackageSpec."
                "packageUris")


def split_list(text: str | None) -> list[str] | None:
    return None if text is None else [item for item in text.split(",") if item]


def flag_only(flags: VertexFlags) -> Document:
    """The CustomJob of a command line without ``--config``: its pools from the flags."""
    if not flags.pool_specs:
        raise UsageError("without a config file, gcloud ai custom-jobs create's form needs "
                         "--worker-pool-spec", "give --worker-pool-spec=machine-type=TYPE,"
                         "container-image-uri=IMAGE (one per pool), or a config file")
    return apply_flags(Document(SOURCE, {"jobSpec": {}}), flags, from_file=False)


def apply_flags(doc: Document, flags: VertexFlags, *, from_file: bool = True) -> Document:
    """``doc`` (a native config) with gcloud's custom-jobs/hp-tuning-jobs flags applied."""
    found = doc.form
    if found is None:
        raise UsageError("--worker-pool-spec, --args, --command, --python-package-uris, "
                         "--max-trial-count, --parallel-trial-count and --algorithm are gcloud "
                         "ai custom-jobs/hp-tuning-jobs flags, for a native Vertex config; "
                         f"{doc.source} is an AI Platform config",
                         "use its own flags (--worker-count, --master-image-uri, …) or -- ARGS")
    spec: JsonPath = SPEC_PATHS[found]
    out: list[Override] = []
    if flags.pool_specs:
        specs = [parse_pool_spec(text, i) for i, text in enumerate(flags.pool_specs, 1)]
        check_specs(specs)
        _refuse_autopackaging(specs)
        uris = None if from_file else split_list(flags.package_uris)
        made = [make_pool(s, uris) for s in specs]
        out.append(Override((*spec, "workerPoolSpecs"), made, _origin("--worker-pool-spec")))
    if flags.dashboard:
        out.append(Override((*spec, "enableDashboardAccess"), True,
                            _origin("--enable-dashboard-access")))
    doc = apply(doc, out)
    out = _code_flags(doc, flags)
    if found == "HyperparameterTuningJob":
        out += _tuning_flags(doc, flags)
    elif flags.max_trial_count or flags.parallel_trial_count or flags.algorithm:
        raise UsageError("--max-trial-count, --parallel-trial-count and --algorithm are gcloud "
                         f"ai hp-tuning-jobs create's: {doc.source} is a {found}, not a tuning "
                         "job", "give a HyperparameterTuningJob file (studySpec, trialJobSpec)")
    return apply(doc, out)


def _code_flags(doc: Document, flags: VertexFlags) -> list[Override]:
    here, listed = pools(doc.data)
    out = []
    for flag, value, codes in (("--args", split_list(flags.args), ("containerSpec",
                                                               "pythonPackageSpec")),
                               ("--command", split_list(flags.command), ("containerSpec",))):
        if not value:
            continue
        for i, pool in enumerate(listed or ()):
            for code in codes:
                if isinstance(pool, dict) and isinstance(pool.get(code), dict):
                    key = "args" if flag == "--args" else "command"
                    out.append(Override((*here, i, code, key), list(value), _origin(flag)))
    return out


def _tuning_flags(doc: Document, flags: VertexFlags) -> list[Override]:
    out = []
    for key, value, flag in (("maxTrialCount", flags.max_trial_count, "--max-trial-count"),
                             ("parallelTrialCount", flags.parallel_trial_count,
                              "--parallel-trial-count")):
        if value is not None:
            out.append(Override((key,), value, _origin(flag)))
    if flags.algorithm and isinstance(doc.data.get("studySpec"), dict):
        algorithm = flags.algorithm.replace("-", "_").upper()
        out.append(Override(("studySpec", "algorithm"), algorithm, _origin("--algorithm")))
    return out


def trial_counts(doc: Document) -> tuple[Document, list[Finding]]:
    """A tuning job without ``maxTrialCount``/``parallelTrialCount``: 1 and 1, as gcloud sends
    it (``hp_tuning_jobs/client.py``), with a note at each."""
    from gpujob.suggest import camel

    written = {camel(k) for k in doc.data if isinstance(k, str)}  # max_trial_count: refused
    missing = [key for key in ("maxTrialCount", "parallelTrialCount")
               if key not in written or doc.data.get(key) == 0]
    notes = [Finding("note", COUNTS_RULE, f"{key} is not given: 1 is sent, as gcloud ai "
                     "hp-tuning-jobs create sends it", (key,), doc.locate(()),
                     f"set {key} (or --{_flag(key)}) to run more trials") for key in missing]
    origin = Location(doc.source, flag="gcloud's default")
    return apply(doc, [Override((key,), 1, origin) for key in missing]), notes


def _flag(key: str) -> str:
    return "max-trial-count" if key == "maxTrialCount" else "parallel-trial-count"


def _origin(flag: str) -> Location:
    return Location(SOURCE, flag=flag)
