"""``gpujob.config.gcloud_vertex``: a --worker-pool-spec read and made a pool as gcloud's
ArgDict and ``_ConstructSingleWorkerPoolSpec`` do (issue 32 item 1)."""

from __future__ import annotations

import pytest

from gpujob.config.gcloud_vertex import make_pool, parse_pool_spec
from gpujob.errors import UsageError


def test_a_python_pool_takes_the_package_uris_of_the_command_line():
    spec = parse_pool_spec("machine-type=n1-standard-4,executor-image-uri=EXEC,"
                           "python-module=trainer.task", 1)
    assert make_pool(spec, ["gs://b/a.tar.gz", "gs://b/b.tar.gz"]) == {
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
        "pythonPackageSpec": {"executorImageUri": "EXEC",
                              "packageUris": ["gs://b/a.tar.gz", "gs://b/b.tar.gz"],
                              "pythonModule": "trainer.task"}}


def test_accelerator_count_defaults_to_1_only_with_a_type():
    assert make_pool(parse_pool_spec("machine-type=g2-standard-4,accelerator-type=NVIDIA_L4,"
                                     "container-image-uri=I", 1), None)["machineSpec"] == {
        "machineType": "g2-standard-4", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1}
    assert make_pool(parse_pool_spec("machine-type=n1-standard-4,accelerator-count=2,"
                                     "container-image-uri=I", 1), None)["machineSpec"] == {
        "machineType": "n1-standard-4"}


def test_an_empty_spec_is_an_empty_pool_and_lists_split_on_semicolons():
    assert make_pool(parse_pool_spec("", 2), None) == {}
    assert parse_pool_spec("requirements=numpy;pandas==2.0", 1) == {
        "requirements": ["numpy", "pandas==2.0"]}


def test_local_packaging_is_refused_with_gpujob_s_own_command():
    from gpujob.config.gcloud_vertex import VertexFlags, flag_only

    with pytest.raises(UsageError) as caught:
        flag_only(VertexFlags(("machine-type=n1-standard-4,executor-image-uri=E,"
                               "local-package-path=app,python-module=trainer.task",)))
    assert caught.value.message == (
        "--worker-pool-spec 1: local-package-path/script make gcloud build and push a Docker "
        "image here; gpujob builds a Python package instead, from an AI Platform config's flags")
    assert caught.value.hint == (
        "gpujob submit --package-path app/PACKAGE --module-name trainer.task "
        "--executor-image-uri IMAGE --master-machine-type n1-standard-4 --staging-bucket "
        "gs://BUCKET")
