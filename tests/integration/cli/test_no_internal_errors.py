"""No input reaches exit 70 (issue 12): a sample of hostile files and command lines, driven
through ``main()`` as the console script runs it. Each ends in a documented exit code (0, 1, 2
or 3: no credentials are configured, so the remote commands end at the credentials) with
messages on stderr, and never "internal error"."""

from __future__ import annotations

import pytest
from jobs import CONTAINER_JOB

HOSTILE_FILES = {
    "binary": b"\x00\x01\x02\xff\xfe garbage \x80",
    "utf16": "trainingInput: {}\n".encode("utf-16"),
    "bom": b"\xef\xbb\xbf" + CONTAINER_JOB.encode(),
    "nul": CONTAINER_JOB.encode().replace(b"CUSTOM", b"CUS\x00TOM"),
    "deep-lists": b"trainingInput: " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "deep-maps": b"trainingInput: " + b"{a: " * 3000 + b"1" + b"}" * 3000 + b"\n",
    "laughs": b'a: &a ["x","x","x","x","x","x","x","x","x","x"]\n'
              + b"".join(b"%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n"
                         % ((bytes([c]), bytes([c]), *[bytes([c - 1])] * 10))
                         for c in range(ord("b"), ord("k"))),
    "python-tag": b"trainingInput: !!python/object/apply:os.system ['true']\n",
    "binary-tag": b"trainingInput: {scaleTier: !!binary aGVsbG8=}\n",
    "set-tag": b"trainingInput: !!set {a, b}\n",
    "non-string-keys": b"trainingInput: {1: a, [x]: b, null: c, true: d}\n",
    "duplicate-keys": CONTAINER_JOB.encode() + b"trainingInput: {}\n",
    "empty": b"",
    "comments": b"# nothing here\n",
    "documents": CONTAINER_JOB.encode() + b"---\n" + CONTAINER_JOB.encode(),
    "scalar": b"42\n",
    "list": b"- a\n- b\n",
    "types": b"trainingInput: {scaleTier: [CUSTOM], masterType: {a: b}, workerCount: [1], "
             b"args: 5, region: 1.5, masterConfig: [x], hyperparameters: {params: 7}}\n",
    "weird-values": b"trainingInput: {scaleTier: CUSTOM, masterType: .inf, workerCount: .nan, "
                    b"workerType: ~, parameterServerCount: -7, region: '\\u2028'}\n",
    "long-line": b"trainingInput: {region: " + b"x" * 200_000 + b"}\n",
    "control": b"trainingInput: {region: \"us\\x1b[31mred\"}\n",
    "json": b'{"trainingInput": {"scaleTier": "CUSTOM", "masterType": NaN}, }',
    "surrogate-escape": b'trainingInput: {region: "\\ud800"}\n',
    "tab-indent": b"trainingInput:\n\tscaleTier: BASIC\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
@pytest.mark.parametrize("command", [["validate"], ["validate", "--format", "json"],
                                     ["validate", "--format", "github"],
                                     ["submit", "--dry-run"], ["local"]])
def test_hostile_files(cli, write, name, command):
    config = write(HOSTILE_FILES[name], f"{name}.yaml")
    result = cli(*command, config)
    assert result.code in (0, 1, 2), result.err
    assert "internal error" not in result.err


COMMAND_LINES = [
    ["submit", "{c}", "--dry-run", "--set", "trainingInput.jobDir=gs://b/\udcff"],  # D17
    ["submit", "{c}", "--dry-run", "--job-dir", "gs://bucket/\udcff"],
    ["submit", "{c}", "--dry-run", "--labels", "team=vis\udce9ion"],
    ["submit", "{c}", "--dry-run", "--worker-count", "-1"],
    ["submit", "{c}", "--dry-run", "--set", "trainingInput.workerCount=" + "9" * 5000],  # D13
    ["submit", "{c}", "--dry-run", "--set", 'labels["\\u"]=x'],  # D15
    ["submit", "{c}", "--dry-run", "--set", "labels" + ".a" * 10_000 + "=1"],  # D16
    ["submit", "{c}", "--dry-run", "--staging-bucket", "gs://bkt", "--packages",
     "x" * 300 + ".whl"],  # D18
    ["submit", "{c}", "--dry-run", "--worker-count", ""],
    ["submit", "{c}", "--dry-run", "--master-accelerator", "count=x,type=t4"],
    ["submit", "{c}", "--dry-run", "--master-accelerator", ",,,"],
    ["submit", "{c}", "--dry-run", "--master-accelerator", "="],
    ["submit", "{c}", "--dry-run", "--labels", "="],
    ["submit", "{c}", "--dry-run", "--labels", "a=b,a=c"],
    ["submit", "{c}", "--dry-run", "--scale-tier", ""],
    ["submit", "{c}", "--dry-run", "--set", ""],
    ["submit", "{c}", "--dry-run", "--set", "="],
    ["submit", "{c}", "--dry-run", "--set", "trainingInput="],
    ["submit", "{c}", "--dry-run", "--set", "trainingInput.args[99999999999]=x"],
    ["submit", "{c}", "--dry-run", "--set", "[0]=x"],
    ["submit", "{c}", "--dry-run", "--set", "jobId.x=1"],
    ["submit", "{c}", "--dry-run", "--set", "trainingInput.args=[unclosed"],
    ["submit", "{c}", "--dry-run", "--set", "trainingInput.args=!!python/name:os.system"],
    ["submit", "{c}", "--dry-run", "--unset", ""],
    ["submit", "{c}", "--dry-run", "--unset", "trainingInput"],
    ["submit", "{c}", "--dry-run", "--unset", "jobId"],
    ["submit", "{c}", "--dry-run", "--unset", "trainingInput.args[0].x"],
    ["submit", "{c}", "--dry-run", "--job-id", ""],
    ["submit", "{c}", "--dry-run", "--job-id", "j" * 10_000],
    ["submit", "{c}", "--dry-run", "--kms-key", "short"],
    ["submit", "{c}", "--dry-run", "--package-path", "/nonexistent"],
    ["submit", "{c}", "--dry-run", "--package-path", "{c}"],
    ["submit", "{c}", "--dry-run", "--packages", ","],
    ["submit", "{c}", "--dry-run", "--packages", "not-a-file.whl"],
    ["submit", "{c}", "--dry-run", "--staging-bucket", "x"],
    ["submit", "{c}", "--dry-run", "--staging-bucket", "gs://"],
    ["submit", "{c}", "--dry-run", "--project", "a\nb"],
    ["submit", "{c}", "--dry-run", "--region", ""],
    ["submit", "{c}", "--dry-run", "--use-chief-in-tf-config", "maybe"],
    ["submit", "{c}", "--dry-run", "--", "\x1b[2J", "\n", ""],
    ["submit", "{c}", "--dry-run", "--catalog", "{c}"],
    ["submit", "{c}", "--wait", "--dry-run", "--local"],
    ["submit", "-", "--dry-run"],
    ["submit", "{c}", "--local", "--max-local-replicas", "0"],
    ["local", "{c}", "--job-dir", "/proc/nope/x"],
    ["local", "{c}", "--format", "json"],
    ["validate", "{c}", "--catalog", "/"],
    ["validate", "/", "--format", "nope"],
    ["gpus", "--gpu", ""],
    ["gpus", "--count", "0"],
    ["gpus", "--region", "nowhere", "--zone", "x"],
    ["gpus", "--machine-type", "", "--format", "json"],
    ["describe", ""],
    ["describe", "projects//jobs/"],
    ["describe", "j" * 1000],
    ["list", "--limit", "0"],
    ["list", "--filter", "state=RUNNING"],
    ["wait", "j1", "--timeout", "-1"],
    ["cancel", "1job"],
    ["logs", "j1", "--poll-interval", "0"],
    ["nope"],
    ["--version"],
    ["--help"],
]



@pytest.mark.parametrize("args", COMMAND_LINES, ids=lambda a: " ".join(a)[:60])
def test_hostile_command_lines(cli, write, args):
    config = write(CONTAINER_JOB)
    args = [a.replace("{c}", config) for a in args]
    result = cli(*args, stdin=b"\xff\xfe\x00")
    assert result.code in (0, 1, 2, 3), result.err
    assert "internal error" not in result.err
    # and GPUJOB_DEBUG=1 adds a traceback at most: the same exit code (D26)
    debug = cli(*args, stdin=b"\xff\xfe\x00", env={"GPUJOB_DEBUG": "1"})
    assert debug.code == result.code, debug.err


def test_a_file_name_that_is_not_utf8(cli, tmp_path):
    """Python reads the byte 0xFF of a file name as the lone surrogate U+DCFF (D17)."""
    import os

    name = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"na\xffme.yaml"))
    with open(name, "w", encoding="utf-8") as fh:
        fh.write(CONTAINER_JOB + "  bogus: 1\n")
    for command in (["validate"], ["validate", "--format", "json"], ["submit", "--dry-run"]):
        result = cli(*command, name)
        assert result.code == 1, result.err
        assert "internal error" not in result.err
