"""``gpujob gpus --service vertex``: Vertex AI's GPUs, on which machine types, how many, where.

Expected zones and regions are copied from Compute Engine's published GPU regions and zones
(https://cloud.google.com/compute/docs/gpus/gpu-regions-zones, the zone proxy), not from
gpujob's catalog.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpujob import catalog

VERTEX = ("--service", "vertex")
WIDE = {"COLUMNS": "100"}

# gce-gpu-machine-zones.csv, a3-highgpu-1g (a3-highgpu-2g and -4g: the same; -8g: not
# europe-west8-c)
A3_HIGH_REGIONS = ("asia-east1 asia-northeast1 asia-south1 asia-south2 asia-southeast1 "
                   "australia-southeast1 europe-north1 europe-west1 europe-west3 europe-west4 "
                   "europe-west8 europe-west9 us-central1 us-east4 us-east5 us-west1 us-west4")
A3_ULTRA_ZONES = ["asia-south1-b", "asia-south2-c", "europe-west1-b", "europe-west4-a",
                  "us-central1-b", "us-east4-b", "us-east5-a", "us-south1-b", "us-west1-c"]


def report(cli, *args: str, code: int = 0) -> dict:
    result = cli("gpus", *VERTEX, "--format", "json", *args)
    assert result.code == code, result.err
    data = json.loads(result.out)
    assert data["version"] == 1
    assert data["service"] == "vertex"
    return data


def cells(data: dict) -> dict[tuple[str, str], list[int]]:
    return {(o["machine_type"], o["gpu"]): o["counts"] for o in data["offerings"]}


def test_with_no_filter_a_table_of_the_gpu_types(cli):
    result = cli("gpus", *VERTEX, env=WIDE)
    assert result.code == 0
    assert result.err.startswith("catalog: zones and prebuilt images as of ")  # their age
    assert result.err.count("\n") == 1
    lines = result.out.splitlines()
    assert lines[0].split() == ["GPU", "API", "NAME", "COUNT", "MACHINE", "TYPES"]
    rows = {line[:14].strip(): line[14:].split() for line in lines[1:] if line[:14].strip()}
    assert rows["K80 *"] == ["NVIDIA_TESLA_K80", "-", "none:", "retired"]
    assert rows["P100 *"][:4] == ["NVIDIA_TESLA_P100", "1,", "2,", "4"]
    assert "(12 n1 machine types)" in " ".join(rows["P100 *"])
    assert "(17 n1 machine types)" in " ".join(rows["T4"])
    assert rows["H100"] == ["NVIDIA_H100_80GB", "1,", "2,", "4,", "8", "a3-highgpu-1g",
                            "a3-highgpu-2g", "a3-highgpu-4g"]
    assert rows["H100 Mega"] == ["NVIDIA_H100_MEGA_80GB", "8", "a3-megagpu-8g"]
    assert rows["GB200"] == ["NVIDIA_GB200", "4", "a4x-highgpu-4g"]
    assert rows["RTX PRO 6000"][0] == "NVIDIA_RTX_PRO_6000"
    # the A100's two families, one row each
    a100 = lines.index(next(line for line in lines if line.startswith("A100 ")))
    assert lines[a100 + 2].split() == ["16", "a2-megagpu-16g"]
    assert ("* P100: end of support on 2026-09-15; after it, gpujob suggests T4 "
            "(NVIDIA_TESLA_T4)") in result.out
    assert "* K80: retired: K80 GPUs reached end of support" in result.out
    assert "TPUs are machine types of their own: cloud-tpu, ct5lp-hightpu-1t," in result.out


def test_h100_lists_the_a3_machine_types_with_counts_and_regions(cli):
    result = cli("gpus", *VERTEX, "--gpu", "h100", env=WIDE)
    assert result.code == 0
    assert result.out == (
        "GPU   COUNT  MACHINE TYPES  REGIONS\n"
        "H100  1      a3-highgpu-1g  asia-east1 asia-northeast1 asia-south1 asia-south2 "
        "asia-southeast1\n"
        "                            australia-southeast1 europe-north1 europe-west1 "
        "europe-west3\n"
        "                            europe-west4 europe-west8 europe-west9 us-central1 "
        "us-east4 us-east5\n"
        "                            us-west1 us-west4\n"
        "      2      a3-highgpu-2g  as above\n"
        "      4      a3-highgpu-4g  as above\n"
        "      8      a3-highgpu-8g  as above, without europe-west8\n"
        "\n"
        "REGIONS: where Compute Engine lists the machine type or GPU (the catalog's zone proxy, "
        "read on\n"
        "  2026-11-23): a proxy for where Vertex AI offers it, not its own list, and no promise "
        "of quota or\n"
        "  capacity.\n"
        "Configs name a GPU by its API name (NVIDIA_H100_80GB); a3-high machine types come with "
        "their GPUs,\n"
        "  and a job states exactly those (acceleratorType and acceleratorCount).\n"
        "Also: H100 Mega (NVIDIA_H100_MEGA_80GB) on a3-megagpu-8g.\n"
        "$/hour in every region that has it, cheapest first: add --count N (or --region "
        "R[,R…] or all).\n")


def test_h100_as_json_has_each_machine_type_its_count_and_zones(cli):
    data = report(cli, "--gpu", "h100")
    assert data["filters"] == {"gpu": "NVIDIA_H100_80GB"}
    assert cells(data) == {("a3-highgpu-1g", "NVIDIA_H100_80GB"): [1],
                           ("a3-highgpu-2g", "NVIDIA_H100_80GB"): [2],
                           ("a3-highgpu-4g", "NVIDIA_H100_80GB"): [4],
                           ("a3-highgpu-8g", "NVIDIA_H100_80GB"): [8]}
    regions = {o["machine_type"]: list(o["regions"]) for o in data["offerings"]}
    assert " ".join(sorted(regions["a3-highgpu-1g"])) == A3_HIGH_REGIONS
    assert set(regions["a3-highgpu-1g"]) - set(regions["a3-highgpu-8g"]) == {"europe-west8"}
    assert all(o["built_in"] and o["family"] == "a3-high" for o in data["offerings"])
    assert data["gpus"] == [{"gpu": "NVIDIA_H100_80GB", "name": "H100", "retired": None,
                             "end_of_support": None, "replacement": None,
                             "machine_types": ["a3-highgpu-1g", "a3-highgpu-2g",
                                               "a3-highgpu-4g", "a3-highgpu-8g"]}]
    assert data["availability"]["proxy"] is True
    assert data["availability"]["as_of"] == "2026-11-23"
    assert "Compute Engine" in data["availability"]["note"]


def test_an_offering_record_in_full(cli):
    (offer,) = report(cli, "--gpu", "H200")["offerings"]
    assert offer == {"gpu": "NVIDIA_H200_141GB", "name": "H200",
                     "machine_type": "a3-ultragpu-8g", "family": "a3-ultra", "counts": [8],
                     "built_in": True, "zones": A3_ULTRA_ZONES,
                     "regions": {z.rsplit("-", 1)[0]: [z] for z in A3_ULTRA_ZONES}}


def test_l4_lists_the_g2_types_by_count(cli):
    result = cli("gpus", *VERTEX, "--gpu", "l4", env=WIDE)
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[1].split()[:5] == ["L4", "1", "g2-standard-4", "g2-standard-8",
                                    "g2-standard-12"]
    counted = [line.split()[:2] for line in lines[2:] if line[:12].strip()]  # a COUNT cell
    assert counted[:3] == [["2", "g2-standard-24"], ["4", "g2-standard-48"],
                           ["8", "g2-standard-96"]]
    data = report(cli, "--gpu", "l4")
    assert cells(data) == {
        **{(f"g2-standard-{n}", "NVIDIA_L4"): [1] for n in (4, 8, 12, 16, 32)},
        ("g2-standard-24", "NVIDIA_L4"): [2], ("g2-standard-48", "NVIDIA_L4"): [4],
        ("g2-standard-96", "NVIDIA_L4"): [8]}
    assert "g2 machine types come with their GPUs" in result.out


@pytest.mark.parametrize("name", ["h100", "H100", "NVIDIA_H100_80GB", "nvidia-h100-80gb"])
def test_gpu_filter_takes_every_spelling(cli, name):
    assert {o["gpu"] for o in report(cli, "--gpu", name)["offerings"]} == {"NVIDIA_H100_80GB"}


def test_gpu_filter_takes_the_catalogs_aliases(cli):
    """issue 32 item 4: the names of the catalog's aliases (a GKE node label, an old API name,
    a name with its memory) filter like the type's own, as they lead a refused config's hint."""
    result = cli("gpus", *VERTEX, "--gpu", "nvidia-tesla-l4", env=WIDE)
    assert result.code == 0, result.err
    assert result.out.splitlines()[1].split()[:3] == ["L4", "1", "g2-standard-4"]
    assert "Configs name a GPU by its API name (NVIDIA_L4)" in result.out
    result = cli("gpus", *VERTEX, "--gpu", "H100-80GB", env=WIDE)
    assert result.code == 0, result.err
    assert result.out.splitlines()[1].split()[:3] == ["H100", "1", "a3-highgpu-1g"]
    assert {o["gpu"] for o in report(cli, "--gpu", "H100-80GB")["offerings"]} \
        == {"NVIDIA_H100_80GB"}


@pytest.mark.parametrize("name", ["h100-mega", "H100 Mega", "NVIDIA_H100_MEGA_80GB"])
def test_a_name_of_two_words(cli, name):
    assert cells(report(cli, "--gpu", name)) == {("a3-megagpu-8g", "NVIDIA_H100_MEGA_80GB"): [8]}


def test_region_narrows_to_its_zones(cli):
    data = report(cli, "--gpu", "t4", "--region", "europe-west4")
    assert {o["machine_type"] for o in data["offerings"]} == set(
        catalog.load("vertex").machines_for("NVIDIA_TESLA_T4"))
    assert {tuple(o["zones"]) for o in data["offerings"]} == {
        ("europe-west4-a", "europe-west4-b", "europe-west4-c")}
    table = cli("gpus", *VERTEX, "--gpu", "t4", "--region", "europe-west4", env=WIDE).out
    assert table.splitlines()[0].split()[-1] == "ZONES"
    assert "europe-west4-a europe-west4-b" in table.splitlines()[1]


def test_region_and_count(cli):
    data = report(cli, "--gpu", "h100", "--region", "europe-west8", "--count", "4")
    assert cells(data) == {("a3-highgpu-4g", "NVIDIA_H100_80GB"): [4]}
    assert data["offerings"][0]["zones"] == ["europe-west8-c"]


def test_zone_filter(cli):
    data = report(cli, "--zone", "us-central1-b", "--gpu", "b200")
    assert cells(data) == {("a4-highgpu-8g", "NVIDIA_B200"): [8]}
    assert data["offerings"][0]["zones"] == ["us-central1-b"]


def test_machine_type_filter(cli):
    data = report(cli, "--machine-type", "n1-standard-64")
    assert cells(data) == {("n1-standard-64", "NVIDIA_TESLA_V100"): [8],
                           ("n1-standard-64", "NVIDIA_TESLA_P4"): [4],
                           ("n1-standard-64", "NVIDIA_TESLA_T4"): [4]}


def test_machine_types_without_zone_data_say_so(cli):
    result = cli("gpus", *VERTEX, "--gpu", "gb200", env=WIDE)
    assert result.code == 0
    assert result.out.splitlines()[1].split() == ["GB200", "4", "a4x-highgpu-4g", "no", "data"]
    assert "no data: the zone proxy has no rows for a4x-highgpu-4g" in result.out
    (offer,) = report(cli, "--gpu", "gb200")["offerings"]
    assert offer["zones"] is None and offer["regions"] is None


def test_a_region_leaves_out_what_the_proxy_has_no_data_for_and_says_so(cli):
    result = cli("gpus", *VERTEX, "--region", "us-central1", env=WIDE)
    assert result.code == 0
    assert "a4x-highgpu-4g" not in result.out.split("Not shown")[0]
    assert ("Not shown, as the zone proxy has no data for them: GB200 on a4x-highgpu-4g; "
            "RTX PRO 6000 on g4-standard-48") in " ".join(result.out.split())
    result = cli("gpus", *VERTEX, "--gpu", "gb200", "--region", "us-central1")
    assert result.code == 1
    assert "the zone proxy has no data for GB200 on a4x-highgpu-4g" in result.err
    assert "without --region: GB200 × 4 on a4x-highgpu-4g (no zone data)" in result.err


def test_nothing_matches_exit_1_with_the_reasons_and_alternatives(cli):
    result = cli("gpus", *VERTEX, "--gpu", "h100", "--machine-type", "a3-highgpu-2g",
                 "--count", "8")
    assert result.code == 1
    assert result.out == ""
    assert result.err.splitlines()[:2] == [
        "no GPU offering matches --gpu NVIDIA_H100_80GB --machine-type a3-highgpu-2g --count 8",
        "  a3-highgpu-2g takes 2 × NVIDIA_H100_80GB, not 8"]
    assert "  without --count: H100 × 2 on a3-highgpu-2g in asia-east1," in result.err
    assert "  without --machine-type: H100 × 8 on a3-highgpu-8g in" in result.err


@pytest.mark.parametrize("args, reason", [
    (["--gpu", "l4", "--machine-type", "n1-standard-8"],
     "n1-standard-8 does not take NVIDIA_L4 (machine types that do: g2-standard-4,"),
    (["--machine-type", "e2-standard-4"], "e2-standard-4 takes no GPUs"),
    (["--gpu", "h100-mega", "--count", "4"], "H100 Mega GPUs come 8 per machine"),
    (["--gpu", "a100", "--region", "europe-west1"],
     "the zone proxy lists no A100 in europe-west1 (regions with it: asia-northeast1,"),
    (["--region", "africa-south1"], "the zone proxy lists no GPUs in africa-south1"),
    (["--gpu", "k80"], "K80 is retired: K80 GPUs reached end of support"),
])
def test_why_nothing_matches(cli, args, reason):
    result = cli("gpus", *VERTEX, *args)
    assert result.code == 1
    assert f"\n  {reason}" in result.err


def test_a_retired_gpu_names_its_successor(cli):
    result = cli("gpus", *VERTEX, "--gpu", "nvidia-tesla-k80")
    assert result.err.splitlines()[1].endswith("; use T4 (NVIDIA_TESLA_T4)")


def test_json_of_nothing_is_still_json(cli):
    data = report(cli, "--region", "africa-south1", code=1)
    assert data["offerings"] == [] and data["gpus"] == []
    assert data["filters"] == {"region": "africa-south1"}


def test_json_with_no_filter_has_every_gpu_type_the_retired_too(cli):
    data = report(cli)
    assert [g["name"] for g in data["gpus"]] == [
        "K80", "P100", "V100", "P4", "T4", "A100", "A100 80GB", "L4", "H100", "H100 Mega",
        "H200", "B200", "GB200", "RTX PRO 6000"]
    k80, p100 = data["gpus"][:2]
    assert k80["retired"] and k80["machine_types"] == []
    assert (p100["end_of_support"], p100["replacement"]) == ("2026-09-15", "NVIDIA_TESLA_T4")


@pytest.mark.parametrize("args, message, hint", [
    (["--gpu", "h1000"], "no GPU type 'h1000'", "did you mean 'H100'?"),
    (["--gpu", "tpu-v3"], "no GPU type 'tpu-v3'", "TPU v3 is a TPU; GPU types: K80, P100,"),
    (["--machine-type", "a3-higpu-8g"], "no machine type 'a3-higpu-8g' in the Vertex catalog",
     "did you mean 'a3-highgpu-8g'?"),
    (["--machine-type", "complex_model_m_gpu"],
     "complex_model_m_gpu is an AI Platform machine type, not one of Vertex AI's",
     "gpujob sends it to Vertex as n1-standard-16 with 4 × NVIDIA_TESLA_T4: --machine-type "
     "n1-standard-16"),
    (["--region", "us-central"], "no region 'us-central' in the Vertex catalog",
     "did you mean 'us-central1'?"),
    (["--region", "asia-southeast3"], "asia-southeast3 is not a Vertex AI training region",
     "it has an aiplatform endpoint, but gcloud's list of training regions does not name it"),
    (["--zone", "us-central1-z"], "no zone 'us-central1-z' in the Vertex catalog",
     "did you mean"),
    (["--region", "us-west1", "--zone", "us-east1-b"],
     "zone us-east1-b is not in region us-west1", None),
])
def test_unknown_names_are_misses_with_a_hint(cli, args, message, hint):
    result = cli("gpus", *VERTEX, *args)
    assert result.code == 1
    assert result.out == ""
    assert result.err.splitlines()[0] == f"error: {message}"
    if hint:
        assert result.err.splitlines()[1].startswith(f"  hint: {hint}")


def test_the_service_from_the_environment(cli):
    named = cli("gpus", *VERTEX, "--gpu", "l4")
    from_env = cli("gpus", "--gpu", "l4", env={"GPUJOB_SERVICE": "vertex"})
    assert from_env.code == 0 and from_env.out == named.out


def test_export_catalog_prints_the_vertex_catalog(cli):
    result = cli("gpus", *VERTEX, "--export-catalog")
    assert result.code == 0
    assert result.out == catalog.data_file("vertex").read_text(encoding="utf-8")


def test_a_catalog_file_answers(cli, tmp_path):
    data = json.loads(catalog.data_file("vertex").read_text(encoding="utf-8"))
    data["machine_types"]["types"]["a3-highgpu-8g"]["accelerators"]["NVIDIA_H100_80GB"] = [8, 16]
    data["zones"]["source"]["as_of"] = "2027-01-02"
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    got = report(cli, "--catalog", path, "--gpu", "h100", "--count", "16")
    assert cells(got) == {("a3-highgpu-8g", "NVIDIA_H100_80GB"): [16]}
    assert got["catalog"]["path"] == str(path)
    table = cli("gpus", *VERTEX, "--catalog", path, "--gpu", "h100").out
    assert "read on 2027-01-02" in " ".join(table.split())
    assert cli("gpus", *VERTEX, "--catalog", path, "--export-catalog").out == path.read_text()


def test_a_catalog_that_is_not_a_vertex_one_is_a_usage_error(cli):
    from gpujob.catalog import data_file

    result = cli("gpus", *VERTEX, "--catalog", data_file("ai-platform"))
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith(f"error: --catalog {data_file('ai-platform')} ")


def test_browsing_vertex_imports_no_google_library():
    probe = ("import sys; from gpujob.cli import main; "
             "code = main(['gpus', '--service', 'vertex', '--gpu', 'h100', '--format', 'json']); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('googleapiclient', 'google', 'httplib2', 'google_auth_httplib2', 'requests')); "
             "print(code, heavy, file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUJOB_")}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            env=env, timeout=60, cwd=Path(__file__).parents[2])
    assert result.stderr.splitlines()[-1] == "0 []"
