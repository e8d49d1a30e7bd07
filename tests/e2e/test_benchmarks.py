"""Every script in benchmarks/ runs (briefly: one round each) and reaches no host but this one:
each Python process it starts (gpujob's, the fakes', gcloud's, torch's) has its name lookups
and connections to anything off loopback refused and recorded by a ``sitecustomize`` put first
on PYTHONPATH, so a benchmark that leaves an endpoint at Google's fails here, offline or not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUARD = '''\
import ipaddress, os, socket, sys

_log = os.environ["BENCHMARK_OFF_LOOPBACK"]
_lookup, _connect = socket.getaddrinfo, socket.socket.connect


def _loopback(host):
    if host is None or host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(str(host).strip("[]")).is_loopback
    except ValueError:
        return False


def _refuse(host):
    with open(_log, "a") as log:
        log.write(f"{host} (from {' '.join(sys.argv[:4])})\\n")
    raise OSError(f"benchmark guard: {host} is not on this machine")


def getaddrinfo(host, *args, **kwargs):
    if not _loopback(host if not isinstance(host, bytes) else host.decode()):
        _refuse(host)
    return _lookup(host, *args, **kwargs)


def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
        _refuse(address[0])
    return _connect(self, address)


socket.getaddrinfo, socket.socket.connect = getaddrinfo, connect
'''
RUNS = {  # each script with arguments that keep it to one short round
    "validate.py": ["--runs", "1", "--files", "20"],
    "rules.py": ["--rounds", "1"],
    "round_trips.py": ["--runs", "1", "--submits-only"],  # its start-up part calls nothing
    "submit.py": ["--runs", "1"],
    "gke_submit.py": ["--runs", "1"],
}
# run by a transcript the docs tests check (it talks to no host: torch's processes over
# loopback), which is a minute of CPU on two cores, not run twice
TRANSCRIPTS = {"trainer.py": ("docs/local.md", "$ python benchmarks/trainer.py --steps 50")}


def test_every_benchmark_is_run_here_or_by_a_transcript():
    assert sorted(p.name for p in (ROOT / "benchmarks").glob("[!_]*.py")) == sorted(
        [*RUNS, *TRANSCRIPTS])
    for page, command in TRANSCRIPTS.values():
        assert command in (ROOT / page).read_text(encoding="utf-8").splitlines()


@pytest.mark.slow
@pytest.mark.parametrize("script", RUNS)
def test_a_benchmark_runs_against_this_machine_only(script: str, tmp_path: Path):
    guard, log = tmp_path / "guard", tmp_path / "off-loopback"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUJOB_", "CLOUDSDK_"))}
    env.update(BENCHMARK_OFF_LOOPBACK=str(log), HOME=str(tmp_path),
               PYTHONPATH=os.pathsep.join(filter(None, [str(guard), env.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *RUNS[script]],
                          capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not log.exists(), f"{script} looked up or called {log.read_text()}"
    # the counts (not the timings, which a busy machine moves) meet their targets
    counted = [line for line in done.stdout.splitlines()
               if "requests" in line or "discovery parses" in line
               or "client API modules" in line]
    assert all(line.endswith(" OK") for line in counted), done.stdout
    if script in ("round_trips.py", "submit.py", "gke_submit.py"):
        assert counted, done.stdout
