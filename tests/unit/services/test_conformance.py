"""Every service, the registered ones and the tests' toy service (``tests/helpers/toy_service``),
holds to the protocol: each command either works for it or ends in a usage error (exit 2) that
names the capability it lacks and the reason; none ends in an internal error (exit 70).

Nothing here reaches a server: the commands that need one find no credentials and no cluster,
and every Google API address is a closed port on 127.0.0.1 (exit 3 for a service that has the
capability)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpujob import services
from gpujob.errors import EXIT_INTERNAL, EXIT_USAGE
from gpujob.services.capabilities import DEFAULT_LACKS, Capability, ServiceBase, markdown

ROOT = Path(__file__).resolve().parents[3]

SMALL = """\
trainingInput:
  scaleTier: CUSTOM
  region: {region}
  masterType: {machine}
  masterConfig:
    imageUri: gcr.io/p/trainer:1
    acceleratorConfig: {{count: 1, type: {gpu}}}
"""
CONFIGS = {"toy": {"region": "toy-east1", "machine": "toy-gpu", "gpu": "TOY_GPU"}}
# where its jobs are (PLACE): a project, and Vertex AI's region; GKE's are in the kubeconfig's
# cluster
PLACES = {"vertex": ("--project", "p", "--region", "us-central1"), "gke": ()}
T4 = {"region": "us-central1", "machine": "n1-standard-8", "gpu": "NVIDIA_TESLA_T4"}
SERVICES = [*services.SERVICES, "toy"]
CLOSED = "http://127.0.0.1:9/"  # nothing listens on the discard port
OFFLINE = {**{f"GPUJOB_{api}_ENDPOINT": CLOSED for api in (
    "AIPLATFORM", "ML", "COMPUTE", "ARTIFACTREGISTRY", "CLOUDBILLING", "SERVICEUSAGE", "LOGGING",
    "STORAGE", "IAM")}, "GPUJOB_MAX_ATTEMPTS": "1", "KUBECONFIG": "/nonexistent/kubeconfig"}

# each command, and the capability it needs (None: every service runs it); CONFIG, NAME and
# PLACE stand for the config file, the service and where its jobs are
COMMANDS: list[tuple[str, Capability | None, tuple[str, ...]]] = [
    ("validate", None, ("validate", "CONFIG", "--service", "NAME")),
    ("submit --dry-run", None, ("submit", "CONFIG", "--service", "NAME", "--dry-run", "PLACE",
                                "--job-id", "j1")),
    ("gpus", None, ("gpus", "--service", "NAME")),
    ("rules", None, ("rules", "--service", "NAME")),
    ("convert", Capability.CONVERT, ("convert", "CONFIG", "--to", "NAME")),
    ("local", Capability.LOCAL, ("local", "CONFIG", "--service", "NAME")),
    ("submit --local", Capability.LOCAL, ("submit", "CONFIG", "--service", "NAME", "--local")),
    ("submit", Capability.JOBS, ("submit", "CONFIG", "--service", "NAME", "PLACE",
                                 "--job-id", "j1")),
    *((verb, Capability.JOBS, (verb, "j1", "--service", "NAME", "PLACE"))
      for verb in ("describe", "cancel", "wait", "logs")),
    ("list", Capability.JOBS, ("list", "--service", "NAME", "PLACE")),
    ("preflight", Capability.PREFLIGHT, ("preflight", "CONFIG", "--service", "NAME", "PLACE")),
    ("submit --strategy A,B", Capability.PLACEMENT, (
        "submit", "CONFIG", "--service", "NAME", "--dry-run", "--strategy", "spot,standard")),
    ("catalog refresh", Capability.REFRESH, ("catalog", "refresh", "--service", "NAME",
                                             "--project", "p")),
    ("submit --recover", Capability.RECOVER, ("submit", "CONFIG", "--service", "NAME", "PLACE",
                                              "--job-id", "j1", "--recover", "1")),
    ("wait --recover", Capability.RECOVER, ("wait", "j1", "--service", "NAME", "PLACE",
                                            "--recover", "1")),
]


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(services.SERVICES, "toy", "toy_service")  # the one registry line


@pytest.mark.parametrize("name", SERVICES)
@pytest.mark.parametrize(("command", "capability", "args"), COMMANDS,
                         ids=[command for command, _, _ in COMMANDS])
def test_a_command_works_or_names_the_capability_the_service_lacks(
        cli, write, name, command, capability, args):
    service = services.get(name)
    config = write(SMALL.format(**CONFIGS.get(name, T4)))
    argv = [part for a in args for part in
            ((config,) if a == "CONFIG" else (name,) if a == "NAME"
             else PLACES.get(name, ("--project", "p")) if a == "PLACE" else (a,))]
    result = cli(*argv, env=OFFLINE)
    assert result.code != EXIT_INTERNAL, result.err
    assert "internal error" not in result.err
    if capability is None or service.supports(capability):
        assert "lacks the capability" not in result.err
    else:
        assert result.code == EXIT_USAGE, result.err
        first, hint = result.err.splitlines()[:2]
        assert first.startswith("error: ")
        assert (f"the {name} service ({service.title}) lacks the capability "
                f"'{capability.label}' ({capability.does}): {service.lacks[capability]}") \
            in first
        having = [n for n in services.SERVICES if services.get(n).supports(capability)]
        assert hint.startswith(f"  hint: use {capability.switch} {having[0]}")


@pytest.mark.parametrize("name", SERVICES)
def test_a_budget_needs_the_costs_capability(cli, write, name):
    service = services.get(name)
    config = write(SMALL.format(**CONFIGS.get(name, T4)))
    result = cli("validate", config, "--service", name, "--max-hourly-cost", "100", env=OFFLINE)
    if service.supports(Capability.COSTS):
        assert result.code in (0, 1), result.err
    else:
        assert result.code == EXIT_USAGE
        assert result.err.startswith(
            f"error: --max-hourly-cost is not supported by the {name} service "
            f"({service.title}): {service.lacks[Capability.COSTS]}")


@pytest.mark.parametrize("name", SERVICES)
def test_a_service_writes_the_methods_of_what_it_has_and_no_others(name):
    """A capability a service has is one whose methods it writes; one it lacks it leaves to the
    base, which refuses (a service cannot claim one it does not implement, or the reverse)."""
    service = services.get(name)
    assert isinstance(service, ServiceBase)
    for capability in Capability:
        for method in capability.methods:
            written = getattr(type(service), method) is not getattr(ServiceBase, method)
            assert written == service.supports(capability), (name, capability, method)
        if not service.supports(capability):
            assert service.lacks[capability].strip(), (name, capability)  # a reason


def test_a_service_that_writes_nothing_lacks_every_capability():
    class Bare(ServiceBase):
        name = "bare"
        title = "Bare"

    assert Bare.lacks == DEFAULT_LACKS and set(DEFAULT_LACKS) == set(Capability)
    assert Bare.__abstractmethods__ == {"catalog", "rules", "request", "status", "parse_ref",
                                        "links", "commands", "offerings", "completions"}
    with pytest.raises(TypeError):
        Bare()  # type: ignore[abstract]  # what every service writes is not written


def test_the_docs_show_what_each_service_has(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(services.SERVICES, "toy")  # the registered services only
    table = markdown()
    assert table in (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    assert "| convert | writing an AI Platform config in the service's own form | " in table
