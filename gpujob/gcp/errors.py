"""The service's and the network's failures as one line with the server's message and a hint.

Google APIs answer errors as ``{"error": {"code", "message", "status", "details": [...]}}``;
``details`` may hold a ``google.rpc.ErrorInfo`` (``reason`` such as ``SERVICE_DISABLED`` and
``metadata``), a ``google.rpc.BadRequest`` (``fieldViolations``) and a ``google.rpc.QuotaFailure``
(the quota metric, its region and limit). Nothing here ever includes
request headers, so an access token cannot end up in a message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from gpujob.errors import RemoteError
from gpujob.suggest import camel

# a request whose access token could not be had was never sent: the fix is the network's, or
# the credentials'
NO_TOKEN_HINT = ("check the network between this machine and the token endpoint (and any "
                 "proxy: HTTPS_PROXY), and the credentials (gcloud auth application-default "
                 "login, GOOGLE_APPLICATION_CREDENTIALS or --credentials-file); nothing was "
                 "sent, so running the command again is safe")


@dataclass(frozen=True)
class Action:
    """What gpujob was doing, to say so in messages: ``what`` reads "submitting job j1".

    Each API client states, call by call, the permission, the predefined ``role`` that grants it
    and the ``service`` (as ``gcloud services enable`` names it) for the advice in errors, and
    whether the call may be sent again after a failure that may have reached the service
    (``retry_safe``). ``advice``: the API's own reading of an error, tried before the general
    one (ml v1 says when the service has been shut down)."""

    what: str
    project: str
    permission: str  # the IAM permission the call needs
    role: str  # a predefined role that grants it
    service: str  # the API, e.g. ml.googleapis.com
    retry_safe: bool  # True: a repeated call cannot do anything twice
    not_found_hint: str = ""
    identity: str | None = None  # who the credentials are, when known
    resource: str = ""  # what the permission is needed on, when not the project ("bucket gs://b")
    refused_hint: str = ""  # for a 400 without field violations, when the default does not fit
    answer_hint: str = ""  # for a 2xx answer that cannot be read, when the default does not fit
    advice: Callable[[ServiceError], str | None] | None = None


@dataclass
class ServiceError:
    """The parts of an HTTP error answer that messages use."""

    status: int
    code_name: str
    message: str
    reasons: list[dict[str, Any]] = field(default_factory=list)
    violations: list[tuple[str, str]] = field(default_factory=list)
    quotas: list[dict[str, str]] = field(default_factory=list)  # google.rpc.QuotaFailure's

    def reason(self, name: str) -> dict[str, Any] | None:
        return next((r for r in self.reasons if r.get("reason") == name), None)


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _text(value: Any) -> str:
    """A field of an error answer as one line of text, whatever its JSON type."""
    if value is None:
        return ""
    return _one_line(value if isinstance(value, str) else json.dumps(value))


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def parse_http_error(exc: Any) -> ServiceError:
    """``exc``: googleapiclient's HttpError (its ``resp`` and ``content``). Any shape of answer
    will do: what is not where Google puts it is left out."""
    status = int(exc.resp.status)
    reason = str(getattr(exc.resp, "reason", "") or "")
    try:
        data = json.loads(exc.content.decode("utf-8") if isinstance(exc.content, bytes)
                          else exc.content)
    except (ValueError, AttributeError, TypeError, RecursionError):
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return ServiceError(status, "", _one_line(reason or f"HTTP {status}"))
    parsed = ServiceError(status, _text(error.get("status")),
                          _text(error.get("message")) or _one_line(reason))
    details = error.get("details")
    for detail in details if isinstance(details, list) else []:
        if not isinstance(detail, dict):
            continue
        kind = _text(detail.get("@type"))
        if kind.endswith("google.rpc.ErrorInfo"):
            parsed.reasons.append({"reason": _text(detail.get("reason")),
                                   "metadata": {k: _text(v) for k, v in
                                                _mapping(detail.get("metadata")).items()}})
        elif kind.endswith("google.rpc.BadRequest"):
            violations = detail.get("fieldViolations")
            for violation in violations if isinstance(violations, list) else []:
                violation = _mapping(violation)
                parsed.violations.append((_text(violation.get("field")),
                                          _text(violation.get("description"))))
        elif kind.endswith("google.rpc.QuotaFailure"):
            violations = detail.get("violations")
            for violation in violations if isinstance(violations, list) else []:
                violation = _mapping(violation)
                dimensions = _mapping(violation.get("quotaDimensions"))
                parsed.quotas.append({
                    "metric": _text(violation.get("quotaMetric") or violation.get("subject")),
                    "region": _text(dimensions.get("region")),
                    "limit": _text(violation.get("quotaValue")),
                    "description": _text(violation.get("description"))})
    return parsed


def json_path(field_name: str) -> str:
    """The service's field name (``job.training_input.master_type``) as the config writes it
    (``trainingInput.masterType``)."""
    parts = field_name.split(".")
    if parts and parts[0] in ("job", "request"):
        parts = parts[1:]

    return ".".join(camel(part) for part in parts) or field_name


def _hint(error: ServiceError, action: Action, attempts: int) -> str:
    project = action.project
    advised = action.advice(error) if action.advice is not None else None
    if advised:
        return advised
    disabled = error.reason("SERVICE_DISABLED")
    if disabled is not None or (error.status == 403 and "it is disabled" in error.message):
        meta = (disabled or {}).get("metadata") or {}
        service = meta.get("service") or action.service
        url = meta.get("activationUrl")
        where = f" (or visit {url})" if url else ""
        return (f"enable the API: gcloud services enable {service} --project {project}{where}; "
                "it can take a few minutes to apply")
    if error.status == 403:
        info = next((r for r in error.reasons if (r.get("metadata") or {}).get("permission")),
                    None)
        permission = ((info or {}).get("metadata") or {}).get("permission")
        if not permission:
            found = re.search(r"[Pp]ermission '([\w.]+)'", error.message)
            permission = found.group(1) if found else action.permission
        who = action.identity or "the caller"
        return (f"{who} needs the {permission} permission on "
                f"{action.resource or f'project {project}'}, for example through the "
                f"{action.role} role")
    if error.status == 401:
        return ("the access token was refused: renew the credentials (gcloud auth "
                "application-default login) or check the key file and its service account")
    if error.status == 400:
        if error.violations:
            path, description = error.violations[0]
            more = f" (and {len(error.violations) - 1} more)" if len(error.violations) > 1 else ""
            why = description.rstrip(".") or "invalid"
            return (f"the service refused {json_path(path)}{more}: {why}; fix it in the config "
                    "or with a flag")
        return action.refused_hint or "gpujob submit --dry-run prints the exact body that was sent"
    if error.status == 404:
        return action.not_found_hint or f"check --project (now {project})"
    if error.status == 429:
        return (f"the {action.service} quota of project {project} stayed exhausted through "
                f"{attempts} attempt{'s' if attempts != 1 else ''}; wait and retry, or ask for "
                f"more at https://console.cloud.google.com/iam-admin/quotas?project={project}")
    if error.status >= 500:
        return ("the service kept failing; try again later (--max-attempts and "
                "--retry-deadline allow more retries)")
    return f"the {action.service} API refused the request"


def _refresh_message(exc: BaseException) -> str:
    """google-auth's RefreshError: its message, and the server's answer when it carries one as
    text (impersonation does; a token endpoint's error is already in the message)."""
    parts = [_one_line(exc.args[0])] if exc.args else [_one_line(exc)]
    for extra in exc.args[1:2]:
        try:
            error = json.loads(extra).get("error") if isinstance(extra, (str, bytes)) else None
        except (ValueError, AttributeError):
            error = None
        if isinstance(error, dict) and error.get("message"):
            code = " ".join(str(error[k]) for k in ("code", "status") if error.get(k))
            parts.append(f"{code}: {_one_line(error['message'])}" if code
                         else _one_line(error["message"]))
    return ": ".join(parts)


def explain(exc: BaseException, action: Action) -> RemoteError | None:
    """A ``RemoteError`` (exit 3) telling what failed, the server's words, and what to do; None
    when ``exc`` is not a remote failure (a bug, to be raised as it is)."""
    from google.auth.exceptions import DefaultCredentialsError, RefreshError, TransportError
    from googleapiclient.errors import HttpError
    from httplib2 import HttpLib2Error, ServerNotFoundError

    from gpujob.gcp.answers import BadAnswer
    from gpujob.gcp.retry import GaveUp

    attempts, suffix = 1, ""
    if isinstance(exc, GaveUp):
        attempts, suffix = exc.attempts, f" ({exc.why})"
        exc = exc.last
    if isinstance(exc, HttpError):
        error = parse_http_error(exc)
        label = " ".join(part for part in (str(error.status), error.code_name) if part)
        if error.status == 429:
            return RemoteError(f"{action.what} failed: quota exhausted: {label}: "
                               f"{error.message}{suffix}", _hint(error, action, attempts))
        return RemoteError(f"{action.what} failed: {label}: {error.message}{suffix}",
                           _hint(error, action, attempts))
    if isinstance(exc, RefreshError):
        return RemoteError(f"{action.what} failed: could not get an access token: "
                           f"{_refresh_message(exc)}",
                           "the credentials were refused; renew them (gcloud auth "
                           "application-default login) or check the key file, and for "
                           "--impersonate-service-account the roles/iam.serviceAccountTokenCreator"
                           " role on that account")
    if isinstance(exc, BadAnswer):
        return RemoteError(f"{action.what} failed: {exc}", action.answer_hint or
                           "the service answered in a form gpujob cannot read: check "
                           "--api-endpoint (or GPUJOB_API_ENDPOINT) if set, else try again later")
    if isinstance(exc, DefaultCredentialsError):
        return RemoteError(f"{action.what} failed: {_one_line(exc)}")
    if _universe_mismatch(exc):
        found = re.search(r"in the credentials \(([^)]*)\)", str(exc))
        theirs = f"the universe domain {found.group(1)}" if found else "another universe domain"
        return RemoteError(f"{action.what} failed: the credentials belong to {theirs}, not to "
                           "googleapis.com, where gpujob sends its requests",
                           "use credentials of Google Cloud itself (a service account key of a "
                           "project there, or gcloud auth application-default login): gpujob "
                           "does not reach sovereign or partner clouds")
    if isinstance(exc, TransportError):  # google-auth's: the token endpoint was not reached
        return RemoteError(f"{action.what} failed: no access token could be obtained, so "
                           f"nothing was sent: {_one_line(exc) or type(exc).__name__}{suffix}",
                           NO_TOKEN_HINT)
    if isinstance(exc, ServerNotFoundError):
        return RemoteError(f"{action.what} failed: {_one_line(exc)}",
                           "check the network, and --api-endpoint or GPUJOB_API_ENDPOINT if set")
    if isinstance(exc, HttpLib2Error):  # a redirect loop, a redirect without a Location, …
        return RemoteError(f"{action.what} failed: {_one_line(exc) or type(exc).__name__}",
                           "check --api-endpoint (or GPUJOB_API_ENDPOINT) if set: the address "
                           "does not answer as a Google API does")
    if isinstance(exc, OSError) or type(exc).__module__ == "http.client":
        return RemoteError(f"{action.what} failed: network error: "
                           f"{_one_line(exc) or type(exc).__name__}{suffix}",
                           "check the network and the endpoint; the request may be retried "
                           "safely" if action.retry_safe else
                           "check the network and the endpoint; the request may have reached "
                           "the service: see whether it acted before trying again")
    return None


def _universe_mismatch(exc: BaseException) -> bool:
    """google-api-core's UniverseMismatchError: credentials whose ``universe_domain`` is not the
    client's (googleapiclient checks it before sending anything)."""
    try:
        from google.api_core.universe import UniverseMismatchError
    except ImportError:  # an older google-api-core, which does not check
        return False
    return isinstance(exc, UniverseMismatchError)


def raise_explained(exc: BaseException, action: Action) -> NoReturn:
    """Raise ``explain(exc, action)``, or ``exc`` itself when it is not a remote failure."""
    error = explain(exc, action)
    if error is None:
        raise exc
    raise error from exc
