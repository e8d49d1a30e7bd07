"""Keeping secrets out of everything gpujob writes.

Two layers, because neither alone is enough:

- Known values. The credentials layer registers each secret when it obtains it: access tokens,
  id tokens and refresh tokens as they are issued, a key file's private key and client secret
  as it is read. Every one is masked wherever it appears, on stdout and stderr alike, however
  it got there (an exception's text, a server's answer quoted in an error).
- Shapes. A secret that was never registered (a token in an answer google-auth could not read,
  so it never became the credentials' token) is still caught on stderr by its look: PEM private
  keys, the values of keys named like ``access_token``, ``accessToken``, ``id_token``,
  ``refresh_token``, ``private_key``, ``client_secret`` or ``assertion`` (in JSON, in a Python
  repr, in a form body), ``Bearer`` headers, Google access tokens (``ya29.``), refresh tokens
  (``1//``), client secrets (``GOCSPX-``) and JWTs.

``scrub`` applies both; ``mask`` only the first (for results on stdout, whose data is the
user's and must not be rewritten by a guess).
"""

from __future__ import annotations

import re
import threading
from functools import cache

MASK = "[redacted]"
_MIN_LENGTH = 8  # shorter values are not secrets worth masking, and would mask too much

_known: set[str] = set()
_lock = threading.Lock()

_TOKEN = r"[A-Za-z0-9._~+/=-]+"


@cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """The shapes of secrets, compiled on first use, when a command first writes to stderr:
    ``--help``, which writes only to stdout, compiles none of them."""
    return [
        # PEM private keys, whole or cut off, raw or with \n escapes
        (re.compile(r"-----BEGIN ([A-Z ]*)PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----"
                    r"|[A-Za-z0-9+/=\s\\n]*)", re.DOTALL),
         rf"-----BEGIN \1PRIVATE KEY-----{MASK}-----END \1PRIVATE KEY-----"),
        # "access_token": "…", 'accessToken': '…', access_token=…, \"id_token\": \"…\"
        (re.compile(r"((?<![A-Za-z])(?:access_?token|id_?token|refresh_?token|private_?key(?!_id)"
                    r"|client_?secret|assertion)\\*[\"']?\s*[:=]\s*\\*[\"']?)" + _TOKEN,
                    re.IGNORECASE), rf"\1{MASK}"),
        # "token": "…" (gcloud's credential files), quoted: "token: …" in a sentence is prose
        (re.compile(r"(\\*[\"']token\\*[\"']\s*:\s*\\*[\"'])" + _TOKEN, re.IGNORECASE),
         rf"\1{MASK}"),
        (re.compile(r"(\bBearer\s+)" + _TOKEN, re.IGNORECASE), rf"\1{MASK}"),
        (re.compile(r"\bya29\." + _TOKEN), MASK),
        (re.compile(r"\b1//[A-Za-z0-9_-]{16,}"), MASK),
        (re.compile(r"\bGOCSPX-[A-Za-z0-9_-]+"), MASK),
        (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), MASK),
    ]


def register(*values: object) -> None:
    """Mask these values from now on (``None`` and short values are ignored)."""
    with _lock:
        for value in values:
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            if isinstance(value, str) and len(value) >= _MIN_LENGTH:
                _known.add(value)


def register_key_info(info: object) -> None:
    """The secrets of a key or credentials file's JSON (a service account key, a gcloud
    authorized-user file): its private key (line by line too, as a traceback may show a
    piece of it), client secret and refresh token."""
    if not isinstance(info, dict):
        return
    key = info.get("private_key")
    if isinstance(key, str):
        register(key, *(line for line in key.splitlines() if "-----" not in line))
    register(info.get("client_secret"), info.get("refresh_token"))


def mask(text: str) -> str:
    """``text`` with every registered secret replaced by ``[redacted]``."""
    if not _known:
        return text
    with _lock:
        known = sorted(_known, key=len, reverse=True)  # a long one before a part of it
    for value in known:
        if value in text:
            text = text.replace(value, MASK)
    return text


def scrub(text: str) -> str:
    """``text`` with registered secrets and anything shaped like a secret masked."""
    text = mask(text)
    for pattern, replacement in _patterns():
        text = pattern.sub(replacement, text)
    return text
