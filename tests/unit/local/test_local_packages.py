"""``gpujob local --packages``: local wheels and sdists are installed for the run (pip, into a
directory first on the replicas' PYTHONPATH, removed afterwards), and the trainer imports them;
a local run cannot fetch gs:// packages, and says so."""

from __future__ import annotations

import importlib.util
import io
import tarfile
from pathlib import Path

import pytest
from fakes.wheels import make_wheel

# the trainer: imports the extra package and writes what it found into its job dir
TASK = """\
import sys
from pathlib import Path

import extra_pkg

job_dir = Path(sys.argv[sys.argv.index("--job-dir") + 1])
job_dir.joinpath("imported.txt").write_text(f"{extra_pkg.VALUE}\\n{extra_pkg.__file__}\\n")
"""
CONFIG = "trainingInput:\n  scaleTier: BASIC\n  runtimeVersion: '2.11'\n"
NO_GPUS = {"GPUJOB_LOCAL_GPUS": ""}


@pytest.fixture
def run(cli, write, trainer, tmp_path: Path):
    """``gpujob local`` (or ``submit --local``) of the trainer above with ``--packages``;
    returns (result, job dir)."""

    def go(packages: str, *, command: tuple[str, ...] = ("local",), config: str = CONFIG):
        package = trainer({"trainer/task.py": TASK})
        job_dir = tmp_path / "job-dir"
        result = cli(*command, "--service", "ai-platform", write(config), "--package-path",
                     str(package), "--module-name", "trainer.task", "--job-dir", str(job_dir),
                     "--packages", packages, env=NO_GPUS)
        return result, job_dir

    return go


def imported(job_dir: Path) -> tuple[str, Path]:
    value, where = (job_dir / "imported.txt").read_text().splitlines()
    return value, Path(where)


def _sdist(out: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """An sdist as a build backend makes one: NAME-VERSION/ with a pyproject.toml (setuptools)."""
    files = {"pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\n'
                               'build-backend = "setuptools.build_meta"\n\n'
                               f'[project]\nname = "{name}"\nversion = "{version}"\n',
             "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", **files}
    sdist = out / f"{name}-{version}.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for path, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"{name}-{version}/{path}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return sdist


@pytest.mark.parametrize(("make", "version", "file", "value"), [
    (make_wheel, "0.3", "extra_pkg-0.3-py3-none-any.whl", "from the wheel"),
    pytest.param(_sdist, "0.4", "extra_pkg-0.4.tar.gz", "from the sdist",
                 marks=pytest.mark.slow)], ids=["wheel", "sdist"])
def test_a_local_package_is_installed_for_the_run_and_the_trainer_imports_it(
        run, tmp_path, request, make, version, file, value):
    """A wheel is installed as it is; an sdist is built first (its build backend from the
    offline wheelhouse)."""
    if make is _sdist:
        request.getfixturevalue("offline_builds")
    package = make(tmp_path, "extra_pkg", version,
                   {"extra_pkg/__init__.py": f"VALUE = {value!r}\n"})
    result, job_dir = run(str(package))
    assert result.code == 0, result.err
    found, where = imported(job_dir)
    assert found == value
    installed = where.parent.parent  # DIR/extra_pkg/__init__.py
    assert installed.name.startswith("gpujob-packages-")
    assert result.err.splitlines()[0] == (
        f"Installing {file} for this run with pip, into {installed} "
        "(first on the replicas' PYTHONPATH)…")
    assert not installed.exists()  # removed after the run
    assert importlib.util.find_spec("extra_pkg") is None  # gpujob's environment is untouched


def test_the_trainer_itself_may_come_as_a_wheel(cli, write, tmp_path, monkeypatch):
    """Without --package-path, the module is looked for (before any replica starts) where the
    replicas will look, the installed packages included."""
    wheel = make_wheel(tmp_path, "wheeled", "1.0", {
        "wheeled/__init__.py": "", "wheeled/task.py": TASK.replace("extra_pkg", "wheeled.value"),
        "wheeled/value.py": "VALUE = 'the trainer from a wheel'\n"})
    monkeypatch.chdir(tmp_path)
    result = cli("local", "--service", "ai-platform", write(CONFIG), "--module-name",
                 "wheeled.task", "--job-dir", "out", "--packages", str(wheel), env=NO_GPUS)
    assert result.code == 0, result.err
    assert imported(tmp_path / "out")[0] == "the trainer from a wheel"


def test_a_missing_package_file_is_a_usage_error_before_anything_runs(run, tmp_path):
    result, job_dir = run(f"{tmp_path}/missing-0.1-py3-none-any.whl")
    assert result.code == 2
    assert result.err == (
        f"error: --packages: no such file: {tmp_path}/missing-0.1-py3-none-any.whl\n"
        "  hint: give the paths of local package files (.whl, .tar.gz) to install\n")
    assert not job_dir.exists()


@pytest.mark.parametrize("command", [("local",), ("submit", "--local")])
def test_a_gs_package_cannot_be_fetched_by_a_local_run(run, tmp_path, command):
    wheel = make_wheel(tmp_path, "extra_pkg", "0.3", {"extra_pkg/__init__.py": "VALUE = 1\n"})
    result, job_dir = run(f"{wheel},gs://shared/utils-1.0.tar.gz", command=command)
    assert result.code == 2
    assert result.err == (
        "error: --packages gs://shared/utils-1.0.tar.gz: a local run cannot fetch packages from "
        "Cloud Storage\n"
        "  hint: give a local copy of it (gcloud storage cp gs://shared/utils-1.0.tar.gz .), or "
        "run the job in the cloud with gpujob submit\n")
    assert not job_dir.exists()


def test_a_wheel_pip_refuses_fails_the_run_with_pips_reason(run, tmp_path):
    wheel = make_wheel(tmp_path, "extra_pkg", "0.3", {"extra_pkg/__init__.py": "VALUE = 1\n"},
                       tag="cp27-cp27m-win32")
    result, job_dir = run(str(wheel))
    assert result.code == 1
    lines = result.err.splitlines()
    assert "ERROR: extra_pkg-0.3-cp27-cp27m-win32.whl is not a supported wheel on this " \
           "platform." in lines
    assert lines[-2:] == [
        "error: --packages: pip could not install extra_pkg-0.3-cp27-cp27m-win32.whl for the "
        "local run (pip install --no-deps --target exited 1); what it reported is above",
        "  hint: their dependencies must be installed already (--no-deps); an sdist's build "
        "backend comes from pip's index (PIP_INDEX_URL / PIP_FIND_LINKS apply)"]
    assert "Traceback" not in result.err
    assert not (job_dir / "imported.txt").exists()


def test_the_configs_gs_packages_are_not_installed_here_and_a_warning_says_so(
        cli, write, trainer, tmp_path, monkeypatch):
    package = trainer({"trainer/task.py": "print('ran')\n"})
    config = write(CONFIG + "  packageUris: [gs://b/trainer-0.1.tar.gz]\n")
    monkeypatch.chdir(package.parent)
    result = cli("local", "--service", "ai-platform", config, "--module-name", "trainer.task",
                 "--job-dir", str(tmp_path / "out"), env=NO_GPUS)
    assert result.code == 0, result.err
    assert result.err.splitlines()[0] == (
        "warning: a local run cannot fetch packages from Cloud Storage: the config's packageUris "
        "(gs://b/trainer-0.1.tar.gz) are not installed; give local copies with --packages")
    # --package-path stands for them, as it replaces them in the cloud: nothing to say
    result = cli("local", "--service", "ai-platform", config, "--package-path", str(package),
                 "--module-name", "trainer.task", "--job-dir", str(tmp_path / "out"), env=NO_GPUS)
    assert result.code == 0, result.err
    assert "warning" not in result.err
