"""Command-line overrides: gcloud's flag syntaxes, ``--set PATH=VALUE``, and where each applies.

Parsing turns flag text into ``Override(path, value, origin)``; ``merge.apply`` writes them into
the document. Syntax errors raise ``UsageError`` (exit 2); values that parse but break a rule
(an unknown GPU, a bad label) are left to the schema and the rules, which report them at the flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gpujob import numbers
from gpujob.errors import UsageError
from gpujob.findings import JsonPath, Location


@dataclass(frozen=True)
class Override:
    """Set ``path`` to ``value`` (replacing what was there); ``origin`` names the flag."""

    path: JsonPath
    value: Any
    origin: Location


def flag_origin(flag: str, env: str | None = None) -> Location:
    """``command line (--region)``, or ``environment (GPUJOB_REGION)`` when it came from there."""
    return Location("environment", flag=env) if env else Location("command line", flag=flag)


def enum_name(text: str) -> str:
    """gcloud's choice-to-enum rule: ``nvidia-tesla-t4`` -> ``NVIDIA_TESLA_T4``."""
    return text.strip().replace("-", "_").upper()


def parse_scale_tier(text: str) -> str:
    """``basic-gpu`` -> ``BASIC_GPU``; the command checks it against the tiers of the catalog
    it loads (``check_scale_tiers``)."""
    return enum_name(text)


def check_scale_tiers(overrides: Iterable[Override], tiers: Iterable[str]) -> None:
    """A usage error for a --scale-tier the catalog in use does not have."""
    tiers = list(tiers)
    for override in overrides:
        if override.origin.flag == "--scale-tier" and override.value not in tiers:
            given = str(override.value).lower().replace("_", "-")
            choices = ", ".join(t.lower().replace("_", "-") for t in tiers)
            raise UsageError(f"--scale-tier: {given!r} is not a scale tier",
                             f"choose one of {choices} (any case, '-' or '_')")


def _pairs(text: str, flag: str) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split(","):
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"{flag}: {item!r} is not KEY=VALUE",
                             f"write {flag} KEY=VALUE[,KEY=VALUE…]")
        pairs.append((key.strip(), value))
    return pairs


def parse_accelerator(text: str, flag: str) -> dict[str, Any]:
    """``count=4,type=nvidia-tesla-t4`` -> ``{"type": "NVIDIA_TESLA_T4", "count": 4}``.

    As in gcloud both keys are required and the type takes gcloud's lower-case names or the API's.
    """
    found = dict(_pairs(text, flag))
    unknown = sorted(set(found) - {"type", "count"})
    if unknown:
        raise UsageError(f"{flag}: unknown key {unknown[0]!r}", "the keys are count and type, "
                         f"as in {flag} count=4,type=nvidia-tesla-t4")
    missing = [k for k in ("type", "count") if not found.get(k)]
    if missing:
        raise UsageError(f"{flag}: {missing[0]} is missing",
                         f"give both, as in {flag} count=4,type=nvidia-tesla-t4")
    try:
        count = numbers.parse_count(found["count"])
    except numbers.NumberError as exc:
        raise UsageError(f"{flag}: count {exc}") from None
    if count <= 0:
        raise UsageError(f"{flag}: the count must be greater than 0")
    return {"type": enum_name(found["type"]), "count": count}


def parse_labels(values: tuple[str, ...]) -> dict[str, str]:
    """Repeated ``--labels k=v,…`` flags merge; one key given twice is an error (as gcloud)."""
    labels: dict[str, str] = {}
    for text in values:
        for key, value in _pairs(text, "--labels"):
            if key in labels and labels[key] != value:
                raise UsageError(f"--labels: {key!r} is given twice ({labels[key]!r} and "
                                 f"{value!r})")
            labels[key] = value
    return labels


def parse_bool(text: str, flag: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off"):
        return False
    raise UsageError(f"{flag}: {text!r} is not a boolean", "write true or false")


def parse_count(text: str, flag: str) -> int:
    try:
        return numbers.parse_count(text)
    except numbers.NumberError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def kms_key_name(key: str | None, keyring: str | None, location: str | None,
                 project: str | None) -> str | None:
    """``--kms-key`` is a full name, or a short one completed by the other ``--kms-*`` flags."""
    if not any((key, keyring, location)):
        return None
    if key and key.startswith("projects/"):
        return key
    if not (key and keyring and location and project):
        raise UsageError("--kms-key: encryption key not fully specified",
                         "give the full name projects/P/locations/L/keyRings/R/cryptoKeys/K, "
                         "or --kms-key K with --kms-keyring, --kms-location and --kms-project "
                         "(or --project)")
    return f"projects/{project}/locations/{location}/keyRings/{keyring}/cryptoKeys/{key}"


_SEGMENT = re.compile(r'\.?([A-Za-z_][A-Za-z0-9_-]*)|\[([0-9]+)\]|\["((?:[^"\\]|\\.)*)"\]')
_PATH_HINT = ("write a dotted path such as trainingInput.workerCount, trainingInput.args[0] or "
              "labels[\"my.key\"]")


def _segment(text: str, name: str | None, index: str | None, quoted: str) -> str | int:
    """One matched path segment as a key or an index; a bad index or escape is a usage error."""
    import json

    if name is not None:
        return name
    try:
        if index is not None:
            return numbers.parse_count(index)
        key = json.loads(f'"{quoted}"')
        key.encode("utf-8")  # a lone surrogate (\ud800) is no text the API could take
        return key
    except (numbers.NumberError, ValueError) as exc:
        why = str(exc) if isinstance(exc, numbers.NumberError) else (
            "an invalid escape in a quoted key" if isinstance(exc, json.JSONDecodeError)
            else "a quoted key that is not valid Unicode")
        raise UsageError(f"--set: {text!r} is not a path: {why}",
                         "inside [\"…\"] write the key's characters as they are, or JSON "
                         "escapes such as \\\" and \\u00e9") from None


def parse_path(text: str) -> JsonPath:
    """``trainingInput.hyperparameters.params[0].maxValue`` -> its JSON path (``format_path``'s
    inverse); keys with other characters go in ``["…"]``. At most ``MAX_DEPTH`` segments, the
    nesting a config file may have."""
    from gpujob.config.load import MAX_DEPTH

    path: list[str | int] = []
    pos = 0
    while pos < len(text):
        match = _SEGMENT.match(text, pos)
        # a name is written with a leading dot exactly when it is not the first segment
        dotted = match is not None and match.group(0).startswith(".")
        if not match or (match.group(1) is not None and dotted != bool(path)):
            break
        if len(path) == MAX_DEPTH:
            raise UsageError(f"--set: the path {numbers.shown(text)!r} is deeper than "
                             f"{MAX_DEPTH} levels", "a Job config nests a handful of levels")
        path.append(_segment(text, *match.groups()))
        pos = match.end()
    if pos < len(text) or not path or not isinstance(path[0], str):
        raise UsageError(f"--set: {text!r} is not a path", _PATH_HINT)
    return tuple(path)


def parse_set(text: str) -> Override:
    """``--set PATH=VALUE``: the value is YAML (``4`` a number, ``'4'`` a string, ``[a, b]`` a
    list), read with the same limits as a config file."""
    from gpujob.config.load import Fatal, parse_text

    raw_path, eq, raw_value = text.partition("=")
    if not eq:
        raise UsageError(f"--set: {text!r} is not PATH=VALUE",
                         "write --set trainingInput.workerCount=4")
    path = parse_path(raw_path.strip())
    try:
        value, builder = parse_text(raw_value, "--set")
    except Fatal as fatal:
        raise UsageError(f"--set {raw_path}: {fatal.finding.message}",
                         "quote the value for the shell, e.g. --set 'trainingInput.args=[--a, b]'"
                         ) from None
    if builder.findings:
        raise UsageError(f"--set {raw_path}: {builder.findings[0].message}")
    return Override(path, value, Location("command line", flag=f"--set {raw_path.strip()}"))
