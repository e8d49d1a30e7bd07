"""Every example in every command's --help, and every gpujob command in the ```sh blocks of the
README and the user guide's pages (docs/*.md), works under the default service as it is shown
(run in this process, as the console script runs it, with bash's quoting and globbing), with a
shipped config (configs/t4-compute-engine.yaml) standing for config.yaml and a trainer package
in trainer/: an example that needs no service exits 0; one that reaches the service (submit
without --dry-run or --local, describe, list, cancel, wait, logs) gets as far as asking for
credentials (exit 3), so its arguments, flags and config were all accepted. (The docs'
```console transcripts are run by test_readme.py.)"""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import zipfile
from pathlib import Path

import pytest
from doc_pages import PAGES, page_name

from gpujob.cli import cli

ROOT = Path(__file__).resolve().parents[3]
REMOTE = {"describe", "list", "cancel", "wait", "logs", "preflight", "cost", "reserve"}


def help_texts() -> dict[str, str]:
    """The --help of gpujob and of each of its commands, as click renders it."""
    from click.testing import CliRunner

    runner = CliRunner()
    texts = {"gpujob": runner.invoke(cli, ["--help"]).output}
    import click

    for name in cli.list_commands(click.Context(cli)):  # type: ignore[attr-defined]
        texts[name] = runner.invoke(cli, [name, "--help"]).output
    return texts


def examples(text: str) -> list[str]:
    """The gpujob command lines in a help text: continuation lines joined, and the shell's
    pipes, &&, ; and comments (what the example does with the output) left out."""
    found, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if pending:
            line = pending + " " + line
        elif not line.startswith("gpujob "):
            continue
        if line.endswith("\\"):
            pending = line[:-1].strip()
            continue
        pending = ""
        line = re.split(r"\s+(?:\||&&|;|#)\s|\s{3,}", line)[0]  # 3+ spaces: a description
        found.append(line.strip())
    return found


def doc_examples() -> list[tuple[str, str]]:
    """(page, command line): the gpujob command lines of the docs' ```sh blocks."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        blocks = re.findall(r"^```sh\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
        found += [(page_name(page), line) for block in blocks for line in examples(block)]
    return found


EXAMPLES = sorted({(command, line) for command, text in help_texts().items()
                   for line in examples(text)}
                  | set(doc_examples()))


def needs_service(line: str) -> bool:
    words = line.split()
    if words[1] in REMOTE:
        return True
    if words[1] == "convert":  # it uploads a local package, as submit stages it
        return "--package-path" in words
    return words[1] == "submit" and not {"--dry-run", "--local"} & set(words)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(ROOT / "configs", work / "configs")
    for path in (ROOT / "docs" / "examples").iterdir():
        if path.is_file():
            shutil.copy(path, work / path.name)
    shutil.copy(ROOT / "configs" / "t4-compute-engine.yaml", work / "config.yaml")
    (work / "trainer").mkdir()
    (work / "trainer" / "__init__.py").write_text("")
    (work / "trainer" / "task.py").write_text("import sys\nprint('trained', sys.argv[1:])\n")
    (work / ".config" / "fish" / "completions").mkdir(parents=True)  # HOME is work
    (work / "dist").mkdir()  # docs/packages.md's --packages names a wheel of the user's
    with zipfile.ZipFile(work / "dist" / "extra-0.3-py3-none-any.whl", "w") as wheel:
        wheel.writestr("extra/__init__.py", "")
    return work


def test_the_help_texts_have_examples_and_the_parser_finds_them():
    assert len(EXAMPLES) >= 25
    assert {"docs/submit.md", "docs/local.md", "docs/ci.md"} <= {page for page, _ in doc_examples()}
    assert examples("  Examples:\n    gpujob a \\\n        --b c | jq .\n") == ["gpujob a --b c"]
    assert examples("    gpujob x y    what it does\n") == ["gpujob x y"]


def words(line: str) -> list[str]:
    """The arguments bash would give gpujob for ``line``: quotes removed, globs expanded, an
    output redirection left out (the test reads stdout itself)."""
    found: list[str] = []
    for word in shlex.split(line.split(" > ")[0])[1:]:
        found += sorted(glob.glob(word)) or [word] if glob.has_magic(word) else [word]
    return found


@pytest.mark.parametrize(("command", "line"), EXAMPLES, ids=[line for _, line in EXAMPLES])
def test_the_example_works_as_shown(cli, workdir: Path, monkeypatch: pytest.MonkeyPatch,
                                   command: str, line: str):
    # in this process (as the console script runs it): a python start-up per example would be
    # a fifth of the inner loop; test_readme.py runs the docs' transcripts as real processes
    for key in os.environ:
        if key.startswith(("GPUJOB_", "GOOGLE_", "CLOUDSDK_")):
            monkeypatch.delenv(key)
    monkeypatch.chdir(workdir)
    result = cli(*words(line), env={
        "CLOUDSDK_CONFIG": str(workdir / ".gcloud"), "NO_GCE_CHECK": "true",
        "GCE_METADATA_HOST": "127.0.0.1:9", "GCE_METADATA_IP": "127.0.0.1:9",
        "GPUJOB_LOCAL_GPUS": "", "GPUJOB_CATALOG_MAX_AGE_DAYS": "100000",
        "GPUJOB_CACHE_DIR": str(workdir / ".cache"), "PIP_NO_INDEX": "1",
        "HOME": str(workdir)})
    where = f"{command}: {line}\n{result.err}"
    if needs_service(line):
        assert result.code == 3, where
        missing = ("cannot read the kubeconfig" if "--service gke" in line  # no cluster here
                   else "no Google Cloud credentials found")
        assert missing in result.err, where
    else:
        assert result.code == 0, where
