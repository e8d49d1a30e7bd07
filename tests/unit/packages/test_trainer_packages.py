"""Trainer packages on the command line: --package-path builds, --packages takes local files, and
the dry-run shows where each will be staged. Nothing here talks to Google (no credentials are
set); builds install their backend from a wheel made offline (`offline_builds`)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
from pathlib import Path

import pytest
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

from gpujob.packages.build import CANONICAL_MTIME, modules_in, normalize_sdist

CONFIG = RUNTIME_JOB_WITHOUT_PACKAGES
URI = re.compile(r"gs://bkt/packages/(?P<sha>[0-9a-f]{64})/(?P<name>[^/]+)")


@pytest.fixture
def config(write) -> str:
    return write(CONFIG)


def dry_run(cli, config: str, *args: str):
    result = cli("submit", config, "--dry-run", "--job-id", "j1", *args)
    body = json.loads(result.out) if result.code == 0 else None
    return result, body


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


# -- --package-path --------------------------------------------------------------------------

@pytest.mark.slow
def test_the_dry_run_builds_the_package_and_shows_its_uri_by_content(cli, config, trainer,
                                                                      offline_builds):
    package = trainer({"trainer/configs/small.yaml": "lr: 0.1\n"})
    before = files_under(package.parent)
    result, body = dry_run(cli, config, "--package-path", package, "--staging-bucket",
                           "gs://bkt")
    assert result.code == 0, result.err
    (uri,) = body["trainingInput"]["packageUris"]
    first = URI.fullmatch(uri)
    assert first and first["name"] == "trainer-0.0.0.tar.gz"
    size = r"\d+ bytes|\d+\.\d KiB"
    lines = result.err.splitlines()
    assert lines[0] == (f"Building the trainer package from {package} (with a generated build "
                        "config) in an isolated environment…")
    assert re.fullmatch(rf"Built trainer-0\.0\.0\.tar\.gz \(({size}), sha256 "
                        rf"{first['sha'][:12]}…\)", lines[1])
    assert re.fullmatch(rf"Dry run: would stage trainer-0\.0\.0\.tar\.gz \(({size})\) at "
                        rf"{re.escape(uri)} unless it is there already \(nothing uploaded\)",
                        lines[2])
    assert lines[3:] == ["Dry run: would POST this Job to https://ml.googleapis.com/v1/projects/"
                         "PROJECT/jobs (nothing sent); no project given (--project or "
                         "GPUJOB_PROJECT)"]
    # the generated build config went into a temporary copy, not beside the user's files
    assert files_under(package.parent) == before

    # new modification times, same contents: the same bytes, so the same address
    for path in package.rglob("*"):
        path.touch()
    _, body = dry_run(cli, config, "--package-path", package, "--staging-bucket",
                          "gs://bkt")
    assert body["trainingInput"]["packageUris"] == [uri]

    # a changed file: a new address
    (package / "task.py").write_text("print('training harder')\n")
    _, body = dry_run(cli, config, "--package-path", package, "--staging-bucket",
                            "gs://bkt")
    (new,) = body["trainingInput"]["packageUris"]
    assert URI.fullmatch(new)["name"] == "trainer-0.0.0.tar.gz"
    assert new != uri


@pytest.mark.slow
@pytest.mark.parametrize("config_file, text, sdist", [
    ("pyproject.toml", '[build-system]\nrequires = ["setuptools>=61"]\n'
     'build-backend = "setuptools.build_meta"\n[project]\nname = "trainer"\nversion = "1.2"\n',
     "trainer-1.2.tar.gz"),
    ("setup.py", "from setuptools import setup\nsetup(name='trainer', version='2.0', "
     "packages=['trainer'])\n", "trainer-2.0.tar.gz"),
])
def test_the_projects_own_build_config_is_used(cli, config, trainer, offline_builds,
                                               config_file, text, sdist):
    package = trainer({config_file: text})
    result, body = dry_run(cli, config, "--package-path", package, "--staging-bucket",
                           "gs://bkt")
    assert result.code == 0, result.err
    (uri,) = body["trainingInput"]["packageUris"]
    assert URI.fullmatch(uri)["name"] == sdist
    assert (f"Building the trainer package from {package.parent} (with its {config_file}) in "
            "an isolated environment…") in result.err


BUILD_HINT = ("  hint: fix what it reports; the build runs in a fresh environment holding only the "
              "build-system requirements, which pip must be able to install (pip's index and "
              "PIP_INDEX_URL / PIP_FIND_LINKS apply)")


@pytest.mark.slow
def test_a_failing_build_shows_what_it_reported_and_exits_1(cli, config, trainer,
                                                             offline_builds):
    # click is installed beside gpujob, but the build's environment is its own
    package = trainer({"setup.py": "import click\nfrom setuptools import setup\nsetup()\n"})
    result, _ = dry_run(cli, config, "--package-path", package, "--staging-bucket", "gs://bkt")
    assert result.code == 1
    assert result.out == ""
    # the setup.py's exception and build's error line, without the frames of either traceback
    assert result.err.splitlines()[1:] == [
        "ModuleNotFoundError: No module named 'click'",
        "ERROR Backend subprocess exited when trying to invoke get_requires_for_build_sdist",
        f"error: building the trainer package from {package.parent} (with its setup.py) failed "
        "(python -m build exited 1); the errors it reported are above (its whole output with "
        "--verbose)",
        BUILD_HINT,
    ]

    # --verbose: build's whole output, tracebacks included
    result, _ = dry_run(cli, config, "--package-path", package, "--staging-bucket", "gs://bkt",
                        "--verbose")
    assert result.code == 1
    assert "Traceback (most recent call last):" in result.err
    assert "* Getting build dependencies for sdist..." in result.err
    assert result.err.splitlines()[-2:] == [
        f"error: building the trainer package from {package.parent} (with its setup.py) failed "
        "(python -m build exited 1); its output is above", BUILD_HINT]


def test_a_build_that_cannot_get_its_backend_says_so(cli, config, trainer, monkeypatch):
    # no wheels and no index: pip cannot install setuptools into the build's environment
    monkeypatch.setenv("PIP_FIND_LINKS", str(Path(config).parent / "no-wheels-here"))
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    result, _ = dry_run(cli, config, "--package-path", trainer(), "--staging-bucket",
                        "gs://bkt")
    assert result.code == 1
    assert "ERROR: No matching distribution found for setuptools>=61" in result.err
    assert "error: building the trainer package from" in result.err
    # pypa/build's own traceback is not shown, nor any line wider than a screen or so
    assert "Traceback" not in result.err and 'File "' not in result.err
    assert max(map(len, result.err.splitlines())) <= 301


@pytest.mark.slow
def test_the_module_to_run_must_be_in_the_built_package(cli, write, trainer, offline_builds):
    path = write(CONFIG.replace("trainer.task", "trainer.tsk"))
    package = trainer({"trainer/data/__init__.py": "", "trainer/data/mnist.py": ""})
    result, _ = dry_run(cli, path, "--package-path", package, "--staging-bucket", "gs://bkt")
    assert result.code == 1
    assert result.err.splitlines()[-2:] == [
        f"error: the trainer package built from {package} (with a generated build config) has "
        "no module trainer.tsk; its modules: trainer, trainer.data, trainer.data.mnist, "
        "trainer.task",
        "  hint: set --module-name (pythonModule) to the module to run, as for python -m MODULE"]
    # the flag that names it is checked the same way, and the right name builds
    result, _ = dry_run(cli, path, "--package-path", package, "--staging-bucket", "gs://bkt",
                        "--module-name", "trainer.data.mnist")
    assert result.code == 0, result.err


def test_modules_are_found_in_a_src_layout(tmp_path):
    sdist = tmp_path / "proj-1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for name in ("proj-1.0/setup.py", "proj-1.0/src/pkg/__init__.py",
                     "proj-1.0/src/pkg/train.py", "proj-1.0/README.md",
                     "proj-1.0/src/proj.egg-info/PKG-INFO"):
            archive.addfile(tarfile.TarInfo(name), io.BytesIO(b""))
    assert modules_in(sdist) == ["pkg", "pkg.train"]


def test_config_problems_are_reported_before_anything_is_built(cli, write, trainer):
    path = write(CONFIG.replace("  region:", "  regoin:"))
    result, _ = dry_run(cli, path, "--package-path", trainer(), "--staging-bucket", "gs://bkt")
    assert result.code == 1
    assert "unknown key 'regoin'" in result.err
    assert "Building" not in result.err


@pytest.mark.parametrize("make, message", [
    (lambda root: root / "nowhere", "error: --package-path {path}: no such directory"),
    (lambda root: root / "project" / "trainer" / "task.py",
     "error: --package-path {path} is a file, not a directory"),
    (lambda root: root / "project", "error: --package-path: [{path}] is not a valid Python "
     "package because it does not contain an `__init__.py` file"),
])
def test_package_path_must_name_a_python_package(cli, config, trainer, tmp_path, make,
                                                 message):
    trainer()
    path = make(tmp_path)
    result, _ = dry_run(cli, config, "--package-path", path, "--staging-bucket", "gs://bkt")
    assert result.code == 2
    assert result.err.splitlines() == [
        message.format(path=path),
        "  hint: --package-path takes the directory of the trainer's Python package, the one "
        "holding __init__.py: trainer/ for --module-name trainer.task",
    ]


# -- --packages and the staging location -----------------------------------------------------

@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    path = tmp_path / "deps" / "dep-1.0-py3-none-any.whl"
    path.parent.mkdir()
    path.write_bytes(b"PK\x05\x06" + bytes(18))
    return path


def test_local_files_are_staged_by_content_and_gs_uris_kept_in_order(cli, config, wheel):
    result, body = dry_run(cli, config, "--packages", f"gs://x/a.tar.gz,{wheel},gs://y/b.whl",
                           "--job-dir", "gs://jobs/run-1")
    assert result.code == 0, result.err
    assert body["trainingInput"]["packageUris"] == [
        "gs://x/a.tar.gz",
        f"gs://jobs/run-1/packages/{sha256(wheel)}/dep-1.0-py3-none-any.whl",
        "gs://y/b.whl",
    ]
    assert "Building" not in result.err


@pytest.mark.slow
def test_the_built_package_comes_after_the_packages_given(cli, config, wheel, trainer,
                                                          offline_builds):
    result, body = dry_run(cli, config, "--packages", f"{wheel},gs://x/a.tar.gz",
                           "--package-path", trainer(), "--staging-bucket", "gs://bkt")
    assert result.code == 0, result.err
    uris = body["trainingInput"]["packageUris"]
    assert uris[:2] == [f"gs://bkt/packages/{sha256(wheel)}/dep-1.0-py3-none-any.whl",
                        "gs://x/a.tar.gz"]
    assert URI.fullmatch(uris[2])["name"] == "trainer-0.0.0.tar.gz"


@pytest.mark.slow
def test_package_flags_replace_the_files_packages_as_gcloud_does(cli, write, trainer,
                                                                 offline_builds):
    path = write(CONFIG + "  packageUris: [gs://old/trainer-0.1.tar.gz]\n")
    result, body = dry_run(cli, path, "--package-path", trainer(), "--staging-bucket",
                           "gs://bkt")
    assert result.code == 0, result.err
    (uri,) = body["trainingInput"]["packageUris"]
    assert URI.fullmatch(uri)["name"] == "trainer-0.0.0.tar.gz"
    assert ("note: --package-path replaces the config's packageUris "
            "(gs://old/trainer-0.1.tar.gz); add them with --packages to keep them") in result.err
    result, body = dry_run(cli, path)  # without package flags the file's packages stay
    assert body["trainingInput"]["packageUris"] == ["gs://old/trainer-0.1.tar.gz"]


@pytest.mark.parametrize("args, env, prefix", [
    (["--staging-bucket", "gs://stage", "--job-dir", "gs://jobs/run-1"], {}, "gs://stage"),
    (["--job-dir", "gs://jobs/run-1"], {"GPUJOB_STAGING_BUCKET": "gs://from-env/"},
     "gs://from-env"),
    (["--job-dir", "gs://jobs/run-1/"], {}, "gs://jobs/run-1"),
    (["--job-dir", "gs://jobs"], {}, "gs://jobs"),
])
def test_the_staging_location(cli, config, wheel, args, env, prefix):
    result = cli("submit", config, "--dry-run", "--packages", str(wheel), *args, env=env)
    assert result.code == 0, result.err
    (uri,) = json.loads(result.out)["trainingInput"]["packageUris"]
    assert uri == f"{prefix}/packages/{sha256(wheel)}/dep-1.0-py3-none-any.whl"


def test_the_jobs_directory_in_the_file_is_a_staging_location(cli, write, wheel):
    path = write(CONFIG + "  jobDir: gs://jobs/from-file\n")
    result, body = dry_run(cli, path, "--packages", str(wheel))
    assert result.code == 0, result.err
    assert body["trainingInput"]["packageUris"] == [
        f"gs://jobs/from-file/packages/{sha256(wheel)}/dep-1.0-py3-none-any.whl"]


@pytest.mark.parametrize("args, lines", [
    (["--packages", "{tmp}/missing.tar.gz", "--staging-bucket", "gs://bkt"],
     ["error: --packages: no such file: {tmp}/missing.tar.gz",
      "  hint: give local package files (.tar.gz, .whl) or gs:// URIs"]),
    (["--packages", "{tmp}/deps", "--staging-bucket", "gs://bkt"],
     ["error: --packages: {tmp}/deps is not a file",
      "  hint: to build a package from a directory, pass --package-path DIR"]),
    (["--packages", "{wheel},{tmp}/other/dep-1.0-py3-none-any.whl", "--staging-bucket",
      "gs://bkt"],
     ["error: cannot upload multiple packages with the same file name: {wheel} and "
      "{tmp}/other/dep-1.0-py3-none-any.whl", "  hint: rename one of them"]),
    (["--packages", "{wheel}"],
     ["error: local packages need a place in Cloud Storage: --staging-bucket or --job-dir "
      "must be given",
      "  hint: pass --staging-bucket gs://BUCKET (or set GPUJOB_STAGING_BUCKET), or --job-dir "
      "gs://BUCKET/PATH; packages then go to gs://BUCKET/packages/ or "
      "gs://BUCKET/PATH/packages/"]),
    (["--packages", "{wheel}", "--staging-bucket", "gs://bkt/sub"],
     ["error: --staging-bucket 'gs://bkt/sub': must be a Cloud Storage bucket of the form "
      "gs://BUCKET",
      "  hint: packages are staged in gs://BUCKET/packages/; bucket names have 3 to 63 "
      "lower-case letters, digits, '-', '_' and '.', and start and end with a letter or digit"]),
    (["--staging-bucket", "bkt"],
     ["error: --staging-bucket 'bkt': must be a Cloud Storage bucket of the form gs://BUCKET",
      "  hint: packages are staged in gs://BUCKET/packages/; bucket names have 3 to 63 "
      "lower-case letters, digits, '-', '_' and '.', and start and end with a letter or digit"]),
])
def test_usage_errors(cli, config, wheel, tmp_path, args, lines):
    other = tmp_path / "other" / wheel.name
    other.parent.mkdir()
    other.write_bytes(b"another")
    fill = {"tmp": tmp_path, "wheel": wheel}
    result = cli("submit", config, "--dry-run", *[a.format(**fill) for a in args])
    assert result.code == 2
    assert result.out == ""
    assert result.err.splitlines() == [line.format(**fill) for line in lines]


@pytest.mark.parametrize("job_dir, message", [
    ("/tmp/out", "jobDir '/tmp/out' is not a Cloud Storage path"),
    ("gs://Bad_Bucket/out", "jobDir 'gs://Bad_Bucket/out' names no valid bucket"),
    ("gs:///out", "jobDir 'gs:///out' names no valid bucket"),
])
def test_a_bad_job_dir_is_one_finding_also_when_it_would_hold_the_packages(cli, config, wheel,
                                                                           job_dir, message):
    result = cli("submit", config, "--dry-run", "--packages", str(wheel), "--job-dir", job_dir)
    assert result.code == 1
    errors = [line for line in result.err.splitlines() if not line.startswith("  hint:")]
    assert errors == [
        f"command line (--job-dir): trainingInput.jobDir: {message} [submit.job-dir]",
        f"error: {config}: 1 problem; nothing was submitted",
    ]


def test_local_paths_in_the_file_are_not_uploaded(cli, write, wheel):
    path = write(CONFIG + f"  packageUris: ['{wheel}']\n  jobDir: gs://jobs/x\n")
    result = cli("submit", path, "--dry-run")
    assert result.code == 1
    assert result.err.splitlines() == [
        f"{path}:7:17: trainingInput.packageUris[0]: '{wheel}' is not a valid packageUris "
        "entry [schema.pattern]",
        "  hint: package URIs are gs://BUCKET/PATH; give local files with --packages and gpujob "
        "uploads them",
        f"error: {path}: 1 problem; nothing was submitted",
    ]


# -- the canonical archive -------------------------------------------------------------------

def _sdist(path: Path, members: list[tuple[str, bytes]], mtime: int, uid: int,
           gzip_mtime: int) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.uid, info.uname, info.mode = \
                len(data), mtime, uid, f"user{uid}", 0o664
            archive.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), mtime=gzip_mtime))
    return path


def test_the_canonical_archive_keeps_contents_and_drops_times_owners_and_order(tmp_path):
    members = [("p-1/PKG-INFO", b"Name: p\n"), ("p-1/p/__init__.py", b""),
               ("p-1/p/run.sh", b"#!/bin/sh\n")]
    one = _sdist(tmp_path / "one.tar.gz", members, 1_700_000_000, 1000, 1_700_000_001)
    two = _sdist(tmp_path / "two.tar.gz", members[::-1], 1_800_000_000, 501, 1_800_000_002)
    assert one.read_bytes() != two.read_bytes()
    normalize_sdist(one, tmp_path / "one-canonical.tar.gz")
    normalize_sdist(two, tmp_path / "two-canonical.tar.gz")
    canonical = (tmp_path / "one-canonical.tar.gz").read_bytes()
    assert canonical == (tmp_path / "two-canonical.tar.gz").read_bytes()
    assert canonical[4:8] == bytes(4)  # gzip header: no time
    with tarfile.open(tmp_path / "one-canonical.tar.gz") as archive:
        assert archive.getnames() == sorted(name for name, _ in members)
        for member, (_, data) in zip(archive.getmembers(), sorted(members), strict=True):
            assert (member.mtime, member.uid, member.gid, member.mode) == \
                (CANONICAL_MTIME, 0, 0, 0o644)
            assert archive.extractfile(member).read() == data
