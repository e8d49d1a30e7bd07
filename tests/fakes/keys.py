"""Service account keys made in the test: google-auth signs real JWTs with them, and the fake
token endpoint checks those signatures with the public half."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


@cache
def _private_key(slot: int) -> rsa.RSAPrivateKey:
    """RSA keys are slow to make: one per slot per test session. 1024 bits, not the console's
    2048: google-auth loads the key anew in every command, and cryptography's check of a
    2048-bit key costs 30 ms of CPU each time (4 ms at 1024), some 15 s of the suite."""
    return rsa.generate_private_key(public_exponent=65537, key_size=1024)


@dataclass(frozen=True)
class ServiceAccountKey:
    email: str
    key_id: str
    project: str
    info: dict[str, Any]  # the key file's content
    public_key: rsa.RSAPublicKey

    def write(self, path: Path) -> str:
        path.write_text(json.dumps(self.info), encoding="utf-8")
        return str(path)


def service_account_key(email: str, project: str, token_uri: str,
                        slot: int = 0) -> ServiceAccountKey:
    """A key in the format of the Cloud console's JSON keys, trusted by nobody until the fake
    server is told of it; its ``token_uri`` points at the fake token endpoint."""
    private = _private_key(slot)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    key_id = uuid.uuid4().hex
    info = {
        "type": "service_account",
        "project_id": project,
        "private_key_id": key_id,
        "private_key": pem,
        "client_email": email,
        "client_id": "1234567890",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": token_uri,
    }
    return ServiceAccountKey(email, key_id, project, info, private.public_key())
