"""``convert -o FILE`` writes what FILE is: a regular file is replaced whole with its permissions
kept, a symlink's target is written, a read-only file is refused, and anything else (a FIFO, a
device) is written into, never replaced by a regular file."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CONFIG = str(ROOT / "configs" / "custom-container.yaml")
HEAD = "# Vertex AI CustomJobSpec converted by gpujob"


def test_a_regular_file_keeps_its_permissions(cli, tmp_path):
    out = tmp_path / "spec.yaml"
    out.write_text("old\n")
    out.chmod(0o600)
    result = cli("convert", CONFIG, "-o", out)
    assert result.code == 0, result.err
    assert out.read_text().startswith(HEAD)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["spec.yaml"]  # no temporary file left


def test_a_symlink_is_written_through(cli, tmp_path):
    target = tmp_path / "real.yaml"
    target.write_text("old\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    result = cli("convert", CONFIG, "-o", link)
    assert result.code == 0, result.err
    assert link.is_symlink()
    assert target.read_text().startswith(HEAD)


def test_a_read_only_file_is_refused_and_left_as_it_was(cli, tmp_path):
    out = tmp_path / "ro.yaml"
    out.write_text("keep\n")
    out.chmod(0o444)
    result = cli("convert", CONFIG, "-o", out)
    assert result.code == 2
    assert result.err == (f"error: -o {out} is read-only\n"
                          "  hint: name another file, or make this one writable (chmod u+w)\n")
    assert out.read_text() == "keep\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_written_into_and_stays_a_fifo(cli, tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    result = cli("convert", CONFIG, "-o", fifo)
    reader.join(timeout=30)
    assert result.code == 0, result.err
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert got and got[0].startswith(HEAD)
