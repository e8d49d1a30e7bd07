"""``redact.scrub``: each shape of a secret is masked however it is written, though a pattern
is compiled only for text that holds one of its words (``_SHAPES``)."""

from __future__ import annotations

import pytest

from gpujob import redact

SECRET = "abcdefghij0123456789"


@pytest.mark.parametrize("text", [
    f"-----BEGIN RSA PRIVATE KEY-----\nMIIE{SECRET}\n-----END RSA PRIVATE KEY-----",
    f'{{"ACCESS_TOKEN": "{SECRET}"}}', f"accessToken={SECRET}", f"'Client_Secret': '{SECRET}'",
    f"Assertion={SECRET}", f"private_key: {SECRET}", f'{{"token": "{SECRET}"}}',
    f"Authorization: BEARER {SECRET}", f"ya29.{SECRET}", f"1//{SECRET}",
    f"GOCSPX-{SECRET}", f"eyJ{SECRET}.{SECRET}.{SECRET}",
    # letters that IGNORECASE folds to ASCII ones: the Kelvin sign for K, the long s for s
    f"private_\u212aey: {SECRET}", f"client_\u017fecret={SECRET}",
])
def test_every_shape_of_a_secret_is_masked(text: str):
    scrubbed = redact.scrub(f"error: {text} (×2)")
    assert SECRET not in scrubbed and redact.MASK in scrubbed


def test_text_without_a_secret_is_unchanged():
    text = "note: jobDir became baseOutputDirectory gs://b/j; tokens of 1/2 … private notes"
    assert redact.scrub(text) == text
