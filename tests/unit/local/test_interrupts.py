"""Ctrl-C, SIGTERM and SIGHUP while gpujob runs processes of its own: taken where gpujob checks
for them, never in the middle of a call; a build or pip install stops with everything it
started, its temporary directories go, and gpujob exits 130."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

from gpujob import interrupts

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]

# A build backend in the project's own tree (nothing for pip to fetch): its first hook writes
# its pid where the test waits for it, then builds for ten minutes.
SLOW_BACKEND = """\
import os
import sys
import time
from pathlib import Path

Path(os.environ["SLOW_BACKEND_PID"]).write_text(str(os.getpid()))
time.sleep(600)
sys.exit(1)
"""
SLOW_PYPROJECT = ('[build-system]\nrequires = []\nbuild-backend = "slow_backend"\n'
                  'backend-path = ["."]\n\n[project]\nname = "{name}"\nversion = "0.1"\n')


def test_a_signal_is_taken_where_gpujob_checks_never_inside_a_call():
    """Raised where it lands, an interrupt between ``Popen.poll``'s ``acquire(False)`` and its
    ``try`` left the lock held, and the next ``Popen.wait()`` hung gpujob for good."""
    before = {signum: signal.getsignal(signum) for signum in SIGNALS}
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    taken = []
    try:
        with pytest.raises(KeyboardInterrupt), interrupts.deferred():
            for signum in SIGNALS:
                os.kill(os.getpid(), signum)  # noted, not raised here
                for _ in range(200):  # calls that Python would otherwise interrupt
                    assert child.poll() is None
                with pytest.raises(KeyboardInterrupt):
                    interrupts.check()
                interrupts.check()  # taken once
                taken.append(signum)
            os.kill(os.getpid(), signal.SIGTERM)  # after the last check: raised on the way out
        assert taken == list(SIGNALS)  # each signal reached its check (none raised where it landed)
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=0.1)  # the wait lock is free: a wait waits, and returns on time
    finally:
        child.kill()
        child.wait(timeout=10)
    assert {signum: signal.getsignal(signum) for signum in SIGNALS} == before  # restored


def _wait_for_pid(proc: subprocess.Popen[str], path: Path) -> int:
    """The pid the slow backend wrote: the build has started (the test fails, with what gpujob
    said, if it never does)."""
    deadline = time.monotonic() + 120
    while not path.exists() or not path.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the build never started: {proc.communicate()[1]}")
        time.sleep(0.05)
    return int(path.read_text())


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            return True
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return True
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)  # leave nothing behind
    return False


def _interrupt(args: list[str], tmp_path: Path, signum: int) -> tuple[subprocess.Popen[str],
                                                                        str, int, Path]:
    """Run gpujob ARGS until the slow backend runs, send ``signum`` to gpujob alone; returns
    (process, stderr, backend pid, gpujob's temporary directory)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    pid_file = tmp_path / "backend.pid"
    proc = subprocess.Popen([sys.executable, "-m", "gpujob", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(scratch),
                                 "SLOW_BACKEND_PID": str(pid_file), "GPUJOB_LOCAL_GPUS": ""})
    backend = _wait_for_pid(proc, pid_file)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    return proc, err, backend, scratch


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
def test_a_signal_during_the_install_of_packages_stops_pip_and_its_build(
        write, trainer, tmp_path, signum):
    name = "slowpkg"
    files = {"pyproject.toml": SLOW_PYPROJECT.format(name=name), "slow_backend.py": SLOW_BACKEND,
             "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n"}
    sdist = tmp_path / f"{name}-0.1.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for path, text in files.items():
            info = tarfile.TarInfo(f"{name}-0.1/{path}")
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    config = write("trainingInput:\n  scaleTier: BASIC\n  runtimeVersion: '2.11'\n")
    proc, err, backend, scratch = _interrupt(
        ["local", "--service", "ai-platform", config, "--package-path", str(trainer()),
         "--module-name", "trainer.task", "--packages", str(sdist)], tmp_path, signum)
    assert proc.returncode == 130, err
    assert err.rstrip().endswith("interrupted")
    assert "Traceback" not in err
    assert _gone(backend), "the build backend outlived gpujob"
    assert sorted(p.name for p in scratch.glob("gpujob-packages-*")) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
def test_a_signal_during_the_build_of_the_trainer_package_stops_the_build(
        write, trainer, tmp_path, signum):
    package = trainer({"pyproject.toml": SLOW_PYPROJECT.format(name="trainer"),
                       "slow_backend.py": SLOW_BACKEND})
    proc, err, backend, scratch = _interrupt(
        ["submit", write(RUNTIME_JOB_WITHOUT_PACKAGES), "--dry-run", "--job-id", "j1",
         "--package-path", str(package), "--staging-bucket", "gs://bkt"], tmp_path, signum)
    assert proc.returncode == 130, err
    assert err.rstrip().endswith("interrupted")
    assert "Traceback" not in err
    assert _gone(backend), "the build backend outlived gpujob"
    assert sorted(p.name for p in scratch.iterdir()) == []  # build's build-env-*, gpujob's own
