"""The labels that link the attempts of a recovered job (``vertex.recovery``): the regions
label, which must be a label value (lowercase letters, digits, ``-``, ``_``; at most 63)."""

from __future__ import annotations

from gpujob.services.recovery import Lineage
from gpujob.services.vertex.recovery import (
    attempt_token,
    lineage_of,
    regions_label,
    regions_of,
)


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
    assert lineage_of({"labels": labels}) == Lineage("20261129-0000-1", 2)
    assert lineage_of({"labels": labels}).as_dict() == {"id": "20261129-0000-1", "attempt": 2}
    found = lineage_of({"labels": {**labels, "gpujob-regions": "us-east4"}})
    assert found is not None and found.as_dict() == {
        "id": "20261129-0000-1", "attempt": 2, "regions": ["us-east4"]}


def test_an_attempts_label_is_made_of_its_lineage_and_number_and_fits_a_label_value():
    """The same in every process that follows the lineage; a long lineage is digested."""
    import re

    assert attempt_token("20261129-000000-000001-1a2b3c4d", 2) == \
        "20261129-000000-000001-1a2b3c4d_attempt-2"
    long = attempt_token("a" * 63, 12)
    assert long == attempt_token("a" * 63, 12) != attempt_token("a" * 62, 12)
    assert re.fullmatch(r"[a-z0-9_-]{1,63}", long) and long.endswith("_attempt-12")
