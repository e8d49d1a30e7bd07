"""``gpujob submit`` staging trainer packages in Cloud Storage (the GCS emulator behind a front that
checks the fake Google's tokens), then creating the job with the fake ml API."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import tarfile
from pathlib import Path

import pytest
from fakes.gcs import gcs_error
from jobs import RUNTIME_JOB_WITHOUT_PACKAGES

from gpujob.gcp.storage import CHUNK_SIZE

ACCOUNT = "trainer@proj-a.iam.gserviceaccount.com"  # the key fixture's service account

CONFIG = RUNTIME_JOB_WITHOUT_PACKAGES


@pytest.fixture
def config(write) -> str:
    return write(CONFIG)


@pytest.fixture
def dep(tmp_path: Path) -> Path:
    path = tmp_path / "deps" / "dep-1.0-py3-none-any.whl"
    path.parent.mkdir()
    path.write_bytes(b"PK\x05\x06" + bytes(18) + b"dep 1.0")
    return path


def staged(uri: str, bucket: str) -> str:
    """The object name of a gs://BUCKET/... URI in the test's bucket."""
    prefix = f"gs://{bucket}/"
    assert uri.startswith(prefix), uri
    return uri[len(prefix):]


def uploads(gcs) -> list:
    return [seen for seen in gcs.requests() if seen.upload_start]


@pytest.mark.slow
def test_submit_uploads_the_packages_and_sends_their_uris(cli, google, key, gcs, config,
                                                          trainer, dep, offline_builds, clock):
    package = trainer({"trainer/configs/small.yaml": "lr: 0.1\n"})
    args = ("--package-path", package, "--packages", f"gs://other/x.tar.gz,{dep}",
            "--staging-bucket", f"gs://{gcs.bucket}", "--job-id", "j1")
    dry = cli("submit", config, "--dry-run", "--project", "proj-a", *args)
    assert dry.code == 0, dry.err
    assert gcs.requests() == []  # the dry-run talks to nobody
    result = cli("submit", config, *args)
    assert result.code == 0, result.err
    (create,) = google.calls("jobs.create")
    assert create.body == json.loads(dry.out)  # the URIs the dry-run showed are the ones used
    gs_uri, dep_uri, built_uri = create.body["trainingInput"]["packageUris"]
    assert gs_uri == "gs://other/x.tar.gz"

    objects = gcs.emulator.objects(gcs.bucket)
    assert set(objects) == {staged(dep_uri, gcs.bucket), staged(built_uri, gcs.bucket)}
    assert gcs.emulator.content(gcs.bucket, staged(dep_uri, gcs.bucket)) == dep.read_bytes()
    assert staged(dep_uri, gcs.bucket) == \
        f"packages/{hashlib.sha256(dep.read_bytes()).hexdigest()}/{dep.name}"
    # the built package: named by the SHA-256 of its bytes, holding the trainer's files
    sdist = gcs.emulator.content(gcs.bucket, staged(built_uri, gcs.bucket))
    assert staged(built_uri, gcs.bucket) == \
        f"packages/{hashlib.sha256(sdist).hexdigest()}/trainer-0.0.0.tar.gz"
    with tarfile.open(fileobj=io.BytesIO(sdist)) as archive:
        read = {name: archive.extractfile(name).read() for name in archive.getnames()
                if archive.getmember(name).isfile()}
    assert read["trainer-0.0.0/trainer/task.py"] == b"print('training')\n"
    assert read["trainer-0.0.0/trainer/configs/small.yaml"] == b"lr: 0.1\n"
    assert b'name = "trainer"' in read["trainer-0.0.0/pyproject.toml"]

    # every storage call carried the session's token: one token for staging and the create
    assert {seen.principal for seen in gcs.requests()} == {ACCOUNT}
    assert len(google.calls("token")) == 1
    err = result.err.splitlines()
    assert f"Staging 2 packages in gs://{gcs.bucket}/packages/:" in err
    assert f"  {dep.name}: uploaded to {dep_uri} (29 bytes, MD5 verified)" in err
    assert any(re.fullmatch(rf"  trainer-0\.0\.0\.tar\.gz: uploaded to {re.escape(built_uri)} "
                            r"\(\d+(\.\d)? (bytes|KiB), MD5 verified\)", line) for line in err)
    assert err.index(f"Staging 2 packages in gs://{gcs.bucket}/packages/:") < \
        err.index("Job [j1] submitted to project [proj-a]; state: QUEUED.")
    assert result.out == "j1\n"


@pytest.mark.slow
def test_an_unchanged_package_is_not_uploaded_again_and_a_changed_one_gets_a_new_path(
        cli, google, key, gcs, config, trainer, dep, offline_builds):
    package = trainer()
    args = ("--package-path", package, "--packages", str(dep), "--job-dir",
            f"gs://{gcs.bucket}/runs")
    assert cli("submit", config, *args, "--job-id", "j1").code == 0
    first = gcs.emulator.objects(gcs.bucket)
    assert len(first) == 2 and all(name.startswith("runs/packages/") for name in first)
    assert len(uploads(gcs)) == 2

    # a second job, the same sources: both found at their addresses, nothing uploaded
    again = cli("submit", config, *args, "--job-id", "j2")
    assert again.code == 0, again.err
    assert len(uploads(gcs)) == 2
    assert gcs.emulator.objects(gcs.bucket) == first  # same objects, same generations
    j1, j2 = (c.body["trainingInput"]["packageUris"] for c in google.calls("jobs.create"))
    assert j1 == j2
    for uri in j2:
        name = uri.rsplit("/", 1)[1]
        assert f"  {name}: already at {uri} (same size and MD5); not uploaded" in \
            again.err.splitlines()

    # a changed trainer: a new object beside the old one; the unchanged dependency stays put
    (package / "task.py").write_text("print('training longer')\n")
    changed = cli("submit", config, *args, "--job-id", "j3")
    assert changed.code == 0, changed.err
    assert len(uploads(gcs)) == 3
    now = gcs.emulator.objects(gcs.bucket)
    assert set(first) < set(now) and len(now) == 3
    j3 = google.calls("jobs.create")[2].body["trainingInput"]["packageUris"]
    assert j3[0] == j1[0] and j3[1] != j1[1]
    assert j3[1].endswith("/trainer-0.0.0.tar.gz")


def test_the_bucket_missing(cli, google, key, gcs, config, dep):
    result = cli("submit", config, "--packages", str(dep), "--staging-bucket", "gs://no-such",
                 "--job-id", "j1")
    assert result.code == 3
    uri = f"gs://no-such/packages/{hashlib.sha256(dep.read_bytes()).hexdigest()}/{dep.name}"
    assert result.err.splitlines()[-2:] == [
        f"error: uploading {dep.name} to {uri} failed: 404: Not Found",
        "  hint: the bucket gs://no-such does not exist: create it (gcloud storage buckets "
        "create gs://no-such --location REGION) or stage elsewhere with --staging-bucket or "
        "--job-dir",
    ]
    assert google.calls("jobs.create") == []


@pytest.mark.parametrize("permission, doing", [
    ("storage.objects.create", "uploading dep-1.0-py3-none-any.whl to"),
    ("storage.objects.get", "reading"),
])
def test_permission_denied(cli, google, key, gcs, config, dep, permission, doing):
    gcs.deny(gcs.bucket, permission)
    result = cli("submit", config, "--packages", str(dep), "--staging-bucket",
                 f"gs://{gcs.bucket}", "--job-id", "j1")
    assert result.code == 3
    uri = f"gs://{gcs.bucket}/packages/{hashlib.sha256(dep.read_bytes()).hexdigest()}/{dep.name}"
    assert result.err.splitlines()[-2:] == [
        f"error: {doing} {uri} failed: 403: {ACCOUNT} does not have {permission} access to the "
        f"Google Cloud Storage object. Permission '{permission}' denied on resource (or it may "
        "not exist).",
        f"  hint: {ACCOUNT} needs the {permission} permission on bucket gs://{gcs.bucket}, for "
        "example through the roles/storage.objectUser role",
    ]
    assert gcs.emulator.objects(gcs.bucket) == {}
    assert google.calls("jobs.create") == []


def test_bytes_changed_on_the_way_are_refused_by_the_service(cli, google, key, gcs, config,
                                                            dep):
    gcs.corrupt_next_part = True
    result = cli("submit", config, "--packages", str(dep), "--staging-bucket",
                 f"gs://{gcs.bucket}", "--job-id", "j1")
    assert result.code == 3
    md5 = base64.b64encode(hashlib.md5(dep.read_bytes()).digest()).decode()
    assert re.search(rf'failed: 400: Provided MD5 hash "{re.escape(md5)}" doesn\'t match '
                     r'calculated MD5 hash "[^"]+"\.', result.err)
    assert result.err.splitlines()[-1] == ("  hint: when Cloud Storage reports another MD5, the "
                                           "bytes changed on the way: submit again")
    assert gcs.emulator.objects(gcs.bucket) == {}
    assert google.calls("jobs.create") == []


def test_bytes_changed_on_the_way_are_caught_after_the_upload(cli, google, key, gcs, config,
                                                              dep):
    # as from a service that does not check the MD5 it is given: gpujob compares what is stored
    gcs.corrupt_next_part = gcs.strip_md5_next_start = True
    result = cli("submit", config, "--packages", str(dep), "--staging-bucket",
                 f"gs://{gcs.bucket}", "--job-id", "j1")
    assert result.code == 3
    (name,) = gcs.emulator.objects(gcs.bucket)
    stored = gcs.emulator.objects(gcs.bucket)[name]
    uri = f"gs://{gcs.bucket}/{name}"
    md5 = base64.b64encode(hashlib.md5(dep.read_bytes()).digest()).decode()
    assert result.err.splitlines()[-2:] == [
        f"error: {uri} does not hold what was uploaded: Cloud Storage reports 29 bytes with MD5 "
        f"{stored['md5Hash']}, {dep} has 29 bytes with MD5 {md5}; nothing was submitted",
        "  hint: submit again to upload it again; if this repeats, something between gpujob "
        "and Cloud Storage changes uploads",
    ]
    assert google.calls("jobs.create") == []

    # the next submission finds other bytes at the address, and replaces them
    again = cli("submit", config, "--packages", str(dep), "--staging-bucket",
                f"gs://{gcs.bucket}", "--job-id", "j1")
    assert again.code == 0, again.err
    assert f"note: {uri} holds other bytes than its name says (29 bytes, MD5 " \
           f"{stored['md5Hash']}); uploading again" in again.err
    assert gcs.emulator.content(gcs.bucket, name) == dep.read_bytes()


def test_a_large_file_goes_up_in_parts_with_progress(cli, google, key, gcs, config, tmp_path):
    big = tmp_path / "big-1.0.tar.gz"
    data = hashlib.sha256(b"seed").digest() * ((2 * CHUNK_SIZE + CHUNK_SIZE // 2) // 32)
    big.write_bytes(data)
    result = cli("submit", config, "--packages", str(big), "--staging-bucket",
                 f"gs://{gcs.bucket}", "--job-id", "j1")
    assert result.code == 0, result.err
    (name,) = gcs.emulator.objects(gcs.bucket)
    assert gcs.emulator.content(gcs.bucket, name) == data
    parts = [seen for seen in gcs.requests() if seen.upload_part]
    assert len(parts) == 3
    mib = CHUNK_SIZE / 2**20
    lines = result.err.splitlines()
    start = lines.index(f"Staging 1 package in gs://{gcs.bucket}/packages/:")
    assert lines[start + 1:start + 4] == [
        f"  big-1.0.tar.gz: {mib:.1f} MiB of {2.5 * mib:.1f} MiB (40%)",
        f"  big-1.0.tar.gz: {2 * mib:.1f} MiB of {2.5 * mib:.1f} MiB (80%)",
        f"  big-1.0.tar.gz: uploaded to gs://{gcs.bucket}/{name} ({2.5 * mib:.1f} MiB, MD5 "
        "verified)",
    ]


def test_a_failed_upload_start_is_retried(cli, google, key, gcs, config, dep, clock):
    gcs.reply("POST", 503, gcs_error(503, "We encountered an internal error.", "backendError"))
    result = cli("submit", config, "--packages", str(dep), "--staging-bucket",
                 f"gs://{gcs.bucket}", "--job-id", "j1")
    assert result.code == 0, result.err
    assert len(uploads(gcs)) == 2
    assert len(clock.sleeps) == 1
    assert re.search(r"note: uploading dep-1\.0-py3-none-any\.whl to gs://\S+: 503 "
                     r"Service Unavailable; retrying in \d\.\d s \(attempt 2 of 5\)", result.err)
    (name,) = gcs.emulator.objects(gcs.bucket)
    assert gcs.emulator.content(gcs.bucket, name) == dep.read_bytes()


def test_storage_emulator_host_is_honoured_and_verbose_shows_no_token(cli, google, key, gcs,
                                                                      config, dep, monkeypatch,
                                                                      leaked):
    monkeypatch.delenv("GPUJOB_STORAGE_ENDPOINT")
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs.url.removeprefix("http://").rstrip("/"))
    result = cli("submit", config, "--packages", str(dep), "--staging-bucket",
                 f"gs://{gcs.bucket}", "--job-id", "j1", "--verbose")
    assert result.code == 0, result.err
    assert len(gcs.emulator.objects(gcs.bucket)) == 1
    assert f"> POST {gcs.url}upload/storage/v1/b/{gcs.bucket}/o?" in result.err
    assert leaked(result.err) == []
    # the resumable upload's ID lets its holder write to the upload: not shown either
    (part,) = [seen for seen in gcs.requests() if seen.upload_part]
    (upload_id,) = part.query["upload_id"]
    assert upload_id not in result.err
    assert "upload_id=…" in result.err


def test_a_failed_part_is_retried_and_the_upload_resumes(cli, google, key, gcs, config,
                                                         tmp_path, clock):
    big = tmp_path / "big-1.0.tar.gz"
    data = hashlib.sha256(b"seed").digest() * (2 * CHUNK_SIZE // 32)
    big.write_bytes(data)
    # the second part meets a 503 (the emulator answers a status query with "bytes=0-0" when
    # it has nothing, where Cloud Storage sends no Range, so the first part cannot be the one)
    gcs.reply("PUT", 503, gcs_error(503, "We encountered an internal error.", "backendError"),
              after=1)
    result = cli("submit", config, "--packages", str(big), "--staging-bucket",
                 f"gs://{gcs.bucket}", "--job-id", "j1")
    assert result.code == 0, result.err
    assert re.search(r"note: uploading big-1\.0\.tar\.gz to gs://\S+: 503 Service Unavailable; "
                     r"retrying in \d\.\d s \(attempt 2 of 5\)", result.err)
    parts = [seen for seen in gcs.requests() if seen.upload_part]
    # part 1, part 2 (503), the status query, part 2 again: nothing sent twice but the failed
    assert len(parts) == 4
    assert len(uploads(gcs)) == 1
    (name,) = gcs.emulator.objects(gcs.bucket)
    assert gcs.emulator.content(gcs.bucket, name) == data
