"""``main`` runs a command with rare cyclic collections and, as the process, freezes what is left
before exit (issue 34: a tenth of a submit's CPU went to the collector); a caller in the same
process (these tests, an embedding program) gets its own settings back."""

from __future__ import annotations

import gc
import subprocess
import sys

from gpujob.cli import _GC_THRESHOLD, main


def test_a_caller_in_the_same_process_keeps_its_collector_settings():
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    assert main(["--version"]) == 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen


def test_the_process_collects_rarely_while_a_command_runs_and_freezes_at_the_end():
    probe = ("import gc, sys\nfrom gpujob import cli\nseen = []\n"
             "cli.setup_streams = lambda: seen.append(gc.get_threshold()[0])\n"
             "before = gc.get_threshold()[0]\ncode = cli.main()\n"
             "print(before, seen[0], gc.get_threshold()[0], gc.get_freeze_count() > 0, code)")
    done = subprocess.run([sys.executable, "-c", probe, "--version"], capture_output=True,
                          text=True, check=True)
    before, during, after, frozen, code = done.stdout.split()[-5:]
    assert (int(during), frozen, code) == (_GC_THRESHOLD, "True", "0")
    assert after == before != str(_GC_THRESHOLD)  # the process's own setting, back
