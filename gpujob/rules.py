"""Compatibility rules over the catalog: what the service would refuse, or what would fail after
minutes in a queue, each reported at the value that causes it with a way to fix it.

Rules read the document defensively: a value the schema already refused is skipped (the schema's
finding says what is wrong with it), so one mistake gives one message.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from gpujob import gsuri, numbers
from gpujob.catalog import Catalog, _or, describe_list, load
from gpujob.config.document import Document
from gpujob.findings import Finding, JsonPath, Severity

if TYPE_CHECKING:
    from gpujob.check import CheckOptions

TI = "trainingInput"
KINDS = (("master", "master"), ("worker", "worker"), ("parameterServer", "parameter server"),
         ("evaluator", "evaluator"))
_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]{1,9})?)s$")


class Replica(NamedTuple):
    """One kind of replica as the config describes it (values of the wrong type become None)."""

    kind: str  # master, worker, parameterServer, evaluator
    label: str  # "parameter server"
    machine: str | None
    count: int  # master: 1 when masterType is set
    config: dict[str, Any]
    accel_type: str | None
    accel_count: int | None

    @property
    def type_path(self) -> JsonPath:
        return (TI, f"{self.kind}Type")

    @property
    def count_path(self) -> JsonPath:
        return (TI, f"{self.kind}Count")

    @property
    def config_path(self) -> JsonPath:
        return (TI, f"{self.kind}Config")

    @property
    def accel_path(self) -> JsonPath:
        return (*self.config_path, "acceleratorConfig")


def _int(value: Any) -> int | None:
    return numbers.as_count(value)  # the one number rule; None where the schema refuses it


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _zone_letters(zones: list[str]) -> str:
    """``us-central1-a, us-central1-c`` -> ``zones a and c``."""
    letters = [z.rsplit("-", 1)[-1] for z in zones]
    return f"zone{'s' if len(letters) > 1 else ''} {_or(letters).replace(' or ', ' and ')}"


def replicas(ti: dict[str, Any]) -> list[Replica]:
    out = []
    for kind, label in KINDS:
        config = ti.get(f"{kind}Config")
        config = config if isinstance(config, dict) else {}
        accel = config.get("acceleratorConfig")
        accel = accel if isinstance(accel, dict) else {}
        machine = _str(ti.get(f"{kind}Type"))
        count = (1 if machine else 0) if kind == "master" else (_int(ti.get(f"{kind}Count")) or 0)
        out.append(Replica(kind, label, machine, count, config, _str(accel.get("type")),
                           _int(accel.get("count"))))
    return out


class _Checker:
    def __init__(self, doc: Document, options: CheckOptions, refused: set[JsonPath]) -> None:
        self.doc = doc
        self.options = options
        self.refused = refused
        self.catalog: Catalog = load(options.catalog)
        ti = doc.data.get(TI)
        self.ti: dict[str, Any] = ti if isinstance(ti, dict) else {}
        self.tier = None if self.broken((TI, "scaleTier")) else _str(self.ti.get("scaleTier"))
        self.replicas = replicas(self.ti)
        self.findings: list[Finding] = []
        self.warned: set[str] = set()  # warnings given once per job (K80, a legacy type)

    # -- reporting -----------------------------------------------------------------------------

    def broken(self, path: JsonPath) -> bool:
        """The schema refused this value (or what holds it): stay quiet about it."""
        return any(path[:n] in self.refused for n in range(1, len(path) + 1))

    def emit(self, rule: str, path: JsonPath, message: str, hint: str | None = None, *,
             severity: Severity = "error", where: bool = False, key: bool = False) -> None:
        """``where``: a region/zone rule, downgraded to a warning with --no-region-check and for
        local runs."""
        if self.broken(path):
            return
        if where and (not self.options.region_check or self.options.local):
            severity = "warning"
            hint = (hint + "; " if hint else "") + "(a warning: region checks are off)"
        self.findings.append(Finding(severity, rule, message, path,
                                     self.doc.locate(path, key=key), hint))

    def warn_once(self, token: str, rule: str, path: JsonPath, message: str, hint: str) -> None:
        if token not in self.warned:
            self.warned.add(token)
            self.emit(rule, path, message, hint, severity="warning")

    # -- the rules -----------------------------------------------------------------------------

    def run(self) -> list[Finding]:
        if not self.ti:
            return []
        self.scale_tier()
        self.machine_types()
        for replica in self.replicas:
            self.accelerators(replica)
        self.tpus()
        self.containers()
        self.runtime()
        self.scheduling()
        self.region()
        if self.options.submit and not self.options.local:
            self.submit_requirements()
        return self.findings

    def scale_tier(self) -> None:
        tier = self.tier
        if tier is None:
            return
        if tier != "CUSTOM":
            for r in self.replicas:
                for path, what in ((r.type_path, f"{r.kind}Type"), (r.count_path, f"{r.kind}Count"),
                                   (r.accel_path, f"{r.kind}Config.acceleratorConfig")):
                    if self._present(path) and not (r.kind == "master" and "Count" in what):
                        self.emit("tier.cluster-fields", path,
                                  f"{what} is only used with scaleTier CUSTOM (this job is "
                                  f"{tier})", "set scaleTier: CUSTOM to choose machines "
                                  f"yourself, or remove {what}", key=True)
            return
        if not self._present((TI, "masterType")) and not self.misspelt("masterType"):
            self.emit("tier.master-required", (TI, "scaleTier"),
                      "scaleTier CUSTOM needs a masterType",
                      "set masterType to a machine type, e.g. n1-standard-8 (`gpujob gpus` "
                      "lists them with their GPUs)")
        for r in self.replicas[1:]:
            if self.broken(r.count_path):
                continue
            if r.count > 0 and not r.machine and not self.broken(r.type_path) and \
                    not self.misspelt(f"{r.kind}Type"):
                self.emit("replica.type-required", r.count_path,
                          f"{r.kind}Count is {r.count} but {r.kind}Type is not set",
                          f"set {r.kind}Type (for instance the master's type"
                          + (f", {self.replicas[0].machine})" if self.replicas[0].machine
                             else ")"))
            elif r.count == 0 and (r.machine or r.config):
                path = r.type_path if r.machine else r.config_path
                self.emit("replica.unused", path,
                          f"{r.kind}{'Type' if r.machine else 'Config'} is set but "
                          f"{r.kind}Count is 0: no {r.label} will run",
                          f"set {r.kind}Count, or remove the {r.label} settings",
                          severity="warning", key=True)

    def misspelt(self, field: str) -> bool:
        """trainingInput holds an unknown key that is a misspelling of ``field`` (the schema
        reports it with a did-you-mean; saying ``field`` is missing would repeat it)."""
        from gpujob.schema import did_you_mean

        return any(did_you_mean(key, [field]) == field
                   for key in self.ti if (TI, key) in self.refused)

    def _present(self, path: JsonPath) -> bool:
        node: Any = self.doc.data
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        return True

    def active(self) -> list[Replica]:
        """Replicas that will run."""
        return [r for r in self.replicas if r.count > 0 and r.machine]

    def machine_types(self) -> None:
        cat = self.catalog
        for r in self.replicas:
            if r.machine and r.machine not in cat.machine_types:
                self.emit("machine.unknown", r.type_path,
                          f"{r.machine!r} is not a machine type AI Platform Training offers",
                          self._machine_hint(r.machine))
        master = self.replicas[0]
        m = cat.machine_types.get(master.machine or "")
        for r in self.replicas[1:]:
            other = cat.machine_types.get(r.machine or "")
            if m and other and r.count > 0 and "tpu" not in (m.category, other.category) and \
                    m.category != other.category:
                names = {"legacy": "a legacy type", "compute_engine": "a Compute Engine type"}
                self.emit("machine.mixed", r.type_path,
                          f"{r.kind}Type {other.name} is {names[other.category]} but masterType "
                          f"{m.name} is {names[m.category]}",
                          "a job uses Compute Engine types throughout, or legacy types "
                          "throughout")
        for r in self.active():
            machine = cat.machine_types.get(r.machine or "")
            if machine and machine.category == "legacy":
                self.warn_once(f"legacy:{machine.name}", "machine.legacy", r.type_path,
                               f"{machine.name} is a legacy machine type, superseded by "
                               "Compute Engine machine types", self._modern(machine.built_in))

    def _machine_hint(self, name: str) -> str:
        """Same family (n1-standard-2 -> the n1-standard types accepted), else a close spelling,
        else the families there are."""
        from gpujob.schema import did_you_mean

        compute = [m.name for m in self.catalog.compute_engine_types()]
        family = name.rsplit("-", 1)[0] + "-" if "-" in name else None
        siblings = [m for m in compute if family and m.startswith(family)]
        if siblings:
            return f"the {family[:-1]} types it accepts: {', '.join(siblings)}"
        families = sorted({m.split("-")[0] for m in compute})
        if family and name.split("-")[0] not in families:
            guess = did_you_mean(name, compute)
            return (f"did you mean {guess!r}?" if guess else
                    f"it accepts {' and '.join(f + '-…' for f in families)} Compute Engine types "
                    "(`gpujob gpus` lists them) and legacy types such as standard_gpu")
        guess = did_you_mean(name, list(self.catalog.machine_types))
        return (f"did you mean {guess!r}?" if guess else
                f"Compute Engine types: {describe_list(compute)} (`gpujob gpus` lists them)")

    def _modern(self, built_in: tuple[str, int] | None) -> str:
        if built_in is None:
            return "use a Compute Engine type such as n1-standard-8 or n1-highmem-8"
        gpu, count = built_in
        fits = self.catalog.machines_for(gpu, count)
        return (f"for {count} × {self.catalog.short(gpu)}, use "
                f"{describe_list(fits, 3) if fits else 'a Compute Engine type'} with "
                f"acceleratorConfig {{count: {count}, type: {gpu}}}, or a newer GPU")

    def accelerators(self, r: Replica) -> None:
        cat = self.catalog
        machine = cat.machine_types.get(r.machine or "")
        gpu = cat.gpu_types.get(r.accel_type or "")
        type_path, count_path = (*r.accel_path, "type"), (*r.accel_path, "count")
        if (r.machine and machine is None) or self.tier not in (None, "CUSTOM"):
            return  # unknown machine or non-CUSTOM tier: reported already
        if r.accel_type is None:
            if machine and machine.family == "a2" and machine.built_in and r.count > 0:
                builtin_type, n = machine.built_in
                self.emit("gpu.a2-built-in", r.type_path,
                          f"{machine.name} has {n} × {cat.short(builtin_type)} built in; state "
                          "them in acceleratorConfig",
                          f"add {r.kind}Config.acceleratorConfig {{count: {n}, type: "
                          f"{builtin_type}}}", severity="warning")
            return
        if gpu is None or machine is None or gpu.kind == "tpu" or machine.category == "tpu":
            return  # unknown type (schema), no machine (tier rule) or TPU (tpu rules)
        if machine.category == "legacy":
            built = (f"its GPUs are built in ({machine.built_in[1]} × "
                     f"{cat.short(machine.built_in[0])})" if machine.built_in else "it has no GPUs")
            self.emit("gpu.legacy-machine", r.accel_path,
                      f"{machine.name} is a legacy machine type: {built} and it takes no "
                      "acceleratorConfig",
                      "remove acceleratorConfig, or use a Compute Engine machine type (e.g. "
                      "n1-standard-8) with acceleratorConfig", key=True)
            return
        count = r.accel_count
        if machine.family == "a2" and machine.built_in:
            builtin_type, n = machine.built_in
            if gpu.api_name != builtin_type:
                self.emit("gpu.machine", type_path,
                          f"{machine.name} has {n} × {cat.short(builtin_type)} built in and "
                          f"takes no {gpu.name}",
                          f"use acceleratorConfig {{count: {n}, type: {builtin_type}}}, or an "
                          f"N1 machine type for {gpu.name} (`gpujob gpus --gpu {gpu.name}`)")
            elif count is not None and count != n:
                a2 = [m.name for m in cat.compute_engine_types() if m.built_in and
                      m.built_in == (builtin_type, count)]
                self.emit("gpu.count", count_path,
                          f"{machine.name} has exactly {n} × {gpu.name}, not {count}",
                          f"set count: {n}" + (f", or use {a2[0]} for {count} × {gpu.name}"
                                               if a2 else ""))
            return
        if gpu.built_in_only:
            hosts = [m.name for m in cat.compute_engine_types() if m.built_in and
                     m.built_in[0] == gpu.api_name]
            self.emit("gpu.machine", type_path,
                      f"{gpu.name} GPUs come only built into {describe_list(hosts, 3)}, not "
                      f"on {machine.name}",
                      "use " + ", ".join(f"{m} for {cat.machine_types[m].built_in[1]}"
                                         for m in hosts if cat.machine_types[m].built_in))
            return
        valid = machine.gpus.get(gpu.api_name, ())
        if not valid:
            takers = [m.name for m in cat.compute_engine_types() if gpu.api_name in m.gpus]
            top = max(gpu.counts) if gpu.counts else None
            reason = cat.explain(machine.name, gpu.api_name, top) if top else None
            self.emit("gpu.machine", type_path,
                      f"{machine.name} cannot take {gpu.name} GPUs"
                      + (f": {reason}" if reason else ""),
                      f"machine types that take {gpu.name}: {describe_list(takers, 6)} "
                      f"(`gpujob gpus --gpu {gpu.name}`)")
        elif count is not None and count not in valid:
            reason = cat.explain(machine.name, gpu.api_name, count)
            fits = cat.machines_for(gpu.api_name, count)
            hint = f"use {_or(list(valid))} × {gpu.name} on {machine.name}"
            if fits:
                hint += f", or {count} × {gpu.name} on {describe_list(fits, 4)}"
            self.emit("gpu.count", count_path,
                      f"{machine.name} cannot take {count} × {gpu.name}"
                      + (f": {reason}" if reason else ""), hint)
        if gpu.deprecated and r.count > 0:
            self._deprecated(gpu.api_name, type_path)

    def _deprecated(self, gpu_name: str, path: JsonPath) -> None:
        gpu = self.catalog.gpu_types[gpu_name]
        self.warn_once(f"deprecated:{gpu_name}", "gpu.deprecated", path,
                       gpu.deprecated or f"{gpu.name} is deprecated",
                       "prefer T4, V100 or A100 (`gpujob gpus` lists where each is offered)")

    def tpus(self) -> None:
        cat = self.catalog
        for r in self.replicas:
            machine = cat.machine_types.get(r.machine or "")
            accel = cat.gpu_types.get(r.accel_type or "")
            is_tpu_machine = machine is not None and machine.category == "tpu"
            if is_tpu_machine and r.kind != "worker":
                self.emit("tpu.worker-only", r.type_path,
                          f"{r.kind}Type cannot be cloud_tpu: a Cloud TPU runs as the one worker",
                          "set masterType to a Compute Engine type, workerType: cloud_tpu and "
                          "workerCount: 1")
                continue
            if accel and accel.kind == "tpu" and not is_tpu_machine and r.machine:
                self.emit("tpu.machine", (*r.accel_path, "type"),
                          f"{accel.name} is attached only to a cloud_tpu worker, not to "
                          f"{r.kind}Type {r.machine}",
                          "use workerType: cloud_tpu with workerCount: 1 and put the TPU in "
                          "workerConfig.acceleratorConfig")
            if not is_tpu_machine:
                continue
            if r.count != 1 and not self.broken(r.count_path):
                self.emit("tpu.worker-count", r.count_path if self._present(r.count_path)
                          else r.type_path,
                          f"a cloud_tpu job has exactly one TPU worker (workerCount is {r.count})",
                          "set workerCount: 1")
            if accel and accel.kind == "gpu":
                self.emit("tpu.gpu", (*r.accel_path, "type"),
                          f"a cloud_tpu worker takes no GPUs ({accel.name})",
                          "use type TPU_V2 or TPU_V3 with count 8, or leave acceleratorConfig "
                          "out")
            elif accel and accel.not_for_training:
                self.emit("tpu.type", (*r.accel_path, "type"), accel.not_for_training)
            elif accel and r.accel_count is not None and r.accel_count not in accel.counts:
                self.emit("tpu.count", (*r.accel_path, "count"),
                          f"a Cloud TPU worker has {_or(list(accel.counts))} {accel.name} cores, "
                          f"not {r.accel_count}", f"set count: {accel.counts[0]}")
            image = _str(r.config.get("imageUri")) or _str(
                self.replicas[0].config.get("imageUri"))
            if image and not _str(r.config.get("tpuTfVersion")):
                self.emit("tpu.tf-version", r.config_path,
                          "a cloud_tpu worker running a custom container needs "
                          "workerConfig.tpuTfVersion",
                          "set tpuTfVersion to the runtime version matching the container's "
                          "TensorFlow, e.g. '2.11'", key=True)

    def containers(self) -> None:
        master_image = _str(self.replicas[0].config.get("imageUri"))
        runtime = self.ti.get("runtimeVersion")
        if master_image and runtime is not None:
            self.emit("container.image-and-runtime", (TI, "runtimeVersion"),
                      "runtimeVersion and masterConfig.imageUri exclude each other",
                      "a custom container brings its own runtime: remove runtimeVersion (or "
                      "the image, to run on an AI Platform runtime)", key=True)
        elif not master_image and runtime is None:
            self.emit("container.image-or-runtime", (TI,),
                      "the job needs a runtimeVersion or a custom container "
                      "(masterConfig.imageUri)",
                      "set runtimeVersion: '2.11' (with pythonVersion: '3.7'), or pass "
                      "--runtime-version, or give an image with --master-image-uri", key=True)
        for r in self.replicas:
            image = _str(r.config.get("imageUri"))
            if image and not master_image and r.kind != "master":
                self.emit("container.worker-image", (*r.config_path, "imageUri"),
                          f"{r.kind}Config.imageUri needs masterConfig.imageUri: a job runs "
                          "custom containers throughout, or a runtime version throughout",
                          "set masterConfig.imageUri too, or remove this image")
            for field in ("containerCommand", "containerArgs"):
                if field not in r.config:
                    continue
                path = (*r.config_path, field)
                if not (image or master_image):
                    self.emit("container.command-without-image", path,
                              f"{field} applies only to a custom container, and this "
                              f"{r.label} has no image",
                              "set imageUri, or move the arguments to trainingInput.args",
                              key=True)
                elif "args" in self.ti:
                    self.emit("container.command-with-args", path,
                              f"{field} and trainingInput.args exclude each other",
                              f"keep {field} (the container's arguments), or args", key=True)

    def runtime(self) -> None:
        version, python = _str(self.ti.get("runtimeVersion")), _str(self.ti.get("pythonVersion"))
        versions = self.catalog.runtime_versions
        if version is None or self.broken((TI, "runtimeVersion")):
            return
        if version not in versions:
            self.emit("runtime.unknown", (TI, "runtimeVersion"),
                      f"runtime version {version!r} is not offered for training",
                      f"use one of {', '.join(versions)} (newest: {list(versions)[-1]})")
        elif python and python not in versions[version]:
            self.emit("runtime.python", (TI, "pythonVersion"),
                      f"Python {python} is not available with runtime {version}",
                      f"use pythonVersion {_or(list(versions[version]))}")

    def scheduling(self) -> None:
        sched = self.ti.get("scheduling")
        wait = sched.get("maxWaitTime") if isinstance(sched, dict) else None
        match = _DURATION.match(wait) if isinstance(wait, str) else None
        if match and float(match.group(1)) < 1800:
            self.emit("scheduling.max-wait", (TI, "scheduling", "maxWaitTime"),
                      f"maxWaitTime {wait} is under the minimum of 1800s (30 minutes)",
                      "set at least 1800s, or remove maxWaitTime for no limit")

    # -- where the job runs --------------------------------------------------------------------

    def job_gpus(self) -> list[tuple[str, JsonPath, str]]:
        """(GPU type, path of what asks for it, who asks) for every GPU the job will use."""
        cat = self.catalog
        out = []
        tier_gpu = cat.scale_tiers.get(self.tier or "", {}).get("gpu")
        if tier_gpu:
            out.append((tier_gpu["type"], (TI, "scaleTier"), f"scaleTier {self.tier}"))
        for r in self.active() if self.tier in (None, "CUSTOM") else []:
            machine = cat.machine_types.get(r.machine or "")
            gpu = cat.gpu_types.get(r.accel_type or "")
            if gpu and gpu.kind == "gpu" and machine and machine.category == "compute_engine":
                out.append((gpu.api_name, (*r.accel_path, "type"), f"the {r.label}"))
            elif machine and machine.category == "legacy" and machine.built_in:
                out.append((machine.built_in[0], r.type_path, f"the {r.label}'s {machine.name}"))
        for gpu_name, path, _ in out:
            if cat.gpu_types[gpu_name].deprecated:
                self._deprecated(gpu_name, path)
        return out

    def region(self) -> None:
        cat = self.catalog
        gpus = self.job_gpus()
        region = _str(self.ti.get("region"))
        path = (TI, "region")
        if region is None or self.broken(path):
            return
        if region not in cat.regions:
            from gpujob.schema import did_you_mean

            zone_of = region.rsplit("-", 1)[0]
            guess = did_you_mean(region, list(cat.regions))
            if zone_of in cat.regions and len(region) - len(zone_of) == 2:
                hint = f"{region} looks like a zone; the job takes its region, {zone_of}"
            elif guess:
                hint = f"did you mean {guess!r}?"
            else:
                hint = f"regions: {describe_list(list(cat.regions), 30)}"
            self.emit("region.unknown", path,
                      f"{region!r} is not a region AI Platform Training runs in", hint,
                      where=True)
            return
        if not gpus:
            return
        offered = cat.region_gpus(region)
        if not offered:
            types = sorted({g for g, _, _ in gpus})
            elsewhere = [r for r in cat.gpu_regions() if set(types) <= cat.region_gpus(r)]
            self.emit("region.no-gpus", path,
                      f"{region} offers no GPUs for training, and {gpus[0][2]} asks for "
                      f"{cat.short(gpus[0][0])}",
                      f"regions with {', '.join(cat.short(t) for t in types)}: "
                      f"{describe_list(elsewhere, 6)}", where=True)
            return
        missing = [(g, p, who) for g, p, who in gpus if g not in offered]
        for gpu_name, gpu_path, who in missing:
            self.emit("region.gpu", gpu_path,
                      f"{cat.short(gpu_name)} GPUs ({who}) are not offered in {region}",
                      f"regions with {cat.short(gpu_name)}: "
                      f"{describe_list(cat.regions_with(gpu_name), 8)}; {region} offers "
                      f"{', '.join(sorted(cat.short(g) for g in offered))}", where=True)
        types = sorted({g for g, _, _ in gpus})
        if missing or len(types) < 2:
            return
        zones = cat.regions[region]
        if any(set(types) <= z for z in zones.values()):
            return
        names = [cat.short(t) for t in types]
        each = ", ".join(f"{cat.short(t)} in {_zone_letters(cat.zones_with(region, t))}"
                         for t in types)
        elsewhere = []
        for other in cat.regions:
            zones = [z for z, offers in cat.regions[other].items() if set(types) <= offers]
            if zones:
                elsewhere.append(f"{other} ({_zone_letters(zones)})")
        self.emit("zone.gpu-mix", path,
                  f"no zone of {region} offers {_or(names).replace(' or ', ' and ')} together, "
                  "and a job's GPUs must all be in one zone",
                  f"in {region}, {each}; use GPU types one zone shares"
                  + (f", or a region with a zone that has them all: "
                     f"{describe_list(elsewhere, 4)}" if elsewhere else ""), where=True)

    # -- at submit time ------------------------------------------------------------------------

    def submit_requirements(self) -> None:
        ti = self.ti
        if "region" not in ti:
            self.emit("submit.region", (TI,), "no region for the job",
                      "pass --region (or set GPUJOB_REGION, or trainingInput.region)", key=True)
        if not _str(self.replicas[0].config.get("imageUri")):
            if not ti.get("packageUris"):
                self.emit("submit.packages", (TI,), "no trainer package to run",
                          "pass --package-path DIR (or --packages), or set "
                          "trainingInput.packageUris; a custom container needs none", key=True)
            if "pythonModule" not in ti:
                self.emit("submit.module", (TI,), "no Python module to run",
                          "pass --module-name (e.g. trainer.task), or set "
                          "trainingInput.pythonModule", key=True)
        job_dir = _str(ti.get("jobDir"))
        if job_dir and not job_dir.startswith("gs://"):
            self.emit("submit.job-dir", (TI, "jobDir"),
                      f"jobDir {job_dir!r} is not a Cloud Storage path",
                      "a cloud job writes to gs://BUCKET/PATH (a local directory works only "
                      "with --local)")
        elif job_dir and gsuri.split(job_dir) is None:
            self.emit("submit.job-dir", (TI, "jobDir"),
                      f"jobDir {job_dir!r} names no valid bucket",
                      f"write gs://BUCKET/PATH; {gsuri.BUCKET_RULES}")


def check(doc: Document, options: CheckOptions, schema_findings: list[Finding]) -> list[Finding]:
    """All rule findings for one document."""
    refused = {f.path for f in schema_findings if f.is_error}
    return _Checker(doc, options, refused).run()

