"""The Kubernetes API of the user's cluster, through the official ``kubernetes`` client and the
user's kubeconfig (``KUBECONFIG``, a context's bearer token or its exec plugin, such as GKE's
``gke-gcloud-auth-plugin``): JobSets by ``CustomObjectsApi``, pods and their logs by
``CoreV1Api``, Kueue's Workloads for why a JobSet waits.

The client logs a failing exec plugin and goes on without credentials (every request is then
refused 401); ``connect`` catches that log and says what failed (exit 3). Errors of the API
server come back as ``RemoteError`` with the Status' message; 429, 5xx and broken connections
are tried again, a create only after looking for the JobSet by its name and submission label.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

from gpujob.console import CONSOLE
from gpujob.errors import RemoteError, UsageError
from gpujob.gcp import clock as clocks
from gpujob.gcp import retry
from gpujob.gcp.clock import Clock
from gpujob.gcp.settings import GcpSettings

T = TypeVar("T")
CONNECT_TIMEOUT = 10.0  # seconds; the read timeout is --request-timeout's
RETRIED = frozenset({429, 500, 502, 503, 504})


class Connection(NamedTuple):
    """An API client for one kubeconfig context, and the context's name. (The context's own
    namespace is not used: gpujob's is --namespace, else default, the same for the JobSet the
    dry-run prints and the one sent.)"""

    client: Any  # kubernetes.client.ApiClient
    context: str


class _Caught(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _caught_logs() -> Iterator[_Caught]:
    """The errors the client logs on the root logger while loading, kept from stderr."""
    handler, root = _Caught(), logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


def connect(context: str | None) -> Connection:
    """A client for ``context`` (None: the current one) of the user's kubeconfig."""
    try:
        import yaml
        from kubernetes import config
        from kubernetes.config.config_exception import ConfigException
    except ImportError:
        raise UsageError("--service gke needs the kubernetes client library",
                         "pip install 'gpujob[gke]' (or pip install kubernetes)") from None
    # read now, not when the library was imported (which fixes its default then)
    files = os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
    try:
        contexts, current = config.list_kube_config_contexts(config_file=files)
        chosen = next((c for c in contexts if c["name"] == context), None) if context \
            else current
        if chosen is None:
            names = ", ".join(c["name"] for c in contexts) or "none"
            raise UsageError(f"--context {context}: no such context in the kubeconfig",
                             f"contexts: {names} (kubectl config get-contexts)")
        with _caught_logs() as caught:
            client = config.new_client_from_config(config_file=files, context=chosen["name"])
    # no credentials to send: a remote failure, as for Google; a file that is not a kubeconfig
    # (broken YAML, a plain string, an unreadable file) is one too, never a traceback
    except (ConfigException, yaml.YAMLError, OSError, TypeError, ValueError, AttributeError) \
            as exc:
        why = exc if isinstance(exc, ConfigException) else \
            f"{files} is not a kubeconfig gpujob can read ({type(exc).__name__}: " \
            f"{' '.join(str(exc).split())})"
        raise RemoteError(f"cannot read the kubeconfig: {why}",
                         "gcloud container clusters get-credentials CLUSTER --location "
                         "LOCATION writes it (KUBECONFIG names another file)") from None
    if caught.messages and not client.configuration.api_key:
        raise RemoteError(f"the credentials of context {chosen['name']} could not be obtained: "
                          f"{caught.messages[0].strip()}",
                          "check that the kubeconfig's credential plugin works (kubectl "
                          f"--context {chosen['name']} get namespaces); for GKE, install "
                          "gke-gcloud-auth-plugin and run gcloud auth login")
    return Connection(client, chosen["name"])


def status_of(exc: Any) -> dict[str, Any]:
    try:
        body = json.loads(exc.body or "{}")
    except (TypeError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}


def remote_error(exc: Any, what: str, context: str) -> RemoteError:
    """The API server's refusal of ``what`` as one message and what to do."""
    status = status_of(exc)
    message = str(status.get("message") or exc.reason or "no message")
    code = exc.status
    if code == 401:
        return RemoteError(f"{what}: the cluster refused the credentials of context {context} "
                           "(401 Unauthorized)", "renew them: gcloud container clusters "
                           "get-credentials CLUSTER --location LOCATION")
    if code == 403:
        return RemoteError(f"{what}: {message} (403 Forbidden)",
                           "ask the cluster's admin for RBAC rights on jobsets.jobset.x-k8s.io "
                           "(and pods, pods/log) in the namespace")
    if code == 404 and status.get("details", {}).get("name") is None:
        return RemoteError(f"{what}: the cluster does not serve jobset.x-k8s.io/v1alpha2 "
                           f"({message})", "install JobSet on the cluster: https://jobset."
                           "sigs.k8s.io/docs/installation/")
    causes = "; ".join(f"{c.get('field', '')}: {c.get('message', '')}"
                       for c in (status.get("details") or {}).get("causes") or [])
    return RemoteError(f"{what}: {message} ({code} {exc.reason or status.get('reason', '')})"
                       + (f" [{causes}]" if causes and causes not in message else ""),
                       "gpujob retried what could be retried" if code in RETRIED else None)


def unreachable(exc: Exception, what: str, host: str) -> RemoteError:
    reason = getattr(exc, "reason", None) or exc  # urllib3's MaxRetryError: its last failure
    return RemoteError(f"{what}: cannot reach the API server at {host} "
                       f"({type(exc).__name__}: {reason})",
                       "check the network and the kubeconfig's server address (kubectl "
                       "cluster-info)")


class Api:
    """Calls to one cluster, each tried again on 429, 5xx and broken connections as the
    user's retry flags allow (``--max-attempts``, ``--retry-deadline``), each answer awaited
    ``--request-timeout`` seconds: the same policy as the Google APIs' (``gcp.retry``)."""

    def __init__(self, conn: Connection, gcp: GcpSettings | None = None,
                 clock: Clock | None = None, echo: Callable[[str], None] = CONSOLE.err) -> None:
        from kubernetes import client

        gcp = gcp or GcpSettings()
        self.conn = conn
        self.policy = gcp.retry
        self.timeout = (CONNECT_TIMEOUT, gcp.request_timeout)  # as _request_timeout takes it
        self.clock = clock or clocks.SYSTEM
        self.echo = echo
        self.custom = client.CustomObjectsApi(conn.client)
        self.host = conn.client.configuration.host

    @cached_property
    def core(self) -> Any:
        """``CoreV1Api`` (pods and their logs), built on first use: its module loads some 250
        models, which a submit, a status or a cancel never reads."""
        from kubernetes import client

        return client.CoreV1Api(self.conn.client)

    def call(self, what: str, call: Callable[[], T]) -> T:
        """``call()``; ``RemoteError`` when the server refuses it, or after the last try."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        started, attempt = self.clock.monotonic(), 0
        while True:
            attempt += 1
            try:
                return call()
            except ApiException as exc:
                if exc.status not in RETRIED:
                    raise remote_error(exc, what, self.conn.context) from None
                why = retry.Transient(f"{exc.status} {exc.reason or ''}".strip(),
                                      retry.parse_retry_after((exc.headers or {}).get(
                                          "Retry-After")))
                failed: RemoteError = remote_error(exc, what, self.conn.context)
            except (HTTPError, OSError) as exc:
                why = retry.Transient(type(exc).__name__)
                failed = unreachable(exc, what, self.host)
            delay = retry.next_delay(self.policy, attempt, started, self.clock, why)
            if isinstance(delay, str):
                raise RemoteError(f"{failed.message} ({delay})", failed.hint) from None
            self.echo(f"note: {what}: {why.reason}; retrying in {delay:.1f} s (attempt "
                      f"{attempt + 1} of {self.policy.max_attempts})")
            self.clock.sleep(delay)
