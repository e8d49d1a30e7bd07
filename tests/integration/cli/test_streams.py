"""gpujob's own streams: closed or full ones are reported as such (D19), what it writes is valid
UTF-8 whatever the locale and the bytes it was given (D17), and ``GPUJOB_DEBUG=1`` adds a
traceback without changing the exit code (D26). Run as a separate process, as a shell runs it,
since closed descriptors and locales are the process's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from jobs import CONTAINER_JOB

GPUJOB = [sys.executable, "-m", "gpujob"]


def run(args: list[str | bytes], *, env: dict[str, str] | None = None, **kwargs) -> \
        subprocess.CompletedProcess[bytes]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GPUJOB_")}
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return subprocess.run([*GPUJOB, *args], env={**environment, **(env or {})}, timeout=60,
                          **{**streams, **kwargs})


@pytest.fixture
def config(write) -> str:
    return write(CONTAINER_JOB)


# -- D19 ------------------------------------------------------------------------------------------

def test_a_closed_stdin_is_a_usage_error(config):
    result = run(["validate", "-"], stdin=subprocess.DEVNULL, pass_fds=(),
                 preexec_fn=lambda: os.close(0))
    assert result.returncode == 2, result.stderr
    assert result.stderr.decode().splitlines()[0] == (
        "error: - reads standard input, and standard input is closed")


def test_a_closed_stdout_is_reported_before_anything_is_done(config):
    result = run(["validate", config], preexec_fn=lambda: os.close(1))
    assert result.returncode == 1
    assert result.stderr.decode().splitlines() == [
        "error: standard output is closed: gpujob writes its results there",
        "  hint: run it with standard output open (> /dev/null discards them)"]


def test_a_full_disk_is_not_a_bug(config):
    with open("/dev/full", "wb") as full:
        result = run(["submit", config, "--dry-run"], stdout=full, stderr=subprocess.PIPE)
    assert result.returncode == 1
    err = result.stderr.decode()
    assert err.splitlines()[-1] == "error: cannot write to standard output: No space left on device"
    assert "internal error" not in err and "Exception ignored" not in err


# -- D26 ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, code", [
    (["submit", "{config}", "--dry-run", "--worker-count", "x"], 2),  # a usage error
    (["validate", "{config}", "--catalog", "{config}"], 2),
    (["submit", "{invalid}", "--dry-run"], 1),  # an invalid config
])
def test_debug_shows_the_traceback_and_keeps_the_exit_code(config, write, args, code):
    invalid = write("trainingInput: {scaleTier: HUGE}\n", "invalid.yaml")
    args = [a.format(config=config, invalid=invalid) for a in args]
    plain = run(args)
    debug = run(args, env={"GPUJOB_DEBUG": "1"})
    assert plain.returncode == debug.returncode == code, debug.stderr
    assert b"Traceback (most recent call last)" in debug.stderr
    assert b"Traceback" not in plain.stderr
    # the same lines, with the traceback before the error message
    before, error = plain.stderr.split(b"error: ", 1) if b"\nerror: " in plain.stderr \
        or plain.stderr.startswith(b"error: ") else (plain.stderr, b"")
    assert error, plain.stderr
    assert debug.stderr.startswith(before)
    assert debug.stderr.endswith(b"error: " + error)


# -- D17 ------------------------------------------------------------------------------------------

STRICT = {"PYTHONIOENCODING": "utf-8:strict"}  # as Python is under a non-C UTF-8 locale


@pytest.mark.parametrize("args, env, said", [
    ([b"--set", b"trainingInput.jobDir=gs://b/\xff"], {},
     "error: --set trainingInput.jobDir: 'gs://b/\\xff' is not valid UTF-8"),
    ([b"--job-dir", b"gs://bucket/\xff"], {},
     "error: --job-dir: 'gs://bucket/\\xff' is not valid UTF-8"),
    ([b"--labels", b"team=vis\xe9ion"], {},
     "error: --labels: 'team=vis\\xe9ion' is not valid UTF-8"),
    ([], {b"GPUJOB_SERVICE_ACCOUNT": b"me\xff@p.iam.gserviceaccount.com"},
     "error: --service-account (from the environment): 'me\\xff@p.iam.gserviceaccount.com' is "
     "not valid UTF-8"),
])
def test_flag_values_that_are_not_utf8_are_refused(config, args, env, said):
    environment = {**{k.encode(): v.encode() for k, v in os.environ.items()
                      if not k.startswith("GPUJOB_")}, **env, b"PYTHONIOENCODING": b"utf-8:strict"}
    result = subprocess.run([*GPUJOB, "submit", config, "--dry-run", *args], env=environment,
                            capture_output=True, timeout=60)
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode("utf-8").splitlines()  # valid UTF-8
    assert lines[0] == said
    assert lines[1].startswith("  hint: the API takes text as UTF-8")


def test_file_names_that_are_not_utf8_are_shown_escaped(tmp_path):
    name = os.path.join(os.fsencode(tmp_path), b"na\xffme.yaml")
    with open(name, "w") as fh:
        fh.write(CONTAINER_JOB + "  bogus: 1\n")
    text = run(["validate", name], env=STRICT)
    assert text.returncode == 1
    line = text.stdout.decode("utf-8").splitlines()[0]
    assert line.startswith(f"{tmp_path}/na\\xffme.yaml:9:3: trainingInput.bogus: unknown key")
    report = run(["validate", "--format", "json", name], env=STRICT)
    assert report.returncode == 1
    assert json.loads(report.stdout.decode("utf-8"))["files"][0]["path"] == \
        f"{tmp_path}/na\udcffme.yaml"
    dry = run(["submit", name, "--dry-run", "--format", "json"], env=STRICT)
    assert dry.returncode == 1
    assert json.loads(dry.stdout.decode("utf-8"))["files"][0]["errors"]
