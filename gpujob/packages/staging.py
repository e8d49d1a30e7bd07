"""Where trainer packages go in Cloud Storage, and under which names: decided without the network.

Location: ``--staging-bucket gs://BUCKET`` (``GPUJOB_STAGING_BUCKET``) stages in
``gs://BUCKET/packages/``; else the job directory's ``packages/`` (``gs://B/PATH/packages/``), as
gcloud does. Local packages without either are an error.

Content addressing: each file is staged at ``LOCATION/packages/SHA256/NAME``, SHA256 being the
hex SHA-256 of the file's bytes and NAME its file name. The job ID plays no part (gcloud puts it
in the path), so submitting an unchanged package again finds it already there and uploads
nothing, while a changed package gets a new path and never replaces what another job uses. Built
packages have reproducible bytes (``packaging``), so unchanged sources give the same address.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

from gpujob import gsuri
from gpujob.errors import UsageError

PACKAGES = "packages"


@dataclass(frozen=True)
class Location:
    """``gs://BUCKET/PREFIX/packages/``; ``source`` says which flag or field chose it."""

    bucket: str
    prefix: str  # a path in the bucket, without a slash at either end; "" for the bucket's root
    source: str

    @property
    def url(self) -> str:
        return f"gs://{self.bucket}/{self.object_name('')}"

    def object_name(self, rest: str) -> str:
        return "/".join(part for part in (self.prefix, PACKAGES) if part) + "/" + rest


def staging_bucket(text: str) -> Location:
    """``--staging-bucket``: ``gs://BUCKET`` and nothing more, as gcloud takes it."""
    found = gsuri.split(text)
    if found is None or found[1].strip("/"):
        raise UsageError(f"--staging-bucket {text!r}: must be a Cloud Storage bucket of the form "
                         "gs://BUCKET",
                         f"packages are staged in gs://BUCKET/{PACKAGES}/; {gsuri.BUCKET_RULES}")
    return Location(found[0], "", "--staging-bucket")


def resolve_location(bucket: str | None, job_dir: object) -> Location | None:
    """``--staging-bucket``, else the job directory's ``packages/``; None when neither is given
    (a job directory that is not a ``gs://`` path is the ``submit.job-dir`` rule's to report)."""
    if bucket:
        return staging_bucket(bucket)
    found = gsuri.split(job_dir) if isinstance(job_dir, str) else None
    if found is None:
        return None
    return Location(found[0], found[1].strip("/"), "jobDir")


def no_location_error() -> UsageError:
    return UsageError("local packages need a place in Cloud Storage: --staging-bucket or "
                      "--job-dir must be given",
                      "pass --staging-bucket gs://BUCKET (or set GPUJOB_STAGING_BUCKET), or "
                      "--job-dir gs://BUCKET/PATH; packages then go to gs://BUCKET/packages/ or "
                      "gs://BUCKET/PATH/packages/")


@dataclass(frozen=True)
class Digest:
    sha256: str  # hex: the content address
    md5: str  # base64, as Cloud Storage reports an object's md5Hash
    size: int


def digest(path: Path) -> Digest:
    sha, md5, size = hashlib.sha256(), hashlib.md5(), 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            sha.update(chunk)
            md5.update(chunk)
            size += len(chunk)
    return Digest(sha.hexdigest(), base64.b64encode(md5.digest()).decode("ascii"), size)


@dataclass(frozen=True)
class Upload:
    """One file to stage: ``path`` to ``gs://bucket/object_name``."""

    path: Path
    bucket: str
    object_name: str
    digest: Digest

    @property
    def uri(self) -> str:
        return f"gs://{self.bucket}/{self.object_name}"

    @property
    def name(self) -> str:
        return self.path.name


def upload_for(path: Path, location: Location) -> Upload:
    found = digest(path)
    return Upload(path, location.bucket, location.object_name(f"{found.sha256}/{path.name}"),
                  found)


FILES_HINT = "give local package files (.tar.gz, .whl) or gs:// URIs"


def check_local_files(entries: list[str], hint: str = FILES_HINT) -> list[Path]:
    """``--packages`` entries that are local files, checked: they exist, are files, and have
    different names (the trainer's machine downloads them side by side). ``hint``: what to
    give instead."""
    paths = []
    for entry in entries:
        path = Path(entry).expanduser()
        try:  # Python 3.11's exists() raises for a name over the system's limit
            exists, is_file = path.exists(), path.is_file()
        except OSError as exc:
            raise UsageError(f"--packages: cannot read {entry}: {exc.strerror}", hint) from None
        if not exists:
            raise UsageError(f"--packages: no such file: {entry}", hint)
        if not is_file:
            raise UsageError(f"--packages: {entry} is not a file",
                             "to build a package from a directory, pass --package-path DIR")
        paths.append(path)
    check_unique_names(paths)
    return paths


def check_unique_names(paths: list[Path]) -> None:
    seen: dict[str, Path] = {}
    for path in paths:
        if path.name in seen:
            raise UsageError(f"cannot upload multiple packages with the same file name: "
                             f"{seen[path.name]} and {path}",
                             "rename one of them")
        seen[path.name] = path


def human_size(size: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")
