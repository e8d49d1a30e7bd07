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


# The shapes of secrets, each with the words its match must contain (lower case): a pattern is
# compiled, and run, only when ``scrub`` meets one of them in the text. Most of what gpujob
# writes to stderr (a validate's notes, progress) holds none, and compiling all of them was a
# few ms of every command that writes there. Text with one of the four non-ASCII letters that
# IGNORECASE matches to ASCII ones (``_FOLDED``: the Kelvin sign for k, …) gets every pattern.
_SHAPES: tuple[tuple[tuple[str, ...], str, int, str], ...] = (
    # PEM private keys, whole or cut off, raw or with \n escapes
    (("private key-----",),
     r"-----BEGIN ([A-Z ]*)PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----"
     r"|[A-Za-z0-9+/=\s\\n]*)", re.DOTALL,
     rf"-----BEGIN \1PRIVATE KEY-----{MASK}-----END \1PRIVATE KEY-----"),
    # "access_token": "…", 'accessToken': '…', access_token=…, \"id_token\": \"…\"
    (("token", "private", "secret", "assertion"),
     r"((?<![A-Za-z])(?:access_?token|id_?token|refresh_?token|private_?key(?!_id)"
     r"|client_?secret|assertion)\\*[\"']?\s*[:=]\s*\\*[\"']?)" + _TOKEN, re.IGNORECASE,
     rf"\1{MASK}"),
    # "token": "…" (gcloud's credential files), quoted: "token: …" in a sentence is prose
    (("token",), r"(\\*[\"']token\\*[\"']\s*:\s*\\*[\"'])" + _TOKEN, re.IGNORECASE,
     rf"\1{MASK}"),
    (("bearer",), r"(\bBearer\s+)" + _TOKEN, re.IGNORECASE, rf"\1{MASK}"),
    (("ya29.",), r"\bya29\." + _TOKEN, 0, MASK),
    (("1//",), r"\b1//[A-Za-z0-9_-]{16,}", 0, MASK),
    (("gocspx-",), r"\bGOCSPX-[A-Za-z0-9_-]+", 0, MASK),
    (("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", 0, MASK),
)


@cache
def _pattern(index: int) -> re.Pattern[str]:
    """The compiled shape ``index`` of ``_SHAPES``, compiled on first use."""
    _, source, flags, _ = _SHAPES[index]
    return re.compile(source, flags)


_FOLDED = "\u0130\u0131\u017f\u212a"  # İ ı ſ K: [a-z] with IGNORECASE matches them (re's docs)


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
    lower = None if any(c in text for c in _FOLDED) else text.lower()
    for index, (words, _, _, replacement) in enumerate(_SHAPES):
        if lower is None or any(word in lower for word in words):
            text = _pattern(index).sub(replacement, text)
            lower = lower if lower is None else text.lower()
    return text
