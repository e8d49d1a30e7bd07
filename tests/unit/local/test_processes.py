"""``supervise``, the runner under ``gpujob local``: the replicas' output reaches stdout whole, in
bounded memory, before any exit status decides; statuses pass through the replicas' supervisors;
and where whole process trees cannot be stopped, gpujob says so.

Replicas here are ``python -c`` scripts; the sink stands in for stdout (a slow one, where a test
needs one).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from gpujob.local import processes
from gpujob.local import replica_output as output
from gpujob.local.processes import Spec, supervise


def spec(name: str, code: str, cwd: Path) -> Spec:
    return Spec(name, [sys.executable, "-c", code], dict(os.environ), str(cwd))


def running(pid: int) -> bool:
    """Running, not merely a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone, or going as we read (ESRCH)
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def run(specs: list[Spec], grace: float = 5.0, write=None) -> tuple[int, bytes, list[str]]:
    """supervise() with a list for stdout (or ``write``) and one for gpujob's messages."""
    out: list[bytes] = []
    notes: list[str] = []
    code = supervise(specs, grace=grace, write=write or out.append, notify=notes.append)
    return code, b"".join(out), notes


@pytest.mark.skipif(not processes.TREES, reason="the replicas' supervisors are Linux's")
def test_every_line_is_written_before_the_status_even_with_no_time_after_the_kill(
        tmp_path, monkeypatch):
    """The master's status is reported only after its last line: nothing is cut by a time limit
    (none at all is allowed after the kill here), however slowly stdout is read."""
    monkeypatch.setattr(processes, "_AFTER_KILL", 0.0)
    code = ("import os\nprint(os.getpid(), flush=True)\n"
            "for i in range(2000): print('line', i)\nprint('MASTER-END')\n")
    out: list[bytes] = []

    def slow_stdout(data: bytes) -> None:
        if not out:  # stdout is stuck until the master has exited, its lines in the pipe
            pid = int(data.split(b"\n")[0].split(b" | ")[1])
            while running(pid):
                time.sleep(0.01)
        out.append(data)

    code, _, _ = run([spec("master-replica-0", code, tmp_path)], write=slow_stdout)
    assert code == 0
    lines = b"".join(out).decode().splitlines()
    assert lines[1:] == ([f"master-replica-0 | line {i}" for i in range(2000)]
                         + ["master-replica-0 | MASTER-END"])


def test_a_replica_waits_for_a_slow_stdout_instead_of_filling_gpujobs_memory(tmp_path):
    """Back-pressure: while stdout takes nothing, gpujob holds at most about output.LIMIT bytes
    (plus the pipe's): the replica waits on its pipe, as on a slow terminal. Then everything
    arrives, in order."""
    done = tmp_path / "done"
    lines, size = 8192, 1024  # 8 MiB, several times what gpujob may hold
    assert lines * size > 4 * output.LIMIT
    code = (f"import sys\nout = sys.stdout.buffer\nfor i in range({lines}):\n"
            f"    out.write(b'%05d ' % i + b'x' * {size - 7} + b'\\n')\n"
            f"out.flush()\nopen({str(done)!r}, 'w').close()\n")
    finished_while_stuck: list[bool] = []
    out: list[bytes] = []

    def stuck_stdout(data: bytes) -> None:
        if not out:  # an unbounded buffer takes all 8 MiB within this time; a bounded one not
            deadline = time.monotonic() + 1.5
            while not done.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            finished_while_stuck.append(done.exists())
        out.append(data)

    code, _, _ = run([spec("master-replica-0", code, tmp_path)], write=stuck_stdout)
    assert code == 0
    assert finished_while_stuck == [False]
    got = b"".join(out).split(b"\n")[:-1]
    assert got == [b"master-replica-0 | %05d " % i + b"x" * (size - 7) for i in range(lines)]


def test_a_very_long_line_is_shown_in_marked_pieces(tmp_path):
    """Lines longer than 64 KiB come in pieces, each prefixed, each but the last ending with
    ' [line continues]', cut between UTF-8 characters; nothing is lost, memory stays bounded."""
    long = "a" + "é" * 70_000  # 140,001 bytes: a cut at 64 KiB would fall inside an é
    tail = "z" * 100_000  # the last line, without a newline
    code = "import sys\nsys.stdout.write('a' + 'é' * 70_000 + '\\nshort\\n' + 'z' * 100_000)\n"
    status, out, _ = run([spec("master-replica-0", code, tmp_path)])
    assert status == 0
    shown = out.decode("utf-8").split("\n")  # valid UTF-8 throughout
    assert shown[-1] == ""
    shown = shown[:-1]
    assert all(s.startswith("master-replica-0 | ") for s in shown)
    texts = [s.removeprefix("master-replica-0 | ") for s in shown]
    assert all(len(t.encode()) <= output.MAX_LINE + len(output.CONTINUES) for t in texts)
    marker = output.CONTINUES.decode()
    rejoined, line = [], ""
    for text in texts:
        if text.endswith(marker):
            line += text.removesuffix(marker)
        else:
            rejoined.append(line + text)
            line = ""
    assert rejoined == [long, "short", tail]
    assert len(texts) == 3 + 2 + 1  # 140,001 bytes in 3 pieces, "short", 100,000 in 2


@pytest.mark.skipif(not processes.TREES, reason="the replicas' supervisors are Linux's")
@pytest.mark.parametrize("how, status", [
    ("sys.exit(3)", 3),
    ("os.kill(os.getpid(), signal.SIGKILL)", -signal.SIGKILL),
    ("os.kill(os.getpid(), signal.SIGUSR2)", -signal.SIGUSR2),
])
def test_a_replicas_exit_status_comes_through_its_supervisor(tmp_path, how, status):
    code, _, _ = run([spec("master-replica-0", f"import os, signal, sys\n{how}\n", tmp_path)])
    assert code == status
    assert processes.describe_exit(code) == (f"exited with code {status}" if status > 0 else
                                             f"was killed by {signal.Signals(-status).name}")


def test_without_supervisors_the_process_group_is_stopped_and_gpujob_says_so(tmp_path,
                                                                           monkeypatch):
    """Where PR_SET_CHILD_SUBREAPER or /proc is missing (macOS), gpujob stops each replica's
    process group, warns that this is all it stops, and still shows the output."""
    monkeypatch.setattr(processes, "TREES", False)
    started = tmp_path / "grandchild"  # the worker's grandchild's pid, once it runs
    sleeper = ("import os, subprocess, sys, time\n"
               "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
               f"open({str(started)!r} + '.tmp', 'w').write(str(p.pid))\n"
               f"os.replace({str(started)!r} + '.tmp', {str(started)!r})\ntime.sleep(600)\n")
    master = (f"import os, time\nwhile not os.path.exists({str(started)!r}): time.sleep(0.01)\n"
              "print('hello from the master')\nraise SystemExit(1)\n")  # stops the others
    code, out, notes = run([spec("master-replica-0", master, tmp_path),
                            spec("worker-replica-0", sleeper, tmp_path)])
    assert code == 1
    assert notes[0] == f"warning: {processes.LIMITED}"
    assert notes[0] == ("warning: on this system gpujob stops a replica's process group only: "
                        "what it starts in a new session or process group, and everything if "
                        "gpujob itself is killed, may be left running (whole process trees are "
                        "stopped on Linux)")
    assert out.decode() == "master-replica-0 | hello from the master\n"
    grandchild = int(started.read_text())
    deadline = time.monotonic() + 10
    while running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(grandchild)


def test_without_supervisors_output_held_open_by_an_escaped_process_is_given_up_with_a_warning(
        tmp_path, monkeypatch):
    """A grandchild in a session of its own, beyond the process group's reach, keeps the
    replica's output open: gpujob gives up on it once it has been quiet for _AFTER_KILL
    seconds, and says so rather than cutting it silently."""
    monkeypatch.setattr(processes, "TREES", False)
    monkeypatch.setattr(processes, "_AFTER_KILL", 0.2)
    code = ("import subprocess, sys\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], "
            "start_new_session=True)\nprint('escaped', p.pid, flush=True)\n")
    status, out, notes = run([spec("master-replica-0", code, tmp_path)])
    escaped = int(out.decode().split()[-1])
    os.kill(escaped, signal.SIGKILL)
    assert status == 0
    assert out.decode() == f"master-replica-0 | escaped {escaped}\n"
    assert notes[-1] == ("warning: not waiting for the rest of the output of master-replica-0: "
                         "a process it started outside its process group holds it open")
