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


def test_local_packaging_with_a_config_is_refused():
    from gpujob.config.document import Document
    from gpujob.config.gcloud_vertex import VertexFlags, apply_flags

    spec = Document("spec.yaml", {"workerPoolSpecs": [{}]})
    with pytest.raises(UsageError) as caught:
        apply_flags(spec, VertexFlags(("machine-type=n1-standard-4,executor-image-uri=E,"
                                       "local-package-path=app,python-module=trainer.task",)))
    assert caught.value.message == (
        "--worker-pool-spec 1: local-package-path and script are taken in the first "
        "--worker-pool-spec of a job without --config (gpujob builds the package and stages it)")
    assert caught.value.hint == (
        "give every pool with --worker-pool-spec, local-package-path in the first; or stage the "
        "package and name it in pythonPackageSpec.packageUris")
