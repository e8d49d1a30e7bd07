"""What each Vertex pool runs: the job's container image (workers default to the master's), or
its Python package on an executor image. The executor is the prebuilt image ``runtimeVersion``
maps to (only within its availability window), or ``--executor-image-uri``: a Vertex prebuilt
image runs the package itself; any other image gets a command that installs the packages from
the ``/gcs/`` mount and runs ``python3 -m MODULE``, as the Vertex SDK's ``from_local_script``
does. Unlike the SDK, the trainer's arguments are not pasted into the shell command: they stay
``args`` and reach the module as ``"$@"``, so no argument is ever parsed by the shell and the
hyperparameters Vertex appends to ``args`` arrive too. Package paths and the module name are
quoted with ``shlex.quote``."""

from __future__ import annotations

from datetime import date
from typing import Any

from gpujob.findings import JsonPath
from gpujob.services.vertex.catalog import VertexCatalog
from gpujob.services.vertex.records import Image
from gpujob.services.vertex.translate.notes import Notes, mapping, strings, text
from gpujob.services.vertex.translate.pools import TI, Pool

FLAG = "--executor-image-uri"
Spec = dict[str, Any]


def build(ti: dict[str, Any], pools: list[Pool], cat: VertexCatalog, today: date,
          executor: str | None, region: str | None, trainer_args: list[str],
          notes: Notes) -> list[Spec]:
    """For each pool, ``{"containerSpec": …}`` or ``{"pythonPackageSpec": …}`` (``{}`` where
    the job's code cannot be translated: ``notes`` says why)."""
    master = mapping(ti.get("masterConfig"))
    master_image = text(master.get("imageUri"))
    out: list[Spec] = []
    package: Spec | None = None
    retired_said: set[JsonPath] = set()
    for pool in pools:
        image = text(pool.config.get("imageUri")) or master_image
        if "tpuTfVersion" in pool.config:
            notes.warn("dropped", (*pool.config_path, "tpuTfVersion"), "tpuTfVersion is not "
                       "sent: Vertex has no such field (the image decides the TensorFlow)")
        if image:
            own = text(pool.config.get("imageUri"))
            where = (*pool.config_path, "imageUri") if own else (TI, "masterConfig", "imageUri")
            if where not in retired_said:
                retired_said.add(where)
                _retired_container(image, where, cat, today, notes)
            out.append({"containerSpec": _container(pool, image, trainer_args, notes)})
            continue
        if package is None:
            package = _package(ti, pools, cat, today, executor, region, trainer_args, notes)
        out.append(package)
    if pools and package is None:
        _container_job_extras(ti, executor, notes)
    return out


def _container(pool: Pool, image: str, trainer_args: list[str], notes: Notes) -> Spec:
    spec: Spec = {"imageUri": image}
    command = strings(pool.config.get("containerCommand"))
    if command:
        spec["command"] = command
    args = (strings(pool.config.get("containerArgs")) or []) + trainer_args
    if args:
        spec["args"] = args
    return spec


def _retired_container(image: str, path: JsonPath, cat: VertexCatalog, today: date,
                       notes: Notes) -> None:
    """A prebuilt training image run as a container is still that image, under any registry:
    past its end of availability Vertex no longer runs it (D-POL)."""
    found = cat.image_of(image)
    if found is None or found.available(today):
        return
    notes.error("executor-image", path, f"{image} is the prebuilt image {found.name}, which "
                f"reached its end of availability on {found.until}: Vertex AI no longer runs "
                "it for new jobs", f"run an image of your own with {found.framework} installed")


def _container_job_extras(ti: dict[str, Any], executor: str | None, notes: Notes) -> None:
    """A job that runs containers only: package fields and the executor image are not used."""
    for key in ("runtimeVersion", "pythonVersion", "packageUris", "pythonModule"):
        if key in ti:
            notes.warn("dropped", (TI, key), f"{key} is not sent: the job runs its container "
                       "image (masterConfig.imageUri)")
    if executor:
        notes.warn("dropped", (), f"{FLAG} is not used: the job runs its container image "
                   "(masterConfig.imageUri)", location=notes.flag(FLAG))


def _package(ti: dict[str, Any], pools: list[Pool], cat: VertexCatalog, today: date,
             executor: str | None, region: str | None, trainer_args: list[str],
             notes: Notes) -> Spec:
    uris = strings(ti.get("packageUris")) or []
    module = text(ti.get("pythonModule"))
    if not uris or module is None:
        notes.error("package", (TI, "pythonModule" if module is None else "packageUris"),
                    "a job without a container image runs a Python package: it needs "
                    "packageUris and pythonModule",
                    "set both (--package-path builds and stages the package), or run a "
                    "container: masterConfig.imageUri")
        return {}
    if executor:
        _runtime_not_sent(ti, executor, notes)
        if not cat.is_prebuilt(executor):
            return {"containerSpec": _installing_container(executor, uris, module, trainer_args,
                                                           notes)}
        _check_prebuilt(executor, cat, today, notes)
        uri = executor
    else:
        found = _runtime_image(ti, pools, cat, today, region, notes)
        if found is None:
            return {}
        uri = found
    spec: Spec = {"executorImageUri": uri, "packageUris": uris, "pythonModule": module}
    if trainer_args:
        spec["args"] = trainer_args
    return {"pythonPackageSpec": spec}


def _runtime_not_sent(ti: dict[str, Any], executor: str, notes: Notes) -> None:
    written = [k for k in ("runtimeVersion", "pythonVersion") if k in ti]
    if written:  # what the user wrote, and what runs instead
        said = [f"{k} {ti[k]!r}" if isinstance(ti[k], str) else k for k in written]
        notes.note("runtime-version", (TI, written[0]),
                   f"{' and '.join(said)} {'are' if len(written) > 1 else 'is'} not sent: "
                   f"the package runs on {executor} ({FLAG})")


def _gcs_path(uri: str) -> str | None:
    """``gs://bucket/pkg.tar.gz`` -> ``/gcs/bucket/pkg.tar.gz`` (Cloud Storage FUSE)."""
    return "/gcs/" + uri[len("gs://"):] if uri.startswith("gs://") and len(uri) > 5 else None


def _installing_container(image: str, uris: list[str], module: str, trainer_args: list[str],
                          notes: Notes) -> Spec:
    paths = []
    for index, uri in enumerate(uris):
        path = _gcs_path(uri)
        if path is None:
            notes.error("package", (TI, "packageUris", index), f"{uri} is not in Cloud "
                        "Storage: a replica installs the package from the /gcs/ mount",
                        "stage it to gs://BUCKET/… (--package-path does)")
        paths.append(path or uri)
    import shlex  # only a package on a custom image needs it

    script = ("pip install --upgrade pip && pip3 install -q --user "
              + " ".join(shlex.quote(p) for p in paths)
              + f' && exec python3 -m {shlex.quote(module)} "$@"')
    notes.note("executor-image", (TI, "pythonModule"),
               f"the package runs on {image} ({FLAG}), which is not a Vertex prebuilt image: "
               f"each replica installs {', '.join(paths)} from the /gcs/ mount and runs "
               f"python3 -m {module} with the job's arguments, as the Vertex SDK does")
    spec: Spec = {"imageUri": image, "command": ["sh", "-c", script, "sh"]}
    if trainer_args:
        spec["args"] = trainer_args
    return spec


def _check_prebuilt(uri: str, cat: VertexCatalog, today: date, notes: Notes) -> None:
    where = notes.flag(FLAG)
    image = cat.image_of(uri)
    as_of = cat.sources["prebuilt_images"]["as_of"]
    if image is None:
        notes.warn("executor-image", (), f"{uri} is not among the prebuilt training images "
                   f"gpujob knows (as of {as_of}): its end of availability is not checked",
                   location=where)
        return
    tag = uri.rsplit("/", 1)[-1].partition(":")[2]
    if tag and tag != cat.tag:
        notes.warn("executor-image", (), f"{uri}: prebuilt images are supported only with "
                   f"the :{cat.tag} tag", location=where)
    if not image.available(today):
        still = cat.still_available(image, today)
        hint = (f"choose one still available ({', '.join(still[:3])}), or any other image "
                if still else f"no {image.framework} prebuilt image in gpujob's table is "
                f"available on {today.isoformat()}: give any image ")
        notes.error("executor-image", (), f"{uri}: the prebuilt image {image.name} reached "
                    f"its end of availability on {image.until}",
                    f"{hint}with Python ({FLAG}): gpujob then "
                    "installs the package from /gcs/ and runs the module",
                    location=where)
    elif image.past_support(today):
        notes.warn("executor-image", (), _past_support(image), location=where)


def _past_support(image: Image) -> str:
    return (f"the prebuilt image {image.name} is past its end of support "
            f"({image.support_until}: no more fixes) and can be used until "
            f"{image.until}")


def _runtime_image(ti: dict[str, Any], pools: list[Pool], cat: VertexCatalog, today: date,
                   region: str | None, notes: Notes) -> str | None:
    """The prebuilt image ``runtimeVersion`` maps to on ``today``, else None (an error)."""
    version, python = text(ti.get("runtimeVersion")), text(ti.get("pythonVersion"))
    path = (TI, "runtimeVersion")
    if version is None:
        notes.error("runtime-version", (TI, "pythonModule"), "a Python package job needs an "
                    "executor image on Vertex: runtimeVersion is not set",
                    f"pass {FLAG} IMAGE, or set runtimeVersion")
        return None
    kinds = {cat.accelerators[p.accelerator.type].kind for p in pools
             if p.accelerator and p.accelerator.type in cat.accelerators}
    kind = "gpu" if "gpu" in kinds else "tpu" if "tpu" in kinds else "cpu"
    image = cat.runtime_image(version, python, kind)
    if image is None:
        offered = sorted({i.python for i in cat.runtime_images(version) if kind in i.accelerators})
        what = f"runtimeVersion '{version}'" + (f" with Python {python}" if python else "")
        message = f"there is no Vertex prebuilt {kind.upper()} image for {what}"
        if offered:
            message += f" (its images run Python {' or '.join(offered)})"
        notes.error("runtime-version", (TI, "pythonVersion") if offered and python else path,
                    message, _fixes(cat, today, kind))
        return None
    if not image.available(today):
        notes.error("runtime-version", path, f"runtimeVersion '{version}' maps to the prebuilt "
                    f"image {image.name}, which reached its end of availability on "
                    f"{image.until}", _fixes(cat, today, kind))
        return None
    uri = cat.image_uri(image, region)
    message = (f"runtimeVersion '{version}' became the executor image {uri} (Python "
               f"{image.python}, available until {image.until})")
    if image.past_support(today):
        notes.warn("runtime-version", path, f"{message}; {_past_support(image)}")
    else:
        notes.note("runtime-version", path, message)
    return uri


def _fixes(cat: VertexCatalog, today: date, kind: str) -> str:
    newer = sorted({i.version for i in cat.images.values()
                    if i.framework == cat.runtime_framework and kind in i.accelerators
                    and i.available(today)}, key=lambda v: tuple(int(n) for n in v.split(".")))
    versions = (f"one of {', '.join(newer)}" if newer else
                f"none in gpujob's image table is available on {today.isoformat()}")
    return (f"pass {FLAG} IMAGE (a prebuilt image still available, or any image with Python: "
            "gpujob then installs the package from /gcs/ and runs the module), or set a newer "
            f"runtimeVersion ({versions})")
