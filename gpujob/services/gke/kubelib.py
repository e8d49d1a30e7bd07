"""The ``kubernetes`` client's modules a job command uses, and the client's configuration for
one kubeconfig context, each loaded only when used (issue 34: a submit's CPU against kubectl's).

``import kubernetes.client.api_client`` first runs the package's own ``kubernetes/__init__.py``,
which imports every subpackage whether used or not: ``config`` (whose kubeconfig loader imports
google-auth with cryptography, requests and oauthlib, for its auth providers), ``dynamic``,
``watch``, ``stream`` (websocket-client), ``leaderelection``, ``informer``: some 40% of a GKE
submit's CPU. ``bare_package`` registers the installed package as the import system finds it
(``importlib.util.module_from_spec``) without running that file yet; its submodules import as
usual (``import kubernetes.client.api_client``), and the first look at anything else of the
package (``kubernetes.__version__``, ``from kubernetes import config``) runs the file after
all, so nothing of it is lost. No code of the client is changed or replaced.

``client`` makes the ``ApiClient`` of the context ``kubeconfig.credentials`` made ready: where
its user has a bearer token or nothing (a token, a token file, an exec plugin's token: GKE's
case), the ``Configuration`` the client's loader (``config.new_client_from_config_dict``) would
make, set here as the loader sets it (a ``certificate-authority-data`` given as the client's
``ca_cert_data``, not copied to a temporary file); any other user (client certificates, an
``auth-provider``, a username and password) is the loader's.
"""

from __future__ import annotations

import base64
import importlib.util
import os
import sys
import threading
from typing import Any

PACKAGE = "kubernetes"
# what the client's loader reads of a user besides a token: it alone handles them
_LOADERS = frozenset({"auth-provider", "client-certificate", "client-certificate-data",
                      "client-key", "client-key-data", "username", "password", "exec"})


def bare_package() -> None:
    """``kubernetes`` in ``sys.modules`` without its ``__init__`` run yet (see the module); as
    it is when it has been imported already, or is not installed (the import says so)."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()
    started: list[bool] = []  # the __init__ has been run, or is running

    def complete(name: str) -> Any:
        """The package's own ``__init__``, run on the first look at a name it would set. Another
        thread looking meanwhile waits for it; its own imports, looking at names it has not set
        yet, get AttributeError (as in any package's ``__init__``); if it raises, the package
        is left out of ``sys.modules`` for the next import to start afresh."""
        with lock:
            if not started:
                started.append(True)
                try:
                    loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(PACKAGE, None)
                    raise
                finally:
                    module.__dict__.pop("__getattr__", None)
            if name in module.__dict__:
                return module.__dict__[name]
        raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")

    setattr(module, "__getattr__", complete)  # noqa: B010  (PEP 562: a module's own)
    sys.modules[PACKAGE] = module


def client(config: dict[str, Any], context: str, settings: Any) -> Any:
    """The ``ApiClient`` of ``config`` (a kubeconfig of one context, ``context``, as
    ``kubeconfig.credentials`` makes it) on ``settings`` (a ``Configuration``)."""
    bare_package()
    import kubernetes.client.api_client

    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    if _LOADERS & set(user):
        import kubernetes.config.kube_config

        return kubernetes.config.kube_config.new_client_from_config_dict(
            config, context=context, persist_config=False, client_configuration=settings)
    _cluster(settings, cluster)
    if user.get("token"):
        settings.api_key["BearerToken"] = f"Bearer {user['token']}"
    return kubernetes.client.api_client.ApiClient(configuration=settings)


def refusals() -> tuple[type[Exception], ...]:
    """What ``client`` raises for a kubeconfig it cannot use: the loader's ``ConfigException``
    where the loader was loaded (an ``except`` clause evaluates this only when something was
    raised), and what the decoding of a value raises."""
    found: list[type[Exception]] = [OSError, TypeError, ValueError, AttributeError, KeyError]
    loaded = sys.modules.get("kubernetes.config.config_exception")
    if loaded is not None:
        found.append(loaded.ConfigException)
    return tuple(found)


def _cluster(settings: Any, cluster: dict[str, Any]) -> None:
    """``settings`` for ``cluster`` as the loader's ``_load_cluster_info`` sets them: its
    certificate authority for an https server (the data before the file), whether to verify
    the server, the name the server's certificate must have, the proxy."""
    if "server" in cluster:
        settings.host = cluster["server"].rstrip("/")
        if settings.host.startswith("https"):
            if "certificate-authority-data" in cluster:
                data = cluster["certificate-authority-data"]
                if data:
                    settings.ca_cert_data = base64.standard_b64decode(
                        data.encode() if isinstance(data, str) else data).decode("latin-1")
            elif "certificate-authority" in cluster:
                path = os.path.normpath(cluster["certificate-authority"])
                if not os.path.isfile(path):
                    raise ValueError(f"File does not exist: {path}")
                settings.ssl_ca_cert = path
    if "insecure-skip-tls-verify" in cluster:
        settings.verify_ssl = not cluster["insecure-skip-tls-verify"]
    if "tls-server-name" in cluster:
        settings.tls_server_name = cluster["tls-server-name"]
    if "proxy-url" in cluster:
        settings.proxy = cluster["proxy-url"]
