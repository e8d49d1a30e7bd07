"""The command line applied to a native Vertex config: ``submit``'s flags are written for AI
Platform's fields (``--region`` sets ``trainingInput.region``), so each is taken here for what
it means to a Vertex job, as gcloud's ``ai custom-jobs create`` flags do: where the job runs,
its name, labels and key (not part of a CustomJobSpec), the spec's service account, network,
web access and output directory, and the trainer's arguments (``-- ARGS``: every pool's, as
gcloud's ``--args``). ``--set``/``--unset`` take the native file's own paths. A flag that sets
a field of AI Platform's cluster or code has no one place in a native config: it is refused,
with the ``--set`` path to use instead; so are ``--executor-image-uri`` and ``--strategy``, which
the translation of an AI Platform config uses (a native config names its image and strategy)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpujob.config.document import Document
from gpujob.config.merge import apply
from gpujob.config.native_form import MARKS, SPEC_PATHS, pools
from gpujob.config.overrides import Override
from gpujob.errors import UsageError
from gpujob.findings import JsonPath, Location, format_path

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gpujob.tuples import NamedTuple

TI = "trainingInput"
_KINDS = {key for key, _ in MARKS}  # the keys kind() reads
# AI Platform paths a flag sets -> the field of the CustomJobSpec they mean
_SPEC_FIELDS: dict[JsonPath, JsonPath] = {
    (TI, "jobDir"): ("baseOutputDirectory", "outputUriPrefix"),
    (TI, "serviceAccount"): ("serviceAccount",),
    (TI, "network"): ("network",),
    (TI, "enableWebAccess"): ("enableWebAccess",),
}
# the --set path (in the CustomJobSpec) to suggest instead of a refused flag, by the field it sets
_INSTEAD = {"masterType": "workerPoolSpecs[0].machineSpec.machineType",
            "workerCount": "workerPoolSpecs[1].replicaCount",
            "masterConfig": "workerPoolSpecs[0].machineSpec.acceleratorType",
            "pythonModule": "workerPoolSpecs[0].pythonPackageSpec.pythonModule",
            "packageUris": "workerPoolSpecs[0].pythonPackageSpec.packageUris",
            "executorImageUri": "workerPoolSpecs[0].pythonPackageSpec.executorImageUri",
            "strategy": "scheduling.strategy"}
# the flags that say how to translate an AI Platform config, and the field each becomes
_TRANSLATION = {"--executor-image-uri": "executorImageUri", "--strategy": "strategy"}


class NativeJob(NamedTuple):
    """A native config with the command line applied, and what the command line adds that the
    file cannot hold."""

    doc: Document
    region: str | None = None
    region_origin: Location | None = None
    name: str | None = None  # --display-name, or --job-id / gcloud's JOB
    labels: dict[str, str] | None = None
    kms_key: str | None = None
    labels_origin: Location | None = None  # --labels of a CustomJobSpec, checked apart


def _is_native_path(override: Override) -> bool:
    flag = override.origin.flag or ""
    return flag.startswith(("--set ", "--unset "))


def apply_flags(doc: Document, overrides: list[Override], user_args: list[str] | None,
                display_name: str | None = None, *, executor_image_uri: str | None = None,
                strategy: str | None = None, extras: list[Override] | None = None) -> NativeJob:
    """``doc`` (a native config) with the command line applied; ``UsageError`` naming every
    flag that has no meaning for it (``executor_image_uri`` and ``strategy``, when given,
    have none; ``extras``: the spec's fields a service's own flags set, applied last)."""
    found = doc.form
    if found is None:
        raise ValueError("not a native Vertex config")
    spec = SPEC_PATHS[found]
    job: dict[str, Any] = {"name": display_name}
    native: list[Override] = []
    refused: list[tuple[str, str | int]] = []  # the flag, and the field it sets
    for override in overrides:
        path, flag = override.path, override.origin.flag or "?"
        if _is_native_path(override):
            if path[0] == TI:
                refused.append((f"{flag.split()[0]} {format_path(path)}", path[-1]))
            else:
                native.append(override)
        elif path == (TI, "region"):
            job["region"], job["region_origin"] = override.value, override.origin
        elif path == ("labels",):
            job["labels"] = override.value
            if found == "CustomJobSpec":  # a spec holds no labels: checked apart
                job["labels_origin"] = override.origin
            else:  # they replace the file's, and are checked where those were
                native.append(override)
        elif path == (TI, "encryptionConfig", "kmsKeyName"):
            job["kms_key"] = override.value
        elif path == ("jobId",):
            job["name"] = job["name"] or override.value
        elif path in _SPEC_FIELDS:
            native.append(Override((*spec, *_SPEC_FIELDS[path]), override.value,
                                   override.origin))
        else:
            refused.append((flag, path[-1]))
    given = {"--executor-image-uri": executor_image_uri, "--strategy": strategy}
    refused += [(flag, _TRANSLATION[flag]) for flag, value in given.items() if value is not None]
    if refused:
        _refuse(refused, spec)
    native += extras or []
    result = apply(doc, native)
    if result.form is None:
        _unmade(found, native)
    if user_args is not None:
        result = apply(result, _args(result, user_args))
    return NativeJob(result, **job)


def _unmade(found: str, native: list[Override]) -> None:
    """``--unset workerPoolSpecs`` (or ``jobSpec``, ...) took away what makes the file a
    ``found``: a usage error naming the flag."""
    removed = [o.origin.flag or "?" for o in native if len(o.path) == 1 and o.path[0] in _KINDS]
    names = ", ".join(dict.fromkeys(removed)) or "the --set/--unset flags"
    raise UsageError(
        f"{names}: without it the config is no longer a {found} (a native Vertex config is "
        "known by its workerPoolSpecs, jobSpec or trialJobSpec), so there is nothing to submit",
        "--unset a field inside it instead (e.g. --unset "
        f"{''.join(f'{key}.' for key in SPEC_PATHS[found])}workerPoolSpecs[1]), or edit the file")


def _args(doc: Document, user_args: list[str]) -> list[Override]:
    """``-- ARGS``: the arguments of every pool that runs code, as gcloud's --args sets them."""
    here, listed = pools(doc.data)
    origin = Location("command line", flag="-- user args")
    out = []
    for i, pool in enumerate(listed or ()):
        for code in ("containerSpec", "pythonPackageSpec"):
            if isinstance(pool, dict) and isinstance(pool.get(code), dict):
                out.append(Override((*here, i, code, "args"), list(user_args), origin))
    return out


def _refuse(refused: list[tuple[str, str | int]], spec: JsonPath) -> None:
    """``refused``: each flag, with the field it sets; ``spec``: where the config's
    CustomJobSpec is, which the hint's path starts from."""
    names = list(dict.fromkeys(name for name, _ in refused))
    instead = next((_INSTEAD[field] for _, field in refused if field in _INSTEAD),
                   "workerPoolSpecs[0].machineSpec.machineType")
    one = len(names) == 1
    what = f"{'this flag sets' if one else 'these flags set'} AI Platform's fields (trainingInput)"
    if any(name in _TRANSLATION for name in names):
        what = f"{'this flag is' if one else 'these flags are'} for AI Platform configs"
    raise UsageError(f"{', '.join(names)}: the config is a native Vertex config, and {what}",
                     "set its own fields with --set, e.g. --set "
                     f"{''.join(f'{key}.' for key in spec)}{instead}=VALUE")
