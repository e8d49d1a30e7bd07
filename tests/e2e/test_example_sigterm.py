"""The example trainer's SIGTERM handler survives a second SIGTERM that comes while it runs.

A preempted replica's training processes get SIGTERM twice, a moment apart: from the VM (under
``gpujob local``, from the replica's supervisor, which signals the whole tree) and again from
torch's agent, which passes the one it got on. Python runs a handler between two bytecodes of
the main thread, so the second handler can run inside the first. A handler that set a
``threading.Event`` then waited for the lock the first one held, for ever: the process hung
mid-epoch, printed nothing more, and its agent killed it (the preemption drill's second attempt
ended without its ``SIGTERM: stopped`` line on a busy machine). Here the second SIGTERM is sent
at each line the first handler (and what it calls) runs, in turn.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "examples" / "mlp" / "trainer"

SCRIPT = """
import os, signal, sys
from trainer.stop import on_sigterm

def inside(frame, code):
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False

for at in range(1, 40):  # the second SIGTERM at the first handler's line number `at`
    stop = on_sigterm()
    handler = signal.getsignal(signal.SIGTERM)
    code = getattr(handler, "__func__", handler).__code__
    lines = []

    def trace(frame, event, arg):
        if event == "line" and inside(frame, code):
            lines.append(frame.f_lineno)
            if len(lines) == at:
                os.kill(os.getpid(), signal.SIGTERM)
        return trace

    sys.settrace(trace)
    os.kill(os.getpid(), signal.SIGTERM)
    sys.settrace(None)
    assert stop.requested, at
print("every SIGTERM noted")
"""


def test_a_sigterm_while_the_last_ones_handler_runs_is_noted_without_a_hang():
    # the timeout only ends a hang (the defect), which then fails the test
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=PACKAGE.parent, text=True,
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "every SIGTERM noted\n"), done.stderr
