"""What a job costs an hour (issue 21): gpujob's price table, pinned to the public price points,
the job's $/hour by strategy, and what validate, submit --dry-run, convert and gpus show."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gpujob.services.vertex.pricing import cost, prices

ROOT = Path(__file__).resolve().parents[5]


@pytest.fixture(autouse=True)
def _in_the_repository(monkeypatch):
    monkeypatch.chdir(ROOT)  # the commands read configs/ as a user's shell would


def pool(machine: str, gpu: str | None = None, count: int = 0, replicas: int = 1) -> dict:
    spec: dict = {"machineType": machine}
    if gpu:
        spec |= {"acceleratorType": gpu, "acceleratorCount": count}
    return {"machineSpec": spec, "replicaCount": str(replicas)}


def job(*pools: dict, strategy: str | None = None) -> dict:
    spec: dict = {"workerPoolSpecs": list(pools)}
    if strategy:
        spec["scheduling"] = {"strategy": strategy}
    return {"displayName": "j", "jobSpec": spec}


# -- the shipped table, pinned to the public price points ------------------------------------

def test_the_shipped_table_has_its_schema_sources_and_dates():
    folder = ROOT / "gpujob" / "services" / "vertex" / "pricing" / "price-table"
    schema = Draft202012Validator(json.loads((ROOT / "schemas" / "vertex-prices.schema.json")
                                             .read_text()))
    index = json.loads((folder / "index.json").read_text())
    files = index.pop("region_files")
    assert {f"{r}.json" for r in files} | {"index.json"} == {f.name for f in folder.iterdir()}
    regions = {}
    for region, file in files.items():  # each region's file is a table of its own, dated
        part = json.loads((folder / file).read_text())
        assert not list(schema.iter_errors(part)), file
        assert list(part["regions"]) == [region] and part["generated"] == index["generated"]
        used = {e["source"] for s in part["regions"][region].values() for e in s.values()}
        assert used == set(part["sources"]) and all(
            part["sources"][k]["as_of"] and set(part["sources"][k]["refs"]) <=
            set(part["source_key"]) for k in used), file
        regions[region] = part["regions"][region]
    data = {**index, "regions": regions}  # the whole table, as prices.whole reads it
    assert prices.whole(prices.built_in().data) == data
    assert not list(schema.iter_errors(data))
    assert data["currency"] == "USD" and data["generated"]["by"] == "scripts/vertex_prices.py"
    assert data["source_key"]["CYC"]["as_of"] == "2026-07-30"
    assert data["source_key"]["ANY"]["as_of"] == "2026-05-20"
    assert all(v["url"].startswith("https://") for v in data["source_key"].values())
    left_out = {e["what"] for e in data["omitted"]}
    assert "NVIDIA_B200" in left_out and "NVIDIA_H100_80GB" in left_out


def test_n1_standard_4_in_iowa_is_the_price_google_publishes():
    # Vertex AI's custom-training table: n1-standard-4 in us-central1, $0.21849885 an hour,
    # which is 1.15 x Compute Engine's 0.189999; the management fee is the 0.15
    price = prices.load().machine("us-central1", "n1-standard-4")
    assert price.on_demand == pytest.approx(0.21849885, abs=1e-9)
    assert price.management_fee == pytest.approx(0.15 * 0.189999, abs=1e-9)
    assert price.source.as_of == "2026-07-30"


def test_h100_is_the_billed_vertex_sku_and_its_fee():
    # "Vertex AI: Training/Pipelines on NVIDIA H100 80GB" 11.2660332 $/h per GPU and its
    # management fee 1.4694826 (SKUs 3F95-001E-B747, 5853-505F-A5C4): 1.15 and 0.15 x the
    # Compute Engine H100 price 9.796550569 (us-east4 in the snapshot)
    h100 = prices.load().accelerator("us-east4", "NVIDIA_H100_80GB")
    assert h100.on_demand == pytest.approx(11.2660332, rel=1e-6)
    assert h100.management_fee == pytest.approx(1.4694826, rel=1e-6)


def test_a_dws_price_filed_as_on_demand_is_left_out_and_said():
    table = prices.load()
    # the snapshot's H100 row in us-central1 is the DWS price 4.200761: no per-GPU price there
    assert table.accelerator("us-central1", "NVIDIA_H100_80GB") is None
    assert table.accelerator("us-east4", "NVIDIA_H100_80GB") is not None
    est = cost.estimate(job(pool("a4-highgpu-8g", "NVIDIA_B200", 8)), "europe-west4", table)
    assert est.total is None  # the one B200 SKU seen is the Americas one
    assert "no price for a4-highgpu-8g in europe-west4 (the on-demand price of its B200 slices " \
        "there is not known" in "; ".join(est.unknown)


def test_b200_is_priced_from_its_slice_sku_where_it_applies():
    # issue 31 item 6: 'A4 Nvidia B200 (1 gpu slice) running in Americas' $16.11 per GPU-hour
    # (the slice prices the VM); Spot from the snapshot's row (8 x $4.2796), plus the fee
    est = cost.estimate(job(pool("a4-highgpu-8g", "NVIDIA_B200", 8)), "us-central1")
    assert est.hourly["on_demand"] == pytest.approx(1.15 * 8 * 16.11)  # $148.21
    assert est.hourly["spot"] == pytest.approx(34.2368 + 0.15 * 8 * 16.11)  # $53.57
    assert est.hourly["flex_start"] is None  # no DWS price seen for it
    assert "B200-SKU" in est.refs
    cited = {c["ref"]: c for c in prices.load().cite(est.refs)}
    assert cited["B200-SKU"]["as_of"] == "2026-07-07"
    assert "unverified" in cited["B200-SKU"]["title"]


@pytest.mark.parametrize(("region", "flex"), [
    # 1 x H100 DWS $4.200761 + 26 vCPU x $0.010934 + 234 GB x $0.000952 + 750 GB local SSD x
    # $0.0001096, plus the fee (0.15 x Compute Engine on-demand), the bill's SKUs (ZENN-DWS)
    ("us-central1", 4.790013 + 1.659187498),
    ("us-west1", 4.790013 + 1.659187498),  # the same machine prices as us-central1
    ("us-west4", None),  # other machine prices: its DWS SKUs are not known
])
def test_flex_start_of_a3_high_is_priced_from_the_billed_dws_skus(region, flex):
    est = cost.estimate(job(pool("a3-highgpu-1g", "NVIDIA_H100_80GB", 1),
                            strategy="FLEX_START"), region)
    assert est.total == (pytest.approx(flex) if flex is not None else None)


def test_a3_highgpu_8g_is_the_billed_job_on_demand_and_flex_start():
    # one Vertex bill (Aug 2025): a3-highgpu-8g in us-central1 on-demand $101.007352/h and
    # flex-start $51.50/h, boot disk excluded; the table's Compute Engine whole-VM price also
    # holds the bundled local SSD, which that bill did not charge (under 1 %)
    est = cost.estimate(job(pool("a3-highgpu-8g", "NVIDIA_H100_80GB", 8)), "us-central1")
    assert est.hourly["on_demand"] == pytest.approx(101.007352, rel=0.01)
    assert est.hourly["flex_start"] == pytest.approx(51.50, rel=0.01)


# -- the job's $/hour -------------------------------------------------------------------------

def test_every_pool_is_replicas_times_machine_plus_gpus():
    table = prices.load()
    n1 = table.machine("us-central1", "n1-standard-8")
    t4 = table.accelerator("us-central1", "NVIDIA_TESLA_T4")
    est = cost.estimate(job(pool("n1-standard-8", "NVIDIA_TESLA_T4", 2),
                            pool("n1-standard-8", "NVIDIA_TESLA_T4", 2, replicas=3), {}),
                        "us-central1", table)
    assert est.strategy == "on_demand"
    assert est.total == pytest.approx(4 * (n1.on_demand + 2 * t4.on_demand))
    spot = 4 * (n1.spot + n1.management_fee + 2 * (t4.spot + t4.management_fee))
    assert est.hourly["spot"] == pytest.approx(spot)
    assert est.hourly["flex_start"] is None  # no DWS price for them: said, not guessed


def test_the_strategy_chooses_the_figure_and_trials_run_in_parallel():
    body = job(pool("n1-standard-4", "NVIDIA_TESLA_T4", 1), strategy="SPOT")
    spot = cost.estimate(body, "us-central1")
    assert spot.strategy == "spot" and spot.total == spot.hourly["spot"]
    tuning = {"parallelTrialCount": 4, "trialJobSpec": body["jobSpec"]}
    assert cost.estimate(tuning, "us-central1").total == pytest.approx(4 * spot.total)
    two = {"parallelTrialCount": 2, "trialJobSpec": job(pool("n1-standard-4"),
                                                        pool("n1-standard-8", replicas=4))[
        "jobSpec"]}
    assert " in us-central1 (2 parallel trials × (1 × n1-standard-4 + 4 × n1-standard-8)); " \
        in cost.describe(cost.estimate(two, "us-central1"))


def test_an_unknown_machine_or_region_is_said():
    est = cost.estimate(job(pool("n1-standard-4")), "mars-north1")
    assert est.total is None and est.unknown == ("no price for n1-standard-4 in mars-north1",)
    assert cost.describe(est).startswith("on-demand price unknown in mars-north1")


# -- the derivation script ------------------------------------------------------------------

CYC = ("machine_type,region,gpu,gpu_count,vcpus,ram_gb,local_ssd_gb,hour,hour_spot,month,"
       "month_1y,month_3y,month_spot\n"
       "n1-standard-4,us-central1,,0,4,15,0,0.2,0.05,1,1,1,1\n"
       "a2-highgpu-1g,us-central1,a100,1,12,85,0,4.0,5.0,1,1,1,1\n")
ANY = ("InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
       "AvailabilityZone,Price,SpotPrice\n"
       "n1-standard-4,4.0,15.0,,,,us-east1,us-east1-b,0.3,0.1\n"
       ",,,T4,1,{},us-east1,us-east1-b,0.4,0.2\n"
       ",,,T4,2,{},us-east1,us-east1-b,0.8,0.4\n"
       ",,,H100,8,{},us-east4,us-east4-a,80.0,20.0\n"
       ",,,H100,8,{},us-central1,us-central1-a,32.0,40.0\n")


def test_the_script_derives_vertex_prices_and_leaves_out_discounted_rows(tmp_path):
    (tmp_path / "cyc.csv").write_text(CYC)
    (tmp_path / "any.csv").write_text(ANY)
    out = tmp_path / "table.json"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "vertex_prices.py"),
                          str(tmp_path / "cyc.csv"), str(tmp_path / "any.csv"), "-o", str(out),
                          "--generated-at", "2026-11-26T00:00:00Z"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text())
    central = data["regions"]["us-central1"]
    assert central["machine_types"]["n1-standard-4"]["on_demand"] == pytest.approx(0.23)
    assert central["machine_types"]["n1-standard-4"]["management_fee"] == pytest.approx(0.03)
    a2 = central["machine_types"]["a2-highgpu-1g"]
    assert a2["includes_accelerators"] and a2["spot"] is None  # Spot above on-demand: dropped
    assert data["regions"]["us-east1"]["accelerators"]["NVIDIA_TESLA_T4"]["on_demand"] == \
        pytest.approx(0.46)
    assert data["regions"]["us-east1"]["machine_types"]["n1-standard-4"]["spot"] == 0.1
    # 4.0 per GPU in us-central1 is below 0.6 x the 10.0 of us-east4: a DWS price, left out
    assert "NVIDIA_H100_80GB" not in central["accelerators"]
    assert {"what": "NVIDIA_H100_80GB", "regions": ["us-central1"]}.items() <= \
        next(e for e in data["omitted"] if e["what"] == "NVIDIA_H100_80GB").items()


# -- what the commands show -------------------------------------------------------------------

@pytest.mark.default_service
def test_a_dry_run_prints_the_jobs_dollars_an_hour_with_its_date(cli):
    result = cli("submit", "configs/a100-single-node.yaml", "--dry-run")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    assert ("cost: $16.90/hour on-demand in us-central1 (1 × a2-highgpu-4g with 4 × "
            "NVIDIA_TESLA_A100); Spot $9.92/hour, flex-start no price") in lines
    (where,) = [line for line in lines if line.startswith("prices: ")]
    assert where.startswith("prices: Vertex AI list prices in USD as of 2026-07-30 (https://")
    assert where.endswith("not counted: committed-use and negotiated discounts, boot disks and "
                          "other storage, network, taxes")
    assert json.loads(result.out)["jobSpec"]["workerPoolSpecs"][0]["machineSpec"][
        "machineType"] == "a2-highgpu-4g"  # stdout is still the body alone


@pytest.mark.default_service
def test_a_dry_run_over_budget_is_refused(cli):
    result = cli("submit", "configs/a100-single-node.yaml", "--dry-run", "--max-hourly-cost",
                 "10")
    assert result.code == 1
    assert result.out == ""
    assert ("configs/a100-single-node.yaml:12:1: the job costs $16.90/hour on-demand in "
            "us-central1, over --max-hourly-cost $10.00 [cost.budget]\n"
            "  hint: use fewer replicas, fewer GPUs or a smaller machine type, or another "
            "strategy (Spot $9.92/hour; --strategy); or raise --max-hourly-cost "
            "(GPUJOB_MAX_HOURLY_COST)\n") in result.err
    assert "Dry run:" not in result.err


@pytest.mark.default_service
def test_validate_reports_the_cost_and_holds_the_budget_from_the_environment(cli):
    ok = cli("validate", "configs/a100-single-node.yaml", "--format", "json")
    assert ok.code == 0, ok.err
    (report,) = json.loads(ok.out)["files"]
    assert report["cost"]["hourly"] == pytest.approx(16.90, abs=0.01)
    assert report["cost"]["strategy"] == "on_demand"
    assert report["cost"]["prices"]["as_of"] == "2026-07-30"
    assert "network" in report["cost"]["not_counted"][2]
    over = cli("validate", "configs/a100-single-node.yaml", "--format", "json",
               env={"GPUJOB_MAX_HOURLY_COST": "5"})
    assert over.code == 1
    (error,) = json.loads(over.out)["files"][0]["errors"]
    assert error["rule"] == "cost.budget"
    assert error["message"].startswith("the job costs $16.90/hour on-demand")


def test_the_budget_is_for_vertex_jobs(cli):
    # (conftest: GPUJOB_SERVICE=ai-platform)
    result = cli("validate", "configs/a100-single-node.yaml", "--max-hourly-cost", "5")
    assert result.code == 2
    assert result.err.startswith("error: --max-hourly-cost is not supported by the ai-platform "
                                 "service (AI Platform Training): gpujob has no prices for AI "
                                 "Platform;")


@pytest.mark.default_service
def test_an_unpriced_job_under_a_budget_is_refused(cli, write):
    config = write("trainingInput:\n  scaleTier: CUSTOM\n  region: europe-west4\n"
                   "  masterType: a4-highgpu-8g\n  masterConfig:\n"
                   "    imageUri: gcr.io/p/t:1\n"
                   "    acceleratorConfig: {count: 8, type: NVIDIA_B200}\n")
    result = cli("validate", config, "--max-hourly-cost", "1000")
    assert result.code == 1
    assert "the job's cost per hour cannot be told (no price for a4-highgpu-8g in " \
        "europe-west4" in result.out
    assert "[cost.unknown]" in result.out


@pytest.mark.default_service
def test_gpus_shows_each_offerings_dollars_an_hour_in_the_region(cli):
    result = cli("gpus", "--gpu", "t4", "--region", "us-central1", env={"COLUMNS": "120"})
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    head = next(line for line in lines if line.startswith("REGION "))
    assert head.split() == ["REGION", "MACHINE", "TYPE", "GPUS", "ON-DEMAND", "$/HOUR", "SPOT",
                            "$/HOUR", "FLEX-START", "$/HOUR"]
    rows = [line.split() for line in lines if line.startswith("us-central1 ")
            and "n1-standard-4 " in line]
    assert rows == [["us-central1", "n1-standard-4", str(n), "×", "T4", on_demand, spot,
                     "no", "price"]
                    for n, on_demand, spot in ((1, "$0.62", "$0.31"), (2, "$1.02", "$0.53"),
                                               (4, "$1.83", "$0.97"))]
    assert "what one machine with its GPUs costs an hour in each region" in result.out
    data = json.loads(cli("gpus", "--gpu", "t4", "--region", "us-central1", "--format",
                          "json").out)
    assert data["prices"]["region"] == "us-central1"
    first = next(o for o in data["offerings"] if o["machine_type"] == "n1-standard-4")
    assert first["hourly"]["1"]["on_demand"] == pytest.approx(0.62, abs=0.005)


@pytest.mark.default_service
def test_a_malformed_native_config_is_reported_not_a_crash(cli, write):
    config = write("workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4}\n"
                   "    replicaCount: many\n    containerSpec: {imageUri: gcr.io/p/t:1}\n"
                   "scheduling: {strategy: [SPOT]}\n", "spec.yaml")
    result = cli("validate", config, "--max-hourly-cost", "1")
    assert result.code == 1  # the schema's errors, and no traceback (exit 70)
    assert "Traceback" not in result.err


@pytest.mark.default_service
def test_a_native_config_is_priced_in_the_region_submit_gives_it(cli, write):
    spec = write("workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4}\n"
                 "    replicaCount: 1\n    containerSpec: {imageUri: gcr.io/p/t:1}\n",
                 "spec.yaml")
    checked = cli("validate", spec, "--max-hourly-cost", "0.1")
    assert checked.code == 0, checked.out  # no region in the file: nothing to price yet
    assert "cost:" not in checked.err
    sent = cli("submit", spec, "--region", "us-central1", "--dry-run", "--max-hourly-cost",
               "0.1")
    assert sent.code == 1
    assert f"{spec}:1:1: the job costs $0.22/hour on-demand in us-central1, over " \
        "--max-hourly-cost $0.10 [cost.budget]" in sent.err
    assert sent.out == ""


SCALE = """\
trainingInput:
  region: us-central1
  scaleTier: CUSTOM
  masterType: a2-highgpu-8g
  masterConfig:
    acceleratorConfig: {count: 8, type: NVIDIA_TESLA_A100}
    imageUri: us-docker.pkg.dev/proj-a/trainers/trainer:1
  workerCount: WORKERS
  workerType: a2-highgpu-8g
  workerConfig:
    acceleratorConfig: {count: 8, type: NVIDIA_TESLA_A100}
    imageUri: us-docker.pkg.dev/proj-a/trainers/trainer:1
"""


@pytest.mark.default_service
def test_an_absurd_scale_is_a_warning_naming_its_hourly_cost(cli, write):
    config = write(SCALE.replace("WORKERS", "100000"))
    result = cli("validate", config)
    assert result.code == 0  # a warning: the scale may be meant
    assert result.out == (
        f"{config}:1:1: warning: the job asks for 800,008 GPUs on 100,001 machines at once, "
        "at $3,379,548.00/hour on-demand: more than 4,096 GPUs or 1,024 machines, the scale "
        "gpujob asks about [cost.scale]\n"
        "  hint: check the replica counts (workerCount, replicaCount) and GPU counts; if the "
        "scale is meant, --max-hourly-cost USD holds it to a budget\n")
    big = cli("validate", write(SCALE.replace("WORKERS", "511")))  # 4,096 GPUs: not asked about
    assert (big.code, big.out) == (0, "")


def test_the_script_writes_the_table_split_by_region_as_gpujob_ships_it(tmp_path):
    (tmp_path / "cyc.csv").write_text(CYC)
    (tmp_path / "any.csv").write_text(ANY)
    out = tmp_path / "price-table"
    out.mkdir()
    (out / "gone-west9.json").write_text("{}")  # a region the table no longer has
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "vertex_prices.py"),
                          str(tmp_path / "cyc.csv"), str(tmp_path / "any.csv"), "-o", str(out),
                          "--generated-at", "2026-11-26T00:00:00Z"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    index = json.loads((out / "index.json").read_text())
    regions = ("us-central1", "us-east1", "us-east4")
    assert index["region_files"] == {r: f"{r}.json" for r in regions}
    assert {f.name for f in out.iterdir()} == {"index.json", *(f"{r}.json" for r in regions)}
    east = json.loads((out / "us-east1.json").read_text())
    assert east["generated"]["at"] == "2026-11-26T00:00:00Z" and east["sources"]
    assert east["regions"]["us-east1"]["machine_types"]["n1-standard-4"]["spot"] == 0.1
