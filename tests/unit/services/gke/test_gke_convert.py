"""``gpujob convert --to gke``: the JobSet a submit would create, written to a file that
``kubectl apply -f`` takes (issue 23)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[4]
T4 = str(ROOT / "configs" / "t4-compute-engine.yaml")


def test_the_t4_cluster_is_written_as_the_jobset_submit_would_send(cli, tmp_path):
    out = tmp_path / "t4.jobset.yaml"
    result = cli("convert", T4, "--to", "gke", "-o", str(out), "--", "--epochs", "2")
    assert result.code == 0, result.err
    assert f"Wrote {out}" in result.err
    jobset = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert (jobset["apiVersion"], jobset["kind"]) == ("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert jobset["metadata"]["name"] == "t4-compute-engine"  # the file's name, as on Vertex
    jobs = {j["name"]: j for j in jobset["spec"]["replicatedJobs"]}
    assert jobs["worker"]["replicas"] == 9
    pod = jobs["worker"]["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-tesla-t4"
    container = pod["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "4"  # a quantity
    assert container["args"][:2] == ["--epochs", "2"]


def test_a_config_gke_refuses_writes_nothing(cli, write, tmp_path):
    config = write(Path(T4).read_text(encoding="utf-8").replace(
        "type: NVIDIA_TESLA_T4", "type: NVIDIA_TESLA_K80", 1))
    out = tmp_path / "out.yaml"
    result = cli("convert", config, "--to", "gke", "-o", str(out))
    assert result.code == 1
    assert "nothing was written" in result.err
    assert not out.exists()


def test_ai_platform_is_not_offered_as_a_form_to_convert_to(cli):
    """convert reads AI Platform configs: --to offers the forms it writes, and no other."""
    assert "--to [gke|vertex]" in cli("convert", "--help").out
    result = cli("convert", T4, "--to", "ai-platform")
    assert result.code == 2
    assert "--to [gke|vertex]" in cli("convert", "--help").out
    result = cli("convert", T4, "--to", "ai-platform")
    assert result.code == 2
    assert result.err.startswith("error: gpujob convert --to ai-platform: the ai-platform service "
                                 "(AI Platform Training) lacks the capability 'convert'")
    assert "AI Platform config is in AI Platform's form already" in result.err


def test_the_namespace_and_queue_flags_reach_the_written_jobset(cli):
    result = cli("convert", T4, "--to", "gke", "--namespace", "team-a", "--queue", "gpus")
    assert result.code == 0, result.err
    jobset = yaml.safe_load(result.out)
    assert jobset["metadata"]["namespace"] == "team-a"
    assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "gpus"
    assert "in namespace team-a: kubectl apply -f FILE creates it" in result.err
