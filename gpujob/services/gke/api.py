"""The Kubernetes API of the user's cluster, through the official ``kubernetes`` client (the
modules used, and its configuration: ``kubelib``) and the user's kubeconfig, read and made
ready by ``kubeconfig`` (a context's bearer token, or the token its exec plugin, such as GKE's
``gke-gcloud-auth-plugin``, prints): JobSets by ``CustomObjectsApi``, pods and their logs by
``CoreV1Api``, Kueue's Workloads for why a JobSet waits.

Every request runs in a thread of its own and is awaited ``--request-timeout`` seconds in all
(``Api.bounded``), so that an answer that trickles in cannot hold gpujob, and Ctrl-C, SIGTERM or
SIGHUP stop it at once; answers are read whole as bytes (``_preload_content=False``) and checked
by ``answers``. Errors of the API server come back as ``RemoteError`` with the Status' message;
429, 5xx, broken connections and answers that do not come in time are tried again, a create
only after looking for the JobSet by its name and submission label.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

from gpujob import interrupts
from gpujob.console import CONSOLE
from gpujob.errors import RemoteError, UsageError
from gpujob.gcp import clock as clocks
from gpujob.gcp import retry
from gpujob.gcp.clock import Clock
from gpujob.gcp.settings import GcpSettings

T = TypeVar("T")
CONNECT_TIMEOUT = 10.0  # seconds; the read timeout is --request-timeout's
_POLL = 0.05  # seconds between looks for the answer, and for a signal that came
RETRIED = frozenset({429, 500, 502, 503, 504})
_SLOW = "a slow or stuck API server: try again, or give a longer --request-timeout"


class Connection(NamedTuple):
    """An API client for one kubeconfig context, and the context's name. (The context's own
    namespace is not used: gpujob's is --namespace, else default, the same for the JobSet the
    dry-run prints and the one sent.)"""

    client: Any  # kubernetes.client.ApiClient
    context: str
    credentials: Any = None  # kubeconfig.Credentials: an exec plugin's token is renewed


def connect(context: str | None, timeout: float = 60.0) -> Connection:
    """A client for ``context`` (None: the current one) of the user's kubeconfig; an exec
    plugin runs ``timeout`` seconds at most (``kubeconfig``)."""
    from gpujob.services.gke import kubeconfig, kubelib

    kubelib.bare_package()
    try:
        from kubernetes.client.configuration import Configuration
    except ImportError:
        raise UsageError("--service gke needs the kubernetes client library",
                         "pip install 'gpujob[gke]' (or pip install kubernetes)") from None

    stop_signals_as_ctrl_c()
    found = kubeconfig.load(kubeconfig.files())
    name = kubeconfig.choose(found, context)
    creds = kubeconfig.credentials(found, name, timeout)
    # no retries inside urllib3: gpujob's own (Api.call) are bounded and said; and a request
    # gpujob has given up on must not log from its thread while gpujob exits
    settings = Configuration()
    settings.retries = False
    try:
        client = kubelib.client(creds.config, name, settings)
    # what the client refuses (a certificate file that is not there, an unknown auth
    # provider): a remote failure, as for Google, never a traceback
    except kubelib.refusals() as exc:
        raise RemoteError(f"cannot use context {name} of the kubeconfig: "
                          f"{' '.join(str(exc).split())}",
                          "gcloud container clusters get-credentials CLUSTER --location "
                          "LOCATION writes it (KUBECONFIG names another file)") from None
    return Connection(client, name, creds)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def stop_signals_as_ctrl_c() -> None:
    """From here on, SIGTERM (a CI runner stopping a step) and SIGHUP (a closed terminal) end
    gpujob as Ctrl-C does: ``KeyboardInterrupt``, "interrupted", exit 130, with ``finally``
    and ``atexit`` run. The client copies a kubeconfig's ``client-key-data`` to a file in
    ``$TMPDIR`` that only its ``atexit`` removes; killed by the signal, gpujob left it there.
    Requests and credential plugins note the signal and stop at once (``Api.bounded``,
    ``kubeconfig.run_plugin``, under ``interrupts.deferred``). Signals set to be ignored (nohup)
    stay ignored; another handler is left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _interrupt)


def status_of(exc: Any) -> dict[str, Any]:
    try:
        body = json.loads(exc.body or "{}")
    except (TypeError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}


def remote_error(exc: Any, what: str, context: str, missing: str | None = None) -> RemoteError:
    """The API server's refusal of ``what`` as one message and what to do (``missing``: the
    hint for a 404 that names the object)."""
    status = status_of(exc)
    message = str(status.get("message") or exc.reason or "no message")
    code = exc.status
    given = status.get("details")
    details = given if isinstance(given, dict) else {}
    if code == 401:
        return RemoteError(f"{what}: the cluster refused the credentials of context {context} "
                           "(401 Unauthorized)", "renew them: gcloud container clusters "
                           "get-credentials CLUSTER --location LOCATION")
    if code == 403:
        return RemoteError(f"{what}: {message} (403 Forbidden)",
                           "ask the cluster's admin for RBAC rights on jobsets.jobset.x-k8s.io "
                           "(and pods, pods/log) in the namespace")
    if code == 404 and details.get("name") is None:
        return RemoteError(f"{what}: the cluster does not serve jobset.x-k8s.io/v1alpha2 "
                           f"({message})", "install JobSet on the cluster: https://jobset."
                           "sigs.k8s.io/docs/installation/")
    if code == 404 and missing:
        return RemoteError(f"{what}: it is not there ({message})", missing)
    causes = "; ".join(f"{c.get('field', '')}: {c.get('message', '')}"
                       for c in details.get("causes") or [] if isinstance(c, dict))
    return RemoteError(f"{what}: {message} ({code} {exc.reason or status.get('reason', '')})"
                       + (f" [{causes}]" if causes and causes not in message else ""),
                       "gpujob retried what could be retried" if code in RETRIED else None)


def unreachable(exc: Exception, what: str, host: str) -> RemoteError:
    from urllib3.exceptions import ReadTimeoutError

    if isinstance(exc, (NoAnswer, ReadTimeoutError)):
        return RemoteError(f"{what}: the API server at {host} gave no complete answer within "
                           "--request-timeout",
                           _SLOW)
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
        from kubernetes.client.api.custom_objects_api import CustomObjectsApi

        gcp = gcp or GcpSettings()
        self.conn = conn
        self.policy = gcp.retry
        self.timeout = (CONNECT_TIMEOUT, gcp.request_timeout)  # as _request_timeout takes it
        self.clock = clock or clocks.SYSTEM
        self.echo = echo
        # its methods answer the custom objects as JSON (dicts), typed there as object
        self.custom: Any = CustomObjectsApi(conn.client)
        self.host = conn.client.configuration.host

    @cached_property
    def core(self) -> Any:
        """``CoreV1Api`` (pods and their logs), built on first use: its module loads some 250
        models, which a submit, a status or a cancel never reads."""
        from kubernetes.client.api.core_v1_api import CoreV1Api

        return CoreV1Api(self.conn.client)

    def call(self, what: str, call: Callable[[], T], missing: str | None = None) -> T:
        """``call()``, bounded by ``--request-timeout`` (``bounded``); ``RemoteError`` when the
        server refuses it, or after the last try. ``missing``: the hint for a 404 that names
        the object (it is not there)."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        started, attempt = self.clock.monotonic(), 0
        while True:
            attempt += 1
            try:
                self._renew()
                return self.bounded(call)
            except ApiException as exc:
                if exc.status not in RETRIED:
                    raise remote_error(exc, what, self.conn.context, missing) from None
                why = retry.Transient(f"{exc.status} {exc.reason or ''}".strip(),
                                      retry.parse_retry_after((exc.headers or {}).get(
                                          "Retry-After")))
                failed: RemoteError = remote_error(exc, what, self.conn.context)
            except (HTTPError, OSError) as exc:
                failed = unreachable(exc, what, self.host)
                why = retry.Transient("no complete answer in time" if failed.hint == _SLOW
                                      else type(exc).__name__)
            delay = retry.next_delay(self.policy, attempt, started, self.clock, why)
            if isinstance(delay, str):
                raise RemoteError(f"{failed.message} ({delay})", failed.hint) from None
            self.echo(f"note: {what}: {why.reason}; retrying in {delay:.1f} s (attempt "
                      f"{attempt + 1} of {self.policy.max_attempts})")
            self.clock.sleep(delay)

    def _renew(self) -> None:
        """A new token from the exec plugin once its token has expired (the client's own
        renewal would run the plugin without a bound)."""
        creds = self.conn.credentials
        if creds is not None and creds.plugin is not None and creds.expired():
            self.conn.client.configuration.api_key["BearerToken"] = creds.renew(
                self.timeout[1])

    def bounded(self, call: Callable[[], T]) -> T:
        """``call()`` in a thread of its own, awaited ``--request-timeout`` seconds in all
        (``NoAnswer`` after that: a socket timeout bounds each read, not an answer that
        trickles in); Ctrl-C, SIGTERM and SIGHUP meanwhile raise ``KeyboardInterrupt`` here.
        A call given up on is left to end on its own (its socket times out)."""
        box: list[Any] = []
        done = threading.Event()

        def work() -> None:
            try:
                box.append((True, call()))
            except BaseException as exc:  # handed to the caller
                box.append((False, exc))
            finally:
                done.set()

        limit = self.timeout[1]
        deadline = time.monotonic() + limit
        threading.Thread(target=work, name="gpujob-kubernetes", daemon=True).start()
        with interrupts.deferred():
            while not done.wait(_POLL):
                interrupts.check()
                if time.monotonic() > deadline:
                    raise NoAnswer(f"no complete answer within {limit:g} s (--request-timeout)")
        ok, value = box[0]
        if ok:
            return value
        raise value

    def read(self, what: str, call: Callable[[], Any], missing: str | None = None) -> str:
        """The text of the answer to ``call()`` (a client method called with
        ``_preload_content=False``), read whole within the deadline and decoded by its charset,
        with replacement characters for what does not decode (``answers.decode``)."""
        from gpujob.services.gke import answers

        def whole() -> tuple[str, bytes]:
            response = call()
            return str(response.headers.get("Content-Type") or ""), response.data or b""

        content_type, data = self.call(what, whole, missing)
        return answers.decode(data, content_type)


class NoAnswer(TimeoutError):
    """No whole answer within ``--request-timeout``."""
