"""The trainer packages a submit or a local run asks for (``--package-path``, ``--packages``):
checked before the config's checks (which see them as the gs:// URIs they will have), then
built and addressed by content for the cloud, or installed here for a local run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpujob.config.document import Document
from gpujob.config.overrides import Override
from gpujob.console import CONSOLE
from gpujob.errors import UsageError
from gpujob.findings import Finding
from gpujob.submit.settings import SubmitSettings

if TYPE_CHECKING:  # packages.staging and .build: imported for a job with packages to stage
    from gpujob.packages.staging import Location as StagingLocation
    from gpujob.packages.staging import Upload
    from gpujob.services.base import Request

PACKAGE_URIS = ("trainingInput", "packageUris")
STAND_IN = "gs://to-be-staged/"  # + a file name: a package to be staged, until it is


@dataclass
class Prepared:
    """What a submit sends (``request``, the packages in it at their staged addresses) or a
    local run runs (``doc``, the checked config, and the package files it installs), the
    packages to stage first, and the checks' warnings."""

    request: Request | None = None
    doc: Document | None = None
    uploads: list[Upload] = field(default_factory=list)
    location: StagingLocation | None = None
    warnings: list[Finding] = field(default_factory=list)
    local_packages: list[Path] = field(default_factory=list)  # for a local run to install
    uris: dict[str, str] = field(default_factory=dict)  # stand-in URI -> staged address
    cost: Any = None  # what the job costs an hour, when its service knows (``Checked.cost``)


class Wanted:
    """The packages the command line asks to stage: the local files among ``--packages`` (by
    their index in packageUris) and the ``--package-path`` directory, checked (exit 2)."""

    def __init__(self, doc: Document, settings: SubmitSettings, notes: bool = True) -> None:
        ti = doc.data.get("trainingInput")
        uris = ti.get("packageUris") if isinstance(ti, dict) else None
        self.uris: list[Any] = list(uris) if isinstance(uris, list) else []
        self.origin = doc.locate(PACKAGE_URIS)
        if settings.package_path and self.uris and not self.origin.flag:
            # the package flags set the job's packages, as gcloud's do: the file's are replaced
            # (without either flag they are kept, unlike gcloud)
            if notes:  # ``notes``: said once per submit, however many choices are checked
                CONSOLE.err(f"note: --package-path replaces the config's packageUris ("
                            f"{', '.join(map(str, self.uris))}); add them with --packages to "
                            "keep them")
            self.uris = []
        # only entries given on the command line may be local files; the file's must be gs://
        self.local = [i for i, uri in enumerate(self.uris) if self.origin.flag
                      and isinstance(uri, str) and not uri.startswith("gs://")]
        self.files: list[Path] = []
        self.package_dir: Path | None = None
        if not (self.local or settings.package_path or settings.staging_bucket):
            return  # nothing to stage (a container job): the packaging modules stay unloaded
        from gpujob.packages import build as packaging
        from gpujob.packages import staging

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
        the packages the job will have, and the request is built with them (``stage`` gives
        their addresses)."""
        return Override(PACKAGE_URIS, self._stand_ins(), self.origin)

    def _stand_ins(self) -> list[Any]:
        uris = list(self.uris)
        staged = self._staged_stand_ins()
        for i, stand_in in zip(self.local, staged, strict=False):
            uris[i] = stand_in
        if self.package_dir is not None:
            uris.append(staged[-1])
        return uris

    def _staged_stand_ins(self) -> list[str]:
        """The stand-in URI of each file to be staged, in upload order: the local files, then
        the package built from --package-path."""
        names = [path.name for path in self.files]
        if self.package_dir is not None:
            names.append(f"{self.package_dir.name}.tar.gz")
        return [f"{STAND_IN}{name}" for name in names]

    def words(self) -> dict[str, str]:
        """What each stand-in URI is, for the checks' messages (the address is not known
        before the build)."""
        names = [path.name for path in self.files]
        what = [f"the staged {name}" for name in names]
        if self.package_dir is not None:
            what.append(f"the package built from {self.package_dir.name}/")
        return {stand_in.removeprefix("gs://"): text
                for stand_in, text in zip(self._staged_stand_ins(), what, strict=True)}

    def location(self, doc: Document, settings: SubmitSettings) -> StagingLocation:
        """Where the packages would be staged: --staging-bucket, else under the job's jobDir;
        ``UsageError`` (exit 2) when neither is given."""
        from gpujob.packages import staging

        ti = doc.data.get("trainingInput")
        location = staging.resolve_location(
            settings.staging_bucket, ti.get("jobDir") if isinstance(ti, dict) else None)
        if location is None:
            raise staging.no_location_error()
        return location

    def build(self, doc: Document, settings: SubmitSettings, workdir: Path,
              location: StagingLocation) -> Prepared:
        """Build the package and address every file by its content at ``location``
        (``location``): the stand-in URI of each (``for_check``) -> its staged address
        (``Request.staged`` puts them in the request)."""
        from gpujob.packages import build as packaging
        from gpujob.packages import staging

        ti = doc.data.get("trainingInput")
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
        return Prepared(uploads=uploads, location=location, uris={
            s: u.uri for s, u in zip(self._staged_stand_ins(), uploads, strict=True)})


class LocalWanted:
    """The packages a local run installs: the local files among ``--packages``, checked (exit
    2). It cannot fetch gs:// packages: given on the command line they are refused (exit 2);
    the config's own, which the cloud would install, are left out with a warning (unless
    --package-path stands for them, as it replaces them in the cloud)."""

    def __init__(self, doc: Document, settings: SubmitSettings) -> None:
        from gpujob.packages import staging

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

    def words(self) -> dict[str, str]:
        """What each stand-in URI is, for the checks' messages: the local file."""
        return {f"to-be-installed/{path.name}": str(path) for path in self.files}

    def for_check(self) -> Override:
        """packageUris as the checks see it: each file as a gs:// URI (as for the cloud)."""
        return Override(PACKAGE_URIS, [f"gs://to-be-installed/{p.name}" for p in self.files],
                        self.origin)


def plain(findings: list[Finding], words: dict[str, str]) -> list[Finding]:
    """``findings`` with each stand-in URI (``gs://to-be-staged/NAME``, or the ``/gcs/`` path
    a command installs it from) named by what it is (``words``, as ``Wanted.words`` gives)."""
    def swap(text: str | None) -> str | None:
        if text is None:
            return None
        for stand_in, what in words.items():
            text = text.replace(f"gs://{stand_in}", what).replace(f"/gcs/{stand_in}", what)
        return text

    return [f._replace(message=swap(f.message) or "", hint=swap(f.hint)) for f in findings]
