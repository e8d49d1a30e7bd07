"""The labels that link the attempts of a recovered job (``vertex.recovery``): the regions
label, which must be a label value (lowercase letters, digits, ``-``, ``_``; at most 63)."""

from __future__ import annotations

from gpujob.services.vertex.recovery import lineage_of, regions_label, regions_of


def test_the_regions_of_a_plan_make_one_label_value_read_back_in_order():
    value = regions_label(["us-central1", "europe-west4", "us-central1"])
    assert value == "us-central1_europe-west4"
    assert regions_of({"gpujob-regions": value}) == ["us-central1", "europe-west4"]


def test_regions_too_many_for_a_label_value_make_no_label():
    regions = ["us-central1", "us-east4", "us-west1", "europe-west4", "asia-east1",
               "us-south1", "me-west1"]
    assert len("_".join(regions)) > 63
    assert regions_label(regions) is None


def test_a_label_that_names_no_regions_reads_as_none():
    assert regions_of({"gpujob-regions": "Not A Region_"}) == []
    assert regions_of({}) == []


def test_the_lineage_carries_the_regions_only_when_the_label_names_some():
    labels = {"gpujob-lineage": "20261129-0000-1", "gpujob-attempt": "2"}
    assert lineage_of({"labels": labels}) == {"id": "20261129-0000-1", "attempt": 2}
    assert lineage_of({"labels": {**labels, "gpujob-regions": "us-east4"}}) == {
        "id": "20261129-0000-1", "attempt": 2, "regions": ["us-east4"]}
