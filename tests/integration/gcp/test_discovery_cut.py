"""Vertex AI's and Service Usage's discovery documents are cut to the resources gpujob calls and
the cut is kept in gpujob's cache directory (``gpujob.gcp.discovery_cut``, issue 34): the
requests are byte for byte those of a service built from the whole bundled document, and a
cache that is damaged, stale or unwritable is never trusted, only rebuilt."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from googleapiclient.discovery import build_from_document
from googleapiclient.discovery_cache import get_static_doc

from gpujob.gcp import discovery, discovery_cut

PARENT = "projects/p/locations/us-central1"
BODY = {"displayName": "j", "labels": {"gpujob-submission": "t"}, "jobSpec": {
    "workerPoolSpecs": [{"machineSpec": {"machineType": "n1-highcpu-16"}, "replicaCount": "1",
                         "containerSpec": {"imageUri": "gcr.io/p/t:1", "args": ["--x"]}}]}}


def requests(api: str, service) -> list[tuple]:
    """Every request gpujob makes of ``api``, as googleapiclient would send it."""
    if api == "serviceusage":
        metrics = service.services().consumerQuotaMetrics()
        made = [metrics.list(parent="projects/p/services/aiplatform.googleapis.com",
                             view="FULL", pageToken="t")]
    else:
        locations = service.projects().locations()
        made = []
        for kind in ("customJobs", "hyperparameterTuningJobs"):
            jobs, name = getattr(locations, kind)(), f"{PARENT}/{kind}/1"
            made += [jobs.create(parent=PARENT, body=BODY), jobs.get(name=name),
                     jobs.cancel(name=name, body={}),
                     jobs.list(parent=PARENT, filter='labels.a="b"', pageSize=100,
                               pageToken="t", readMask="name")]
            assert hasattr(jobs, "list_next")
    return [(r.method, r.uri, r.body, sorted(r.headers.items()), r.methodId) for r in made]


@pytest.fixture
def fresh():
    """A new process's view: nothing parsed yet (the cache directory is the test's own)."""
    discovery.document.cache_clear()
    discovery.buildable.cache_clear()
    yield
    discovery.document.cache_clear()
    discovery.buildable.cache_clear()


@pytest.mark.parametrize(("api", "version"), [("aiplatform", "v1"), ("serviceusage", "v1beta1")])
def test_requests_are_those_of_the_whole_bundled_document_with_and_without_the_cache(
        fresh, api, version):
    whole = build_from_document(json.loads(get_static_doc(api, version)), http=object())
    expected = requests(api, whole)
    assert not discovery_cut.cache_file(api, version).exists()
    made = discovery.service(api, version, object())  # cut from the bundled file, then kept
    assert discovery_cut.cache_file(api, version).exists()
    discovery.document.cache_clear()
    discovery.buildable.cache_clear()
    read = discovery.service(api, version, object())  # from the cache
    assert requests(api, made) == expected
    assert requests(api, read) == expected


def test_the_cut_keeps_the_regions_and_the_answers_types():
    whole = json.loads(get_static_doc("aiplatform", "v1"))
    cut = discovery_cut.document("aiplatform", "v1")
    assert cut is not None
    assert cut["endpoints"] == whole["endpoints"] and cut["rootUrl"] == whole["rootUrl"]
    jobs = cut["resources"]["projects"]["resources"]["locations"]["resources"]
    assert set(jobs) == {"customJobs", "hyperparameterTuningJobs"}
    # every schema a kept method reaches is there, whole; the rest is not
    assert cut["schemas"]["GoogleCloudAiplatformV1CustomJob"] == \
        whole["schemas"]["GoogleCloudAiplatformV1CustomJob"]
    assert "GoogleCloudAiplatformV1Dataset" not in cut["schemas"]
    assert all(cut["schemas"][name] == whole["schemas"][name] for name in cut["schemas"])
    assert len(json.dumps(cut)) < len(json.dumps(whole)) / 20


def _damage_body(text: bytes) -> bytes:
    head, _, body = text.partition(b"\n")
    return head + b"\n" + body.replace(b'"POST"', b'"GET"', 1)


def _stale(text: bytes) -> bytes:
    head, _, body = text.partition(b"\n")
    header = json.loads(head)
    header["source"]["mtime_ns"] -= 1  # cut from an earlier google-api-python-client's file
    return json.dumps(header).encode() + b"\n" + body


def _other_resources(text: bytes) -> bytes:
    head, _, body = text.partition(b"\n")
    header = json.loads(head)
    header["resources"] = header["resources"][:1]
    return json.dumps(header).encode() + b"\n" + body


@pytest.mark.parametrize("spoil", [
    lambda text: text[:len(text) // 2],  # truncated
    _damage_body,  # a changed byte: the digest no longer matches
    _stale, _other_resources,
    lambda text: b"",
    lambda text: b"\xff\xfe not json\n{}",
    lambda text: text.partition(b"\n")[0] + b"\n[]",
], ids=["truncated", "damaged", "stale", "other-resources", "empty", "garbage", "not-a-cut"])
def test_a_damaged_or_stale_cache_is_rebuilt_not_trusted(fresh, spoil):
    expected = discovery_cut.document("aiplatform", "v1")
    file = discovery_cut.cache_file("aiplatform", "v1")
    good = file.read_bytes()
    file.write_bytes(spoil(good))
    assert discovery_cut.document("aiplatform", "v1") == expected
    assert file.read_bytes() == good  # made again, whole


def test_a_cache_that_cannot_be_written_costs_only_the_parse(
        fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("GPUJOB_CACHE_DIR", str(blocked))  # not a directory: nothing can be made
    made = discovery_cut.document("aiplatform", "v1")
    assert made is not None and "customJobs" in json.dumps(made["resources"])
    assert blocked.read_text() == "" and list(tmp_path.iterdir()) == [blocked]


def test_a_bundled_document_without_a_resource_gpujob_calls_is_used_whole(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(discovery_cut.RESOURCES, ("aiplatform", "v1"),
                        ("projects.locations.customJobs", "projects.locations.noSuchJobs"))
    made = discovery_cut.document("aiplatform", "v1")
    assert made == json.loads(get_static_doc("aiplatform", "v1"))
    assert not discovery_cut.cache_file("aiplatform", "v1").exists()


def test_other_apis_are_read_whole():
    assert discovery_cut.document("storage", "v1") is None
    assert discovery.document("storage", "v1")["schemas"] == json.loads(
        get_static_doc("storage", "v1"))["schemas"]


def test_a_second_submit_reads_the_cut_not_the_bundled_document(
        cli, google, key, config, vertex, clock, fresh, monkeypatch: pytest.MonkeyPatch):
    """The first submit parses Vertex AI's 3 MB document and keeps its cut; the next (a new
    process: nothing parsed) reads the cut only, and the fake, which checks every body against
    the whole document, takes both creates."""
    whole: list[str] = []
    loads = json.loads

    def counting(text, *args, **kwargs):
        value = loads(text, *args, **kwargs)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("gpujob") and isinstance(value, dict) and len(
                value.get("schemas") or ()) > 1000:
            whole.append(value.get("name", "?"))
        return value

    monkeypatch.setattr(json, "loads", counting)
    first = cli("submit", config, "--service", "vertex")
    assert first.code == 0, first.err
    assert whole == ["aiplatform"]
    discovery.document.cache_clear()
    discovery.buildable.cache_clear()
    second = cli("submit", config, "--service", "vertex")
    assert second.code == 0, second.err
    assert whole == ["aiplatform"]
    creates = google.calls("customJobs.create")
    assert len(creates) == 2 and creates[0].path == creates[1].path
    assert google.rejected == []


def test_the_cut_keeps_every_collection_the_vertex_client_asks_for():
    """A collection VertexClient names (``paths.COLLECTIONS``: getattr of it on the service's
    locations) that the cut left out would be missing from the service object: an
    AttributeError at the first call, not a request. So the two lists are one."""
    from gpujob.services.vertex.paths import COLLECTIONS

    assert set(discovery_cut.RESOURCES["aiplatform", "v1"]) == {
        f"projects.locations.{collection}" for collection in COLLECTIONS.values()}
    assert discovery_cut.RESOURCES["serviceusage", "v1beta1"] == (
        "services.consumerQuotaMetrics",)  # gcp/serviceusage.py's one resource
