"""The user's kubeconfig, read as kubectl reads it, and the credentials of one of its contexts.

The files ``KUBECONFIG`` names (else ``~/.kube/config``) are merged as kubectl merges them: the
first file that names a context, cluster or user wins, and the first ``current-context``.
Relative paths are taken from the file that holds them. The chosen context's user is then made
ready here, before the ``kubernetes`` client sees it, so that gpujob keeps the say over what
can hang, leak or be left behind:

- an ``exec`` credential plugin (``gke-gcloud-auth-plugin``) is run by gpujob, in a session
  of its own, for ``--request-timeout`` at most; Ctrl-C, SIGTERM and SIGHUP end it with
  gpujob (``KeyboardInterrupt``), and a failure is said in one line (the client would wait
  for it without end, and leave it running when gpujob is killed);
- a ``token`` or ``tokenFile`` is trimmed as kubectl trims a token file (``echo $TOKEN >
  token`` ends it with a newline, which no HTTP header may carry);
- every token is registered as a secret (``gpujob.redact``): no message prints it.

What the client is then given has a plain token (or client certificate): a dict of one context,
which ``kubelib`` makes the client's configuration.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import time
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gpujob import interrupts, redact
from gpujob.errors import RemoteError, UsageError

_GET_CREDENTIALS = ("gcloud container clusters get-credentials CLUSTER --location LOCATION "
                    "writes it (KUBECONFIG names another file)")
_GLOG = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ [\w.-]+:\d+\]\s*")  # F1129 02:13:14.1 7 a.go:1]
_POLL = 0.05  # seconds between looks at a running plugin (and at a signal that came)


def files() -> list[str]:
    """The kubeconfig files, in kubectl's order (read now: the library fixes its default at
    import)."""
    named = os.environ.get("KUBECONFIG")
    if named:
        return [p for p in named.split(os.pathsep) if p]
    return [os.path.expanduser("~/.kube/config")]


def _unreadable(path: str, exc: BaseException | str) -> RemoteError:
    why = exc if isinstance(exc, str) else f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return RemoteError(f"cannot read the kubeconfig: {path} is not a kubeconfig gpujob can read "
                       f"({why})", _GET_CREDENTIALS)


@dataclass
class Kubeconfig:
    """The merged files: each named entry with the directory its relative paths start from."""

    contexts: dict[str, tuple[dict[str, Any], str]] = field(default_factory=dict)
    clusters: dict[str, tuple[dict[str, Any], str]] = field(default_factory=dict)
    users: dict[str, tuple[dict[str, Any], str]] = field(default_factory=dict)
    current: str | None = None


def load(paths: list[str]) -> Kubeconfig:
    """Merge ``paths`` (missing ones skipped, as kubectl does, unless none is there)."""
    import yaml

    merged, found = Kubeconfig(), False
    for path in paths:
        try:
            data = _parse(path, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except FileNotFoundError:
            continue
        except yaml.YAMLError:  # said as PyYAML's own parser says it (libyaml's words differ)
            try:
                data = _parse(path, yaml.SafeLoader)
            except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
                raise _unreadable(path, exc) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise _unreadable(path, exc) from None
        found = True
        if data is None:
            continue
        if not isinstance(data, dict):
            raise _unreadable(path, f"a YAML {type(data).__name__}, not a mapping")
        base = os.path.dirname(os.path.abspath(path))
        for key, into in (("contexts", merged.contexts), ("clusters", merged.clusters),
                          ("users", merged.users)):
            entries = data.get(key) or []
            if not isinstance(entries, list):
                raise _unreadable(path, f"its {key} are not a list")
            for entry in entries:
                inner = key[:-1]
                if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) \
                        or not isinstance(entry.get(inner) or {}, dict):
                    raise _unreadable(path, f"an entry of its {key} is not a named {inner}")
                if inner in _SHAPES:
                    _check_values(path, f"{inner} {entry['name']}", inner,
                                  entry.get(inner) or {})
                into.setdefault(entry["name"], (dict(entry.get(inner) or {}), base))
        if merged.current is None and isinstance(data.get("current-context"), str) \
                and data["current-context"]:
            merged.current = data["current-context"]
    if not found:
        raise RemoteError(f"cannot read the kubeconfig: no file at {os.pathsep.join(paths)}",
                          _GET_CREDENTIALS)
    return merged


def _parse(path: str, loader: Any) -> Any:
    """The YAML document at ``path``, by ``loader``: libyaml's where PyYAML has it (a
    kubeconfig holds a certificate authority of some 1,500 characters for each cluster, which
    PyYAML's own parser reads ten times slower)."""
    import yaml

    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=loader)  # a safe loader, either of the two


# The values inside an entry that gpujob reads, and the type each must have (kubectl's schema).
_SHAPES: dict[str, tuple[tuple[str, type, str], ...]] = {
    "context": (("cluster", str, "a string"), ("user", str, "a string")),
    "user": (("exec", dict, "a mapping"),),
    "exec": (("command", str, "a string"), ("apiVersion", str, "a string"),
             ("args", list, "a list"), ("env", list, "a list")),
}


def _check_values(path: str, where: str, inner: str, entry: dict[str, Any]) -> None:
    """Refuse, naming the key, a value inside an entry that is not of the type gpujob reads
    (``where``: the entry, as ``user NAME``)."""
    prefix = "exec " if inner == "exec" else ""
    for key, kind, said in _SHAPES[inner]:
        value = entry.get(key)
        if value is not None and not isinstance(value, kind):
            raise _unreadable(path, f"{where}: {prefix}{key} is not {said}")
    if inner == "user" and isinstance(entry.get("exec"), dict):
        _check_values(path, where, "exec", entry["exec"])
        if any(not isinstance(e, dict) for e in entry["exec"].get("env") or []):
            raise _unreadable(path, f"{where}: an exec env entry is not a mapping")


def choose(config: Kubeconfig, context: str | None) -> str:
    """The context's name: ``context`` (None: the current one), which must be there."""
    name = context or config.current
    if name is None:
        raise UsageError("the kubeconfig names no current context",
                         f"give --context ({', '.join(config.contexts) or 'none'}), or "
                         "kubectl config use-context NAME")
    if name not in config.contexts:
        names = ", ".join(config.contexts) or "none"
        raise UsageError(f"--context {name}: no such context in the kubeconfig",
                         f"contexts: {names} (kubectl config get-contexts)")
    return name


def _absolute(entry: dict[str, Any], keys: tuple[str, ...], base: str) -> dict[str, Any]:
    out = dict(entry)
    for key in keys:
        value = out.get(key)
        if isinstance(value, str) and value and not os.path.isabs(value):
            out[key] = os.path.join(base, os.path.expanduser(value))
    return out


@dataclass
class Credentials:
    """What the client is given for one context (``config``), and how to renew an exec
    plugin's token once it expires (``renew``)."""

    context: str
    config: dict[str, Any]
    expiry: datetime | None = None
    plugin: tuple[dict[str, Any], dict[str, Any], str] | None = None  # exec, cluster, base

    def expired(self) -> bool:
        return self.expiry is not None and datetime.now(timezone.utc) >= self.expiry

    def renew(self, timeout: float) -> str:
        """A new ``Bearer`` value from the plugin."""
        assert self.plugin is not None
        status = run_plugin(self.context, *self.plugin, timeout=timeout)
        self.expiry = _expiry(status)
        return f"Bearer {_token(status)}"


def _expiry(status: dict[str, Any]) -> datetime | None:
    stamp = status.get("expirationTimestamp")
    if not isinstance(stamp, str):
        return None
    with suppress(ValueError):
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return None


def _token(status: dict[str, Any]) -> str:
    token = str(status.get("token") or "").strip()
    redact.register(token)
    return token


def credentials(config: Kubeconfig, name: str, timeout: float) -> Credentials:
    """The context ``name``'s cluster and user, ready for the client (see the module)."""
    context, _ = config.contexts[name]
    cluster_name, user_name = context.get("cluster"), context.get("user")
    if cluster_name not in config.clusters:
        raise RemoteError(f"cannot read the kubeconfig: context {name} names cluster "
                          f"{cluster_name}, which it does not hold", _GET_CREDENTIALS)
    cluster, cluster_base = config.clusters[cluster_name]
    cluster = _absolute(cluster, ("certificate-authority",), cluster_base)
    user, base = config.users.get(str(user_name or ""), ({}, ""))
    user = _absolute(user, ("client-certificate", "client-key", "tokenFile"), base)
    made = Credentials(name, {})
    if "exec" in user:
        plugin = dict(user.pop("exec") or {})
        command = plugin.get("command")
        if isinstance(command, str) and os.sep in command and not os.path.isabs(command):
            plugin["command"] = os.path.join(base, command)  # as kubectl resolves it
        made.plugin = (plugin, cluster, base)
        status = run_plugin(name, plugin, cluster, base, timeout)
        made.expiry = _expiry(status)
        if status.get("token"):
            user["token"] = _token(status)
        else:
            user["client-certificate-data"] = _b64(status.get("clientCertificateData"))
            user["client-key-data"] = _b64(status.get("clientKeyData"))
    elif "tokenFile" in user and not user.get("token"):
        path = str(user.pop("tokenFile"))
        try:
            with open(path, encoding="utf-8") as f:
                user["token"] = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise RemoteError(f"cannot read the token file of context {name}: {path} "
                              f"({type(exc).__name__}: {exc})", _GET_CREDENTIALS) from None
    if isinstance(user.get("token"), str):
        user["token"] = user["token"].strip()  # as kubectl trims a token file
        redact.register(user["token"])
    redact.register(user.get("password"), user.get("client-key-data"))
    made.config = {"apiVersion": "v1", "kind": "Config", "current-context": name,
                   "contexts": [{"name": name, "context": {"cluster": "c", "user": "u"}}],
                   "clusters": [{"name": "c", "cluster": cluster}],
                   "users": [{"name": "u", "user": user}]}
    return made


def _b64(pem: Any) -> str:
    return base64.b64encode(str(pem or "").encode()).decode()


def _first_line(text: str) -> str:
    """The first line of a plugin's stderr that says something (glog's header dropped)."""
    for line in text.splitlines():
        line = _GLOG.sub("", line.strip()).strip()
        if line and not set(line) <= set("-=*#"):
            return line
    return ""


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End the plugin and what it started (its session's process group)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with suppress(ProcessLookupError):
        proc.kill()
    proc.communicate()


def run_plugin(context: str, plugin: dict[str, Any], cluster: dict[str, Any], base: str,
               timeout: float) -> dict[str, Any]:
    """The ``status`` of the ExecCredential the plugin prints (client.authentication.k8s.io)."""
    command, version = plugin.get("command"), plugin.get("apiVersion")
    hint = (f"check that it works: kubectl --context {context} get namespaces; for GKE, "
            "install gke-gcloud-auth-plugin and run gcloud auth login")
    failed = f"the credentials of context {context} could not be obtained"
    if not isinstance(command, str) or not command or not isinstance(version, str):
        raise RemoteError(f"{failed}: its exec plugin names no command or apiVersion", hint)
    args = [str(a) for a in plugin.get("args") or []]
    env = dict(os.environ)
    env.update({str(e.get("name")): str(e.get("value")) for e in plugin.get("env") or []
                if isinstance(e, dict)})
    spec: dict[str, Any] = {"interactive": False}
    if plugin.get("provideClusterInfo"):
        spec["cluster"] = {**cluster, **next(
            ({"config": x.get("extension")} for x in cluster.get("extensions") or []
             if isinstance(x, dict) and x.get("name") == "client.authentication.k8s.io/exec"),
            {})}
    env["KUBERNETES_EXEC_INFO"] = json.dumps({"apiVersion": version, "kind": "ExecCredential",
                                              "spec": spec})
    with interrupts.deferred():
        try:
            proc = subprocess.Popen([command, *args], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    cwd=base or None, env=env, start_new_session=True)
        except OSError as exc:
            raise RemoteError(f"{failed}: its exec plugin {command} cannot be run "
                              f"({exc.strerror or exc})", hint) from None
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    out, err = proc.communicate(timeout=_POLL)
                    break
                except subprocess.TimeoutExpired:
                    interrupts.check()
                    if time.monotonic() > deadline:
                        raise RemoteError(f"{failed}: its exec plugin {command} gave no "
                                          f"answer within {timeout:g} s (--request-timeout); "
                                          "it was stopped", hint) from None
        except BaseException:
            _stop(proc)
            raise
    said = _first_line(err.decode("utf-8", "replace"))
    if proc.returncode != 0:
        if "gcloud auth login" in err.decode("utf-8", "replace"):
            hint = "run gcloud auth login (and gcloud auth application-default login)"
        raise RemoteError(f"{failed}: {os.path.basename(command)} exited {proc.returncode}"
                          + (f": {said}" if said else ""), hint)
    try:
        answer = json.loads(out.decode("utf-8", "replace"))
    except ValueError:
        answer = None
    status = answer.get("status") if isinstance(answer, dict) else None
    if not isinstance(status, dict) or not (
            status.get("token") or (status.get("clientCertificateData")
                                    and status.get("clientKeyData"))):
        raise RemoteError(f"{failed}: {os.path.basename(command)} printed no ExecCredential "
                          "with a token or client certificate", hint)
    return status
