"""Cloud Storage (JSON API v1): stage trainer packages, each at most once.

The client is google-api-python-client's, built from its bundled discovery document (no discovery
request), over the session's authorized HTTP: uploads share the session's credentials, retry
policy, ``--verbose`` log and error messages. The document's ``rootUrl`` is set to the storage
endpoint (``api_endpoint(settings, "storage")``); ``client_options.api_endpoint`` would move
the JSON API but keep ``https`` in upload URLs, which breaks emulators served over ``http``.

For each package, the object at its content address (``staging``) is read first: there with the
file's size and MD5, it is reused and nothing is uploaded. Otherwise the file goes up in a
resumable upload, in parts of ``CHUNK_SIZE`` (progress on stderr when there is more than one),
with its MD5 in the object's metadata so that the service refuses bytes that arrive changed; the
object the service then reports must have the file's size and MD5, or nothing is submitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpujob.errors import RemoteError
from gpujob.gcp.errors import Action, raise_explained
from gpujob.gcp.session import Session
from gpujob.gcp.settings import api_endpoint
from gpujob.packages.staging import Upload, human_size

CHUNK_SIZE = 8 * 1024 * 1024  # resumable uploads take parts in multiples of 256 KiB
ROLE = "roles/storage.objectUser"  # reads, creates and replaces objects


class StorageClient:
    """Objects in Cloud Storage, through one session."""

    def __init__(self, session: Session) -> None:
        from gpujob.gcp.discovery import service

        self.session = session
        self._objects = service("storage", "v1", session.http,
                                root_url=api_endpoint(session.settings, "storage")).objects()

    def _action(self, what: str, upload: Upload, permission: str, **extra: str) -> Action:
        bucket = upload.bucket
        return self.session.action(
            f"{what} {upload.uri}", permission, role=ROLE, service="storage.googleapis.com",
            # reads, and uploads to a content address: a repeated one stores the same bytes
            retry_safe=True, **extra,
            resource=f"bucket gs://{bucket}",
            not_found_hint=f"the bucket gs://{bucket} does not exist: create it (gcloud storage "
                           f"buckets create gs://{bucket} --location REGION) or stage elsewhere "
                           "with --staging-bucket or --job-dir")

    def stage(self, uploads: list[Upload], echo: Callable[[str], None]) -> None:
        """Make each file available at its URI: reused when already there, else uploaded and
        verified. ``RemoteError`` (exit 3) on any failure."""
        for upload in uploads:
            found = self.find(upload)
            if found is not None and _same(found, upload):
                echo(f"  {upload.name}: already at {upload.uri} (same size and MD5); "
                     "not uploaded")
                continue
            if found is not None:
                echo(f"note: {upload.uri} holds other bytes than its name says "
                     f"({found.get('size')} bytes, MD5 {found.get('md5Hash')}); uploading again")
            stored = self.upload(upload, echo)
            if not _same(stored, upload):
                raise RemoteError(
                    f"{upload.uri} does not hold what was uploaded: Cloud Storage reports "
                    f"{stored.get('size')} bytes with MD5 {stored.get('md5Hash')}, "
                    f"{upload.path} has {upload.digest.size} bytes with MD5 "
                    f"{upload.digest.md5}; nothing was submitted",
                    "submit again to upload it again; if this repeats, something between gpujob "
                    "and Cloud Storage changes uploads")
            echo(f"  {upload.name}: uploaded to {upload.uri} "
                 f"({human_size(upload.digest.size)}, MD5 verified)")

    def find(self, upload: Upload) -> dict[str, Any] | None:
        """The object's metadata, or None when there is no such object (or bucket)."""
        from googleapiclient.errors import HttpError

        action = self._action("reading", upload, "storage.objects.get")
        try:
            return self.session.execute_raw(action, lambda: self._objects.get(
                bucket=upload.bucket, object=upload.object_name))
        except Exception as exc:
            if isinstance(exc, HttpError) and exc.resp.status == 404:
                return None
            raise_explained(exc, action)

    def upload(self, upload: Upload, echo: Callable[[str], None]) -> dict[str, Any]:
        """Upload the file (resumable, retried part by part); the object as the service stored
        it."""
        from googleapiclient.http import MediaFileUpload

        action = self._action(f"uploading {upload.name} to", upload, "storage.objects.create",
                              refused_hint="when Cloud Storage reports another MD5, the bytes "
                                           "changed on the way: submit again")
        media = MediaFileUpload(str(upload.path), mimetype="application/octet-stream",
                                chunksize=CHUNK_SIZE, resumable=True)
        request = self._objects.insert(
            bucket=upload.bucket, name=upload.object_name, media_body=media,
            body={"name": upload.object_name, "md5Hash": upload.digest.md5})
        total = upload.digest.size
        response = None
        try:
            while response is None:
                status, response = self.session.call(action, request.next_chunk)
                if status is not None and total > CHUNK_SIZE:
                    done = status.resumable_progress
                    echo(f"  {upload.name}: {human_size(done)} of {human_size(total)} "
                         f"({100 * done // total}%)")
        except Exception as exc:
            raise_explained(exc, action)
        return response


def _same(stored: dict[str, Any], upload: Upload) -> bool:
    return (str(stored.get("size")) == str(upload.digest.size)
            and stored.get("md5Hash") == upload.digest.md5)
