"""Shared fixtures: an in-process runner for the real CLI, and a clean environment."""

from __future__ import annotations

import io
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gke_cluster import stop_signals_kept

from gpujob.cli import main

# A suite started in the background by a non-interactive shell (`cmd &` in a script) inherits
# SIGINT ignored, and so would every gpujob the tests start: Ctrl-C could not be tested. A
# handler here (not inherited across exec) gives those processes SIGINT as a terminal does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# The same for SIGHUP under nohup: gpujob rightly leaves an inherited SIG_IGN alone, so the
# tests that hang a gpujob up would see nothing. A handler that does nothing keeps this process
# as nohup meant it, and the processes it starts get SIGHUP's default, as a terminal gives them.
if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, lambda signum, frame: None)

ROOT = Path(__file__).resolve().parent.parent


def pytest_sessionstart(session: pytest.Session) -> None:
    """gpujob's modules, the example trainer's and the test trainers' (tests/trainers: the
    recorder runs as every replica of the local-run tests), byte-compiled once before any test
    starts a process that imports them, as ``pip install`` compiles what it installs: an editable
    install compiles neither, and under PYTHONDONTWRITEBYTECODE=1 (this project's machines set
    it) every ``python -m gpujob`` a test starts would compile them again, a third of its CPU.
    (pytest's xdist workers find them done by the process that started them.)"""
    import compileall

    if hasattr(session.config, "workerinput"):
        return
    for package in (ROOT / "gpujob", ROOT / "examples" / "mlp" / "trainer",
                    ROOT / "tests" / "trainers"):
        compileall.compile_dir(package, quiet=2)  # a read-only checkout: each compiles its own


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first (stable otherwise): with parallel workers (pytest-xdist, on by
    default) the long ones start at once, side by side, instead of one of them running alone at
    the end while the other workers wait."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                      request: pytest.FixtureRequest) -> None:
    """No test sees the developer's gcloud setup, credentials or GPUJOB_* settings.

    The tests written while AI Platform Training was gpujob's default service are the spec of
    ``--service ai-platform``, which must behave as it did byte for byte: they run with
    GPUJOB_SERVICE=ai-platform, as a user keeping the old behaviour would. Tests marked
    ``default_service`` (the Vertex AI tests, and the test of the default itself) see gpujob's
    own default. New tests name their service either way."""
    for name in list(os.environ):
        if name.startswith(("GPUJOB_", "GOOGLE_", "CLOUDSDK_", "STORAGE_EMULATOR")):
            monkeypatch.delenv(name)
    if request.node.get_closest_marker("default_service") is None:
        monkeypatch.setenv("GPUJOB_SERVICE", "ai-platform")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud-config"))
    # google-auth: never probe the metadata server (it reads these once, at import, and wants
    # "true" in lower case); a metadata address on a closed loopback port backs that up
    monkeypatch.setenv("NO_GCE_CHECK", "true")
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")
    monkeypatch.setenv("GCE_METADATA_IP", "127.0.0.1:9")
    # pip, run by trainer package builds, never asks an index; `offline_builds` gives it wheels
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    # the refreshed catalog (``gpujob catalog refresh``) is the test's own: none to start with
    monkeypatch.setenv("GPUJOB_CACHE_DIR", str(tmp_path / "gpujob-cache"))
    # the built-in catalog's age is warned about only where a test asks (it grows every day)
    monkeypatch.setenv("GPUJOB_CATALOG_MAX_AGE_DAYS", "100000")


@pytest.fixture(autouse=True)
def _stop_signals_restored() -> Iterator[None]:
    """No test leaves SIGTERM, SIGHUP or SIGINT changed for the tests after it in its worker
    (a GKE command run in process makes SIGTERM and SIGHUP a Ctrl-C)."""
    with stop_signals_kept():
        yield


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """setuptools as a wheel, made from the test environment's own installation (its bytecode
    with it: each build's isolated environment would compile it again; without its extras'
    requirements, which no build asks for)."""
    from fakes.wheels import wheel_from_installed

    out = tmp_path_factory.mktemp("wheelhouse")
    wheel_from_installed("setuptools", out, compiled=True, extras=False)
    return out


@pytest.fixture
def offline_builds(wheelhouse: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Trainer package builds (pip installing the build backend into their isolated
    environment) take their wheels from ``wheelhouse`` alone: no index, and none of the
    machine's pip configuration."""
    for name in list(os.environ):
        if name.startswith("PIP_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheelhouse))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    # nor does it compile the modules it installs (pip's own build environments, a local run's
    # packages): the wheelhouse's come compiled, and the rest are compiled as they are imported.
    # "0" is pip's spelling of --no-compile in the environment (.ci/run says why).
    monkeypatch.setenv("PIP_NO_COMPILE", "0")
    return wheelhouse


@pytest.fixture
def trainer(tmp_path: Path):
    """Write a trainer project under tmp_path: ``files`` maps paths (under the project) to
    text; returns the package directory (``PROJECT/trainer``)."""

    def make(files: dict[str, str] | None = None, project: str = "project") -> Path:
        root = tmp_path / project
        contents = {"trainer/__init__.py": "", "trainer/task.py": "print('training')\n",
                    **(files or {})}
        for name, text in contents.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return root / "trainer"

    return make


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run ``gpujob ARGS…`` in this process, as the console script does; returns code, stdout,
    stderr."""

    def run(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Result:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def user_catalog(tmp_path: Path):
    """Write a copy of the built-in ai-platform catalog, changed by ``edit`` (which changes the
    data in place), as a user would with ``gpujob gpus --export-catalog``; returns its path."""
    from gpujob.catalog import data_file

    def make(edit: Callable[[dict[str, Any]], object], name: str = "catalog.json", *,
             indent: int | None = None) -> Path:
        data = json.loads(data_file("ai-platform").read_text(encoding="utf-8"))
        edit(data)
        path = tmp_path / name
        path.write_text(json.dumps(data, indent=indent), encoding="utf-8")
        return path

    return make


@pytest.fixture
def nvidia_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``install(script)``: a shell script standing in for ``nvidia-smi``, alone on PATH (the
    replicas run sys.executable: they need no PATH); None: no nvidia-smi at all. Unsets
    CUDA_VISIBLE_DEVICES, so that ``gpujob local`` asks nvidia-smi for the GPUs."""

    def install(script: str | None) -> None:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        if script:
            smi = bin_dir / "nvidia-smi"
            smi.write_text(f"#!/bin/sh\n{script}\n")
            smi.chmod(0o755)
        monkeypatch.setenv("PATH", str(bin_dir))
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)

    return install


@pytest.fixture
def write(tmp_path: Path):
    """Write a config file under tmp_path and return its path as a string."""

    def _write(text: str | bytes, name: str = "config.yaml") -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return str(path)

    return _write


@pytest.fixture
def translations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources of the configs translated to Vertex AI from here on, one per translation."""
    from gpujob.services.vertex.translate import job as translation

    made: list[str] = []
    real = translation.translate

    def counted(doc: Any, *args: Any, **kwargs: Any) -> Any:
        made.append(doc.source)
        return real(doc, *args, **kwargs)

    monkeypatch.setattr(translation, "translate", counted)
    return made
