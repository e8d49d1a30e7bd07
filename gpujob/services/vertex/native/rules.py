"""The Vertex catalog's rules over a native config, pool by pool: what Vertex would refuse at
create time (a machine with accelerators it does not take, a pool without a machine or code, an
executor image that is not a prebuilt one or is past its availability, a TPU machine beside
other pools, a region without training) and what it would run unwisely (an accelerator past its
end of support, a GPU not listed in the region: a proxy, so a warning). Each finding is at the
value it is about; values the schema refused are left to its message."""

from __future__ import annotations

from datetime import date
from typing import Any

from gpujob.config import native_form as shapes
from gpujob.config.document import Document
from gpujob.config.job import as_str
from gpujob.findings import Finding, JsonPath, Location
from gpujob.numbers import as_count
from gpujob.services.vertex.catalog import VertexCatalog
from gpujob.services.vertex.records import Image
from gpujob.services.vertex.rules import scheduling
from gpujob.services.vertex.rules.machine_rules import gpus_unlisted, region_problem
from gpujob.services.vertex.translate.notes import mapping
from gpujob.suggest import did_you_mean, or_list

RULES = "vertex"
_STOPPING = ("decayCurveStoppingSpec", "medianAutomatedStoppingSpec",
             "convexAutomatedStoppingSpec")
_GRID_TYPES = ("integerValueSpec", "categoricalValueSpec", "discreteValueSpec")


class _Findings:
    def __init__(self, doc: Document, refused: set[JsonPath], relax_region: bool) -> None:
        self.doc, self.refused, self.relax_region = doc, refused, relax_region
        self.out: list[Finding] = []

    def add(self, severity: str, rule: str, path: JsonPath, message: str,
            hint: str | None = None, *, key: bool = False, region: bool = False,
            where: Location | None = None) -> None:
        if any(path[:n] in self.refused for n in range(len(path) + 1)):
            return
        if region and self.relax_region and severity == "error":
            severity, hint = "warning", (hint + "; " if hint else "") + \
                "(a warning: region checks are off)"
        self.out.append(Finding(severity, f"{RULES}.{rule}", message, path,  # type: ignore[arg-type]
                                where or self.doc.locate(path, key=key), hint))

    def misspelt(self, mapping_: dict[str, Any], path: JsonPath, field: str) -> bool:
        """The mapping at ``path`` holds an unknown key that may be a misspelling of ``field``
        (the schema says so; saying ``field`` is missing would repeat it). A clear misspelling
        stands in for its key (``gpujob.checks.typos``): this is about the others."""
        return any(did_you_mean(key, [field]) == field for key in mapping_
                   if (*path, key) in self.refused)


def check(doc: Document, found: str, cat: VertexCatalog, today: date, refused: set[JsonPath],
          *, region: str | None, region_origin: Location, relax_region: bool) -> list[Finding]:
    """The catalog's findings for a native config of kind ``found``."""
    f = _Findings(doc, refused, relax_region)
    here, pools = shapes.pools(doc.data)
    if pools is not None:
        _pools(f, pools, here, cat, today)
        if region:
            _region(f, pools, here, region, region_origin, cat)
    if found == "HyperparameterTuningJob":
        _study(f, mapping(doc.data.get("studySpec")), ("studySpec",))
    spec_path = shapes.SPEC_PATHS[found]
    spec = doc.data
    for key in spec_path:
        spec = mapping(spec.get(str(key)))
    f.out += scheduling.check(mapping(spec), spec_path, cat, lambda path: None if any(
        path[:n] in refused for n in range(len(path) + 1)) else (path, doc.locate(path)),
        region)
    return f.out


def _pools(f: _Findings, pools: list[Any], here: JsonPath, cat: VertexCatalog,
           today: date) -> None:
    if not pools:
        f.add("error", "pool", here, "workerPoolSpecs is empty: a job needs its first pool",
              "describe the primary replica's machine and code in workerPoolSpecs[0]")
        return
    used = [i for i, pool in enumerate(pools) if pool]
    if 0 not in used:
        f.add("error", "pool", (*here, 0), "the first worker pool is empty: it runs the "
              "primary replica (workerpool0)", "describe its machine and code; only later "
              "pools may be empty placeholders ({})")
    for i in used:
        pool = mapping(pools[i])
        path = (*here, i)
        _code(f, pool, path, cat, today)
        machine = mapping(pool.get("machineSpec"))
        if as_str(machine.get("machineType")) is None:
            if not f.misspelt(machine, (*path, "machineSpec"), "machineType"):
                f.add("error", "pool", path, f"worker pool {i} has no machineSpec.machineType",
                      "name the machine type of its replicas (gpujob gpus --service vertex "
                      "lists them)", key=True)
            continue
        _machine(f, machine, (*path, "machineSpec"), cat, today)
        _tpu(f, pool, path, len(used), cat)


def _machine(f: _Findings, machine: dict[str, Any], path: JsonPath, cat: VertexCatalog,
             today: date) -> None:
    name = machine["machineType"]
    accel, count = as_str(machine.get("acceleratorType")), as_count(machine.get("acceleratorCount"))
    if name not in cat.machine_types:
        guess = did_you_mean(name, list(cat.machine_types))
        f.add("error", "machine", (*path, "machineType"), f"{name} is not a machine type "
              "Vertex AI custom training offers", f"did you mean {guess!r}?" if guess else
              "gpujob gpus --service vertex lists them")
        return
    if (machine.get("acceleratorType") is not None and accel is None) or \
            (machine.get("acceleratorCount") is not None and count is None):
        return  # a value the schema refused: its finding says what is wrong
    if any(field not in machine and f.misspelt(machine, path, field)
           for field in ("acceleratorType", "acceleratorCount")):
        return  # one the schema reported misspelt, but not clearly: its finding says so
    problem = cat.problem(name, accel, count)
    if problem:
        taken = accel in cat.machine_types[name].accelerators  # then the count is wrong
        where = "acceleratorCount" if taken and count else "acceleratorType" if accel else \
            "acceleratorCount" if count else "machineType"
        takers = cat.machines_for(accel) if accel else []
        f.add("error", "machine", (*path, where), problem,
              f"`gpujob gpus --service vertex --gpu {cat.accelerators[accel].name.lower()}` "
              "lists the machine types that take it and their counts"
              if accel is not None and accel in cat.accelerators and takers else None)
        return
    info = cat.accelerators.get(accel or "")
    if info and info.end_of_support and today >= info.end_of_support:
        f.add("warning", "accelerator", (*path, "acceleratorType"), f"{accel} reached its end "
              f"of support on Vertex AI on {info.end_of_support.isoformat()}",
              f"use {info.replacement}" if info.replacement else None)


def _code(f: _Findings, pool: dict[str, Any], path: JsonPath, cat: VertexCatalog,
          today: date) -> None:
    kinds = [k for k in ("containerSpec", "pythonPackageSpec") if k in pool]
    if len(kinds) != 1:
        f.add("error", "code", path, f"worker pool {path[-1]} has "
              f"{'both containerSpec and pythonPackageSpec' if kinds else 'no code to run'}: "
              "a pool runs exactly one of them", "containerSpec runs an image; "
              "pythonPackageSpec runs a Python package on a prebuilt executor image", key=True)
        return
    uri = as_str(mapping(pool.get("pythonPackageSpec")).get("executorImageUri"))
    if uri is not None:
        _executor(f, uri, (*path, "pythonPackageSpec", "executorImageUri"), cat, today)
    uri = as_str(mapping(pool.get("containerSpec")).get("imageUri"))
    if uri is not None:
        _container(f, uri, (*path, "containerSpec", "imageUri"), cat, today)


def _container(f: _Findings, uri: str, path: JsonPath, cat: VertexCatalog, today: date) -> None:
    """A prebuilt training image run as a plain container is still that image: past its end of
    availability it "can no longer be used" (D-POL), whichever spec names it."""
    image = cat.image_of(uri)
    if image is None or image.available(today):
        return
    f.add("error", "executor-image", path, f"{uri} is the prebuilt image {image.name}, which "
          f"reached its end of availability on {image.until}: "
          "Vertex AI no longer runs it for new jobs",
          _still(image, cat, today, f"run an image of your own with {image.framework} "
                 "installed (a containerSpec runs any image)"))


def _still(image: Image, cat: VertexCatalog, today: date, instead: str) -> str:
    """A hint: the images of the same framework and device still available, else ``instead``
    (what to run in their place)."""
    still = cat.still_available(image, today)
    if still:
        return f"use one still available ({', '.join(still[:3])}), or {instead}"
    return (f"{instead}: no {image.framework} prebuilt image gpujob "
            f"knows (as of {cat.sources['prebuilt_images']['as_of']}) is still available")


def _executor(f: _Findings, uri: str, path: JsonPath, cat: VertexCatalog, today: date) -> None:
    """DISC: executorImageUri must be one of the prebuilt training images (D-PBC's table)."""
    retired = cat.retired_registry(uri)
    if retired is not None and cat.image_of(uri) is None:
        f.add("error", "executor-image", path, f"{uri} is not a Vertex prebuilt training image: "
              f"{retired} is an older location, and the prebuilt images Vertex offers are "
              f"published under {or_list(cat.registries)}", "name an available image there, as "
              "https://cloud.google.com/vertex-ai/docs/training/pre-built-containers lists it")
        return
    if not cat.is_prebuilt(uri):
        f.add("error", "executor-image", path, f"{uri} is not a Vertex prebuilt training "
              "image: a pythonPackageSpec runs only on those", "run your own image as "
              "containerSpec.imageUri (gpujob convert --executor-image-uri writes the command "
              "that installs the package and runs its module)")
        return
    image = cat.image_of(uri)
    if image is None:
        f.add("warning", "executor-image", path, f"{uri} is not among the prebuilt training "
              f"images gpujob knows (as of {cat.sources['prebuilt_images']['as_of']}): its end "
              "of availability is not checked")
        return
    tag = uri.rsplit("/", 1)[-1].partition(":")[2]
    if tag and tag != cat.tag:
        f.add("warning", "executor-image", path, f"prebuilt images are supported only with "
              f"the :{cat.tag} tag, not :{tag}")
    if not image.available(today):
        # eu.gcr.io's images moved to europe-docker.pkg.dev, asia.gcr.io's to asia-, the rest us-
        host = retired.split(".", 1)[0] if retired else ""
        now = next((r for r in cat.registries if host in ("eu", "asia")
                    and r.startswith(("europe" if host == "eu" else host) + "-")),
                   cat.registries[0])
        moved = f" ({retired} is an older location of {now})" if retired else ""
        f.add("error", "executor-image", path, f"the prebuilt image {image.name} reached its "
              f"end of availability on {image.until}{moved}",
              _still(image, cat, today, f"run an image with {image.framework} and Python "
                     "as a containerSpec"))
    elif image.past_support(today):
        f.add("warning", "executor-image", path, f"the prebuilt image {image.name} is past its "
              f"end of support ({image.support_until}: no more fixes) and can be "
              f"used until {image.until}")


def _tpu(f: _Findings, pool: dict[str, Any], path: JsonPath, used: int,
         cat: VertexCatalog) -> None:
    name = mapping(pool.get("machineSpec")).get("machineType")
    machine = cat.machine_types.get(name) if isinstance(name, str) else None
    replicas = as_count(pool.get("replicaCount"))
    if machine is None or not machine.single_replica or (used == 1 and (replicas or 1) == 1):
        return
    f.add("error", "tpu", (*path, "machineSpec", "machineType"), f"Vertex runs {name} only as "
          "a job's single worker pool with one replica",
          "put the whole program in one pool with replicaCount 1")


def _region(f: _Findings, pools: list[Any], here: JsonPath, region: str, origin: Location,
            cat: VertexCatalog) -> None:
    """vertex.region and vertex.region-gpu, as for an AI Platform config (the GPUs' warning
    left out with --no-region-check and in local runs, once per machine and GPU)."""
    problem = region_problem(region, cat)
    if problem is not None:
        f.add("error", "region", (), *problem, region=True, where=origin)
        return
    if f.relax_region:
        return
    warned: set[tuple[str, str | None]] = set()
    for i, pool in enumerate(pools):
        machine = mapping(mapping(pool).get("machineSpec"))
        name, accel = as_str(machine.get("machineType")), as_str(machine.get("acceleratorType"))
        if name is None or (name, accel) in warned:
            continue
        unlisted = gpus_unlisted(region, name, accel, as_count(machine.get("acceleratorCount")),
                                 f"worker pool {i}", cat)
        if unlisted is not None:
            warned.add((name, accel))
            f.add("warning", "region-gpu", (*here, i, "machineSpec", "acceleratorType"),
                  *unlisted)


def _study(f: _Findings, study: dict[str, Any], path: JsonPath) -> None:
    """DISC: at most one automated stopping spec; GRID_SEARCH only over integer, categorical
    and discrete parameters; parameter ids unique."""
    stopping = [k for k in _STOPPING if k in study]
    for extra in stopping[1:]:
        f.add("error", "study", (*path, extra), f"{extra} and {stopping[0]} are both set: a "
              "study takes at most one automated stopping rule", "remove one of them", key=True)
    params = found if isinstance(found := study.get("parameters"), list) else []
    seen: set[str] = set()
    for i, param in enumerate(params):
        spec = mapping(param)
        where = (*path, "parameters", i)
        ident = spec.get("parameterId")
        if isinstance(ident, str) and ident in seen:
            f.add("error", "study", (*where, "parameterId"), f"parameterId {ident!r} is used "
                  "twice: each parameter needs its own")
        if isinstance(ident, str):
            seen.add(ident)
        if study.get("algorithm") == "GRID_SEARCH" and "doubleValueSpec" in spec:
            f.add("error", "study", (*where, "doubleValueSpec"), "GRID_SEARCH searches integer, "
                  "categorical and discrete parameters only", "give the values to try as a "
                  "discreteValueSpec, or choose another algorithm", key=True)
