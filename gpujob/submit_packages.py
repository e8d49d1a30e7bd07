"""The trainer packages a submit or a local run asks for (``--package-path``, ``--packages``):
checked before the config's checks (which see them as the gs:// URIs they will have), then
built and addressed by content for the cloud, or installed here for a local run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpujob.config.document import Document
from gpujob.config.merge import apply
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE
from gpujob.errors import UsageError
from gpujob.findings import Finding, Location
from gpujob.staging import Location as StagingLocation
from gpujob.staging import Upload
from gpujob.submit_settings import SubmitSettings

PACKAGE_URIS = ("trainingInput", "packageUris")


@dataclass
class Prepared:
    """The checked Job, the packages to stage before it is sent (their URIs are in it), and
    the checks' warnings."""

    doc: Document
    uploads: list[Upload] = field(default_factory=list)
    location: StagingLocation | None = None
    warnings: list[Finding] = field(default_factory=list)
    local_packages: list[Path] = field(default_factory=list)  # for a local run to install
    region: str | None = None  # a native Vertex config's (--region: the file has none)
    cost: Any = None  # Vertex AI: the job's $/hour (a gpujob.cost.Estimate)


class Wanted:
    """The packages the command line asks to stage: the local files among ``--packages`` (by
    their index in packageUris) and the ``--package-path`` directory, checked (exit 2)."""

    def __init__(self, doc: Document, settings: SubmitSettings) -> None:
        from gpujob import packaging, staging

        ti = doc.data.get("trainingInput")
        uris = ti.get("packageUris") if isinstance(ti, dict) else None
        self.uris: list[Any] = list(uris) if isinstance(uris, list) else []
        self.origin = doc.locate(PACKAGE_URIS)
        if settings.package_path and self.uris and not self.origin.flag:
            # the package flags set the job's packages, as gcloud's do: the file's are replaced
            # (without either flag they are kept, unlike gcloud)
            CONSOLE.err(f"note: --package-path replaces the config's packageUris "
                  f"({', '.join(map(str, self.uris))}); add them with --packages to keep them")
            self.uris = []
        # only entries given on the command line may be local files; the file's must be gs://
        self.local = [i for i, uri in enumerate(self.uris) if self.origin.flag
                      and isinstance(uri, str) and not uri.startswith("gs://")]
        self.files = staging.check_local_files([self.uris[i] for i in self.local])
        self.package_dir = (packaging.check_package_path(settings.package_path)
                            if settings.package_path else None)
        if settings.staging_bucket:
            staging.staging_bucket(settings.staging_bucket)  # a bad flag is refused even unused

    def __bool__(self) -> bool:
        return bool(self.local) or self.package_dir is not None

    def for_check(self) -> Override:
        """packageUris as the checks should see it: the entries to be staged stand in as gs://
        URIs (their content addresses are not known before the build), so that the rules see
        the packages the job will have."""
        uris = list(self.uris)
        for i, path in zip(self.local, self.files, strict=True):
            uris[i] = f"gs://to-be-staged/{path.name}"
        if self.package_dir is not None:
            uris.append(f"gs://to-be-staged/{self.package_dir.name}.tar.gz")
        return Override(PACKAGE_URIS, uris, self.origin)

    def stage(self, doc: Document, settings: SubmitSettings, workdir: Path,
              before_build: Callable[[], None]) -> Prepared:
        """Build the package, address every file by its content, and put the URIs in the
        Job (the ones given stay in their places; the built package comes last).
        ``before_build``: called once the staging location is known."""
        from gpujob import packaging, staging

        ti = doc.data.get("trainingInput")
        location = staging.resolve_location(
            settings.staging_bucket, ti.get("jobDir") if isinstance(ti, dict) else None)
        if location is None:
            raise staging.no_location_error()
        before_build()
        files = list(self.files)
        if self.package_dir is not None:
            module = ti.get("pythonModule") if isinstance(ti, dict) and not self.uris else None
            built = packaging.build_sdist(self.package_dir, workdir, CONSOLE.err,
                                          verbose=settings.gcp.verbose, module=module)
            files.append(built)
            staging.check_unique_names(files)
        uploads = [staging.upload_for(path, location) for path in files]
        if self.package_dir is not None:
            CONSOLE.err(f"Built {uploads[-1].name} ({staging.human_size(uploads[-1].digest.size)}, "
                  f"sha256 {uploads[-1].digest.sha256[:12]}…)")
        uris = list(self.uris)
        for i, upload in zip(self.local, uploads[:len(self.local)], strict=True):
            uris[i] = upload.uri
        if self.package_dir is not None:
            uris.append(uploads[-1].uri)
        origin = Location("command line", flag="--package-path") \
            if self.package_dir is not None else self.origin
        return Prepared(apply(doc, [Override(PACKAGE_URIS, uris, origin)]), uploads, location)


class LocalWanted:
    """The packages a local run installs: the local files among ``--packages``, checked (exit
    2). It cannot fetch gs:// packages: given on the command line they are refused (exit 2);
    the config's own, which the cloud would install, are left out with a warning (unless
    --package-path stands for them, as it replaces them in the cloud)."""

    def __init__(self, doc: Document, settings: SubmitSettings) -> None:
        from gpujob import staging

        ti = doc.data.get("trainingInput")
        uris = ti.get("packageUris") if isinstance(ti, dict) else None
        uris = list(uris) if isinstance(uris, list) else []
        self.origin = doc.locate(PACKAGE_URIS)
        if not self.origin.flag:
            if uris and not settings.package_path:
                CONSOLE.err("warning: a local run cannot fetch packages from Cloud Storage: the "
                            f"config's packageUris ({', '.join(map(str, uris))}) are not "
                            "installed; give local copies with --packages")
            uris = []
        remote = [uri for uri in uris if not isinstance(uri, str) or uri.startswith("gs://")]
        if remote:
            raise UsageError(f"{self.origin.flag} {remote[0]}: a local run cannot fetch "
                             "packages from Cloud Storage", "give a local copy of it (gcloud "
                             f"storage cp {remote[0]} .), or run the job in the cloud with "
                             "gpujob submit")
        self.files = staging.check_local_files(
            uris, hint="give the paths of local package files (.whl, .tar.gz) to install")

    def __bool__(self) -> bool:
        return bool(self.files)

    def for_check(self) -> Override:
        """packageUris as the checks see it: each file as a gs:// URI (as for the cloud)."""
        return Override(PACKAGE_URIS, [f"gs://to-be-installed/{p.name}" for p in self.files],
                        self.origin)
