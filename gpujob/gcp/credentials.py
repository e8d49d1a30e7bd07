"""Which credentials and project to use, found as Google's tools find them.

Credentials: ``--credentials-file``, else Application Default Credentials (the
``GOOGLE_APPLICATION_CREDENTIALS`` file, gcloud's ``application_default_credentials.json``, the
metadata server on Google Cloud); ``--impersonate-service-account`` then acts as that account.
Project: ``--project`` (or its environment variables, resolved by the CLI), else the credentials'.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from typing import Any

from gpujob import redact
from gpujob.errors import RemoteError, UsageError
from gpujob.gcp.settings import GcpSettings, api_endpoint, project_problem
from gpujob.terminal import printable

SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)

NO_CREDENTIALS_HINT = (
    "provide them one of these ways: run `gcloud auth application-default login`; set "
    "GOOGLE_APPLICATION_CREDENTIALS=KEY.json; pass --credentials-file KEY.json; or run on Google "
    "Cloud, where the metadata server provides them (any of these can be combined with "
    "--impersonate-service-account EMAIL)")


_ADC_FILE_HINT = ("point it at a service account key or a credentials file, or unset it to use "
                  "gcloud's application default credentials")


class GuardedCredentials:
    """google-auth credentials as the HTTP layer uses them (``before_request``, ``refresh``),
    with three guards:

    - every token they obtain is registered with ``gpujob.redact`` at once, so that no output
      can show it (for impersonation, the source credentials' tokens too);
    - a token endpoint that cannot be reached (``OSError``: refused, reset, timed out) is
      google-auth's ``TransportError``, as one it cannot resolve already is: a request whose
      token could not be had was never sent;
    - an answer from a token endpoint that google-auth cannot read (not JSON, ``expires_in``
      not a number: its parser raises ``TypeError``, ``ValueError`` or ``KeyError``) becomes
      google-auth's own ``RefreshError``, a credentials failure (exit 3) rather than a bug. The
      error names only the exception's type: its text may quote the answer, token and all.

    Everything else is the wrapped credentials' own (``__getattr__``)."""

    def __init__(self, credentials: Any, *sources: Any) -> None:
        self._credentials = credentials
        self._all = (credentials, *sources)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._credentials, name)

    def _guarded(self, call: Any, *args: Any) -> Any:
        from google.auth.exceptions import GoogleAuthError

        try:
            return call(*args)
        except GoogleAuthError:
            raise
        except OSError as exc:  # the token endpoint unreached: google-auth's word for it
            from google.auth.exceptions import TransportError

            where = getattr(self._credentials, "_token_uri", None)
            raise TransportError(f"{where}: {exc}" if isinstance(where, str) else str(exc)
                                 ) from exc
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            from google.auth.exceptions import RefreshError

            raise RefreshError(f"the token endpoint's answer could not be read "
                               f"({type(exc).__name__})") from None
        finally:
            for credentials in self._all:
                redact.register(*(getattr(credentials, name, None) for name in
                                  ("token", "id_token", "refresh_token",
                                                   "client_secret")))

    def before_request(self, request: Any, method: str, url: str, headers: Any) -> None:
        self._guarded(self._credentials.before_request, request, method, url, headers)

    def refresh(self, request: Any) -> None:
        self._guarded(self._credentials.refresh, request)


@dataclass(frozen=True)
class Auth:
    """Credentials ready for an authorized HTTP client, the project, and where they came from."""

    credentials: Any  # GuardedCredentials
    project: str
    source: str  # "the key file k.json (service account a@p.iam.gserviceaccount.com)"
    identity: str | None  # the account the calls run as, when known


def _identity(credentials: Any) -> str | None:
    email = getattr(credentials, "service_account_email", None)
    if isinstance(email, str) and "@" in email:
        return email
    account = getattr(credentials, "account", None)
    return account if isinstance(account, str) and account else None


# A key file is about 2.3 KB; a file a thousand times that size is not one (and /dev/zero, or a
# file that never ends, must not take the machine's memory).
MAX_CREDENTIALS_BYTES = 1 << 20
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a pipe"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _read(path: str, named: str, hint: str) -> bytes:
    """A credentials file's bytes: a regular file of at most ``MAX_CREDENTIALS_BYTES``, else
    ``RemoteError`` (a credentials error, exit 3) saying what it is. Opened without blocking,
    so that a pipe nobody writes to is refused, not waited on; ``OSError`` when it cannot be
    opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
            raise RemoteError(f"{named} is {kind}, not a credentials file", hint)
        data = fh.read(MAX_CREDENTIALS_BYTES + 1)
    if len(data) > MAX_CREDENTIALS_BYTES:
        raise RemoteError(f"{named} is larger than {MAX_CREDENTIALS_BYTES >> 20} MiB: not a "
                          "credentials file (a key file is a few KB)", hint)
    return data


def _from_file(path: str) -> tuple[Any, str | None]:
    """A service account key or a user's credentials file, each read by its own loader (google-auth
    deprecates loading a file of any type, which could run commands or reach URLs it names)."""
    from google.oauth2 import credentials as user
    from google.oauth2 import service_account

    hint = ("pass a service account key, or an authorized user file written by gcloud; other "
            "credential types work through GOOGLE_APPLICATION_CREDENTIALS")
    named = f"--credentials-file {path}"
    try:
        info = json.loads(_read(path, named, hint).decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise RemoteError(f"{named} cannot be read: {why}", hint) from None
    redact.register_key_info(info)
    kind = info.get("type") if isinstance(info, dict) else None
    try:
        if kind == "service_account":
            found = service_account.Credentials.from_service_account_info(info, scopes=SCOPES)
            return found, info.get("project_id")
        if kind == "authorized_user":
            found = user.Credentials.from_authorized_user_info(info, scopes=SCOPES)
            return found, info.get("quota_project_id")
    except (ValueError, KeyError) as exc:
        raise RemoteError(f"{named} cannot be used: {exc}", hint) from None
    raise RemoteError(f"{named} cannot be used: its type is {kind!r}", hint)


def _default() -> tuple[Any, str | None, str]:
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    env_file = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    _register_file(env_file)
    try:
        credentials, project = google.auth.default(scopes=SCOPES)
    except DefaultCredentialsError as exc:
        if env_file:
            raise RemoteError(f"GOOGLE_APPLICATION_CREDENTIALS={env_file} cannot be used: {exc}",
                              _ADC_FILE_HINT) from None
        raise RemoteError("no Google Cloud credentials found", NO_CREDENTIALS_HINT) from None
    if env_file:
        source = f"GOOGLE_APPLICATION_CREDENTIALS={env_file}"
    elif type(credentials).__module__.startswith("google.auth.compute_engine"):
        source = "the metadata server"
    else:
        source = "gcloud's application default credentials"
    return credentials, project, source


def _register_file(path: str | None) -> None:
    """Register the secrets of the credentials file Application Default Credentials will read
    (google-auth keeps its private key out of reach), before anything can quote them; and
    refuse, before google-auth reads it whole, a file that is not a regular one or is too large
    to be a credentials file (``_read``)."""
    if not path:
        return
    try:
        data = _read(path, f"GOOGLE_APPLICATION_CREDENTIALS={path}", _ADC_FILE_HINT)
        redact.register_key_info(json.loads(data.decode("utf-8")))
    except (OSError, ValueError, RecursionError):
        pass  # google-auth reports what is wrong with it


def resolve(settings: GcpSettings) -> Auth:
    """The credentials and project for ``settings``; ``RemoteError`` (exit 3) when there are no
    usable credentials, ``UsageError`` when no project is known."""
    if settings.credentials_file:
        credentials, project = _from_file(settings.credentials_file)
        source = f"--credentials-file {settings.credentials_file}"
    else:
        credentials, project, source = _default()
    sources = [credentials]
    identity = _identity(credentials)
    if identity:
        source += f" ({identity})"
    if settings.impersonate_service_account:
        from google.auth import impersonated_credentials

        target = settings.impersonate_service_account
        endpoint = (f"{api_endpoint(settings, 'iamcredentials')}v1/projects/-/serviceAccounts/"
                    f"{target}:generateAccessToken")
        credentials = impersonated_credentials.Credentials(
            source_credentials=credentials, target_principal=target,
            target_scopes=list(SCOPES), iam_endpoint_override=endpoint)
        source = f"{target}, impersonated with {source}"
        identity = target
    project = settings.project or project
    if not project:
        raise UsageError("no Google Cloud project given, and the credentials name none",
                         "pass --project PROJECT (or set GPUJOB_PROJECT, GOOGLE_CLOUD_PROJECT "
                         "or CLOUDSDK_CORE_PROJECT)")
    problem = project_problem(str(project))
    if problem and settings.project:  # from an environment variable (a flag is checked parsed)
        raise UsageError(f"the project '{printable(str(project))}' (GPUJOB_PROJECT, "
                         "GOOGLE_CLOUD_PROJECT or CLOUDSDK_CORE_PROJECT) is not a project ID: "
                         f"{problem}", "pass --project PROJECT, or fix the variable")
    if problem:
        raise UsageError(f"the credentials ({source}) name the project '{project}', which is "
                         f"not a project ID: {problem}", "pass --project PROJECT")
    return Auth(GuardedCredentials(credentials, *sources), project, source, identity)
