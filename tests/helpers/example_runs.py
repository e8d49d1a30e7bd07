"""The runs of the PyTorch example that the docs' pages show: each is run by one test, which
checks the page's text and its own assertions on that one run (its processes import torch,
seconds of CPU each), and test_readme leaves it to that test. A run is (page, first command)."""

from __future__ import annotations

EXAMPLE = ("gpujob local configs/pytorch-mlp-ddp.yaml --package-path examples/mlp/trainer "
           "--module-name trainer.task")
README_RUN = ("README.md", f"{EXAMPLE} --job-dir out/mlp --job-id mlp_demo -- --epochs 1")
RESUMED = ("docs/local.md", f"{EXAMPLE} --job-dir out/mlp --job-id mlp_demo")
WORLD_OF_4 = ("docs/local.md", f"{EXAMPLE} --job-dir out/mlp4 -- --nproc-per-replica 2 "
              "--epochs 3")
DRILL = ("docs/local.md", f"{EXAMPLE} --job-dir out/drill --job-id mlp_drill --preempt-after "
         "'checkpoints/epoch-*.pt' --recover 1 -- --epochs 1000")

# each run -> the test that runs it (tests/e2e/MODULE::TEST), through
# test_readme.transcript_run_by_a_test(*NAME), NAME its name here
RUN_BY_TESTS = {
    README_RUN: "test_example_trainer.py::test_the_example_trains_an_epoch_on_two_cpu_processes",
    RESUMED: "test_example_trainer.py::test_a_run_given_more_epochs_resumes_from_its_last_"
             "checkpoint",
    WORLD_OF_4: "test_example_trainer.py::test_the_processes_of_all_replicas_are_one_world",
    DRILL: "test_preemption_drill.py::test_the_example_trainer_resumes_from_the_epoch_it_saved_"
           "on_sigterm",
}
