"""Every console transcript in the README and in the user guide's pages (docs/*.md) is run, and
its output and exit code compared with what the page shows, so the docs cannot drift from the
tool.

A transcript is a ```console block: lines starting with ``$ `` are commands, the lines after one
are what it prints (stdout and stderr, as a terminal shows them), and a last line ``[N]`` is its
exit code when that is not 0 (cram's convention). ``…`` stands for text left out: a line of its own
for any number of lines, or inside a line for any text. Each block runs in a fresh directory that
holds the repository's ``configs/``, ``examples/``, ``benchmarks/`` and the files under
``docs/examples/``, and its path is shown as ``/home/me/gpujob``. No block reaches the network
or needs credentials.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import example_runs
import pytest
from doc_pages import PAGES, page_name
from example_runs import RUN_BY_TESTS

ROOT = Path(__file__).resolve().parents[2]
SHOWN_ROOT = "/home/me/gpujob"
BLOCK = re.compile(r"^```console\n(.*?)^```$", re.MULTILINE | re.DOTALL)
EXIT = re.compile(r"\[(\d+)\]")


class Step(NamedTuple):
    command: str
    expected: list[str]
    code: int


class Transcript(NamedTuple):
    line: int
    steps: list[Step]
    page: str = "README.md"


def transcripts(text: str, page: str = "README.md") -> list[Transcript]:
    found = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        steps: list[Step] = []
        for raw in match.group(1).splitlines():
            if raw.startswith("$ "):
                steps.append(Step(raw[2:], [], 0))
            elif raw.startswith("> ") and steps and not steps[-1].expected:
                steps[-1] = steps[-1]._replace(command=steps[-1].command + "\n" + raw[2:])
            elif steps:
                steps[-1].expected.append(raw)
            else:
                raise AssertionError(f"{page}:{line}: a transcript must start with '$ '")
        for i, step in enumerate(steps):
            if step.expected and EXIT.fullmatch(step.expected[-1]):
                code = int(EXIT.fullmatch(step.expected[-1]).group(1))
                steps[i] = Step(step.command, step.expected[:-1], code)
        found.append(Transcript(line, steps, page))
    return found


def pattern(expected: list[str]) -> re.Pattern[str]:
    """The expected lines as a regular expression, ``…`` standing for what was left out."""
    parts = []
    for line in expected:
        if line.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("…")) + r"\n")
    return re.compile("".join(parts))


def run_in(workdir: Path, command: str) -> tuple[str, int]:
    bin_dir = str(Path(sys.executable).parent)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GPUJOB_", "GOOGLE_", "CLOUDSDK_"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", COLUMNS="100",
               CLOUDSDK_CONFIG=str(workdir / ".gcloud"), NO_GCE_CHECK="true",
               GCE_METADATA_HOST="127.0.0.1:9", PYTHONUNBUFFERED="1",
               # no refreshed catalog, and the built-in one's age never warned about: the
               # pages show the built-in data as it is
               GPUJOB_CACHE_DIR=str(workdir / ".cache"), GPUJOB_CATALOG_MAX_AGE_DAYS="100000")
    result = subprocess.run(["bash", "-c", command], cwd=workdir, env=env, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=300)
    return result.stdout.replace(str(workdir), SHOWN_ROOT), result.returncode


def workspace(tmp_path: Path) -> Path:
    workdir = tmp_path / "gpujob"
    workdir.mkdir()
    for name in ("configs", "examples", "benchmarks"):
        shutil.copytree(ROOT / name, workdir / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for path in (ROOT / "docs" / "examples").iterdir():
        if path.is_file():
            shutil.copy(path, workdir / path.name)
    return workdir


ALL_TRANSCRIPTS = [transcript for page in PAGES for transcript in
                   transcripts(page.read_text(encoding="utf-8"), page_name(page))]
TRANSCRIPTS = [t for t in ALL_TRANSCRIPTS if (t.page, t.steps[0].command) not in RUN_BY_TESTS]


def transcript_run_by_a_test(page: str, command: str) -> Transcript:
    """The transcript of ``page`` whose first command is ``command`` (one of ``RUN_BY_TESTS``),
    for the test that runs it."""
    (found,) = [t for t in ALL_TRANSCRIPTS if (t.page, t.steps[0].command) == (page, command)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("transcript", TRANSCRIPTS,
                         ids=[f"{t.page}:line{t.line}" for t in TRANSCRIPTS])
def test_the_docs_transcript_is_what_the_commands_print(transcript: Transcript,
                                                        tmp_path: Path):
    workdir = workspace(tmp_path)
    for step in transcript.steps:
        out, code = run_in(workdir, step.command)
        where = f"{transcript.page}:{transcript.line}: $ {step.command}"
        assert pattern(step.expected).fullmatch(out), f"{where}\n--- printed:\n{out}"
        assert code == step.code, f"{where}\nexited {code}, the page says {step.code}"


def test_a_transcript_left_to_a_test_is_on_its_page_and_that_test_runs_it():
    names = {value: name for name, value in vars(example_runs).items()
             if isinstance(value, tuple) and value in RUN_BY_TESTS}
    for (page, command), test in RUN_BY_TESTS.items():
        assert transcript_run_by_a_test(page, command).page == page
        module, _, name = test.partition("::")
        source = (ROOT / "tests" / "e2e" / module).read_text(encoding="utf-8")
        assert f"def {name}(" in source
        # by its name in example_runs: the run a test asks for is the run left to it
        assert f"transcript_run_by_a_test(*{names[page, command]})" in source, test


def test_the_docs_have_transcripts_and_the_harness_reads_them():
    pages = {t.page for t in ALL_TRANSCRIPTS}
    assert {"README.md", "docs/validate.md", "docs/local.md", "docs/vertex.md"} <= pages, pages
    assert len(TRANSCRIPTS) >= 12
    (step,) = transcripts("```console\n$ false\n[1]\n```\n")[0].steps
    assert step == Step("false", [], 1)
    assert pattern(["a …", "…", "z"]).fullmatch("a b\nc\nd\nz\n")
    assert not pattern(["a", "z"]).fullmatch("a\nc\nz\n")
