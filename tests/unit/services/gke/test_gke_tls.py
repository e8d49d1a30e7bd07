"""A GKE submit to an API server over TLS, as a kubeconfig's cluster says: its certificate
authority as data (what ``gcloud container clusters get-credentials`` writes) or as a file
beside the kubeconfig, the name the server's certificate is for (``tls-server-name``), no
verification (``insecure-skip-tls-verify``); an authority file that is not there."""

from __future__ import annotations

import base64
import ssl
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.kubernetes import FakeKubernetes
from gke_cluster import CONTEXT, custom_job, fake_clock, kubeconfig
from tls import certificate


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[FakeKubernetes, Path]]:
    """A fake cluster on https://127.0.0.1 whose certificate is for kube.example, and that
    certificate (its own authority)."""
    (tmp_path / "ca").mkdir()
    cert, key = certificate(tmp_path / "ca", "kube.example")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    with FakeKubernetes(tls=tls) as fake:
        yield fake, cert


@pytest.fixture
def submit(cli, write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``submit`` to the fake with a kubeconfig in tmp_path/kube whose cluster has the keys
    given (and the fake's token); temporary files go to tmp_path/tmp."""
    fake_clock(monkeypatch)
    for folder in ("kube", "tmp"):
        (tmp_path / folder).mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))

    def run(fake: FakeKubernetes, cluster: dict[str, Any]):
        path = kubeconfig(tmp_path / "kube" / "config", fake.url, {"token": fake.token},
                          cluster)
        monkeypatch.setenv("KUBECONFIG", str(path))
        return cli("submit", write(custom_job(workers=0)), "--service", "gke")

    return run


def test_the_authority_as_data_is_not_copied_to_a_file(server, submit, tmp_path):
    fake, cert = server
    result = submit(fake, {"certificate-authority-data":
                           base64.b64encode(cert.read_bytes()).decode(),
                           "tls-server-name": "kube.example"})
    assert result.code == 0, result.err
    assert list(fake.jobsets) == [("default", "run-1")]
    assert list((tmp_path / "tmp").iterdir()) == []  # none that a killed gpujob leaves behind


def test_the_authority_as_a_file_beside_the_kubeconfig(server, submit, tmp_path):
    fake, cert = server
    (tmp_path / "kube" / "ca.crt").write_bytes(cert.read_bytes())
    result = submit(fake, {"certificate-authority": "ca.crt", "tls-server-name": "kube.example"})
    assert result.code == 0, result.err
    assert list(fake.jobsets) == [("default", "run-1")]


@pytest.mark.filterwarnings("ignore:Unverified HTTPS request")  # urllib3 warns
def test_no_verification_where_the_kubeconfig_says_so(server, submit):
    fake, _ = server
    result = submit(fake, {"insecure-skip-tls-verify": True})
    assert result.code == 0, result.err
    assert list(fake.jobsets) == [("default", "run-1")]


def test_an_authority_file_that_is_not_there_is_a_remote_error(server, submit, tmp_path):
    fake, _ = server
    result = submit(fake, {"certificate-authority": "gone.crt"})
    missing = tmp_path / "kube" / "gone.crt"
    assert result.code == 3
    assert result.err.startswith(f"error: cannot use context {CONTEXT} of the kubeconfig: File "
                                 f"does not exist: {missing}\n"), result.err
    assert "Traceback" not in result.err
    assert fake.calls == []
