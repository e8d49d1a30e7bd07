"""Which credentials and project to use, found as Google's tools find them.

Credentials: ``--credentials-file``, else Application Default Credentials (the
``GOOGLE_APPLICATION_CREDENTIALS`` file, gcloud's ``application_default_credentials.json``, the
metadata server on Google Cloud); ``--impersonate-service-account`` then acts as that account.
Project: ``--project`` (or its environment variables, resolved by the CLI), else the credentials'.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from gpujob.errors import RemoteError, UsageError
from gpujob.gcp.settings import GcpSettings, base_url

SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)

NO_CREDENTIALS_HINT = (
    "provide them one of these ways: run `gcloud auth application-default login`; set "
    "GOOGLE_APPLICATION_CREDENTIALS=KEY.json; pass --credentials-file KEY.json; or run on Google "
    "Cloud, where the metadata server provides them (any of these can be combined with "
    "--impersonate-service-account EMAIL)")


@dataclass(frozen=True)
class Auth:
    """Credentials ready for an authorized HTTP client, the project, and where they came from."""

    credentials: Any
    project: str
    source: str  # "the key file k.json (service account a@p.iam.gserviceaccount.com)"
    identity: str | None  # the account the calls run as, when known


def _identity(credentials: Any) -> str | None:
    email = getattr(credentials, "service_account_email", None)
    if isinstance(email, str) and "@" in email:
        return email
    account = getattr(credentials, "account", None)
    return account if isinstance(account, str) and account else None


def _from_file(path: str) -> tuple[Any, str | None]:
    """A service account key or a user's credentials file, each read by its own loader (google-auth
    deprecates loading a file of any type, which could run commands or reach URLs it names)."""
    from google.oauth2 import credentials as user
    from google.oauth2 import service_account

    hint = ("pass a service account key, or an authorized user file written by gcloud; other "
            "credential types work through GOOGLE_APPLICATION_CREDENTIALS")
    try:
        with open(path, encoding="utf-8") as fh:
            info = json.load(fh)
    except (OSError, ValueError) as exc:
        raise RemoteError(f"--credentials-file {path} cannot be read: {exc}", hint) from None
    kind = info.get("type") if isinstance(info, dict) else None
    try:
        if kind == "service_account":
            found = service_account.Credentials.from_service_account_info(info, scopes=SCOPES)
            return found, info.get("project_id")
        if kind == "authorized_user":
            found = user.Credentials.from_authorized_user_info(info, scopes=SCOPES)
            return found, info.get("quota_project_id")
    except (ValueError, KeyError) as exc:
        raise RemoteError(f"--credentials-file {path} cannot be used: {exc}", hint) from None
    raise RemoteError(f"--credentials-file {path} cannot be used: its type is {kind!r}", hint)


def _default() -> tuple[Any, str | None, str]:
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    env_file = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    try:
        credentials, project = google.auth.default(scopes=SCOPES)
    except DefaultCredentialsError as exc:
        if env_file:
            raise RemoteError(f"GOOGLE_APPLICATION_CREDENTIALS={env_file} cannot be used: {exc}",
                              "point it at a service account key or a credentials file, or "
                              "unset it to use gcloud's application default credentials") from None
        raise RemoteError("no Google Cloud credentials found", NO_CREDENTIALS_HINT) from None
    if env_file:
        source = f"GOOGLE_APPLICATION_CREDENTIALS={env_file}"
    elif type(credentials).__module__.startswith("google.auth.compute_engine"):
        source = "the metadata server"
    else:
        source = "gcloud's application default credentials"
    return credentials, project, source


def resolve(settings: GcpSettings) -> Auth:
    """The credentials and project for ``settings``; ``RemoteError`` (exit 3) when there are no
    usable credentials, ``UsageError`` when no project is known."""
    if settings.credentials_file:
        credentials, project = _from_file(settings.credentials_file)
        source = f"--credentials-file {settings.credentials_file}"
    else:
        credentials, project, source = _default()
    identity = _identity(credentials)
    if identity:
        source += f" ({identity})"
    if settings.impersonate_service_account:
        from google.auth import impersonated_credentials

        target = settings.impersonate_service_account
        endpoint = (f"{base_url(settings.iam_endpoint)}v1/projects/-/serviceAccounts/"
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
    return Auth(credentials, project, source, identity)
