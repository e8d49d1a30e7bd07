"""Shell completion: ``gpujob completion SHELL`` prints click's script, and ``gpujob`` answers
click's completion protocol with the catalog's GPU types, machine types, regions and zones.

The protocol is asked of gpujob's ``main`` in this process, as the console script calls it; the
real console script, in a subprocess as a shell starts it on TAB, is run where the process is the
point: loaded into bash, on a fresh start (no warning), and importing no Google library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpujob.cli import main

GPUJOB = Path(sys.executable).with_name("gpujob")
GPUS = ["k80", "p4", "p100", "t4", "v100", "a100"]


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The console script, in a process of its own."""
    return subprocess.run([str(GPUJOB), *args], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=60)


def protocol_env(shell: str, line: str) -> dict[str, str]:
    """The variables ``shell`` sets to ask for the completion of ``line`` (the last word, maybe
    empty, is the one being completed), as click's script for that shell sets them."""
    words = line.split(" ")
    cword = words[-1] if shell == "fish" else str(len(words) - 1)
    return {"_GPUJOB_COMPLETE": f"{shell}_complete", "COMP_WORDS": line, "COMP_CWORD": cword}


@pytest.fixture
def answer(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """``gpujob``'s main with ``env`` set, as the console script runs it: click answers a
    completion variable and exits; returns (exit code, stdout, stderr)."""

    def ask(env: dict[str, str], *args: str) -> tuple[int | str | None, str, str]:
        with monkeypatch.context() as patch:
            for name, value in env.items():
                patch.setenv(name, value)
            capsys.readouterr()
            with pytest.raises(SystemExit) as exited:
                main(list(args))
        out, err = capsys.readouterr()
        return exited.value.code, out, err

    return ask


@pytest.fixture
def protocol(answer):
    """What ``gpujob`` answers when ``shell`` asks to complete ``line``."""

    def ask(shell: str, line: str, env: dict[str, str] | None = None) -> str:
        code, out, err = answer({**protocol_env(shell, line), **(env or {})})
        assert code == 0, err
        assert err == ""
        return out

    return ask


def bash_candidates(out: str) -> list[str]:
    """The candidates in gpujob's answer to bash."""
    items = [item for item in out.splitlines() if item]
    assert all(item.startswith("plain,") for item in items), items
    return [item[len("plain,"):] for item in items]


@pytest.fixture
def complete(protocol):
    """The candidates bash is given for ``line``."""

    def ask(line: str, env: dict[str, str] | None = None) -> list[str]:
        return bash_candidates(protocol("bash", line, env))

    return ask


# -- the script -------------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_is_clicks_own(cli, answer, shell):
    printed = cli("completion", shell)
    assert printed.code == 0, printed.err
    code, clicks, _ = answer({"_GPUJOB_COMPLETE": f"{shell}_source"})
    assert code == 0
    # the same script; click 8.1 and 8.2 end their own output with one more blank line
    assert printed.out.rstrip("\n") == clicks.rstrip("\n")
    assert printed.out.endswith("\n")
    assert f"_GPUJOB_COMPLETE={shell}_complete" in printed.out


def test_an_unknown_shell_is_a_usage_error(cli):
    result = cli("completion", "tcsh")
    assert result.code == 2
    assert result.out == ""
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'" in result.err


def test_bash_completes_through_the_script():
    """The script, loaded into a real bash (the project's CI runs in bash), fills COMPREPLY by
    asking gpujob."""
    script = ('eval "$(gpujob completion bash)"; complete -p gpujob; '
              'COMP_WORDS=(gpujob gpus --region us-central1 --zone ""); COMP_CWORD=5; '
              '_gpujob_completion gpujob; printf "%s\\n" "${COMPREPLY[@]}"')
    env = {**os.environ, "PATH": f"{GPUJOB.parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "complete -o nosort -F _gpujob_completion gpujob",
        "us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"]


# -- commands and choices -------------------------------------------------------------------


def test_commands_and_their_choices(complete):
    assert complete("gpujob s") == ["schema", "submit"]
    assert complete("gpujob completion ") == ["bash", "zsh", "fish"]
    assert complete("gpujob schema ") == ["job", "ai-platform-catalog", "vertex-catalog",
                                          "vertex-prices", "gke-catalog",
                                          "vertex-custom-job-spec", "vertex-custom-job",
                                          "vertex-tuning-job", "catalog"]


# -- from the catalog ---------------------------------------------------------------------


def test_a_tab_says_nothing_of_an_old_catalog():
    # every TAB is a new process: a warning there would be printed into the command line
    result = run({**protocol_env("bash", "gpujob gpus --service vertex --gpu "),
                  "GPUJOB_CATALOG_MAX_AGE_DAYS": "0"})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "t4" in bash_candidates(result.stdout)


def test_gpu_types_spelled_as_the_user_started(complete):
    assert complete("gpujob gpus --gpu ") == GPUS
    assert complete("gpujob gpus --gpu p") == ["p4", "p100"]
    assert complete("gpujob gpus --gpu V") == ["V100"]
    assert complete("gpujob gpus --gpu nvidia-tesla-") == [f"nvidia-tesla-{g}" for g in GPUS]
    assert complete("gpujob gpus --gpu NVIDIA_TESLA_T") == ["NVIDIA_TESLA_T4"]


@pytest.mark.parametrize("command, flag", [
    ("gpujob gpus", "--machine-type"), ("gpujob submit c.yaml", "--master-machine-type"),
    ("gpujob local c.yaml", "--worker-machine-type"),
    ("gpujob submit c.yaml", "--parameter-server-machine-type"),
    ("gpujob submit c.yaml", "--evaluator-machine-type")])
def test_machine_types(complete, command, flag):
    assert complete(f"{command} {flag} n1-highcpu-") == [
        "n1-highcpu-16", "n1-highcpu-32", "n1-highcpu-64", "n1-highcpu-96"]
    assert complete(f"{command} {flag} complex_model_m") == [
        "complex_model_m", "complex_model_m_gpu", "complex_model_m_p100", "complex_model_m_v100"]


@pytest.mark.parametrize("command", ["gpujob gpus", "gpujob submit c.yaml", "gpujob local c.yaml"])
def test_regions(complete, command):
    assert sorted(complete(f"{command} --region europe-west")) == [
        "europe-west1", "europe-west2", "europe-west3", "europe-west4", "europe-west6"]
    assert len(complete(f"{command} --region ")) == 22


def test_zones_of_the_region_given(complete):
    assert complete("gpujob gpus --region us-east1 --zone ") == [
        "us-east1-b", "us-east1-c", "us-east1-d"]
    assert complete("gpujob gpus --zone asia-northeast") == [
        "asia-northeast1-a", "asia-northeast1-c", "asia-northeast3-b", "asia-northeast3-c"]


def test_accelerators_for_the_machine_type_given(complete):
    """n1-standard-96 takes 4 P4s, 4 T4s or 8 V100s (the seed's table), nothing else."""
    line = "gpujob submit c.yaml --master-machine-type n1-standard-96 --master-accelerator "
    assert complete(line) == ["count=4,type=nvidia-tesla-p4", "count=4,type=nvidia-tesla-t4",
                              "count=8,type=nvidia-tesla-v100"]
    assert complete(line + "count=8,") == ["count=8,type=nvidia-tesla-v100"]
    assert complete(line + "type=nvidia-tesla-t") == ["type=nvidia-tesla-t4,count=4"]
    assert complete(line + "count=4,type=NVIDIA") == ["count=4,type=NVIDIA_TESLA_P4",
                                                      "count=4,type=NVIDIA_TESLA_T4"]


def test_accelerators_of_each_replica_follow_its_own_machine_type(complete):
    line = ("gpujob submit c.yaml --master-machine-type standard_gpu --worker-machine-type "
            "cloud_tpu --parameter-server-machine-type n1-highcpu-16 ")
    assert complete(line + "--master-accelerator ") == []  # legacy types have GPUs built in
    assert complete(line + "--worker-accelerator ") == ["count=8,type=tpu-v2",
                                                        "count=8,type=tpu-v3"]
    assert complete(line + "--parameter-server-accelerator count=1,") == [
        "count=1,type=nvidia-tesla-p4", "count=1,type=nvidia-tesla-p100",
        "count=1,type=nvidia-tesla-t4"]
    # without a machine type: every accelerator in every count it comes in
    assert "count=16,type=nvidia-tesla-a100" in complete(line + "--evaluator-accelerator ")


@pytest.fixture
def small_catalog(cli, tmp_path: Path) -> str:
    """The built-in catalog without europe-west4."""
    data = json.loads(cli("gpus", "--export-catalog").out)
    del data["regions"]["regions"]["europe-west4"]
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_the_built_in_catalog_has_europe_west4(complete):
    assert "europe-west4" in complete("gpujob submit c.yaml --region europe-west")


@pytest.mark.parametrize("line, env", [
    ("gpujob submit c.yaml --catalog {cat} --region europe-west", {}),
    ("gpujob gpus --service ai-platform --catalog {cat} --region europe-west", {}),
    ("gpujob local c.yaml --region europe-west", {"GPUJOB_CATALOG": "{cat}"}),
])
def test_the_catalog_given_on_the_command_line_or_in_the_environment_is_used(
        complete, small_catalog, line, env):
    line = line.format(cat=small_catalog)
    env = {key: value.format(cat=small_catalog) for key, value in env.items()}
    assert complete(line, env) == ["europe-west1", "europe-west2", "europe-west3",
                                   "europe-west6"]


def test_a_catalog_that_cannot_be_read_offers_nothing_and_says_nothing(complete, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 1}', encoding="utf-8")
    assert complete(f"gpujob gpus --catalog {bad} --gpu ") == []


def test_a_vertex_catalog_offers_its_own_names():
    """Once --service vertex loads the Vertex catalog (the catalog rework), its names are
    offered: Vertex's machine types, and the AI Platform ones a config may still name."""
    from gpujob import services
    from gpujob.catalog import load

    offer = services.get("vertex").completions(load("vertex"))
    l4 = next(a for a in offer.accelerators if a.api_name == "NVIDIA_L4")
    assert (l4.gcloud_name, l4.counts) == ("nvidia-l4", (1, 2, 4, 8))
    assert offer.counts("g2-standard-4", "NVIDIA_L4") == (1,)
    assert offer.machine_types["standard_gpu"] == "AI Platform, as n1-standard-8"
    assert {"africa-south1", "us-central1"} <= set(offer.regions)
    assert "us-central1-a" in offer.zones


# -- other shells get the help texts ---------------------------------------------------------


def test_zsh_and_fish_get_a_description_of_each_candidate(protocol):
    zsh = protocol("zsh", "gpujob gpus --machine-type n1-standard-3").splitlines()
    assert zsh == ["plain", "n1-standard-32", "32 vCPUs, 120 GB"]
    fish = protocol("fish", "gpujob gpus --region us-west").splitlines()
    assert fish[:2] == ["plain,us-west1\tA100, K80, P100, T4, V100", "plain,us-west2\tP4, T4"]


# -- fast: no Google library on a TAB -----------------------------------------------------------


def test_completion_imports_no_google_library():
    probe = ("import sys\nfrom gpujob.cli import main\ntry:\n    main()\nfinally:\n"
             "    print(sorted(m for m in sys.modules if m.split('.')[0] in ('googleapiclient', "
             "'google', 'httplib2', 'google_auth_httplib2', 'requests')), file=sys.stderr)\n")
    line = "gpujob submit c.yaml --master-machine-type n1-standard-8 --master-accelerator "
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "_GPUJOB_COMPLETE": "bash_complete", "COMP_WORDS": line,
             "COMP_CWORD": "6"}, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "plain,count=1,type=nvidia-tesla-t4" in result.stdout.splitlines()
    assert result.stderr == "[]\n"


def test_config_files_are_completed_by_the_shell(protocol):
    """CONFIG (or JOB) and --config: the shell completes file names."""
    assert protocol("bash", "gpujob submit con") == "file,con\n"
    assert protocol("bash", "gpujob submit training j1 --config con") == "file,con\n"
    assert protocol("bash", "gpujob local ") == "file,\n"


# -- every candidate is a value the flag takes ------------------------------------------------


@pytest.mark.parametrize("service", ["vertex", "ai-platform"])
@pytest.mark.parametrize("flag", ["--gpu", "--machine-type", "--region", "--zone"])
def test_every_candidate_is_one_word_that_gpus_accepts(complete, cli, service, flag):
    """The shell inserts a candidate as it is: a display name with a space (``A100 80GB``)
    became two words, and Vertex's --machine-type offered AI Platform names that `gpujob gpus`
    refuses. Each candidate, passed back, is taken (exit 0, or 1 with nothing matching)."""
    candidates = complete(f"gpujob gpus --service {service} {flag} ")
    assert candidates
    for value in candidates:
        assert value.split() == [value], value
        result = cli("gpus", "--service", service, flag, value)
        assert result.code == 0 or (result.code == 1 and result.err.startswith(
            f"no GPU offering matches {flag} {value}\n")), (value, result.err)


def test_gpu_names_with_spaces_are_offered_hyphenated(complete):
    assert complete("gpujob gpus --service vertex --gpu a100") == ["a100", "a100-80gb"]
    assert complete("gpujob gpus --service vertex --gpu RTX") == ["RTX-PRO-6000"]
    assert complete("gpujob gpus --service vertex --gpu h100-") == ["h100-mega"]


def test_job_flags_still_offer_the_ai_platform_machine_types_vertex_translates(complete):
    assert "standard_gpu" in complete(
        "gpujob submit c.yaml --service vertex --master-machine-type standard_")
    assert "standard_gpu" not in complete("gpujob gpus --service vertex --machine-type standard_")
